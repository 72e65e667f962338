// SPDX-License-Identifier: BSD-2-Clause
/*
 * Host tests of the only writes a DIF program makes: ST (STB..STX),
 * alloca, bcopy and copyinto (kernel/trace/dif_exec.c, dif_subr.c),
 * run as an attacker would try them. The environment's scratch sits
 * between two guard zones inside one buffer, and the program may write
 * only what it allocated so far, as the kernel's env_writable says.
 *
 * The border test enumerates every store width at every address from
 * 24 bytes before the writable bytes to 24 past them, reached through
 * three splits of the address into register and immediate, and checks
 * the outcome against the rule: aligned
 * and wholly inside is written exactly there; anything else faults
 * with its address and writes nothing. After every run the guards and
 * every byte outside the store's target are compared with a copy.
 */
#include <stdio.h>
#include <string.h>
#include "host_test.h"
#include "dif_both.h"
#include <scion/dif_exec.h>

#define I(op, rd, r1, r2, imm) { DIF_OP_##op, rd, r1, r2, imm }
#define GUARD     64
#define SCRATCH   512
#define READABLE  0x20000ull		/* a fake readable region of 256 bytes */
#define USER      0x400000ull		/* and a fake process's 64 bytes */

struct store_env {
	uint8_t area[GUARD + SCRATCH + GUARD];	/* guard, scratch, guard */
	size_t used;				/* scratch taken so far */
	uint8_t readable[256];
	uint8_t user[64];
};

static uint8_t *scratch_of(struct store_env *e)
{
	return e->area + GUARD;
}

static int env_read(void *env, uint64_t addr, void *buf, size_t n)
{
	struct store_env *e = env;
	if (addr >= READABLE && addr - READABLE <= sizeof(e->readable) &&
	    n <= sizeof(e->readable) - (addr - READABLE)) {
		memcpy(buf, e->readable + (addr - READABLE), n);
		return 0;
	}
	uint64_t base = (uint64_t)(uintptr_t)scratch_of(e);
	if (addr >= base && addr - base <= SCRATCH && n <= SCRATCH - (addr - base)) {
		memmove(buf, (const void *)(uintptr_t)addr, n);
		return 0;
	}
	return -14;
}

static int env_copyin(void *env, uint64_t addr, void *buf, size_t n)
{
	struct store_env *e = env;
	if (addr >= USER && addr - USER <= sizeof(e->user) && n <= sizeof(e->user) - (addr - USER)) {
		memcpy(buf, e->user + (addr - USER), n);
		return 0;
	}
	return -14;
}

static uint64_t env_builtin(void *env, unsigned id)
{
	(void)env;
	return id;
}

static int env_var(void *env, const struct dif_var *v, const struct dif_tuple_item *k,
		   unsigned nk, uint64_t *out)
{
	(void)env, (void)v, (void)k, (void)nk;
	*out = 0;
	return 0;
}

static int env_store_var(void *env, const struct dif_var *v, const struct dif_tuple_item *k,
			 unsigned nk, uint64_t value)
{
	(void)env, (void)v, (void)k, (void)nk, (void)value;
	return 0;
}

static void *env_scratch(void *env, size_t bytes)
{
	struct store_env *e = env;
	size_t need = (bytes + 7) & ~(size_t)7;
	if (need > SCRATCH - e->used)
		return NULL;
	e->used += need;
	return scratch_of(e) + e->used - need;
}

static uint64_t env_zero(void *env)
{
	(void)env;
	return 0;
}

static void env_release(void *env, void *from)
{
	struct store_env *e = env;
	e->used = (size_t)((uint8_t *)from - scratch_of(e));
}

/* The kernel's rule (kernel/trace/env.c): only the scratch taken so far. */
static bool env_writable(void *env, uint64_t addr, size_t n)
{
	struct store_env *e = env;
	uint64_t base = (uint64_t)(uintptr_t)scratch_of(e);
	return addr >= base && addr - base <= e->used && n <= e->used - (addr - base);
}

static const struct dif_env_ops ops = {
	.read = env_read, .builtin = env_builtin, .load_var = env_var, .store_var = env_store_var,
	.scratch = env_scratch, .random = env_zero, .speculation = env_zero,
	.scratch_release = env_release, .copyin = env_copyin, .writable = env_writable,
};

static const uint64_t ints_none[1];

static struct dif_prog prog(const struct dif_insn *insns, uint32_t n, const uint64_t *ints,
			    uint32_t nints)
{
	return (struct dif_prog){ .insns = insns, .ninsns = n, .ints = ints, .nints = nints,
				  .rtype = DIF_TYPE_INT, .strsize = 64 };
}

/* Verify and run; the status, *out, *fault. */
static int run(struct host_test_ctx *t, struct dif_prog p, const struct dif_env_ops *o,
	       struct store_env *e, uint64_t *out, struct dif_fault *fault)
{
	char why[160];
	if (dif_verify(&p, why, sizeof(why))) {
		host_fail(t, __FILE__, __LINE__, "verifier refused a good program: %s", why);
		return -2;
	}
	return dif_run_both(t, &p, o, e, sizeof(*e), NULL, out, fault);
}

static const uint8_t store_ops[4] = { DIF_OP_STB, DIF_OP_STH, DIF_OP_STW, DIF_OP_STX };

HOST_TEST(dif_store_border_every_width_and_address)
{
	static struct store_env e, before;
	const uint64_t value = 0x8877665544332211ull;
	unsigned runs = 0, written = 0, refused = 0;

	for (size_t used = 8; used <= 64; used += 56) {
		for (unsigned w = 0; w < 4; w++) {
			unsigned size = 1u << w;
			for (int64_t off = -24; off < (int64_t)used + 24; off++) {
				uint64_t base = (uint64_t)(uintptr_t)(e.area + GUARD);
				uint64_t target = base + (uint64_t)off;
				/* The address split as register + immediate three ways, one wrapping. */
				const int32_t imms[3] = { 0, -8, INT32_MAX };
				for (unsigned k = 0; k < 3; k++) {
					for (size_t i = 0; i < sizeof(e.area); i++)
						e.area[i] = (uint8_t)(0xa5 ^ i);
					e.used = used;
					before = e;
					uint64_t regs[2] = { value, target - (uint64_t)(int64_t)imms[k] };
					struct dif_insn insns[] = {
						I(LDC, 1, 0, 0, 0), I(LDC, 2, 0, 0, 1),
						{ store_ops[w], 0, 1, 2, imms[k] }, I(RET, 0, 0, 0, 0),
					};
					uint64_t out;
					struct dif_fault fault;
					int rc = run(t, prog(insns, 4, regs, 2), &ops, &e, &out, &fault);
					bool aligned = target % size == 0;
					bool inside = off >= 0 && (uint64_t)off + size <= used;
					runs++;
					if (aligned && inside) {
						written++;
						CHECK(t, rc == 0, "%u bytes at +%lld (imm %d): %s", size,
						      (long long)off, imms[k], dif_fault_name(fault.kind));
						uint8_t want[8];
						memcpy(want, &value, 8);	/* the low bytes, host order */
						memcpy(before.area + GUARD + off, want, size);
					} else {
						refused++;
						enum dif_fault_kind kind = aligned ? DIF_FAULT_BADADDR :
									DIF_FAULT_ALIGN;
						CHECK(t, rc == -1 && fault.kind == kind && fault.pc == 2 &&
						      fault.addr == target, "%u bytes at %+lld of %zu used "
						      "(imm %d): %s at %u, 0x%llx", size, (long long)off, used,
						      imms[k], dif_fault_name(fault.kind), fault.pc,
						      (unsigned long long)fault.addr);
					}
					CHECK(t, !memcmp(e.area, before.area, sizeof(e.area)),
					      "%u bytes at %+lld (imm %d): memory other than the target "
					      "changed", size, (long long)off, imms[k]);
				}
			}
		}
	}
	CHECK(t, written > 100 && refused > 100, "%u runs: %u written, %u refused", runs, written,
	      refused);
}

HOST_TEST(dif_store_refused_without_writable_memory)
{
	static struct store_env e;
	struct dif_env_ops readonly = ops;
	readonly.writable = NULL;
	e.used = SCRATCH;
	uint64_t regs[2] = { 1, (uint64_t)(uintptr_t)(e.area + GUARD) };
	static const struct dif_insn insns[] = {
		I(LDC, 1, 0, 0, 0), I(LDC, 2, 0, 0, 1), I(STX, 0, 1, 2, 0), I(RET, 0, 0, 0, 0),
	};
	uint64_t out;
	struct dif_fault fault;
	CHECK(t, run(t, prog(insns, 4, regs, 2), &readonly, &e, &out, &fault) == -1 &&
	      fault.kind == DIF_FAULT_BADADDR && e.area[GUARD] == 0,
	      "an environment that lets nothing be written: %s", dif_fault_name(fault.kind));
	/* Readable is not writable: the fake kernel memory stays as it was. */
	regs[1] = READABLE;
	e.readable[0] = 9;
	CHECK(t, run(t, prog(insns, 4, regs, 2), &ops, &e, &out, &fault) == -1 &&
	      fault.kind == DIF_FAULT_BADADDR && fault.addr == READABLE && e.readable[0] == 9,
	      "a store to readable memory: %s", dif_fault_name(fault.kind));
	/* The last word of the address space, and one reached by wrapping past 2^64. */
	e.used = SCRATCH;
	static const struct dif_insn top[] = {
		I(LDC, 1, 0, 0, 0), I(LDC, 2, 0, 0, 1), I(STW, 0, 1, 2, 8), I(RET, 0, 0, 0, 0),
	};
	regs[1] = ~0ull - 3 - 8;
	CHECK(t, run(t, prog(top, 4, regs, 2), &ops, &e, &out, &fault) == -1 &&
	      fault.kind == DIF_FAULT_BADADDR && fault.addr == ~0ull - 3,
	      "the top word: %s at 0x%llx", dif_fault_name(fault.kind), (unsigned long long)fault.addr);
	regs[1] = ~0ull - 7;	/* + 8 wraps to 0 */
	CHECK(t, run(t, prog(top, 4, regs, 2), &ops, &e, &out, &fault) == -1 &&
	      fault.kind == DIF_FAULT_BADADDR && fault.addr == 0,
	      "a wrapped address: %s at 0x%llx", dif_fault_name(fault.kind),
	      (unsigned long long)fault.addr);
	/* ST's unused field (rd) must be zero. */
	static const struct dif_insn bad[] = { I(STX, 3, 1, 2, 0), I(RET, 0, 0, 0, 0) };
	struct dif_prog p = prog(bad, 2, ints_none, 0);
	char why[160];
	CHECK(t, dif_verify(&p, why, sizeof(why)) && strstr(why, "does not use"), "%s", why);
}

/* alloca(size) then a store and a load through its result; returns the run's status. */
static int alloca_run(struct host_test_ctx *t, struct store_env *e, uint64_t size, uint64_t *out,
		      struct dif_fault *fault)
{
	uint64_t k[1] = { size };
	static const struct dif_insn insns[] = {
		I(LDC, 1, 0, 0, 0), I(PUSHT, 0, 1, 0, 0), I(CALL, 2, 0, 0, DIF_SUBR_ALLOCA),
		I(LDI, 3, 0, 0, 0x5a), I(STB, 0, 3, 2, 0), I(LDUB, 4, 2, 0, 0), I(LDX, 5, 2, 0, 0),
		I(RET, 0, 2, 0, 0),
	};
	return run(t, prog(insns, 8, k, 1), &ops, e, out, fault);
}

HOST_TEST(dif_alloca_gives_zeroed_writable_scratch)
{
	static struct store_env e;
	uint64_t out = 0;
	struct dif_fault fault;
	memset(e.area, 0xff, sizeof(e.area));
	e.used = 3;	/* alloca aligns what the environment gives it */
	CHECK(t, alloca_run(t, &e, 16, &out, &fault) == 0 &&
	      out == (uint64_t)(uintptr_t)(e.area + GUARD + 8) && *(uint8_t *)(uintptr_t)out == 0x5a,
	      "alloca(16): %s, 0x%llx", dif_fault_name(fault.kind), (unsigned long long)out);
	uint8_t *p = (uint8_t *)(uintptr_t)out;
	bool zero = true;
	for (int i = 1; i < 16; i++)
		zero &= p[i] == 0;
	CHECK(t, zero && p[16] == 0xff && e.used == 3 + 24, "alloca's bytes not zeroed, one past "
	      "them written, or %zu used", e.used);
	e.used = 0;
	CHECK(t, alloca_run(t, &e, SCRATCH + 1, &out, &fault) == -1 &&
	      fault.kind == DIF_FAULT_NOSCRATCH && fault.pc == 2, "alloca beyond scratch: %s",
	      dif_fault_name(fault.kind));
	CHECK(t, alloca_run(t, &e, ~0ull, &out, &fault) == -1 && fault.kind == DIF_FAULT_NOSCRATCH,
	      "alloca(2^64 - 1): %s", dif_fault_name(fault.kind));
	CHECK(t, alloca_run(t, &e, DIF_ALLOCA_MAX + 1, &out, &fault) == -1 &&
	      fault.kind == DIF_FAULT_NOSCRATCH && e.used == 0, "alloca(max + 1): %s, %zu used",
	      dif_fault_name(fault.kind), e.used);
}

/*
 * bcopy(src, dst, size) or copyinto(src, size, dst) into alloca(32):
 * consts[] = { src, size, dst offset from alloca's result }.
 */
static int copy_run(struct host_test_ctx *t, struct store_env *e, bool user, uint64_t src,
		    uint64_t size, int64_t dst_off, struct dif_fault *fault)
{
	uint64_t k[4] = { 32, src, size, (uint64_t)dst_off };
	struct dif_insn insns[] = {
		I(LDC, 1, 0, 0, 0), I(PUSHT, 0, 1, 0, 0), I(CALL, 2, 0, 0, DIF_SUBR_ALLOCA),
		I(LDC, 3, 0, 0, 1), I(LDC, 4, 0, 0, 2), I(LDC, 5, 0, 0, 3), I(ADD, 5, 5, 2, 0),
		I(PUSHT, 0, 3, 0, 0),
		user ? (struct dif_insn)I(PUSHT, 0, 4, 0, 0) : (struct dif_insn)I(PUSHT, 0, 5, 0, 0),
		user ? (struct dif_insn)I(PUSHT, 0, 5, 0, 0) : (struct dif_insn)I(PUSHT, 0, 4, 0, 0),
		{ DIF_OP_CALL, 6, 0, 0, user ? DIF_SUBR_COPYINTO : DIF_SUBR_BCOPY },
		I(RET, 0, 2, 0, 0),
	};
	uint64_t out;
	return run(t, prog(insns, 12, k, 4), &ops, e, &out, fault);
}

HOST_TEST(dif_bcopy_and_copyinto_write_only_alloca_memory)
{
	static struct store_env e, before;
	struct dif_fault fault;
	for (int i = 0; i < 256; i++)
		e.readable[i] = (uint8_t)i;
	for (int i = 0; i < 64; i++)
		e.user[i] = (uint8_t)(200 - i);
	uint8_t *dst = e.area + GUARD;	/* alloca's result: the scratch is empty before */

	/* Every destination from 8 before alloca's 32 bytes to 8 past, sizes 0 to 12. */
	for (int bcopy = 1; bcopy >= 0; bcopy--) {
		for (int64_t off = -8; off <= 40; off++) {
			for (uint64_t size = 0; size <= 12; size += 3) {
				memset(e.area, 0x77, sizeof(e.area));
				e.used = 0;
				before = e;
				memset(before.area + GUARD, 0, 32);	/* alloca zeroes its bytes */
				uint64_t src = bcopy ? READABLE + 100 : USER + 10;
				int rc = copy_run(t, &e, !bcopy, src, size, off, &fault);
				bool inside = size == 0 || (off >= 0 && off + (int64_t)size <= 32);
				if (inside) {
					memcpy(before.area + GUARD + off,
					       bcopy ? e.readable + 100 : e.user + 10, size);
					before.used = 32;
					CHECK(t, rc == 0, "%s of %llu to +%lld: %s", bcopy ? "bcopy" :
					      "copyinto", (unsigned long long)size, (long long)off,
					      dif_fault_name(fault.kind));
				} else {
					before.used = 32;
					CHECK(t, rc == -1 && fault.kind == DIF_FAULT_BADADDR &&
					      fault.addr == (uint64_t)(uintptr_t)(dst + off),
					      "%s of %llu to %+lld: %s at 0x%llx", bcopy ? "bcopy" :
					      "copyinto", (unsigned long long)size, (long long)off,
					      dif_fault_name(fault.kind), (unsigned long long)fault.addr);
				}
				CHECK(t, !memcmp(e.area, before.area, sizeof(e.area)),
				      "%s of %llu to %+lld: wrong bytes written", bcopy ? "bcopy" :
				      "copyinto", (unsigned long long)size, (long long)off);
			}
		}
	}
	/* Sources that do not read fault at the first bad byte; kernel is not user, and back. */
	e.used = 0;
	CHECK(t, copy_run(t, &e, false, READABLE + 250, 12, 0, &fault) == -1 &&
	      fault.kind == DIF_FAULT_BADADDR && fault.addr == READABLE + 256,
	      "bcopy across the readable end: %s at 0x%llx", dif_fault_name(fault.kind),
	      (unsigned long long)fault.addr);
	e.used = 0;
	CHECK(t, copy_run(t, &e, true, READABLE, 4, 0, &fault) == -1 &&
	      fault.kind == DIF_FAULT_BADADDR && fault.addr == READABLE,
	      "copyinto from kernel memory: %s", dif_fault_name(fault.kind));
	e.used = 0;
	CHECK(t, copy_run(t, &e, false, USER, 4, 0, &fault) == -1 &&
	      fault.kind == DIF_FAULT_BADADDR && fault.addr == USER,
	      "bcopy from user memory: %s", dif_fault_name(fault.kind));
	/* Sizes that wrap or exceed any scratch are refused before anything is read. */
	e.used = 0;
	CHECK(t, copy_run(t, &e, false, READABLE, ~0ull - 4, 0, &fault) == -1 &&
	      fault.kind == DIF_FAULT_BADARG, "bcopy of 2^64 - 5 bytes: %s",
	      dif_fault_name(fault.kind));
}

/* Two copyin()s in one clause: the first copy is still there (its scratch is kept). */
HOST_TEST(dif_copyin_results_are_kept)
{
	static struct store_env e;
	memcpy(e.user, "first...second..", 16);
	uint64_t k[3] = { USER, 8, USER + 8 };
	static const struct dif_insn insns[] = {
		I(LDC, 1, 0, 0, 0), I(LDC, 2, 0, 0, 1), I(PUSHT, 0, 1, 0, 0), I(PUSHT, 0, 2, 0, 0),
		I(CALL, 3, 0, 0, DIF_SUBR_COPYIN),
		I(LDC, 1, 0, 0, 2), I(PUSHT, 0, 1, 0, 0), I(PUSHT, 0, 2, 0, 0),
		I(CALL, 4, 0, 0, DIF_SUBR_COPYIN),
		I(LDX, 5, 3, 0, 0), I(LDX, 6, 4, 0, 0), I(SUB, 5, 5, 6, 0), I(SNE, 5, 3, 4, 0),
		I(RET, 0, 3, 0, 0),
	};
	uint64_t out;
	struct dif_fault fault;
	CHECK(t, run(t, prog(insns, 14, k, 3), &ops, &e, &out, &fault) == 0 &&
	      !memcmp((const void *)(uintptr_t)out, "first...", 8) && e.used == 16,
	      "the first copy was given back: '%.8s', %zu bytes of scratch used",
	      (const char *)(uintptr_t)out, e.used);
}

/* Variables held by reference and array bounds: what the verifier refuses, and BND at run time. */
HOST_TEST(dif_byref_variables_and_bounds)
{
	static const struct {
		const char *want;
		struct dif_var var;
		struct dif_insn insns[2];
	} bad[] = {
		{ "held by reference: its memory is written", { .id = 0, .scope = DIF_SCOPE_GLOBAL,
		  .type = DIF_TYPE_BYREF, .size = 16 }, { I(STG, 0, 1, 0, 0), I(RET, 0, 0, 0, 0) } },
		{ "held by reference: its memory is written", { .id = 0, .scope = DIF_SCOPE_THREAD,
		  .type = DIF_TYPE_BYREF, .size = 16 }, { I(STT, 0, 1, 0, 0), I(RET, 0, 0, 0, 0) } },
		{ "held by reference: its memory is written", { .id = 0, .scope = DIF_SCOPE_GLOBAL,
		  .kind = DIF_KIND_ASSOC, .nkeys = 1, .type = DIF_TYPE_BYREF, .size = 16 },
		  { I(STGA, 0, 1, 0, 0), I(RET, 0, 0, 0, 0) } },
		{ "held by reference: its memory is written", { .id = 0, .scope = DIF_SCOPE_THREAD,
		  .kind = DIF_KIND_ASSOC, .nkeys = 1, .type = DIF_TYPE_BYREF, .size = 16 },
		  { I(STTA, 0, 1, 0, 0), I(RET, 0, 0, 0, 0) } },
		{ "of 1 to 16384 bytes", { .id = 0, .scope = DIF_SCOPE_GLOBAL, .type = DIF_TYPE_BYREF,
		  .size = 0 }, { I(RET, 0, 0, 0, 0), I(RET, 0, 0, 0, 0) } },
		{ "1 to 16384 bytes", { .id = 0, .scope = DIF_SCOPE_CLAUSE, .type = DIF_TYPE_BYREF,
		  .size = DIF_BYREF_MAX + 1 }, { I(RET, 0, 0, 0, 0), I(RET, 0, 0, 0, 0) } },
		{ "bad scope, kind or type", { .id = 0, .scope = DIF_SCOPE_GLOBAL, .type = 4, .size = 8 },
		  { I(RET, 0, 0, 0, 0), I(RET, 0, 0, 0, 0) } },
		{ "bound 0", { .id = 0, .scope = DIF_SCOPE_GLOBAL, .type = DIF_TYPE_INT },
		  { I(BND, 0, 1, 0, 0), I(RET, 0, 0, 0, 0) } },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct dif_prog p = prog(bad[i].insns, 2, ints_none, 0);
		p.vars = &bad[i].var;
		p.nvars = 1;
		char why[160] = "";
		CHECK(t, dif_verify(&p, why, sizeof(why)) == -22 && strstr(why, bad[i].want),
		      "case %zu ('%s'): '%s'", i, bad[i].want, why);
	}
	/* Loads of them are what the language uses: a thread-local's and an element's. */
	static const struct {
		struct dif_var var;
		struct dif_insn insns[2];
	} good[] = {
		{ { .id = 0, .scope = DIF_SCOPE_THREAD, .type = DIF_TYPE_BYREF, .size = 16 },
		  { I(LDT, 1, 0, 0, 0), I(RET, 0, 1, 0, 0) } },
		{ { .id = 0, .scope = DIF_SCOPE_GLOBAL, .kind = DIF_KIND_ASSOC, .nkeys = 1,
		    .type = DIF_TYPE_BYREF, .size = DIF_BYREF_MAX }, { I(RET, 0, 0, 0, 0),
		  I(RET, 0, 0, 0, 0) } },
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct dif_prog p = prog(good[i].insns, 2, ints_none, 0);
		p.vars = &good[i].var;
		p.nvars = 1;
		char why[160] = "";
		CHECK(t, dif_verify(&p, why, sizeof(why)) == 0, "good case %zu: '%s'", i, why);
	}
	/* BND r1, 4: 0..3 pass, 4 and -1 (as unsigned) fault with the index. */
	static struct store_env e;
	const int64_t tries[] = { 0, 3, 4, -1 };
	for (unsigned i = 0; i < 4; i++) {
		uint64_t k[1] = { (uint64_t)tries[i] };
		static const struct dif_insn insns[] = {
			I(LDC, 1, 0, 0, 0), I(BND, 0, 1, 0, 4), I(RET, 0, 1, 0, 0),
		};
		uint64_t out = 0;
		struct dif_fault fault;
		int rc = run(t, prog(insns, 3, k, 1), &ops, &e, &out, &fault);
		if (tries[i] >= 0 && tries[i] < 4)
			CHECK(t, rc == 0 && out == (uint64_t)tries[i], "index %lld refused",
			      (long long)tries[i]);
		else
			CHECK(t, rc == -1 && fault.kind == DIF_FAULT_BADINDEX && fault.pc == 1 &&
			      fault.addr == (uint64_t)tries[i], "index %lld: %s",
			      (long long)tries[i], dif_fault_name(fault.kind));
	}
}
