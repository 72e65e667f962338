// SPDX-License-Identifier: BSD-2-Clause
/*
 * Host tests of the patch builder (arch/x86/patch_emit.c, relocate.c):
 * patches are built into executable memory near this program's text and
 * run. The first instructions of a function, relocated into a patch and
 * followed by a jump back, must give the function's result; counters
 * count; a frame call hands the handler every register and puts back
 * the callee-saved ones and the live caller-saved ones, whatever the
 * handler leaves in the rest.
 */
#include "host_test.h"
#include <arch/patch.h>
#include <arch/trap.h>
#include <arch/abi.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

typedef long (*fn_t)(long);
extern long pc_rip_load(long), pc_short_jump(long), pc_call(long), pc_jcc(long),
	pc_loop(long), pc_indirect_call(long), pc_plain(long);

#define PATCH_AREA (64 * 1024)

/* Executable memory within rel32 reach of this program's text. */
static uint8_t *near_memory(void)
{
	static uint8_t *area;
	if (area)
		return area;
	uintptr_t text = (uintptr_t)pc_plain & ~0xfffull;
	for (uintptr_t delta = 1u << 24; delta < (1ull << 31); delta <<= 1) {
		void *hint = (void *)(text - delta);
		void *p = mmap(hint, PATCH_AREA, PROT_READ | PROT_WRITE | PROT_EXEC,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (p != MAP_FAILED) {
			area = p;
			return area;
		}
	}
	return NULL;
}

/*
 * Relocate the instructions of fn covering at least `cover` bytes into a
 * patch at code, then jump back to the rest of fn. Returns the entry, or
 * NULL when an instruction was refused.
 */
static fn_t relocate_head(struct host_test_ctx *t, fn_t fn, size_t cover, uint8_t *code,
			  void (*prologue)(struct patch_buf *b))
{
	struct patch_buf b;
	const uint8_t *src = (const uint8_t *)fn;
	size_t off = 0;
	bool falls_through = true;

	patch_buf_init(&b, code, 256, (uintptr_t)code);
	if (prologue)
		prologue(&b);
	while (off < cover) {
		struct insn in;
		const char *why = NULL;
		insn_decode(&in, src + off, 16, (uintptr_t)src + off);
		if (patch_relocate(&b, &in, src + off, &why)) {
			host_fail(t, __FILE__, __LINE__, "relocation refused: %s", why);
			return NULL;
		}
		off += in.length;
		falls_through = insn_falls_through(&in);
		if (!falls_through)
			break;
	}
	if (falls_through)
		patch_emit_jmp(&b, (uintptr_t)src + off);
	if (!patch_buf_ok(&b)) {
		host_fail(t, __FILE__, __LINE__, "patch overflow or out of reach");
		return NULL;
	}
	return (fn_t)(uintptr_t)code;
}

HOST_TEST(patch_relocated_heads_behave_the_same)
{
	static const struct {
		const char *name;
		fn_t fn;
	} cases[] = {
		{ "rip-relative load", pc_rip_load }, { "short jump", pc_short_jump },
		{ "call", pc_call }, { "conditional branch", pc_jcc }, { "jrcxz/loop", pc_loop },
		{ "indirect call", pc_indirect_call }, { "plain", pc_plain },
	};
	uint8_t *area = near_memory();
	REQUIRE(t, area, "no executable memory near the program");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/* Cover the 5 bytes a jump probe detours, and more. */
		for (size_t cover = 1; cover <= 12; cover += 4) {
			uint8_t *code = area + 512 * (i * 4 + cover / 4);
			fn_t moved = relocate_head(t, cases[i].fn, cover, code, NULL);
			if (!moved)
				return;
			for (long x = -3; x <= 5; x++)
				CHECK(t, moved(x) == cases[i].fn(x), "%s, %zu bytes moved: f(%ld) = %ld, not %ld",
				      cases[i].name, cover, x, moved(x), cases[i].fn(x));
		}
	}
}

HOST_TEST(patch_refuses_what_cannot_move)
{
	static const uint8_t syscall_insn[] = { 0x0f, 0x05 };	/* syscall */
	static const uint8_t int3_insn[] = { 0xcc };		/* int3 */
	uint8_t buf[64];
	struct patch_buf b;
	struct insn in;
	const char *why = NULL;

	patch_buf_init(&b, buf, sizeof(buf), 0x1000);
	insn_decode(&in, syscall_insn, sizeof(syscall_insn), 0x400000);
	CHECK(t, patch_relocate(&b, &in, syscall_insn, &why) != 0 && why, "syscall relocated");
	insn_decode(&in, int3_insn, sizeof(int3_insn), 0x400000);
	why = NULL;
	CHECK(t, patch_relocate(&b, &in, int3_insn, &why) != 0 && why, "int3 relocated");
	/* A jump whose target is out of rel32 reach is flagged, not encoded wrong. */
	patch_buf_init(&b, buf, sizeof(buf), 0x1000);
	patch_emit_jmp(&b, 0x7fffffff0000ull);
	CHECK(t, b.out_of_reach, "a 40-bit jump was accepted");
	patch_buf_init(&b, buf, 3, 0x1000);
	patch_emit_jmp(&b, 0x2000);
	CHECK(t, b.overflow && b.len <= 3, "writing past the buffer");
}

static uint64_t counter;

static void counter_prologue(struct patch_buf *b)
{
	patch_emit_counter(b, (uintptr_t)&counter, false);
}

HOST_TEST(patch_counter_counts)
{
	uint8_t *area = near_memory();
	REQUIRE(t, area, "no executable memory");
	/* The counter must be within rip reach: keep it in the patch area. */
	uint64_t *near_counter = (uint64_t *)(area + PATCH_AREA - 64);
	struct patch_buf b;
	uint8_t *code = area + 16 * 1024;
	patch_buf_init(&b, code, 256, (uintptr_t)code);
	patch_emit_counter(&b, (uintptr_t)near_counter, false);
	patch_emit_counter(&b, (uintptr_t)near_counter, true);
	patch_emit_jmp(&b, (uintptr_t)pc_plain);
	REQUIRE(t, patch_buf_ok(&b), "counter patch");
	*near_counter = 0;
	fn_t f = (fn_t)(uintptr_t)code;
	for (long x = 0; x < 1000; x++)
		REQUIRE(t, f(x) == 3 * x + 7, "result changed");
	CHECK(t, *near_counter == 2000, "counted %llu, expected 2000",
	      (unsigned long long)*near_counter);
	(void)counter_prologue;
}

static struct trap_frame seen;
static uint64_t seen_cookie;
static unsigned calls;

static void record_frame(struct trap_frame *f, uint64_t cookie)
{
	seen = *f;
	seen_cookie = cookie;
	calls++;
	f->rax = 0xdead;	/* clobbering the saved rax must not leak: it is restored */
	f->rax = seen.rax;
}

HOST_TEST(patch_frame_call_sees_and_restores_registers)
{
	uint8_t *area = near_memory();
	REQUIRE(t, area, "no executable memory");
	uint8_t *code = area + 20 * 1024;
	struct patch_buf b;
	patch_buf_init(&b, code, 512, (uintptr_t)code);
	patch_emit_frame_call(&b, 0x123456789abcull, (uintptr_t)record_frame, 0x5c10,
			      INSN_ALL_REGS, false);
	patch_emit_jmp(&b, (uintptr_t)pc_plain);
	REQUIRE(t, patch_buf_ok(&b), "frame call patch");
	/* Every instruction of the stub decodes. */
	for (size_t off = 0; off < b.len;) {
		struct insn in;
		insn_decode(&in, code + off, b.len - off, (uintptr_t)code + off);
		REQUIRE(t, in.status == INSN_OK, "stub byte %zu does not decode", off);
		off += in.length;
	}
	calls = 0;
	fn_t f = (fn_t)(uintptr_t)code;
	long r = f(41);
	CHECK(t, r == 3 * 41 + 7, "result %ld", r);
	CHECK(t, calls == 1 && seen_cookie == 0x5c10, "handler calls %u cookie 0x%llx", calls,
	      (unsigned long long)seen_cookie);
	CHECK(t, seen.rdi == 41 && seen.rip == 0x123456789abcull, "frame rdi %llu rip 0x%llx",
	      (unsigned long long)seen.rdi, (unsigned long long)seen.rip);
	CHECK(t, seen.rsp % 8 == 0 && seen.cs == 0x08, "frame rsp 0x%llx cs 0x%llx",
	      (unsigned long long)seen.rsp, (unsigned long long)seen.cs);
}

extern void pc_frame_regs(void *code), pc_frame_regs_back(void);
extern uint64_t frame_regs_in[16], frame_regs_out[16];
static struct trap_frame clobber_seen;

/* Sees the frame, then leaves garbage in every caller-saved register, as any C code may. */
static void clobbering_handler(struct trap_frame *f, uint64_t cookie)
{
	(void)cookie;
	clobber_seen = *f;
	asm volatile("mov $0xbad0, %%eax\n\tmov $0xbad1, %%ecx\n\tmov $0xbad2, %%edx\n\t"
		     "mov $0xbad6, %%esi\n\tmov $0xbad7, %%edi\n\tmov $0xbad8, %%r8d\n\t"
		     "mov $0xbad9, %%r9d\n\tmov $0xbada, %%r10d\n\tmov $0xbadb, %%r11d"
		     ::: "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "memory");
}

/* Register number r (arch/insn.h) as the frame holds it. */
static uint64_t frame_reg(const struct trap_frame *f, unsigned r)
{
	const uint64_t v[16] = { f->rax, f->rcx, f->rdx, f->rbx, f->rsp, f->rbp, f->rsi, f->rdi,
				 f->r8, f->r9, f->r10, f->r11, f->r12, f->r13, f->r14, f->r15 };
	return v[r];
}

HOST_TEST(patch_frame_call_restores_live_registers)
{
	uint8_t *area = near_memory();
	REQUIRE(t, area, "no executable memory");
	uint32_t lives[24] = { INSN_ALL_REGS, 0, INSN_REG(INSN_RDI), ABI_CALL_READS,
			       ABI_RETURN_REGS, INSN_REG(INSN_R8) | INSN_REG(INSN_R11) };
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	for (unsigned k = 6; k < 24; k++) {	/* and random sets of live registers */
		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		lives[k] = (uint32_t)seed & INSN_ALL_REGS;
	}
	const uint64_t pc = 0xffffffff81234567ull;
	for (unsigned k = 0; k < 24; k++) {
		uint8_t *code = area + 24 * 1024;
		struct patch_buf b;
		patch_buf_init(&b, code, 512, (uintptr_t)code);
		patch_emit_frame_call(&b, pc, (uintptr_t)clobbering_handler, 7, lives[k], false);
		patch_emit_jmp(&b, (uintptr_t)pc_frame_regs_back);
		REQUIRE(t, patch_buf_ok(&b), "frame call patch");
		for (unsigned r = 0; r < 16; r++)
			frame_regs_in[r] = 0x0101010101010101ull * (r + 1) + k;
		memset(&clobber_seen, 0, sizeof(clobber_seen));
		pc_frame_regs(code);
		const struct trap_frame *f = &clobber_seen;
		CHECK(t, f->rip == pc && f->cs == 0x08 && !f->vector && !f->error,
		      "live 0x%x: frame rip 0x%llx cs 0x%llx", lives[k], (unsigned long long)f->rip,
		      (unsigned long long)f->cs);
		CHECK(t, frame_regs_out[INSN_RSP] == frame_regs_in[INSN_RSP],
		      "live 0x%x: rsp came back 0x%llx, not 0x%llx", lives[k],
		      (unsigned long long)frame_regs_out[INSN_RSP],
		      (unsigned long long)frame_regs_in[INSN_RSP]);
		for (unsigned r = 0; r < 16; r++) {
			CHECK(t, frame_reg(f, r) == frame_regs_in[r], "live 0x%x: the frame's r%u "
			      "is 0x%llx, not 0x%llx", lives[k], r,
			      (unsigned long long)frame_reg(f, r),
			      (unsigned long long)frame_regs_in[r]);
			if (r == INSN_RSP)
				continue;
			uint32_t keep = ABI_CALLEE_SAVED | (lives[k] & ABI_CALLER_SAVED);
			bool kept = INSN_REG(r) & keep;
			/* A dead register holds the handler's garbage: a missed restore shows. */
			CHECK(t, kept == (frame_regs_out[r] == frame_regs_in[r]),
			      "live 0x%x: r%u came back 0x%llx (in 0x%llx), %s", lives[k], r,
			      (unsigned long long)frame_regs_out[r],
			      (unsigned long long)frame_regs_in[r],
			      kept ? "not restored" : "dead, yet restored");
		}
	}
}
