// SPDX-License-Identifier: BSD-2-Clause
/*
 * The consistency sweep: every function of an ELF file analysed, and its
 * results checked against what any correct analysis must give, whatever
 * the code:
 *  - the blocks tile the function, each as many instructions as bytes / 4;
 *  - a block ends only where something ends it: at the function's end,
 *    before a branch target, after a block-ending transfer with no slot
 *    to run, at a transfer whose slot is split off, or after the last
 *    slot of a block-ending transfer (in the block, or the one before);
 *    no block-ending transfer sits inside a block but as its control;
 *  - every direct target inside the function starts a block, every
 *    successor is a block;
 *  - liveness is a fixed point: live_out is the successors' live_in plus
 *    what the way out needs, live_in is live_out carried back through the
 *    block; %g0 is never live; cfg_live_at, instruction by instruction,
 *    starts at the block's live_in, ends at its live_out, and what is
 *    live after one instruction is live before the next.
 * A function the analysis refuses (bytes that do not decode: data in
 * text, or a branch into an instruction) is counted, not failed. Under
 * ASan and UBSan nothing may crash. One result per file, with figures.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <scion/mm.h>
#include <arch/analysis.h>
#include "../../kernel/analysis/analysis_internal.h"
#include "sparc64_analysis_test.h"

struct figures {
	uint32_t functions, analysed, refused, inconsistent;
	uint64_t blocks, insns, split_slots, calls, tail_calls, unresolved, jump_tables;
	char first_problem[200];
};

static bool ends_here(const struct cfg_insn *in, uint32_t n, uint32_t i, const uint8_t *target)
{
	const struct insn_summary *s = &in[i].s;
	if (i + 1 == n || target[i + 1])
		return true;
	if (insn_class_ends_block(s->cls) && (!s->delay_slots || s->flags & INSN_SLOTS_TAKEN_ONLY ||
					      (i + 1 < n && target[i + 1])))
		return true;
	uint32_t t = cfg_slots_end_at(in, 0, i);
	return t != UINT32_MAX && insn_class_ends_block(in[t].s.cls);
}

/* The first inconsistency of f (whose instructions are in[0 .. n-1]), or NULL. */
static const char *inconsistent(const struct cfg_function *f, const struct cfg_insn *in, uint32_t n,
				const uint8_t *target, char *why, size_t size)
{
	uint64_t base = f->sym->addr;
	uint32_t first = 0;

	for (uint32_t b = 0; b < f->nblocks; b++) {
		const struct cfg_block *blk = &f->blocks[b];
		uint32_t last = first + blk->ninsns - 1;
		if (blk->start != base + 4ull * first || blk->end != blk->start + 4ull * blk->ninsns ||
		    !blk->ninsns || last >= n)
			return snprintf(why, size, "block %u does not tile", b), why;
		if (!ends_here(in, n, last, target))
			return snprintf(why, size, "block %u ends at +0x%x for no reason", b,
					4 * last + 4), why;
		uint32_t control = cfg_control_of(in, first, last);
		for (uint32_t i = first; i < last; i++)
			if (insn_class_ends_block(in[i].s.cls) && i != control)
				return snprintf(why, size, "a transfer inside block %u at +0x%x", b, 4 * i), why;
		uint32_t out = cfg_block_exit_live(blk);
		for (uint32_t k = 0; k < blk->nsucc; k++) {
			uint32_t s = f->succ[blk->first_succ + k];
			if (s >= f->nblocks)
				return snprintf(why, size, "block %u's successor %u", b, s), why;
			out |= f->blocks[s].live_in;
		}
		uint32_t live_in = cfg_block_live(in, 0, first, last, out, UINT32_MAX, NULL, NULL);
		if (out != blk->live_out || live_in != blk->live_in)
			return snprintf(why, size, "block %u's liveness is no fixed point", b), why;
		if ((blk->live_in | blk->live_out) & INSN_REG(INSN_G0))
			return snprintf(why, size, "%%g0 live in block %u", b), why;
		first = last + 1;
	}
	if (first != n)
		return snprintf(why, size, "blocks cover %u of %u instructions", first, n), why;
	/*
	 * cfg_live_at agrees with the blocks, and links each instruction to the
	 * next; but after a delayed call's slot the callee runs (its late
	 * effects) before what follows.
	 */
	for (uint32_t b = 0, i = 0; b < f->nblocks; b++) {
		const struct cfg_block *blk = &f->blocks[b];
		uint32_t prev_after = blk->live_in;
		bool callee = false;
		for (uint64_t a = blk->start; a < blk->end; a += 4, i++) {
			uint32_t before, after;
			if (cfg_live_at(a, &before, &after) || (before != prev_after && !callee))
				return snprintf(why, size, "cfg_live_at at +0x%llx disagrees",
						(unsigned long long)(a - base)), why;
			uint32_t t = cfg_slots_end_at(in, 0, i);
			callee = t != UINT32_MAX && (in[t].s.late_reads | in[t].s.late_writes);
			if (callee)	/* after the slot: the callee's reads, over what follows */
				if ((after & in[t].s.late_reads) != in[t].s.late_reads)
					return snprintf(why, size, "the callee's reads not live after "
							"the slot at +0x%llx", (unsigned long long)(a - base)), why;
			prev_after = after;
		}
		if (prev_after != blk->live_out && !callee)
			return snprintf(why, size, "cfg_live_at at block %u's end disagrees", b), why;
	}
	for (uint32_t i = 0; i < n; i++)
		if (target[i] && !cfg_block_at(f, base + 4ull * i))
			return snprintf(why, size, "target +0x%x starts no block", 4 * i), why;
	for (uint32_t i = 0; i < n; i++)
		if (target[i] && cfg_block_at(f, base + 4ull * i)->start != base + 4ull * i)
			return snprintf(why, size, "target +0x%x inside a block", 4 * i), why;
	return NULL;
}

static void sweep_function(const struct elf_func *fn, struct figures *fig)
{
	struct cfg_function f;
	struct ksym sym;
	char why[160];

	fig->functions++;
	if (fn->size % 4 || fn->addr % 4) {
		fig->refused++;
		return;
	}
	int err = analyse(fn, &f, &sym);
	if (err || f.status != CFG_OK) {
		fig->refused++;
		analysis_release(&f);
		return;
	}
	fig->analysed++;
	uint32_t n = fn->size / 4;
	struct cfg_insn *in = calloc(n, sizeof(*in));
	uint8_t *target = calloc(n + 1, 1);
	for (uint32_t i = 0; i < n; i++) {
		arch_insn_summarise(&in[i].s, fn->code + 4 * i, fn->size - 4 * i, fn->addr + 4 * i);
		in[i].offset = 4 * i;
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct insn_summary *s = &in[i].s;
		bool direct = s->cls == INSN_CLASS_JUMP || s->cls == INSN_CLASS_BRANCH;
		if (direct && s->target - fn->addr < fn->size)
			target[(s->target - fn->addr) / 4] = 1;
		if (insn_class_ends_block(s->cls) && s->delay_slots && i + 1 < n &&
		    (s->flags & INSN_SLOTS_TAKEN_ONLY || target[i + 1]))
			fig->split_slots++;
	}
	const char *bad = f.ninsns == n ? inconsistent(&f, in, n, target, why, sizeof(why)) :
		(snprintf(why, sizeof(why), "%u instructions of %u", f.ninsns, n), why);
	if (bad) {
		if (!fig->inconsistent++)
			snprintf(fig->first_problem, sizeof(fig->first_problem), "%s: %s", fn->name, bad);
	}
	fig->blocks += f.nblocks;
	fig->insns += f.ninsns;
	fig->calls += f.ncalls;
	fig->unresolved += f.nunresolved;
	fig->jump_tables += f.njump_tables;
	for (uint32_t b = 0; b < f.nblocks; b++)
		fig->tail_calls += (f.blocks[b].end_kind & CFG_END_TAIL_CALL) != 0;
	free(in);
	free(target);
	analysis_release(&f);
}

bool sweep_file(const char *path)
{
	struct elf_image img;
	struct figures fig = { 0 };
	char name[300];

	if (elf_load_funcs(path, &img))
		return false;
	current_image = &img;
	for (uint32_t i = 0; i < img.nfuncs; i++)
		sweep_function(&img.funcs[i], &fig);
	current_image = NULL;
	printf("sweep %s: %u functions, %u analysed, %u refused (bytes that do not decode or a branch "
	       "into an instruction), %llu blocks, %llu instructions, %llu split slots, %llu calls, "
	       "%llu tail calls, %llu jump tables, %llu unresolved jumps\n", path, fig.functions,
	       fig.analysed, fig.refused, (unsigned long long)fig.blocks, (unsigned long long)fig.insns,
	       (unsigned long long)fig.split_slots, (unsigned long long)fig.calls,
	       (unsigned long long)fig.tail_calls, (unsigned long long)fig.jump_tables,
	       (unsigned long long)fig.unresolved);
	snprintf(name, sizeof(name), "sweep/%s", path);
	result(name, fig.inconsistent == 0, "%u inconsistent functions; first %s", fig.inconsistent,
	       fig.first_problem);
	elf_free(&img);
	return true;
}
