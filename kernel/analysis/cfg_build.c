// SPDX-License-Identifier: BSD-2-Clause
/*
 * Basic blocks, edges, call sites and jump tables of one function.
 *
 * The function's bytes are decoded once, front to back (compiler output
 * keeps no data in text), into a compact instruction list with a mark per
 * byte: instruction start, block leader. Leaders are the entry, every
 * branch target inside the function, every jump-table target and every
 * instruction after one that ends a block; calls do not end blocks (their
 * sites are recorded apart). A branch into the middle of an instruction,
 * or bytes that do not decode, fail the function with the address.
 */
#include <scion/cfg.h>
#include <scion/mm.h>
#include <scion/string.h>
#include <scion/errno.h>
#include <arch/insn.h>
#include <arch/abi.h>
#include "analysis_internal.h"

#define MARK_START  0x1
#define MARK_LEADER 0x2
#define SLICE       16	/* instructions a jump-table slice looks back over */
#define MAX_TABLES  64	/* jump tables per function; more stay unresolved */

extern char __rodata_start[], __rodata_end[];

struct pending_table {
	uint32_t insn;		/* index of the indirect jump */
	struct insn_jump_table jt;
};

struct work {
	struct cfg_function *f;
	const uint8_t *code;
	uint64_t base, size;
	uint8_t *marks;			/* per byte */
	struct cfg_insn *insns;
	uint32_t ninsns;
	struct pending_table tables[MAX_TABLES];
	uint32_t ntables;
};

static bool ends_block(uint8_t cf)
{
	switch (cf) {
	case INSN_CF_NONE: case INSN_CF_CALL: case INSN_CF_CALL_INDIRECT: case INSN_CF_CALL_FAR:
	case INSN_CF_SYSCALL: case INSN_CF_INT: case INSN_CF_INT3: case INSN_CF_HLT:
		return false;
	default:
		return true;
	}
}

static bool inside(const struct work *w, uint64_t addr)
{
	return addr >= w->base && addr - w->base < w->size;
}

static int fail(struct work *w, enum cfg_status status, uint64_t addr)
{
	w->f->status = (uint8_t)status;
	w->f->problem_addr = addr;
	return -EINVAL;
}

/* Effects as the analysis sees them: calls by the ABI. */
void cfg_summarise(const void *insn, struct cfg_insn *ci, uint32_t off)
{
	const struct insn *in = insn;

	ci->offset = off;
	ci->length = in->length;
	ci->cf = in->cf;
	ci->target = in->target;
	ci->reads = in->regs_read;
	ci->writes = in->regs_written;
	if (in->cf == INSN_CF_CALL || in->cf == INSN_CF_CALL_INDIRECT || in->cf == INSN_CF_CALL_FAR) {
		ci->reads |= ABI_CALL_READS;
		ci->writes |= ABI_CALLER_SAVED;
	}
}

/* Check a jump table's entries; on success they become leaders and targets. */
static bool accept_table(struct work *w, struct pending_table *pt)
{
	const struct insn_jump_table *jt = &pt->jt;
	uint64_t bytes = (uint64_t)jt->entries * jt->entry_size;

	if (jt->relative || jt->entry_size != 8 || jt->entries > 4096 ||
	    jt->table < (uintptr_t)__rodata_start || jt->table + bytes > (uintptr_t)__rodata_end)
		return false;
	const uint64_t *entry = (const uint64_t *)(uintptr_t)jt->table;
	for (unsigned i = 0; i < jt->entries; i++)
		if (!inside(w, entry[i]) || !(w->marks[entry[i] - w->base] & MARK_START))
			return false;
	for (unsigned i = 0; i < jt->entries; i++)
		w->marks[entry[i] - w->base] |= MARK_LEADER;
	return true;
}

/* Decode the SLICE instructions before insns[n] again, for a jump-table slice. */
static unsigned recent_instructions(const struct work *w, uint32_t n, struct insn *before)
{
	unsigned k = n < SLICE ? n : SLICE;
	for (unsigned i = 0; i < k; i++) {
		const struct cfg_insn *ci = &w->insns[n - k + i];
		insn_decode(&before[i], w->code + ci->offset, w->size - ci->offset,
			    w->base + ci->offset);
	}
	return k;
}

static int decode_all(struct work *w)
{
	struct insn in;
	uint32_t n = 0;

	for (uint64_t off = 0; off < w->size; off += in.length, n++) {
		insn_decode(&in, w->code + off, w->size - off, w->base + off);
		if (in.status != INSN_OK)
			return fail(w, CFG_UNDECODABLE, w->base + off);
		w->marks[off] |= MARK_START;
		cfg_summarise(&in, &w->insns[n], (uint32_t)off);
		if (in.cf == INSN_CF_JMP_INDIRECT && w->ntables < MAX_TABLES) {
			struct insn before[SLICE];
			unsigned k = recent_instructions(w, n, before);
			struct pending_table *pt = &w->tables[w->ntables];
			if (insn_find_jump_table(&in, before, k, &pt->jt)) {
				pt->insn = n;
				w->ntables++;
			}
		}
	}
	w->ninsns = n;
	return 0;
}

static int mark_leaders(struct work *w)
{
	w->marks[0] |= MARK_LEADER;
	for (uint32_t i = 0; i < w->ninsns; i++) {
		const struct cfg_insn *ci = &w->insns[i];
		uint64_t next = ci->offset + ci->length;
		bool direct = ci->cf == INSN_CF_JMP || ci->cf == INSN_CF_JCC ||
			      ci->cf == INSN_CF_LOOP || ci->cf == INSN_CF_XBEGIN;
		if (direct && inside(w, ci->target)) {
			if (!(w->marks[ci->target - w->base] & MARK_START))
				return fail(w, CFG_BAD_TARGET, w->base + ci->offset);
			w->marks[ci->target - w->base] |= MARK_LEADER;
		}
		if (ends_block(ci->cf) && next < w->size)
			w->marks[next] |= MARK_LEADER;
	}
	uint32_t kept = 0;
	for (uint32_t t = 0; t < w->ntables; t++)
		if (accept_table(w, &w->tables[t]))
			w->tables[kept++] = w->tables[t];
	w->ntables = kept;
	return 0;
}

static uint32_t block_of(const struct cfg_function *f, uint64_t addr)
{
	return (uint32_t)(cfg_block_at(f, addr) - f->blocks);
}

static const struct pending_table *table_for(const struct work *w, uint32_t insn)
{
	for (uint32_t t = 0; t < w->ntables; t++)
		if (w->tables[t].insn == insn)
			return &w->tables[t];
	return NULL;
}

static void add_succ(struct cfg_function *f, struct cfg_block *b, uint32_t target)
{
	for (uint32_t i = 0; i < b->nsucc; i++)
		if (f->succ[b->first_succ + i] == target)
			return;
	f->succ[f->nsucc++] = target;
	b->nsucc++;
}

/* The edges and end kind of block b, whose last instruction is insns[last]. */
static void connect(struct work *w, struct cfg_block *b, uint32_t last)
{
	struct cfg_function *f = w->f;
	const struct cfg_insn *ci = &w->insns[last];
	uint64_t next = w->base + ci->offset + ci->length;

	b->first_succ = f->nsucc;
	b->nsucc = 0;
	if (insn_cf_falls_through(ci->cf)) {
		if (inside(w, next))
			add_succ(f, b, block_of(f, next));
		else
			b->end_kind |= CFG_END_FALLS_OUT;
	}
	switch (ci->cf) {
	case INSN_CF_JMP: case INSN_CF_JCC: case INSN_CF_LOOP: case INSN_CF_XBEGIN:
		if (inside(w, ci->target))
			add_succ(f, b, block_of(f, ci->target));
		else
			b->end_kind |= CFG_END_TAIL_CALL;
		break;
	case INSN_CF_JMP_INDIRECT: {
		const struct pending_table *pt = table_for(w, last);
		if (!pt) {
			b->end_kind |= CFG_END_UNRESOLVED;
			f->nunresolved++;
			break;
		}
		b->end_kind |= CFG_END_JUMP_TABLE;
		f->njump_tables++;
		const uint64_t *entry = (const uint64_t *)(uintptr_t)pt->jt.table;
		for (unsigned i = 0; i < pt->jt.entries; i++)
			add_succ(f, b, block_of(f, entry[i]));
		break;
	}
	case INSN_CF_RET:
		b->end_kind |= CFG_END_RETURN;
		break;
	case INSN_CF_JMP_FAR: case INSN_CF_RET_FAR:
		b->end_kind |= CFG_END_UNRESOLVED;
		break;
	case INSN_CF_IRET: case INSN_CF_SYSRET: case INSN_CF_UD:
		b->end_kind |= CFG_END_STOP;
		break;
	default:
		break;
	}
}

/* Blocks from the leader marks, then edges, call sites and per-block use/def. */
static int build_blocks(struct work *w, struct cfg_block_effects *effects)
{
	struct cfg_function *f = w->f;
	uint32_t nblocks = 0, ncalls = 0, max_succ = 0;

	for (uint32_t i = 0; i < w->ninsns; i++) {
		if (w->marks[w->insns[i].offset] & MARK_LEADER)
			nblocks++;
		if (w->insns[i].cf == INSN_CF_CALL || w->insns[i].cf == INSN_CF_CALL_INDIRECT)
			ncalls++;
	}
	for (uint32_t t = 0; t < w->ntables; t++)
		max_succ += w->tables[t].jt.entries;
	max_succ += 2 * nblocks;
	f->blocks = kzalloc(nblocks * sizeof(*f->blocks));
	f->succ = kzalloc(max_succ * sizeof(*f->succ));
	f->calls = ncalls ? kzalloc(ncalls * sizeof(*f->calls)) : NULL;
	if (!f->blocks || !f->succ || (ncalls && !f->calls))
		return fail(w, CFG_NO_MEMORY, w->base);

	uint32_t b = UINT32_MAX;
	for (uint32_t i = 0; i < w->ninsns; i++) {
		const struct cfg_insn *ci = &w->insns[i];
		if (w->marks[ci->offset] & MARK_LEADER) {
			b++;
			f->blocks[b].start = w->base + ci->offset;
		}
		f->blocks[b].end = w->base + ci->offset + ci->length;
		f->blocks[b].ninsns++;
		if (ci->cf == INSN_CF_CALL || ci->cf == INSN_CF_CALL_INDIRECT)
			f->calls[f->ncalls++] = (struct cfg_call){
				w->base + ci->offset, ci->cf == INSN_CF_CALL ? ci->target : 0 };
		effects_add(&effects[b], ci);
	}
	f->nblocks = nblocks;
	f->ninsns = w->ninsns;
	uint32_t first = 0;
	for (b = 0; b < nblocks; b++) {
		uint32_t last = first + f->blocks[b].ninsns - 1;
		connect(w, &f->blocks[b], last);
		first = last + 1;
	}
	return 0;
}

int cfg_build_function(struct cfg_function *f, const uint8_t *code)
{
	struct work *w = kzalloc(sizeof(*w));
	struct cfg_block_effects *effects = NULL;
	int err = -ENOMEM;

	if (!w)
		return fail_nomem(f);
	w->f = f;
	w->code = code;
	w->base = f->sym->addr;
	w->size = f->sym->size;
	/* An instruction is at least one byte: size bounds every count. */
	w->marks = kzalloc(w->size);
	w->insns = kmalloc(w->size * sizeof(*w->insns));
	if (!w->marks || !w->insns)
		goto out;
	err = decode_all(w);
	if (!err)
		err = mark_leaders(w);
	if (err)
		goto out;
	uint32_t nleaders = 0;
	for (uint32_t i = 0; i < w->ninsns; i++)
		nleaders += (w->marks[w->insns[i].offset] & MARK_LEADER) != 0;
	effects = kzalloc(nleaders * sizeof(*effects));
	err = effects ? build_blocks(w, effects) : -ENOMEM;
	if (!err)
		cfg_solve_liveness(f, effects);
out:
	if (err == -ENOMEM && f->status == CFG_OK)
		fail_nomem(f);
	kfree(effects);
	kfree(w->insns);
	kfree(w->marks);
	kfree(w);
	return err;
}
