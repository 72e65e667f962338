// SPDX-License-Identifier: BSD-2-Clause
/*
 * Host-native cost of a probe hit, built by the kernel's own patch
 * builder (arch/x86/patch_emit.c, relocate.c) on a function of this
 * program: its entry gets the 5-byte jump a jump probe writes, to a patch
 * in executable memory within rel32 reach, which runs
 * - inline_counter: an inline counter;
 * - jump_empty_handler: the kernel's one-handler path
 *   (patch_emit_handler_call: a lean frame, the CPU's running flag, the
 *   state's hit counter, the handler called directly), with an empty
 *   handler;
 * - jump_frame_call: the general path (patch_emit_frame_call: the whole
 *   frame, a call of the dispatcher), with an empty function;
 * - floor_call: the floor, the least a patch that calls C runs: the
 *   caller-saved registers live at the entry pushed, an empty function
 *   called, the registers popped;
 * - floor_call_flags: the floor with rflags saved first (and dropped
 *   after), as a kernel patch that masks interrupts must, to know
 *   whether to unmask them after;
 * then the relocated instructions and a jump back. After each call the
 * patches reload what is live at the entry, found as the kernel's
 * analysis finds it. User mode cannot mask interrupts, so the kernel's
 * patches are built without cli and sti; the rest is the kernel's code.
 * The program is linked at a low address, as the kernel's code lies in
 * the top 2 GB: the addresses the patches push fit in 32 bits.
 * Nanoseconds per call, best of ROUNDS, and the ratios to the plain call.
 *
 * Usage: bench-patch [calls]; prints lines "patch <what> <ns per call>"
 * and "ratio <what> <x>".
 */
#include <arch/patch.h>
#include <arch/abi.h>
#include <arch/trap.h>
#include <scion/probe_arch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <asm/prctl.h>
#include "x86_encodings.h"

struct probe_hit;
typedef uint64_t (*target_fn)(uint64_t);
extern uint64_t bench_target(uint64_t x);

#define AREA   65536
#define REGION 8		/* bytes of bench_target the jump detours */
#define ROUNDS 5		/* best of */
#define PATCH_ROOM 1024

static uint64_t hits;		/* the inline counter (within reach of the patch: same program) */
static volatile uint64_t sink;
/* The stand-in for struct cpu, the per-CPU base (%gs): its probe_run word. */
static uint64_t cpu_area[1];
static uint64_t retired_calls;

static void bench_empty(void)
{
}

static void empty_frame_fn(struct trap_frame *frame, uint64_t cookie)
{
	(void)frame;
	(void)cookie;
}

static void empty_handler(const struct probe_hit *hit, void *arg)
{
	(void)hit;
	(void)arg;
}

static void retired_fn(struct trap_frame *frame, uint64_t state)
{
	(void)frame;
	(void)state;
	retired_calls++;
}

/* Executable memory within rel32 reach of bench_target, above or below it. */
static uint8_t *near_memory(void)
{
	uintptr_t text = (uintptr_t)bench_target & ~0xfffull;
	for (uintptr_t delta = 1u << 24; delta < (1ull << 30); delta <<= 1)
		for (int side = -1; side <= 1; side += 2) {
			if (side < 0 && delta > text)
				continue;
			void *p = mmap((void *)(text + (intptr_t)side * (intptr_t)delta), AREA,
				       PROT_READ | PROT_WRITE | PROT_EXEC,
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

static void emit_byte(struct patch_buf *b, uint8_t byte)
{
	if (b->len < b->cap)
		b->code[b->len++] = byte;
	else
		b->overflow = true;
}

#define LOW_REGS (INSN_REG(INSN_R8) - 1)	/* rax..rdi: pushed and popped without a REX */

/*
 * A floor: push the caller-saved registers in live (all below r8), with
 * rflags first when save_flags; call the empty function (the stack
 * 8-byte aligned, as a kernel patch leaves it); pop them, and rflags
 * into a dead register (the flags are dead at bench_target's entry).
 */
static void emit_floor(struct patch_buf *b, uint32_t live, bool save_flags)
{
	uint32_t saved = live & ABI_CALLER_SAVED;
	unsigned dead = INSN_RAX;
	while (live & INSN_REG(dead))
		dead++;
	if (save_flags)
		emit_byte(b, x86_enc_pushfq[0]);
	for (unsigned r = 0; r < 8; r++)
		if (saved & INSN_REG(r))
			emit_byte(b, (uint8_t)(x86_enc_push_r[0] + r));
	patch_emit_call(b, (uintptr_t)bench_empty);
	for (unsigned r = 8; r-- > 0;)
		if (saved & INSN_REG(r))
			emit_byte(b, (uint8_t)(x86_enc_pop_r[0] + r));
	if (save_flags)
		emit_byte(b, (uint8_t)(x86_enc_pop_r[0] + dead));
}

static double ns_per_call(long calls)
{
	target_fn volatile fn = bench_target;
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

struct variant {
	const char *name;
	uintptr_t patch;	/* where bench_target's jump leads; 0: no jump */
	double ns;
};

/* Time calls of bench_target with its entry jumping to v->patch; false if it misbehaved. */
static bool measure(struct variant *v, long calls, const uint8_t *original)
{
	uint8_t jmp[PATCH_JUMP_LEN];
	if (v->patch) {
		if (!patch_jump_bytes(jmp, (uintptr_t)bench_target, v->patch))
			return false;
		memcpy((void *)bench_target, jmp, sizeof(jmp));
	}
	v->ns = ns_per_call(calls);
	bool right = bench_target(5) == 22;
	memcpy((void *)bench_target, original, PATCH_JUMP_LEN);
	return right;
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 20000000;
	uint8_t *area = near_memory(), original[PATCH_JUMP_LEN];
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t text_page = (uintptr_t)bench_target & ~(uintptr_t)(page - 1);

	if (!area || mprotect((void *)text_page, (size_t)page, PROT_READ | PROT_WRITE | PROT_EXEC) ||
	    syscall(SYS_arch_prctl, ARCH_SET_GS, (unsigned long)cpu_area)) {
		perror("bench-patch: memory or the per-CPU base");
		return 1;
	}
	memcpy(original, (void *)bench_target, sizeof(original));
	uint32_t live = live_at_entry();
	if (!live || (live & INSN_STATUS_FLAGS) || (live & ABI_CALLER_SAVED & ~LOW_REGS)) {
		fprintf(stderr, "bench-patch: bench_target is not straight-line code with its live "
			"registers below r8 and its flags dead\n");
		return 1;
	}

	/* The patch data a site state has: its hit counter and its probe (never read here). */
	uint64_t *slots = (uint64_t *)(area + AREA - PATCH_ROOM);
	static uint8_t state[64];	/* the site state: its retired flag and missed counter */
	struct probe_patch_handler h = {
		.fn = (uintptr_t)empty_handler, .hits = (uintptr_t)&slots[0],
		.probe_slot = (uintptr_t)&slots[1], .retired_fn = (uintptr_t)retired_fn,
		.retired = 0, .missed = 8, .cpu_run = 0,
	};
	struct variant v[] = {
		{ "plain", 0, 0 }, { "inline_counter", 0, 0 }, { "jump_empty_handler", 0, 0 },
		{ "jump_frame_call", 0, 0 }, { "floor_call", 0, 0 }, { "floor_call_flags", 0, 0 },
	};
	for (size_t i = 1; i < sizeof(v) / sizeof(v[0]); i++) {
		struct patch_buf b;
		struct patch_handler_cold cold;
		uintptr_t at = (uintptr_t)area + (i - 1) * PATCH_ROOM;
		patch_buf_init(&b, (uint8_t *)at, PATCH_ROOM, at);
		if (i == 1)
			patch_emit_counter(&b, (uintptr_t)&hits, true);
		else if (i == 2)
			patch_emit_handler_call(&b, (uintptr_t)bench_target, &h, (uintptr_t)state, live,
						false, &cold);
		else if (i == 3)
			patch_emit_frame_call(&b, (uintptr_t)bench_target, (uintptr_t)empty_frame_fn,
					      0, live, false);
		else
			emit_floor(&b, live, i == 5);
		if (finish_patch(&b))
			return 1;
		if (i == 2)
			patch_emit_handler_cold(&b, &cold);
		if (!patch_buf_ok(&b))
			return 1;
		v[i].patch = at;
	}
	const size_t nv = sizeof(v) / sizeof(v[0]);
	for (size_t i = 0; i < nv; i++)
		if (!measure(&v[i], calls, original)) {
			fprintf(stderr, "bench-patch: %s: the probed function misbehaved\n", v[i].name);
			return 1;
		}
	/* Each way counted every hit: the handler's once in the state, once for the CPU. */
	uint64_t want = (uint64_t)calls * ROUNDS + 1;
	if (hits != want || slots[0] != want || cpu_area[0] != want << 1 || retired_calls) {
		fprintf(stderr, "bench-patch: hits miscounted: counter %llu, handler %llu, cpu %#llx, "
			"retired %llu; want %llu\n", (unsigned long long)hits,
			(unsigned long long)slots[0], (unsigned long long)cpu_area[0],
			(unsigned long long)retired_calls, (unsigned long long)want);
		return 1;
	}
	printf("calls %ld best of %d\n", calls, ROUNDS);
	printf("live 0x%x\n", live);
	for (size_t i = 0; i < nv; i++)
		printf("patch %s %.3f\n", v[i].name, v[i].ns);
	for (size_t i = 1; i < nv; i++)
		printf("ratio %s %.3f\n", v[i].name, v[i].ns / v[0].ns);
	return 0;
}
