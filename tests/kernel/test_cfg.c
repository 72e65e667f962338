// SPDX-License-Identifier: BSD-2-Clause
/*
 * In-kernel tests of the structural analysis: functions of known shape
 * (cfg_fixtures.S) give the expected blocks, edges, end kinds and live
 * registers, and the whole kernel analyses with consistent results.
 */
#include <scion/ktest.h>
#include <scion/cfg.h>
#include <scion/symtab.h>
#include <scion/string.h>
#include <arch/insn.h>
#include <arch/abi.h>
#include <arch/analysis.h>
#include <scion/sdt.h>

long cfg_fix_loop(long n);
int cfg_fix_switch(unsigned x);
int cfg_fix_tail(int x);
int cfg_fix_returns(int x);
void cfg_fix_indirect(void (*fn)(void));
long cfg_fix_call(long n);
extern char cfg_fix_switch_dispatch[], cfg_fix_call_site[], cfg_fix_call_add[];

#define R(n) INSN_REG(INSN_##n)

static const struct cfg_function *analysed(struct ktest_ctx *t, const void *fn)
{
	const struct cfg_function *f = cfg_function_at((uintptr_t)fn);
	if (!f || f->status != CFG_OK) {
		ktest_fail(t, __FILE__, __LINE__, "function at %p not analysed", fn);
		return NULL;
	}
	return f;
}

/* The successors of block b as a bit set of block indices. */
static uint32_t succ_set(const struct cfg_function *f, uint32_t b)
{
	uint32_t set = 0;
	for (uint32_t i = 0; i < f->blocks[b].nsucc; i++)
		set |= 1u << f->succ[f->blocks[b].first_succ + i];
	return set;
}

KTEST(cfg_loop_shape, 1)
{
	KT_ASSERT(t, cfg_fix_loop(4) == 10, "fixture computes %ld", cfg_fix_loop(4));
	const struct cfg_function *f = analysed(t, cfg_fix_loop);
	KT_ASSERT(t, f, "no analysis");
	KT_ASSERT(t, f->nblocks == 3 && f->ninsns == 7, "%u blocks, %u instructions", f->nblocks,
		  f->ninsns);
	KT_EXPECT(t, succ_set(f, 0) == 0x6, "entry -> {loop, return}: 0x%x", succ_set(f, 0));
	KT_EXPECT(t, succ_set(f, 1) == 0x6, "loop -> {loop, return}: 0x%x", succ_set(f, 1));
	KT_EXPECT(t, succ_set(f, 2) == 0 && (f->blocks[2].end_kind & CFG_END_RETURN), "return");
	/* Entry: n is live, rax is not (xor zeroes it), the flags are not (test sets them). */
	uint32_t in0 = f->blocks[0].live_in;
	KT_EXPECT(t, (in0 & R(RDI)) && !(in0 & R(RAX)) && !(in0 & INSN_STATUS_FLAGS),
		  "entry live-in 0x%x", in0);
	KT_EXPECT(t, (in0 & ABI_CALLEE_SAVED) == ABI_CALLEE_SAVED, "callee-saved live at entry");
	KT_EXPECT(t, f->blocks[1].live_in & R(RAX) && f->blocks[1].live_in & R(RDI),
		  "loop needs rax and rdi: 0x%x", f->blocks[1].live_in);
	KT_EXPECT(t, !(f->blocks[2].live_in & R(RDI)), "rdi live at the return");
}

KTEST(cfg_jump_table_resolved, 1)
{
	static const int expected[] = { 10, 20, 30, 40, -1, -1 };
	for (unsigned x = 0; x < 6; x++)
		KT_ASSERT(t, cfg_fix_switch(x) == expected[x], "switch(%u) = %d", x, cfg_fix_switch(x));
	const struct cfg_function *f = analysed(t, cfg_fix_switch);
	KT_ASSERT(t, f, "no analysis");
	KT_EXPECT(t, f->njump_tables == 1 && f->nunresolved == 0, "%u tables, %u unresolved",
		  f->njump_tables, f->nunresolved);
	const struct cfg_block *b = cfg_block_at(f, (uintptr_t)cfg_fix_switch_dispatch);
	KT_ASSERT(t, b && (b->end_kind & CFG_END_JUMP_TABLE), "dispatch block not a jump table");
	KT_EXPECT(t, b->nsucc == 4, "dispatch has %u successors, expected 4", b->nsucc);
	/* entry, dispatch, 4 cases, default */
	KT_EXPECT(t, f->nblocks == 7, "%u blocks, expected 7", f->nblocks);
	unsigned returns = 0;
	for (uint32_t i = 0; i < f->nblocks; i++)
		returns += (f->blocks[i].end_kind & CFG_END_RETURN) != 0;
	KT_EXPECT(t, returns == 5, "%u return blocks, expected 5", returns);
}

KTEST(cfg_tail_call_and_returns, 1)
{
	KT_ASSERT(t, cfg_fix_tail(5) == 5 && cfg_fix_tail(0) == 1, "tail fixture");
	const struct cfg_function *f = analysed(t, cfg_fix_tail);
	KT_ASSERT(t, f, "no analysis");
	KT_EXPECT(t, f->nblocks == 3, "%u blocks", f->nblocks);
	KT_EXPECT(t, f->blocks[1].end_kind & CFG_END_TAIL_CALL, "tail call not seen");
	KT_EXPECT(t, f->blocks[1].nsucc == 0, "a tail call has no local successor");
	/* A tail call keeps every general register live (the callee's arguments). */
	KT_EXPECT(t, (f->blocks[1].live_out & INSN_GPRS) == INSN_GPRS, "tail call live-out 0x%x",
		  f->blocks[1].live_out);

	KT_ASSERT(t, cfg_fix_returns(1) == 1 && cfg_fix_returns(2) == 2 && cfg_fix_returns(3) == 0,
		  "returns fixture");
	f = analysed(t, cfg_fix_returns);
	KT_ASSERT(t, f, "no analysis");
	unsigned returns = 0;
	for (uint32_t i = 0; i < f->nblocks; i++)
		returns += (f->blocks[i].end_kind & CFG_END_RETURN) != 0;
	KT_EXPECT(t, f->nblocks == 5 && returns == 3, "%u blocks, %u returns", f->nblocks, returns);
}

KTEST(cfg_unresolved_indirect_jump, 1)
{
	const struct cfg_function *f = analysed(t, cfg_fix_indirect);
	KT_ASSERT(t, f, "no analysis");
	KT_EXPECT(t, f->nunresolved == 1 && (f->blocks[0].end_kind & CFG_END_UNRESOLVED),
		  "jmp *%%rdi must be unanalysable");
	KT_EXPECT(t, f->blocks[0].live_in == INSN_ALL_REGS, "everything live before it: 0x%x",
		  f->blocks[0].live_in);
}

KTEST(cfg_calls_and_free_registers, 1)
{
	KT_ASSERT(t, cfg_fix_call(4) == 14, "call fixture computes %ld", cfg_fix_call(4));
	const struct cfg_function *f = analysed(t, cfg_fix_call);
	KT_ASSERT(t, f, "no analysis");
	KT_EXPECT(t, f->ncalls == 1 && f->calls[0].site == (uintptr_t)cfg_fix_call_site &&
		     f->calls[0].target == (uintptr_t)cfg_fix_loop, "call site not recorded");
	KT_EXPECT(t, f->nblocks == 1, "a call must not end a block: %u blocks", f->nblocks);

	uint32_t before, after;
	KT_ASSERT(t, cfg_live_at((uintptr_t)cfg_fix_call_site, &before, &after) == 0, "live_at");
	KT_EXPECT(t, (before & R(RDI)) && (before & R(RBX)), "before the call: rdi, rbx: 0x%x", before);
	KT_ASSERT(t, cfg_live_at((uintptr_t)cfg_fix_call_add, &before, &after) == 0, "live_at");
	KT_EXPECT(t, (before & R(RAX)) && (before & R(RBX)) && !(before & R(RCX)) &&
		     !(before & R(R11)) && !(before & INSN_STATUS_FLAGS),
		  "before the add: rax, rbx live; rcx, r11, flags free: 0x%x", before);
	KT_EXPECT(t, (after & R(RAX)) && !(after & R(RCX)) && !(after & INSN_STATUS_FLAGS),
		  "after the add: 0x%x", after);
	KT_EXPECT(t, cfg_live_at((uintptr_t)cfg_fix_call_add + 1, &before, &after) != 0,
		  "the middle of an instruction must be refused");
}

KTEST(cfg_whole_kernel_consistent, 1)
{
	struct cfg_totals tot;
	KT_ASSERT(t, cfg_analyse_kernel() == 0, "analysis failed");
	cfg_get_totals(&tot);
	KT_EXPECT(t, tot.failed == 0, "%u functions not analysed (see `analysis`)", tot.failed);
	KT_EXPECT(t, tot.functions == kernel_symtab.count, "%u of %u functions", tot.functions,
		  kernel_symtab.count);
	KT_EXPECT(t, tot.insns > 10000 && tot.jump_tables >= 1, "%llu instructions, %u tables",
		  (unsigned long long)tot.insns, tot.jump_tables);
	for (uint32_t i = 0; i < kernel_symtab.count; i++) {
		const struct ksym *s = &kernel_symtab.syms[i];
		const struct cfg_function *f = cfg_function_at(s->addr);
		if (!f || f->status != CFG_OK)
			continue;
		uint64_t at = s->addr;
		for (uint32_t b = 0; b < f->nblocks; b++) {
			const struct cfg_block *blk = &f->blocks[b];
			KT_ASSERT(t, blk->start == at && blk->end > blk->start && blk->ninsns > 0,
				  "%s: block %u does not follow on", ksym_name(&kernel_symtab, s), b);
			for (uint32_t k = 0; k < blk->nsucc; k++)
				KT_ASSERT(t, f->succ[blk->first_succ + k] < f->nblocks,
					  "%s: bad successor", ksym_name(&kernel_symtab, s));
			at = blk->end;
		}
		KT_ASSERT(t, at == s->addr + s->size, "%s: blocks do not cover the function",
			  ksym_name(&kernel_symtab, s));
	}
}

/* As KT_ASSERT, in a function that says whether the test goes on. */
#define KEPT_CHECK(cond, ...) do { \
	if (!(cond)) { \
		ktest_fail(t, __FILE__, __LINE__, __VA_ARGS__); \
		return false; \
	} \
} while (0)

/* Block blk of f: what f kept per instruction against a fresh decode; false on a mismatch. */
static bool kept_block_matches(struct ktest_ctx *t, const struct cfg_function *f,
			       const struct cfg_block *blk, uint32_t *checked)
{
	const char *name = ksym_name(&kernel_symtab, f->sym);
	uint32_t kb, ka, db, da;
	bool known;

	for (uint32_t k = 0; k < blk->ninsns; k++) {
		const struct cfg_insn_live *in = &f->insns[blk->first_insn + k];
		uint64_t at = f->sym->addr + in->offset;
		uint64_t next = k + 1 < blk->ninsns ? f->sym->addr + in[1].offset : blk->end;
		KEPT_CHECK(cfg_insn_at(f, blk, at, &known) == in && known, "%s+%u: not found",
			   name, in->offset);
		KEPT_CHECK(cfg_live_at(at, &kb, &ka) == 0 && cfg_live_at_decoded(at, &db, &da) == 0,
			   "%s+%u: no live sets", name, in->offset);
		KEPT_CHECK(kb == db && ka == da, "%s+%u: kept 0x%x/0x%x, decoded 0x%x/0x%x", name,
			   in->offset, kb, ka, db, da);
		/* Inside an instruction: refused both ways (decoded: once, it is slow). */
		for (uint64_t mid = at + 1; mid < next; mid++)
			KEPT_CHECK(!cfg_insn_at(f, blk, mid, &known) &&
				   cfg_live_at(mid, &kb, &ka) &&
				   (mid > at + 1 || cfg_live_at_decoded(mid, &db, &da)),
				   "%s+%llu: inside an instruction, yet found", name,
				   (unsigned long long)(mid - f->sym->addr));
		(*checked)++;
	}
	return true;
}

/*
 * What the analysis keeps per instruction (cfg_function.insns, which
 * cfg_live_at and the probe checks read) is what decoding the block
 * afresh gives: the same instruction starts and the same live sets, for
 * every instruction of every fourth function (all of them would take
 * seconds: the fresh path decodes a block per question).
 */
KTEST(cfg_kept_insns_match_decoded, 1)
{
	uint32_t checked = 0;

	KT_ASSERT(t, cfg_analyse_kernel() == 0, "analysis failed");
	for (uint32_t i = 0; i < kernel_symtab.count; i += 4) {
		const struct ksym *s = &kernel_symtab.syms[i];
		const struct cfg_function *f = cfg_function_at(s->addr);
		if (!f || f->sym != s || f->status != CFG_OK)
			continue;
		KT_ASSERT(t, f->insns, "%s: no instructions kept", ksym_name(&kernel_symtab, s));
		for (uint32_t b = 0; b < f->nblocks; b++)
			if (!kept_block_matches(t, f, &f->blocks[b], &checked))
				return;
	}
	KT_EXPECT(t, checked > 5000, "only %u instructions compared", checked);
}

/*
 * An sdt site's no-op reads its arguments' registers (ARCH_SDT_SITE_READS):
 * live before every site the analysis can read, kept and decoded afresh
 * alike, so that a patch upstream of a site (another site's, say) puts
 * them back. lockstat's spin-spin site is followed by spin-acquire with
 * arg0 left in its register: without this, a spin-spin consumer's call
 * would leave garbage there for spin-acquire's.
 */
KTEST(cfg_sdt_sites_read_their_arguments, 1)
{
	unsigned checked = 0;

	KT_ASSERT(t, cfg_analyse_kernel() == 0, "analysis failed");
	LINKER_TABLE_FOREACH(struct sdt_site, sdt_sites, s) {
		const struct cfg_function *f = cfg_function_at(s->addr);
		if (!f || f->status != CFG_OK)
			continue;
		uint32_t kept, decoded, after;
		KT_ASSERT(t, cfg_live_at(s->addr, &kept, &after) == 0 &&
			  cfg_live_at_decoded(s->addr, &decoded, &after) == 0,
			  "%s: no live sets at its site", s->name);
		KT_EXPECT(t, (kept & ARCH_SDT_SITE_READS) == ARCH_SDT_SITE_READS &&
			  (decoded & ARCH_SDT_SITE_READS) == ARCH_SDT_SITE_READS,
			  "%s at %s: live before 0x%x (decoded 0x%x) lacks its argument registers",
			  s->name, ksym_name(&kernel_symtab, f->sym), kept, decoded);
		checked++;
	}
	KT_EXPECT(t, checked >= 20, "only %u sdt sites checked", checked);
}
