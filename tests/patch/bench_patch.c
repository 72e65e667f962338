// SPDX-License-Identifier: BSD-2-Clause
/*
 * Host-native cost of a probe hit, built by the kernel's own patch
 * builder (arch/x86/patch_emit.c, relocate.c) on a function of this
 * program: its entry gets the 5-byte jump a jump probe writes, to a patch
 * in executable memory within rel32 reach holding either an inline
 * counter or a call of an empty C handler with every register saved
 * (and, after it, those live at the entry reloaded, as the kernel's
 * patches reload what its analysis finds live), then the relocated
 * instructions and a jump back. Nanoseconds per call
 * for the plain function, the counter and the handler, in one run, and
 * the ratios to the plain call.
 *
 * Usage: bench-patch [calls]; prints lines "patch <what> <ns per call>"
 * and "ratio <what> <x>".
 */
#include <arch/patch.h>
#include <arch/abi.h>
#include <arch/trap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

typedef uint64_t (*target_fn)(uint64_t);
extern uint64_t bench_target(uint64_t x);

#define AREA 65536
#define REGION 8		/* bytes of bench_target the jump detours */
#define ROUNDS 5		/* best of */

static uint64_t hits;		/* the inline counter (within reach of the patch: same program) */
static volatile uint64_t sink;

static void empty_handler(struct trap_frame *frame, uint64_t cookie)
{
	(void)frame;
	(void)cookie;
}

static uint8_t *near_memory(void)
{
	uintptr_t text = (uintptr_t)bench_target & ~0xfffull;
	for (uintptr_t delta = 1u << 24; delta < (1ull << 31); delta <<= 1) {
		void *p = mmap((void *)(text - delta), AREA, PROT_READ | PROT_WRITE | PROT_EXEC,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (p != MAP_FAILED)
			return p;
	}
	return NULL;
}

/*
 * The registers live at bench_target's entry, as the kernel's structural
 * analysis finds them at a site (scion/cfg.h, cfg_live_at) and hands them
 * to its patches: bench_target runs straight to its ret, where what the
 * ABI returns and keeps is live, so each instruction back from there
 * adds what it reads and ends what it writes. 0 if it is not straight.
 */
static uint32_t live_at_entry(void)
{
	const uint8_t *code = (const uint8_t *)bench_target;
	struct insn in[8];
	unsigned n = 0;
	for (size_t off = 0; n < 8; off += in[n++].length) {
		insn_decode(&in[n], code + off, 16, (uintptr_t)code + off);
		if (in[n].status != INSN_OK || (in[n].cf != INSN_CF_NONE && in[n].cf != INSN_CF_RET))
			return 0;
		if (in[n].cf == INSN_CF_RET)
			break;
	}
	if (n == 8)
		return 0;
	uint32_t live = ABI_LIVE_AT_RETURN;
	for (unsigned i = n + 1; i-- > 0;)
		live = (live & ~in[i].regs_written) | in[i].regs_read;
	return live;
}

/* Relocate bench_target's region into b and jump back after it. */
static int finish_patch(struct patch_buf *b)
{
	const uint8_t *src = (const uint8_t *)bench_target;
	for (size_t off = 0; off < REGION;) {
		struct insn in;
		const char *why;
		insn_decode(&in, src + off, 16, (uintptr_t)src + off);
		if (patch_relocate(b, &in, src + off, &why)) {
			fprintf(stderr, "bench-patch: cannot relocate: %s\n", why);
			return -1;
		}
		off += in.length;
	}
	patch_emit_jmp(b, (uintptr_t)bench_target + REGION);
	return patch_buf_ok(b) ? 0 : -1;
}

static double ns_per_call(target_fn fn, long calls)
{
	double best = 0;
	for (int r = 0; r < ROUNDS; r++) {
		struct timespec a, z;
		uint64_t acc = 0;
		clock_gettime(CLOCK_MONOTONIC, &a);
		for (long i = 0; i < calls; i++)
			acc += fn((uint64_t)i);
		clock_gettime(CLOCK_MONOTONIC, &z);
		sink = acc;
		double ns = ((z.tv_sec - a.tv_sec) * 1e9 + (z.tv_nsec - a.tv_nsec)) / calls;
		if (r == 0 || ns < best)
			best = ns;
	}
	return best;
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 20000000;
	uint8_t *area = near_memory(), original[PATCH_JUMP_LEN], jmp[PATCH_JUMP_LEN];
	target_fn volatile fn = bench_target;
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t text_page = (uintptr_t)bench_target & ~(uintptr_t)(page - 1);

	if (!area || mprotect((void *)text_page, (size_t)page, PROT_READ | PROT_WRITE | PROT_EXEC)) {
		perror("bench-patch: memory");
		return 1;
	}
	memcpy(original, (void *)bench_target, sizeof(original));

	struct patch_buf counter, handler;
	patch_buf_init(&counter, area, 1024, (uintptr_t)area);
	patch_emit_counter(&counter, (uintptr_t)&hits, true);
	patch_buf_init(&handler, area + 1024, 1024, (uintptr_t)area + 1024);
	/*
	 * As at an fbt entry: what is live there reloaded after the call; user
	 * mode cannot mask interrupts.
	 */
	uint32_t live = live_at_entry();
	if (!live) {
		fprintf(stderr, "bench-patch: bench_target is not straight-line code\n");
		return 1;
	}
	patch_emit_frame_call(&handler, (uintptr_t)bench_target, (uintptr_t)empty_handler, 0,
			      live, false);
	if (finish_patch(&counter) || finish_patch(&handler))
		return 1;

	double plain = ns_per_call(fn, calls);
	patch_jump_bytes(jmp, (uintptr_t)bench_target, (uintptr_t)area);
	memcpy((void *)bench_target, jmp, sizeof(jmp));
	hits = 0;
	double counted = ns_per_call(fn, calls);
	uint64_t counted_hits = hits;
	patch_jump_bytes(jmp, (uintptr_t)bench_target, (uintptr_t)area + 1024);
	memcpy((void *)bench_target, jmp, sizeof(jmp));
	double handled = ns_per_call(fn, calls);
	uint64_t wrong = fn(5) != 22;
	memcpy((void *)bench_target, original, sizeof(original));

	if (counted_hits != (uint64_t)calls * ROUNDS || wrong) {
		fprintf(stderr, "bench-patch: the probed function misbehaved (%llu hits for %ld calls)\n",
			(unsigned long long)counted_hits, calls * ROUNDS);
		return 1;
	}
	printf("calls %ld best of %d\n", calls, ROUNDS);
	printf("live 0x%x\n", live);
	printf("patch plain %.3f\n", plain);
	printf("patch inline_counter %.3f\n", counted);
	printf("patch jump_empty_handler %.3f\n", handled);
	printf("ratio inline_counter %.3f\n", counted / plain);
	printf("ratio jump_empty_handler %.3f\n", handled / plain);
	return 0;
}
