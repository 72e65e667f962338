// SPDX-License-Identifier: BSD-2-Clause
/*
 * The DIF verifier (scion/dif.h): decides whether a program may run in
 * probe context. What it proves, so the interpreter need not check it
 * again: every instruction is well formed, every table reference is in
 * range, every variable is used with its declared scope and kind, and
 * control only moves forward to an instruction of the program, ending
 * in RET. What stays for run time: addresses of loads, whether a store
 * may write where it does, division by zero, tuple depth, scratch
 * space, string bounds.
 *
 * Portable: the host tests and the fuzz target run it as the kernel does.
 */
#include <stdarg.h>
#include <scion/dif.h>
#include <scion/errno.h>
#include <scion/format.h>

static const struct {
	const char *name;
	enum dif_format format;
	uint8_t scope, kind;
} ops[DIF_OP_LIMIT] = {
#define DIF_OP_ROW(name_, fmt_, scope_, kind_) \
	[DIF_OP_##name_] = { #name_, fmt_, scope_, kind_ },
	DIF_INSTRUCTIONS(DIF_OP_ROW)
#undef DIF_OP_ROW
};

static const char *const builtin_names[DIF_VAR_LIMIT] = {
#define DIF_BUILTIN_ROW(name_, text_, type_) [DIF_VAR_##name_] = text_,
	DIF_BUILTINS(DIF_BUILTIN_ROW)
#undef DIF_BUILTIN_ROW
};

static const char *const subr_names[DIF_SUBR_LIMIT] = {
#define DIF_SUBR_ROW(name_, text_, min_, max_, type_, scratch_) [DIF_SUBR_##name_] = text_,
	DIF_SUBROUTINES(DIF_SUBR_ROW)
#undef DIF_SUBR_ROW
};

const char *dif_op_name(unsigned op)
{
	return op < DIF_OP_LIMIT ? ops[op].name : "?";
}

enum dif_format dif_op_format(unsigned op)
{
	return op < DIF_OP_LIMIT ? ops[op].format : DIF_FMT_NONE;
}

const char *dif_builtin_name(unsigned id)
{
	return id < DIF_VAR_LIMIT ? builtin_names[id] : "?";
}

const char *dif_subr_name(unsigned id)
{
	return id < DIF_SUBR_LIMIT ? subr_names[id] : "?";
}

/* Fields each format uses. */
enum { USES_RD = 1, USES_R1 = 2, USES_R2 = 4, USES_IMM = 8 };

static unsigned format_fields(enum dif_format f)
{
	switch (f) {
	case DIF_FMT_R3:   return USES_RD | USES_R1 | USES_R2;
	case DIF_FMT_R2:   return USES_RD | USES_R1;
	case DIF_FMT_LDI:  return USES_RD | USES_IMM;
	case DIF_FMT_TAB:  return USES_RD | USES_IMM;
	case DIF_FMT_BR:   return USES_R1 | USES_R2 | USES_IMM;
	case DIF_FMT_BA:   return USES_IMM;
	case DIF_FMT_LD:   return USES_RD | USES_R1 | USES_IMM;
	case DIF_FMT_VLD:  return USES_RD | USES_IMM;
	case DIF_FMT_VST:  return USES_R1 | USES_IMM;
	case DIF_FMT_BLT:  return USES_RD | USES_IMM;
	case DIF_FMT_PUSH: return USES_R1 | USES_IMM;
	case DIF_FMT_CALL: return USES_RD | USES_IMM;
	case DIF_FMT_RET:  return USES_R1;
	case DIF_FMT_ST:   return USES_R1 | USES_R2 | USES_IMM;
	case DIF_FMT_CHK:  return USES_R1 | USES_IMM;
	case DIF_FMT_POP:
	case DIF_FMT_NONE: return 0;
	}
	return 0;
}

/* One line into why, "instruction N: " first when pc >= 0; returns -EINVAL. */
static __attribute__((format(printf, 4, 5))) int refuse(char *why, size_t whylen, int pc,
							const char *fmt, ...)
{
	char detail[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	if (pc >= 0)
		snprintf(why, whylen, "instruction %d: %s", pc, detail);
	else
		snprintf(why, whylen, "%s", detail);
	return -EINVAL;
}

#define REFUSE(pc, ...) return refuse(why, whylen, (pc), __VA_ARGS__)

static int check_tables(const struct dif_prog *p, char *why, size_t whylen)
{
	if (!p->insns || p->ninsns == 0 || p->ninsns > DIF_MAX_INSNS)
		REFUSE(-1, "%u instructions: give 1 to %d", p->ninsns, DIF_MAX_INSNS);
	if (p->nints > DIF_MAX_INTS || (p->nints && !p->ints))
		REFUSE(-1, "%u constants: at most %d", p->nints, DIF_MAX_INTS);
	if (p->strtab_len > DIF_MAX_STRTAB || (p->strtab_len && !p->strtab))
		REFUSE(-1, "string table of %u bytes: at most %d", p->strtab_len, DIF_MAX_STRTAB);
	if (p->strtab_len && p->strtab[p->strtab_len - 1] != '\0')
		REFUSE(-1, "the string table (%u bytes) does not end in NUL", p->strtab_len);
	if (p->nvars > DIF_MAX_VARS || (p->nvars && !p->vars))
		REFUSE(-1, "%u variables: at most %d", p->nvars, DIF_MAX_VARS);
	for (uint32_t i = 0; i < p->nvars; i++) {
		const struct dif_var *v = &p->vars[i];
		if (v->scope < DIF_SCOPE_GLOBAL || v->scope > DIF_SCOPE_CLAUSE ||
		    v->kind > DIF_KIND_ASSOC || v->type < DIF_TYPE_INT || v->type > DIF_TYPE_BYREF)
			REFUSE(-1, "variable %u: bad scope, kind or type", i);
		if (v->type == DIF_TYPE_BYREF && (v->size < 1 || v->size > DIF_BYREF_MAX))
			REFUSE(-1, "variable %u: held by reference, it must be of 1 to %d bytes", i,
			       DIF_BYREF_MAX);
		if (v->kind == DIF_KIND_ASSOC ? (v->nkeys == 0 || v->nkeys > DIF_MAX_TUPLE) : v->nkeys)
			REFUSE(-1, "variable %u: %u keys", i, v->nkeys);
		if (v->kind == DIF_KIND_ASSOC && v->scope == DIF_SCOPE_CLAUSE)
			REFUSE(-1, "variable %u: clause-local associative arrays do not exist", i);
		if (v->type == DIF_TYPE_STRING ? (v->size < 1 || v->size > DIF_STRSIZE_MAX) :
		    v->type == DIF_TYPE_INT && v->size)
			REFUSE(-1, "variable %u: string size %u", i, v->size);
	}
	if (p->rtype < DIF_TYPE_INT || p->rtype > DIF_TYPE_BYREF)
		REFUSE(-1, "result type %u is not integer, string or object", p->rtype);
	if (p->rtype == DIF_TYPE_STRING ? (p->rsize < 1 || p->rsize > DIF_STRSIZE_MAX) :
	    p->rtype == DIF_TYPE_BYREF ? (p->rsize < 1 || p->rsize > DIF_BYREF_MAX) : p->rsize)
		REFUSE(-1, "%s result of %u bytes", p->rtype == DIF_TYPE_STRING ? "string" :
		       "object", p->rsize);
	if (p->strsize < 2 || p->strsize > DIF_STRSIZE_MAX)
		REFUSE(-1, "string size %u: give 2 to %d", p->strsize, DIF_STRSIZE_MAX);
	return 0;
}

/* A string table offset must start a string, whose NUL the table holds. */
static bool string_offset_ok(const struct dif_prog *p, int32_t off)
{
	return off >= 0 && (uint32_t)off < p->strtab_len && (off == 0 || p->strtab[off - 1] == '\0');
}

static int check_insn(const struct dif_prog *p, uint32_t pc, char *why, size_t whylen)
{
	const struct dif_insn *in = &p->insns[pc];
	int at = (int)pc;

	if (in->op >= DIF_OP_LIMIT)
		REFUSE(at, "unknown opcode %u", in->op);
	const char *name = ops[in->op].name;
	unsigned uses = format_fields(ops[in->op].format);
	if ((!(uses & USES_RD) && in->rd) || (!(uses & USES_R1) && in->r1) ||
	    (!(uses & USES_R2) && in->r2) || (!(uses & USES_IMM) && in->imm))
		REFUSE(at, "%s: a field it does not use is not zero", name);
	if (in->rd >= DIF_NREGS || in->r1 >= DIF_NREGS || in->r2 >= DIF_NREGS)
		REFUSE(at, "%s: register %u out of range (0..%d)", name,
		       in->rd >= DIF_NREGS ? in->rd : in->r1 >= DIF_NREGS ? in->r1 : in->r2,
		       DIF_NREGS - 1);
	if ((uses & USES_RD) && in->rd == 0)
		REFUSE(at, "%s: writes r0, which is always zero", name);

	switch (ops[in->op].format) {
	case DIF_FMT_BR:
	case DIF_FMT_BA:
		if (in->imm < 0)
			REFUSE(at, "%s: backward branch (offset %d)", name, in->imm);
		if ((uint64_t)pc + 1 + (uint64_t)in->imm >= p->ninsns)
			REFUSE(at, "%s: branch to %llu, past the last instruction %u", name,
			       (unsigned long long)pc + 1 + (unsigned)in->imm, p->ninsns - 1);
		break;
	case DIF_FMT_TAB:
		if (in->op == DIF_OP_LDC && (in->imm < 0 || (uint32_t)in->imm >= p->nints))
			REFUSE(at, "%s: constant %d of %u", name, in->imm, p->nints);
		if (in->op == DIF_OP_LDSTR && !string_offset_ok(p, in->imm))
			REFUSE(at, "%s: string offset %d does not start a string of the %u-byte table",
			       name, in->imm, p->strtab_len);
		break;
	case DIF_FMT_VLD:
	case DIF_FMT_VST: {
		if (in->imm < 0 || (uint32_t)in->imm >= p->nvars)
			REFUSE(at, "%s: variable %d of %u", name, in->imm, p->nvars);
		const struct dif_var *v = &p->vars[in->imm];
		if (v->scope != ops[in->op].scope || v->kind != ops[in->op].kind)
			REFUSE(at, "%s: variable %d has another scope or kind", name, in->imm);
		if (ops[in->op].format == DIF_FMT_VST && v->type == DIF_TYPE_BYREF)
			REFUSE(at, "%s: variable %d is held by reference: its memory is written, "
			       "not the variable", name, in->imm);
		break;
	}
	case DIF_FMT_CHK:
		if (in->imm <= 0)
			REFUSE(at, "%s: bound %d (an array has at least one element)", name, in->imm);
		break;
	case DIF_FMT_BLT:
		if (in->imm < 0 || in->imm >= DIF_VAR_LIMIT)
			REFUSE(at, "%s: unknown built-in variable %d", name, in->imm);
		break;
	case DIF_FMT_CALL:
		if (in->imm < 0 || in->imm >= DIF_SUBR_LIMIT)
			REFUSE(at, "%s: unknown subroutine %d", name, in->imm);
		break;
	case DIF_FMT_PUSH:
		if (in->imm < 0 || in->imm > DIF_STRSIZE_MAX)
			REFUSE(at, "%s: string size %d (0 for an integer, at most %d)", name,
			       in->imm, DIF_STRSIZE_MAX);
		break;
	default:
		break;
	}
	return 0;
}

int dif_verify(const struct dif_prog *p, char *why, size_t whylen)
{
	int err = check_tables(p, why, whylen);
	if (err)
		return err;
	for (uint32_t pc = 0; pc < p->ninsns; pc++)
		if ((err = check_insn(p, pc, why, whylen)))
			return err;
	/* Forward branches only: every path reaches the last instruction or an earlier RET. */
	if (p->insns[p->ninsns - 1].op != DIF_OP_RET)
		REFUSE((int)p->ninsns - 1, "the last instruction is %s, not RET",
		       ops[p->insns[p->ninsns - 1].op].name);
	return 0;
}
