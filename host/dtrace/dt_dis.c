// SPDX-License-Identifier: BSD-2-Clause
/*
 * A generated object as readable text (`dtc -S`): per clause its probes,
 * predicate and kernel actions with their programs, each program
 * disassembled one instruction a line with its tables resolved:
 *
 *	clause 0: BEGIN (record, 24 bytes)
 *	  RECORD prog 0
 *	prog 0 (int):
 *	  0: ldb     r1, arg0
 *	  1: ret     r1
 *
 * For people reading what the compiler made; nothing parses it.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dt_impl.h"

struct text {
	char *p;
	size_t len, cap;
	bool nomem;
};

static DT_PRINTF_LIKE(2, 3) void say(struct text *t, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	size_t len = n < 0 ? 0 : (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1;
	if (t->nomem)
		return;
	if (t->len + len + 1 > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 4096;
		while (t->len + len + 1 > cap)
			cap *= 2;
		char *p = realloc(t->p, cap);
		if (!p) {
			t->nomem = true;
			return;
		}
		t->p = p;
		t->cap = cap;
	}
	memcpy(t->p + t->len, line, len + 1);
	t->len += len;
}

static const char *const scope_names[] = { "?", "global", "self", "this" };
static const char *const action_names[DOF_ACT_LIMIT] = {
	[DOF_ACT_EXPR] = "EXPR", [DOF_ACT_RECORD] = "RECORD", [DOF_ACT_STACK] = "STACK",
	[DOF_ACT_EXIT] = "EXIT", [DOF_ACT_SPECULATE] = "SPECULATE", [DOF_ACT_COMMIT] = "COMMIT",
	[DOF_ACT_DISCARD] = "DISCARD", [DOF_ACT_AGGREGATE] = "AGGREGATE",
	[DOF_ACT_CHILL] = "CHILL", [DOF_ACT_RAISE] = "RAISE", [DOF_ACT_PANIC] = "PANIC",
	[DOF_ACT_BREAKPOINT] = "BREAKPOINT", [DOF_ACT_STOP] = "STOP", [DOF_ACT_PAUSE] = "PAUSE",
};

static void lower(char *dst, const char *src, size_t size)
{
	size_t i = 0;
	for (; src[i] && i + 1 < size; i++)
		dst[i] = (char)tolower((unsigned char)src[i]);
	dst[i] = '\0';
}

static void insn(struct text *t, const struct dif_prog *p, uint32_t pc)
{
	const struct dif_insn *in = &p->insns[pc];
	char op[16];
	lower(op, dif_op_name(in->op), sizeof(op));
	say(t, "  %3u: %-6s", pc, op);
	switch (dif_op_format(in->op)) {
	case DIF_FMT_R3: say(t, "r%u, r%u, r%u", in->rd, in->r1, in->r2); break;
	case DIF_FMT_R2: say(t, "r%u, r%u", in->rd, in->r1); break;
	case DIF_FMT_LDI: say(t, "r%u, %d", in->rd, in->imm); break;
	case DIF_FMT_TAB:
		if (in->op == DIF_OP_LDC)
			say(t, "r%u, %#llx", in->rd, (unsigned long long)p->ints[in->imm]);
		else
			say(t, "r%u, \"%.40s\"", in->rd, p->strtab + in->imm);
		break;
	case DIF_FMT_BR: say(t, "r%u, r%u, %u", in->r1, in->r2, pc + 1 + (uint32_t)in->imm); break;
	case DIF_FMT_BA: say(t, "%u", pc + 1 + (uint32_t)in->imm); break;
	case DIF_FMT_LD: say(t, "r%u, [r%u%+d]", in->rd, in->r1, in->imm); break;
	case DIF_FMT_ST: say(t, "r%u, [r%u%+d]", in->r1, in->r2, in->imm); break;
	case DIF_FMT_CHK: say(t, "r%u, %d", in->r1, in->imm); break;
	case DIF_FMT_VLD:
	case DIF_FMT_VST: {
		const struct dif_var *v = &p->vars[in->imm];
		if (dif_op_format(in->op) == DIF_FMT_VLD)
			say(t, "r%u, %s#%u", in->rd, scope_names[v->scope], v->id);
		else
			say(t, "%s#%u, r%u", scope_names[v->scope], v->id, in->r1);
		break;
	}
	case DIF_FMT_BLT: say(t, "r%u, %s", in->rd, dif_builtin_name((unsigned)in->imm)); break;
	case DIF_FMT_PUSH: say(t, "r%u, %d", in->r1, in->imm); break;
	case DIF_FMT_CALL: say(t, "r%u, %s", in->rd, dif_subr_name((unsigned)in->imm)); break;
	case DIF_FMT_RET: say(t, "r%u", in->r1); break;
	case DIF_FMT_POP:
	case DIF_FMT_NONE: break;
	}
	say(t, "\n");
}

char *dt_object_disasm(const struct dt_object *obj)
{
	struct text t = { 0 };
	for (int i = 0; i < obj->nclauses; i++) {
		const struct dt_clause_code *cc = &obj->clauses[i];
		say(&t, "clause %d:", cc->clause->index);
		for (const struct dt_probedesc *d = cc->clause->probes; d; d = d->next)
			say(&t, " %s", d->text);
		if (cc->flags & DOF_CLAUSE_RECORD)
			say(&t, " (record, %u bytes)", cc->size);
		say(&t, "\n");
		if (cc->predicate != DOF_NONE)
			say(&t, "  predicate prog %u\n", cc->predicate);
		for (int k = 0; k < cc->nkactions; k++) {
			const struct dt_kaction *a = &cc->kactions[k];
			say(&t, "  %s", action_names[a->kind]);
			if (a->kind == DOF_ACT_STACK || a->kind == DOF_ACT_AGGREGATE)
				say(&t, " %s %u", a->kind == DOF_ACT_STACK ? "frames" : "agg", a->arg);
			for (int j = 0; j < a->nprogs; j++)
				say(&t, "%s %u", j ? "," : " prog", a->progs[j]);
			say(&t, "\n");
		}
	}
	for (uint32_t i = 0; i < obj->nprogs; i++) {
		const struct dif_prog *p = &obj->progs[i];
		say(&t, "prog %u (%s):\n", i, p->rtype == DIF_TYPE_STRING ? "string" : "int");
		for (uint32_t pc = 0; pc < p->ninsns; pc++)
			insn(&t, p, pc);
	}
	if (t.nomem) {
		free(t.p);
		return NULL;
	}
	return t.p ? t.p : calloc(1, 1);
}
