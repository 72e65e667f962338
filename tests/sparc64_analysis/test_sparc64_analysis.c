// SPDX-License-Identifier: BSD-2-Clause
/*
 * Host tests of the structural analysis on SPARC V9: the portable code
 * (kernel/analysis/cfg_build.c, liveness.c) over the sparc64 backend
 * (arch/sparc64/include/arch/insn_summary.h, analysis.h, abi.h,
 * insn_summary.c) and the decoder, built for the host whatever ARCH is.
 *
 *   sparc64-analysis-tests CASES.elf [--sweep FILE...]
 *
 * CASES.elf holds the hand-written functions of cases.S, linked; each
 * must give the blocks (offsets), successors, end kinds and live-in sets
 * written below, and the registers live around chosen instructions
 * (cfg_live_at, whose complement is the free registers there). --sweep
 * then checks every function of each FILE (sweep.c). One line per check,
 * `ok NAME` or `FAIL NAME: why`; the last line is `N passed, M failed`.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <scion/mm.h>
#include <scion/sdt.h>
#include <arch/analysis.h>
#include "../../kernel/analysis/analysis_internal.h"
#include "sparc64_analysis_test.h"

/* ---- The kernel services the analysis uses, on the host. ---- */

void *kmalloc(size_t size) { return malloc(size ? size : 1); }
void *kzalloc(size_t size) { return calloc(1, size ? size : 1); }
void kfree(void *p) { free(p); }
const struct elf_image *current_image;

/* The images analysed here are read as code only: none has its sdt sites' table loaded. */
bool sdt_site_at(uint64_t addr)
{
	(void)addr;
	return false;
}

/* Jump tables: anywhere in the image's sections (the kernel's analysis.c bounds them). */
const uint8_t *analysis_table(uint64_t addr, uint64_t len)
{
	return current_image ? elf_bytes(current_image, addr, len) : NULL;
}

static const struct elf_func *current_fn;
static const struct cfg_function *current_cfg;

const uint8_t *analysis_text(uint64_t addr)
{
	return current_fn->code + (addr - current_fn->addr);
}

const struct cfg_function *cfg_function_at(uint64_t addr)
{
	if (!current_cfg || addr < current_fn->addr || addr - current_fn->addr >= current_fn->size)
		return NULL;
	return current_cfg;
}

int analyse(const struct elf_func *fn, struct cfg_function *f, struct ksym *sym)
{
	*sym = (struct ksym){ .addr = fn->addr, .size = fn->size };
	memset(f, 0, sizeof(*f));
	f->sym = sym;
	current_fn = fn;
	current_cfg = f;
	return cfg_build_function(f, fn->code);
}

void analysis_release(struct cfg_function *f)
{
	kfree(f->blocks);
	kfree(f->succ);
	kfree(f->calls);
	kfree(f->insns);
	current_cfg = NULL;
}

static unsigned passed, failed;

void result(const char *name, bool ok, const char *fmt, ...)
{
	if (ok) {
		passed++;
		printf("ok %s\n", name);
		return;
	}
	failed++;
	printf("FAIL %s: ", name);
	va_list ap;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* ---- The fixtures' expected results. ---- */

#define R(n)  INSN_REG(INSN_##n)
#define GR    ABI_RESERVED_GLOBALS		/* g2 g3 g6 g7: live everywhere */
#define LI    (INSN_LOCALS | INSN_INS)		/* the caller's window */
#define RET   ABI_LIVE_AT_RETURN
#define NONE  0xffu
#define MAXB  6

struct block_expect {
	uint32_t start, end;		/* offsets */
	uint8_t succ[5];		/* block indices, NONE-terminated */
	uint8_t end_kind;
	uint32_t live_in;
};

struct point_expect {
	uint32_t off;
	uint32_t live_before, live_after;
	uint32_t free_before;		/* spelled out where it matters; 0: not checked apart */
};

struct case_expect {
	const char *fn;
	uint32_t nblocks, ncalls;
	struct block_expect b[MAXB];
	struct point_expect p[3];	/* registers live around instructions */
	uint32_t npoints;
};

#define S(...) { __VA_ARGS__, NONE }
#define S0     { NONE }
static const struct case_expect cases[] = {
	{ "fix_leaf", 1, 0, {
		{ 0, 8, S0, CFG_END_RETURN, R(O0) | R(O1) | R(O7) | RET } },
	  { { 4, R(O0) | R(O1) | RET, RET, ABI_VOLATILE_GLOBALS | R(O4) | R(O5) | R(O7) } }, 1 },
	{ "fix_branch", 3, 0, {
		{ 0, 12, S(1, 2), 0, R(O0) | R(O4) | R(O5) | R(O7) | (RET & ~R(O0)) },
		{ 12, 16, S(2), 0, R(O5) | R(O7) | (RET & ~R(O0)) },
		{ 16, 24, S0, CFG_END_RETURN, R(G1) | R(O7) | (RET & ~R(O0)) } },
	  { { 8, R(O4) | R(O5) | R(O7) | (RET & ~R(O0)), R(G1) | R(O5) | R(O7) | (RET & ~R(O0)),
	      ABI_VOLATILE_GLOBALS | R(O0) } }, 1 },
	/* Exact annulment: g1 from before the branch is live (the untaken path reads it). */
	{ "fix_annul", 4, 0, {
		{ 0, 4, S(1, 2), 0, R(O0) | R(O4) | R(G1) | R(O7) | (RET & ~R(O0)) },
		{ 4, 8, S(3), 0, R(O4) | R(O7) | (RET & ~R(O0)) },
		{ 8, 12, S(3), 0, R(G1) | R(O7) | (RET & ~R(O0)) },
		{ 12, 20, S0, CFG_END_RETURN, R(G1) | R(O7) | (RET & ~R(O0)) } }, { { 0, 0, 0, 0 } }, 0 },
	/* ba,a's slot never runs: o0 reaches the return unchanged, and the slot is unreachable. */
	{ "fix_ba_a", 3, 0, {
		{ 0, 4, S(2), 0, R(O7) | RET },
		{ 4, 8, S(2), 0, R(O7) | (RET & ~R(O0)) },
		{ 8, 16, S0, CFG_END_RETURN, R(O7) | RET } }, { { 0, 0, 0, 0 } }, 0 },
	{ "fix_bn_a", 3, 0, {
		{ 0, 4, S(2), 0, R(O7) | RET },
		{ 4, 8, S(2), 0, R(O7) | (RET & ~R(O0)) },
		{ 8, 16, S0, CFG_END_RETURN, R(O7) | RET } }, { { 0, 0, 0, 0 } }, 0 },
	/*
	 * save; call with the argument in its slot; ret; restore. At the call,
	 * o0 is free (the slot sets it) but o1-o5 are not (the callee may read
	 * them); after it, in the callee's window, locals are free.
	 */
	{ "fix_nonleaf", 1, 1, {
		{ 0, 24, S0, CFG_END_RETURN, GR | R(O0) | R(O1) | R(O2) | R(O3) | R(O6) | R(O7) | LI } },
	  { { 4, GR | R(I0) | (ABI_ARGUMENT_REGS & ~R(O0)) | R(O6) | R(I1) | R(I2) | R(I3) | R(I6) | R(I7),
	      GR | R(I0) | (ABI_ARGUMENT_REGS & ~R(O0)) | R(O6) | R(I1) | R(I2) | R(I3) | R(I6) | R(I7),
	      ABI_VOLATILE_GLOBALS | R(O0) | R(O7) | INSN_LOCALS | R(I4) | R(I5) },
	    { 8, GR | R(I0) | (ABI_ARGUMENT_REGS & ~R(O0)) | R(O6) | R(I1) | R(I2) | R(I3) | R(I6) | R(I7),
	      GR | ABI_ARGUMENT_REGS | R(O6) | R(I0) | R(I1) | R(I2) | R(I3) | R(I6) | R(I7),
	      ABI_VOLATILE_GLOBALS | R(O0) | R(O7) | INSN_LOCALS | R(I4) | R(I5) },
	    { 12, GR | R(O0) | R(O6) | R(I0) | R(I1) | R(I2) | R(I3) | R(I6) | R(I7),
	      GR | R(O6) | R(I0) | R(I1) | R(I2) | R(I3) | R(I6) | R(I7),
	      ABI_VOLATILE_GLOBALS | (INSN_OUTS & ~R(O0) & ~R(O6)) | INSN_LOCALS | R(I4) | R(I5) } }, 3 },
	/* return restores then jumps: its slot runs in the caller's window. */
	{ "fix_return", 3, 0, {
		{ 0, 16, S(1, 2), 0, GR | R(O0) | R(O1) | R(O2) | R(O3) | R(O6) | R(O7) | LI },
		{ 16, 20, S(2), 0, GR | R(I1) | R(I2) | R(I3) | R(I6) | R(I7) | R(O6) },
		{ 20, 28, S0, CFG_END_RETURN, GR | R(I0) | R(I1) | R(I2) | R(I3) | R(I6) | R(I7) | R(O6) } },
	  { { 8, GR | R(L0) | R(I1) | R(I2) | R(I3) | R(I6) | R(I7) | R(O6),
	      GR | R(L0) | R(I1) | R(I2) | R(I3) | R(I6) | R(I7) | R(O6),
	      ABI_VOLATILE_GLOBALS | (INSN_OUTS & ~R(O6)) | (INSN_LOCALS & ~R(L0)) | R(I0) | R(I4) | R(I5) },
	    { 24, RET, RET, ABI_VOLATILE_GLOBALS | R(O4) | R(O5) | R(O7) } }, 2 },
	/* ba's slot is be's target: a block of its own, to ba's target and on. */
	{ "fix_slot_target", 5, 0, {
		{ 0, 12, S(1, 2), 0, R(O0) | R(O4) | R(O5) | R(O7) | (RET & ~R(O0)) },
		{ 12, 16, S(2), 0, R(O4) | R(O5) | R(O7) | (RET & ~R(O0)) },
		{ 16, 20, S(3, 4), 0, R(O4) | R(O5) | R(O7) | (RET & ~R(O0)) },
		{ 20, 24, S(4), 0, R(O5) | R(O7) | (RET & ~R(O0)) },
		{ 24, 32, S0, CFG_END_RETURN, R(G1) | R(O7) | (RET & ~R(O0)) } }, { { 0, 0, 0, 0 } }, 0 },
	/* call with restore in its slot: a tail call, no call site. */
	{ "fix_tail", 1, 0, {
		{ 0, 16, S0, CFG_END_TAIL_CALL, INSN_GPRS & ~ABI_VOLATILE_GLOBALS } },
	  { { 8, GR | INSN_INS | R(O6), GR | INSN_INS | R(O6),
	      ABI_VOLATILE_GLOBALS | (INSN_OUTS & ~R(O6)) | INSN_LOCALS } }, 1 },
	{ "fix_indirect", 1, 1, {
		{ 0, 20, S0, CFG_END_UNRESOLVED, GR | INSN_OUTS | LI } },
	  { { 4, GR | (INSN_OUTS & ~R(O0) & ~R(O7)) | INSN_INS,
	      GR | (INSN_OUTS & ~R(O0) & ~R(O7)) | INSN_INS,
	      ABI_VOLATILE_GLOBALS | R(O0) | R(O7) | INSN_LOCALS } }, 1 },
	/* A switch through a jump table in .text: every case a successor; nothing more is live. */
	{ "fix_switch", 6, 0, {
		{ 0, 12, S(1, 5), 0, R(O4) | R(O7) | RET },
		{ 12, 32, S(2, 3, 4, 5), CFG_END_JUMP_TABLE, R(O0) | R(O4) | R(O7) | RET },
		{ 32, 40, S0, CFG_END_RETURN, R(O7) | (RET & ~R(O0)) },
		{ 40, 48, S0, CFG_END_RETURN, R(O7) | (RET & ~R(O0)) },
		{ 48, 56, S0, CFG_END_RETURN, R(O7) | (RET & ~R(O0)) },
		{ 56, 64, S0, CFG_END_RETURN, R(O4) | R(O7) | (RET & ~R(O0)) } },
	  { { 0, R(O4) | R(O7) | RET, R(O4) | R(O7) | RET, ABI_VOLATILE_GLOBALS | R(O5) } }, 1 },
	/* A loop closed by an annulled branch whose slot runs on the back edge only. */
	{ "fix_loop", 4, 0, {
		{ 0, 4, S(1), 0, R(O0) | R(O7) | (RET & ~R(O1)) },
		{ 4, 12, S(2, 3), 0, R(O0) | R(O1) | R(O7) | RET },
		{ 12, 16, S(1), 0, R(O0) | R(O1) | R(O7) | RET },
		{ 16, 24, S0, CFG_END_RETURN, R(O1) | R(O7) | (RET & ~R(O0)) } }, { { 0, 0, 0, 0 } }, 0 },
};

static char *regs(uint32_t m, char *buf, size_t size)
{
	size_t n = 0;
	buf[0] = 0;
	for (unsigned r = 0; r < ARCH_NREGS; r++)
		if (m & (1u << r))
			n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? " " : "", arch_reg_name(r));
	if (!n)
		snprintf(buf, size, "-");
	return buf;
}

static void check_sets(const char *name, uint32_t got, uint32_t want)
{
	char a[200], b[200], c[200];
	result(name, got == want, "got {%s}, want {%s} (extra {%s})", regs(got, a, sizeof(a)),
	       regs(want & ~got, b, sizeof(b)), regs(got & ~want, c, sizeof(c)));
}

static void check_case(const struct elf_image *img, const struct case_expect *e)
{
	char name[128];
	const struct elf_func *fn = elf_find(img, e->fn);
	struct cfg_function f;
	struct ksym sym;

	snprintf(name, sizeof(name), "%s/found", e->fn);
	result(name, fn, "no function %s in the cases", e->fn);
	if (!fn)
		return;
	int err = analyse(fn, &f, &sym);
	snprintf(name, sizeof(name), "%s/analysed", e->fn);
	result(name, !err && f.status == CFG_OK, "status %s at +0x%llx", cfg_status_name(f.status),
	       (unsigned long long)(f.problem_addr - fn->addr));
	if (err)
		return analysis_release(&f);
	snprintf(name, sizeof(name), "%s/shape", e->fn);
	result(name, f.nblocks == e->nblocks && f.ncalls == e->ncalls, "%u blocks, %u calls; want %u, %u",
	       f.nblocks, f.ncalls, e->nblocks, e->ncalls);
	for (uint32_t i = 0; i < f.nblocks && i < e->nblocks; i++) {
		const struct block_expect *be = &e->b[i];
		const struct cfg_block *b = &f.blocks[i];
		uint32_t want_succ = 0, got_succ = 0;
		for (unsigned k = 0; be->succ[k] != NONE; k++)
			want_succ |= 1u << be->succ[k];
		for (uint32_t k = 0; k < b->nsucc; k++)
			got_succ |= 1u << f.succ[b->first_succ + k];
		snprintf(name, sizeof(name), "%s/block%u", e->fn, i);
		result(name, b->start - fn->addr == be->start && b->end - fn->addr == be->end &&
		       got_succ == want_succ && b->end_kind == be->end_kind,
		       "[+%llu, +%llu) -> 0x%x end 0x%x; want [+%u, +%u) -> 0x%x end 0x%x",
		       (unsigned long long)(b->start - fn->addr), (unsigned long long)(b->end - fn->addr),
		       got_succ, b->end_kind, be->start, be->end, want_succ, be->end_kind);
		snprintf(name, sizeof(name), "%s/block%u/live-in", e->fn, i);
		check_sets(name, b->live_in, be->live_in);
	}
	for (uint32_t k = 0; k < e->npoints; k++) {
		const struct point_expect *p = &e->p[k];
		uint32_t before = 0, after = 0;
		int r = cfg_live_at(fn->addr + p->off, &before, &after);
		snprintf(name, sizeof(name), "%s/+%u/live-before", e->fn, p->off);
		if (r) {
			result(name, false, "cfg_live_at: %d", r);
			continue;
		}
		check_sets(name, before, p->live_before);
		snprintf(name, sizeof(name), "%s/+%u/live-after", e->fn, p->off);
		check_sets(name, after, p->live_after);
		if (p->free_before) {
			snprintf(name, sizeof(name), "%s/+%u/free-before", e->fn, p->off);
			check_sets(name, ARCH_REGS_ALL & ~before, p->free_before);
		}
	}
	analysis_release(&f);
}

int main(int argc, char **argv)
{
	struct elf_image img;

	if (argc < 2) {
		fprintf(stderr, "usage: %s CASES.elf [--sweep FILE...]\n", argv[0]);
		return 2;
	}
	result("cases/read", elf_load_funcs(argv[1], &img) == 0, "cannot read %s", argv[1]);
	current_image = &img;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_case(&img, &cases[i]);
	current_image = NULL;
	elf_free(&img);
	for (int i = 2; i < argc; i++)
		if (strcmp(argv[i], "--sweep"))
			result("sweep/read", sweep_file(argv[i]), "cannot read %s", argv[i]);
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
