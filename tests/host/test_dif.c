// SPDX-License-Identifier: BSD-2-Clause
/*
 * Host tests of the DIF verifier and interpreter (kernel/trace/dif_*.c):
 * each kind of malformed program refused with its message, arithmetic,
 * comparisons and forward branches, loads with sign extension through a
 * fake fault-tolerant memory, every run-time fault with its instruction
 * and address, string subroutines with D's edge cases, and variables;
 * copyin and copyinstr through a fake user memory that only the
 * environment's copyin reads (never its read, and the other way round).
 */
#include <stdio.h>
#include <string.h>
#include "host_test.h"
#include "dif_both.h"
#include <scion/dif_exec.h>

#define I(op, rd, r1, r2, imm) { DIF_OP_##op, rd, r1, r2, imm }
#define MEM_BASE 0x10000ull
#define MEM_SIZE 256
#define SCRATCH  2048
#define NGLOBALS 4
#define NASSOC   8

struct fake_env {
	uint8_t mem[MEM_SIZE];
	char scratch[SCRATCH];
	size_t scratch_used;
	uint64_t globals[NGLOBALS];
	struct { uint64_t k0, k1, value; bool used; } assoc[NASSOC];
};

static int fake_read(void *env, uint64_t addr, void *buf, size_t n)
{
	struct fake_env *e = env;
	if (addr >= MEM_BASE && addr + n <= MEM_BASE + MEM_SIZE) {
		memcpy(buf, e->mem + (addr - MEM_BASE), n);
		return 0;
	}
	/*
	 * Host pointers into the program's string table or the scratch area:
	 * strings only, read up to their NUL (the kernel may read the rest
	 * of an aligned chunk; ASan would object here).
	 */
	if (addr > MEM_BASE + MEM_SIZE) {
		const char *from = (const char *)(uintptr_t)addr;
		char *to = buf;
		for (size_t i = 0; i < n && (i == 0 || from[i - 1]); i++)
			to[i] = from[i];
		return 0;
	}
	return -14;
}

/* The fake process's memory: 64 bytes at USER_FAKE; any other user address is untouched. */
#define USER_FAKE 0x400000ull
static const char user_mem[64] = "/etc/motd\0\0\0\0\0\0\0\x2a\0\0\0";

static int fake_copyin(void *env, uint64_t addr, void *buf, size_t n)
{
	(void)env;
	if (addr >= USER_FAKE && addr + n <= USER_FAKE + sizeof(user_mem)) {
		memcpy(buf, user_mem + (addr - USER_FAKE), n);
		return 0;
	}
	return -14;
}

static uint64_t fake_builtin(void *env, unsigned id)
{
	(void)env;
	return id == DIF_VAR_ARG0 ? 7 : 1000 + id;
}

static int fake_load_var(void *env, const struct dif_var *v, const struct dif_tuple_item *keys,
			 unsigned nkeys, uint64_t *out)
{
	struct fake_env *e = env;
	*out = 0;
	if (v->kind == DIF_KIND_SCALAR) {
		*out = e->globals[v->id % NGLOBALS];
		return 0;
	}
	for (int i = 0; i < NASSOC; i++)
		if (e->assoc[i].used && e->assoc[i].k0 == keys[0].value &&
		    (nkeys < 2 || e->assoc[i].k1 == keys[1].value))
			*out = e->assoc[i].value;
	return 0;
}

static int fake_store_var(void *env, const struct dif_var *v, const struct dif_tuple_item *keys,
			  unsigned nkeys, uint64_t value)
{
	struct fake_env *e = env;
	if (v->kind == DIF_KIND_SCALAR) {
		e->globals[v->id % NGLOBALS] = value;
		return 0;
	}
	for (int i = 0; i < NASSOC; i++) {
		if (!e->assoc[i].used) {
			e->assoc[i].used = true;
			e->assoc[i].k0 = keys[0].value;
			e->assoc[i].k1 = nkeys > 1 ? keys[1].value : 0;
			e->assoc[i].value = value;
			return 0;
		}
	}
	return -28;	/* -ENOSPC: dynamic variable space exhausted */
}

static void *fake_scratch(void *env, size_t bytes)
{
	struct fake_env *e = env;
	if (bytes > SCRATCH - e->scratch_used)
		return NULL;
	e->scratch_used += bytes;
	return e->scratch + e->scratch_used - bytes;
}

static uint64_t fake_random(void *env)
{
	(void)env;
	return 4;	/* chosen by fair dice roll */
}

static uint64_t fake_speculation(void *env)
{
	(void)env;
	return 1;
}

static uint64_t strtok_place[2];

static uint64_t *fake_strtok_state(void *env)
{
	(void)env;
	return strtok_place;
}

static void fake_scratch_release(void *env, void *from)
{
	struct fake_env *e = env;
	e->scratch_used = (size_t)((char *)from - e->scratch);
}

static const struct dif_env_ops fake_ops = {
	fake_read, fake_builtin, fake_load_var, fake_store_var, fake_scratch, fake_random,
	fake_speculation, fake_strtok_state, fake_scratch_release, fake_copyin,
	NULL,	/* writes: tests/host/test_dif_store.c */
};

static const char strtab[] = "hello\0/usr/lib/libc.so\0lo\0";
#define STR_HELLO 0
#define STR_PATH  6
#define STR_LO    23

static const struct dif_var vars[] = {
	{ .id = 1, .scope = DIF_SCOPE_GLOBAL, .kind = DIF_KIND_SCALAR, .type = DIF_TYPE_INT },
	{ .id = 2, .scope = DIF_SCOPE_GLOBAL, .kind = DIF_KIND_ASSOC, .type = DIF_TYPE_INT, .nkeys = 2 },
	{ .id = 3, .scope = DIF_SCOPE_THREAD, .kind = DIF_KIND_SCALAR, .type = DIF_TYPE_INT },
};

static const uint64_t ints[] = { 0x123456789abcdef0ull };

static struct dif_prog prog(const struct dif_insn *insns, uint32_t n)
{
	return (struct dif_prog){ .insns = insns, .ninsns = n, .ints = ints, .nints = 1,
				  .strtab = strtab, .strtab_len = sizeof(strtab), .vars = vars,
				  .nvars = 3, .rtype = DIF_TYPE_INT, .strsize = 64 };
}
#define PROG(...) ({ static const struct dif_insn insns_[] = { __VA_ARGS__ }; \
	prog(insns_, sizeof(insns_) / sizeof(insns_[0])); })

/* Run p with ops, natively and interpreted (dif_both.h): the interpreter's status and result. */
static int run_with(struct host_test_ctx *t, const struct dif_prog *p,
		    const struct dif_env_ops *ops, struct fake_env *env, uint64_t *out,
		    struct dif_fault *fault)
{
	const struct dif_both_extra place = { strtok_place, sizeof(strtok_place) };
	return dif_run_both(t, p, ops, env, sizeof(*env), &place, out, fault);
}

/* Verify and run p; returns the run's status, result in *out. */
static int run(struct host_test_ctx *t, struct dif_prog p, struct fake_env *env, uint64_t *out,
	       struct dif_fault *fault)
{
	char why[160];
	if (dif_verify(&p, why, sizeof(why))) {
		host_fail(t, __FILE__, __LINE__, "verifier refused a good program: %s", why);
		return -2;
	}
	return run_with(t, &p, &fake_ops, env, out, fault);
}

HOST_TEST(dif_verifier_refuses_malformed_programs)
{
	static const struct { const char *want; struct dif_insn insns[3]; uint32_t n; } cases[] = {
		{ "backward branch", { I(LDI, 1, 0, 0, 1), I(BA, 0, 0, 0, -2), I(RET, 0, 1, 0, 0) }, 3 },
		{ "past the last instruction", { I(BEQ, 0, 1, 2, 5), I(RET, 0, 0, 0, 0) }, 2 },
		{ "not RET", { I(LDI, 1, 0, 0, 1) }, 1 },
		{ "unknown opcode 200", { { 200, 0, 0, 0, 0 }, I(RET, 0, 0, 0, 0) }, 2 },
		{ "register 16 out of range", { I(ADD, 16, 1, 2, 0), I(RET, 0, 0, 0, 0) }, 2 },
		{ "writes r0", { I(LDI, 0, 0, 0, 5), I(RET, 0, 0, 0, 0) }, 2 },
		{ "a field it does not use", { I(ADD, 1, 2, 3, 9), I(RET, 0, 0, 0, 0) }, 2 },
		{ "constant 1 of 1", { I(LDC, 1, 0, 0, 1), I(RET, 0, 1, 0, 0) }, 2 },
		{ "does not start a string", { I(LDSTR, 1, 0, 0, 2), I(RET, 0, 1, 0, 0) }, 2 },
		{ "another scope or kind", { I(LDT, 1, 0, 0, 0), I(RET, 0, 1, 0, 0) }, 2 },
		{ "variable 3 of 3", { I(STG, 0, 1, 0, 3), I(RET, 0, 0, 0, 0) }, 2 },
		{ "unknown built-in", { I(LDB, 1, 0, 0, DIF_VAR_LIMIT), I(RET, 0, 1, 0, 0) }, 2 },
		{ "unknown subroutine", { I(CALL, 1, 0, 0, DIF_SUBR_LIMIT), I(RET, 0, 1, 0, 0) }, 2 },
		{ "string size 5000", { I(PUSHT, 0, 1, 0, 5000), I(RET, 0, 0, 0, 0) }, 2 },
		{ "0 instructions", { I(RET, 0, 0, 0, 0) }, 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char why[160] = "";
		struct dif_prog p = prog(cases[i].insns, cases[i].n);
		int err = dif_verify(&p, why, sizeof(why));
		CHECK(t, err == -22 && strstr(why, cases[i].want), "case '%s': %d, '%s'", cases[i].want,
		      err, why);
	}
	struct dif_prog p = PROG(I(RET, 0, 0, 0, 0));
	char why[160];
	static const char unterminated[] = { 'a', 'b' };
	p.strtab = unterminated;
	p.strtab_len = 2;
	CHECK(t, dif_verify(&p, why, sizeof(why)) && strstr(why, "does not end in NUL"), "%s", why);
	p = PROG(I(RET, 0, 0, 0, 0));
	p.strsize = 0;
	CHECK(t, dif_verify(&p, why, sizeof(why)) && strstr(why, "string size 0"), "%s", why);
	static const struct dif_var clause_assoc = { .scope = DIF_SCOPE_CLAUSE, .kind = DIF_KIND_ASSOC,
						     .type = DIF_TYPE_INT, .nkeys = 1 };
	p = PROG(I(RET, 0, 0, 0, 0));
	p.vars = &clause_assoc;
	p.nvars = 1;
	CHECK(t, dif_verify(&p, why, sizeof(why)) && strstr(why, "clause-local associative"), "%s", why);
	p = PROG(I(RET, 0, 0, 0, 0));
	p.ninsns = DIF_MAX_INSNS + 1;
	CHECK(t, dif_verify(&p, why, sizeof(why)) && strstr(why, "give 1 to"), "%s", why);
}

HOST_TEST(dif_arithmetic_and_branches)
{
	struct fake_env env = { 0 };
	struct dif_fault fault;
	uint64_t out = 0;
	/* ((arg0 + 5) * 3) / 2, arg0 = 7 -> 18 */
	struct dif_prog p = PROG(I(LDB, 1, 0, 0, DIF_VAR_ARG0), I(LDI, 2, 0, 0, 5), I(ADD, 1, 1, 2, 0),
				 I(LDI, 2, 0, 0, 3), I(MUL, 1, 1, 2, 0), I(LDI, 2, 0, 0, 2),
				 I(SDIV, 1, 1, 2, 0), I(RET, 0, 1, 0, 0));
	CHECK(t, run(t, p, &env, &out, &fault) == 0 && out == 18, "got %llu", (unsigned long long)out);
	/* -1 < 1 signed, not unsigned: both branches checked */
	p = PROG(I(LDI, 1, 0, 0, -1), I(LDI, 2, 0, 0, 1), I(SLT, 3, 1, 2, 0), I(SLTU, 4, 1, 2, 0),
		 I(SHL, 3, 3, 2, 0), I(OR, 3, 3, 4, 0), I(BLTU, 0, 2, 1, 1), I(RET, 0, 0, 0, 0),
		 I(RET, 0, 3, 0, 0));
	CHECK(t, run(t, p, &env, &out, &fault) == 0 && out == 2, "signed/unsigned: %llu",
	      (unsigned long long)out);
	/* INT64_MIN / -1 wraps instead of trapping; the 64-bit constant table */
	p = PROG(I(LDI, 1, 0, 0, 1), I(LDI, 2, 0, 0, 63), I(SHL, 1, 1, 2, 0), I(LDI, 2, 0, 0, -1),
		 I(SDIV, 3, 1, 2, 0), I(LDC, 4, 0, 0, 0), I(XOR, 3, 3, 4, 0), I(RET, 0, 3, 0, 0));
	CHECK(t, run(t, p, &env, &out, &fault) == 0 &&
	      out == ((1ull << 63) ^ 0x123456789abcdef0ull), "overflow: %llx", (unsigned long long)out);
}

HOST_TEST(dif_loads_and_faults)
{
	struct fake_env env = { 0 };
	struct dif_fault fault;
	uint64_t out = 0;
	env.mem[0] = 0xff;
	env.mem[8] = 0x80;
	env.mem[9] = 0x01;
	struct dif_prog p = PROG(I(LDC, 1, 0, 0, 0), I(LDI, 1, 0, 0, (int32_t)MEM_BASE),
				 I(LDSB, 2, 1, 0, 0), I(LDUB, 3, 1, 0, 0), I(ADD, 2, 2, 3, 0),
				 I(LDUH, 4, 1, 0, 8), I(ADD, 2, 2, 4, 0), I(RET, 0, 2, 0, 0));
	CHECK(t, run(t, p, &env, &out, &fault) == 0 && out == (uint64_t)(-1 + 255 + 0x180),
	      "sign extension: %lld", (long long)out);

	struct { const char *what; struct dif_prog p; enum dif_fault_kind kind; uint32_t pc;
		 uint64_t addr; } faults[] = {
		{ "division by zero", PROG(I(LDI, 1, 0, 0, 5), I(UREM, 2, 1, 0, 0), I(RET, 0, 2, 0, 0)),
		  DIF_FAULT_DIVZERO, 1, 0 },
		{ "misaligned", PROG(I(LDI, 1, 0, 0, (int32_t)MEM_BASE), I(LDX, 2, 1, 0, 4),
				     I(RET, 0, 2, 0, 0)), DIF_FAULT_ALIGN, 1, MEM_BASE + 4 },
		{ "bad address", PROG(I(LDI, 1, 0, 0, 64), I(LDUW, 2, 1, 0, 0), I(RET, 0, 2, 0, 0)),
		  DIF_FAULT_BADADDR, 1, 64 },
		{ "string at a bad address", PROG(I(LDI, 1, 0, 0, 128), I(PUSHT, 0, 1, 0, 64),
						  I(CALL, 2, 0, 0, DIF_SUBR_STRLEN), I(RET, 0, 2, 0, 0)),
		  DIF_FAULT_BADADDR, 2, 128 },
		{ "tuple overflow", PROG(I(PUSHT, 0, 1, 0, 0), I(PUSHT, 0, 1, 0, 0), I(PUSHT, 0, 1, 0, 0),
					 I(PUSHT, 0, 1, 0, 0), I(PUSHT, 0, 1, 0, 0), I(PUSHT, 0, 1, 0, 0),
					 I(PUSHT, 0, 1, 0, 0), I(PUSHT, 0, 1, 0, 0), I(PUSHT, 0, 1, 0, 0),
					 I(PUSHT, 0, 1, 0, 0), I(PUSHT, 0, 1, 0, 0), I(RET, 0, 0, 0, 0)),
		  DIF_FAULT_TUPLE, 10, 0 },
		{ "wrong key count", PROG(I(PUSHT, 0, 1, 0, 0), I(LDGA, 2, 0, 0, 1), I(RET, 0, 2, 0, 0)),
		  DIF_FAULT_BADARG, 1, 0 },
		{ "wrong argument count", PROG(I(CALL, 2, 0, 0, DIF_SUBR_STRLEN), I(RET, 0, 2, 0, 0)),
		  DIF_FAULT_BADARG, 0, 0 },
		{ "bad lltostr base", PROG(I(LDI, 1, 0, 0, 37), I(PUSHT, 0, 1, 0, 0), I(PUSHT, 0, 1, 0, 0),
					   I(CALL, 2, 0, 0, DIF_SUBR_LLTOSTR), I(RET, 0, 2, 0, 0)),
		  DIF_FAULT_BADARG, 3, 37 },
		{ "strtoll base 1", PROG(I(LDI, 1, 0, 0, 1), I(PUSHT, 0, 1, 0, 0), I(PUSHT, 0, 1, 0, 0),
					 I(CALL, 2, 0, 0, DIF_SUBR_STRTOLL), I(RET, 0, 2, 0, 0)),
		  DIF_FAULT_BADARG, 3, 1 },
		{ "strtoll base 37", PROG(I(LDI, 1, 0, 0, 37), I(PUSHT, 0, 1, 0, 0), I(PUSHT, 0, 1, 0, 0),
					  I(CALL, 2, 0, 0, DIF_SUBR_STRTOLL), I(RET, 0, 2, 0, 0)),
		  DIF_FAULT_BADARG, 3, 37 },
		{ "strtoll base -1", PROG(I(LDI, 1, 0, 0, -1), I(PUSHT, 0, 1, 0, 0), I(PUSHT, 0, 1, 0, 0),
					  I(CALL, 2, 0, 0, DIF_SUBR_STRTOLL), I(RET, 0, 2, 0, 0)),
		  DIF_FAULT_BADARG, 3, ~0ull },
		{ "htonl without an argument", PROG(I(CALL, 2, 0, 0, DIF_SUBR_HTONL), I(RET, 0, 2, 0, 0)),
		  DIF_FAULT_BADARG, 0, 0 },
		{ "ntohs with two", PROG(I(PUSHT, 0, 1, 0, 0), I(PUSHT, 0, 1, 0, 0),
					 I(CALL, 2, 0, 0, DIF_SUBR_NTOHS), I(RET, 0, 2, 0, 0)),
		  DIF_FAULT_BADARG, 2, 2 },
		{ "toupper without an argument", PROG(I(CALL, 2, 0, 0, DIF_SUBR_TOUPPER),
						      I(RET, 0, 2, 0, 0)), DIF_FAULT_BADARG, 0, 0 },
		{ "cleanpath at a bad address", PROG(I(LDI, 1, 0, 0, 128), I(PUSHT, 0, 1, 0, 64),
						     I(CALL, 2, 0, 0, DIF_SUBR_CLEANPATH),
						     I(RET, 0, 2, 0, 0)), DIF_FAULT_BADADDR, 2, 128 },
		{ "strtoll with three", PROG(I(PUSHT, 0, 1, 0, 0), I(PUSHT, 0, 1, 0, 0),
					     I(PUSHT, 0, 1, 0, 0), I(CALL, 2, 0, 0, DIF_SUBR_STRTOLL),
					     I(RET, 0, 2, 0, 0)), DIF_FAULT_BADARG, 3, 3 },
	};
	for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++) {
		memset(&fault, 0, sizeof(fault));
		int status = run(t, faults[i].p, &env, &out, &fault);
		CHECK(t, status == -1 && fault.kind == faults[i].kind && fault.pc == faults[i].pc &&
		      fault.addr == faults[i].addr, "%s: status %d, %s at %u, addr %llx", faults[i].what,
		      status, dif_fault_name(fault.kind), fault.pc, (unsigned long long)fault.addr);
	}
	/* Scratch runs out: strjoin needs two strings of strsize. */
	struct fake_env full = { .scratch_used = SCRATCH - 10 };
	struct dif_prog join = PROG(I(LDSTR, 1, 0, 0, STR_HELLO), I(PUSHT, 0, 1, 0, 64),
				    I(PUSHT, 0, 1, 0, 64), I(CALL, 2, 0, 0, DIF_SUBR_STRJOIN),
				    I(RET, 0, 2, 0, 0));
	CHECK(t, run(t, join, &full, &out, &fault) == -1 && fault.kind == DIF_FAULT_NOSCRATCH,
	      "scratch: %s", dif_fault_name(fault.kind));
}

/* Call subroutine subr on (string at strtab offset s, then ints...); the result as text. */
static const char *call_string(struct host_test_ctx *t, struct fake_env *env, unsigned subr,
			       int32_t s, int nints, int32_t a, int32_t b)
{
	static char text[80];
	struct dif_insn insns[] = {
		I(LDSTR, 1, 0, 0, s), I(PUSHT, 0, 1, 0, 64), I(LDI, 2, 0, 0, a), I(LDI, 3, 0, 0, b),
		I(NOP, 0, 0, 0, 0), I(NOP, 0, 0, 0, 0), I(CALL, 4, 0, 0, (int32_t)subr), I(RET, 0, 4, 0, 0),
	};
	if (nints >= 1)
		insns[4] = (struct dif_insn)I(PUSHT, 0, 2, 0, 0);
	if (nints >= 2)
		insns[5] = (struct dif_insn)I(PUSHT, 0, 3, 0, 0);
	struct dif_fault fault;
	uint64_t out = 0;
	if (run(t, prog(insns, 8), env, &out, &fault))
		return dif_fault_name(fault.kind);
	snprintf(text, sizeof(text), "%s", (const char *)(uintptr_t)out);
	return text;
}

HOST_TEST(dif_string_subroutines)
{
	struct fake_env env = { 0 };
	struct dif_fault fault;
	uint64_t out = 0;
	static const struct { unsigned subr; int32_t s; int n; int32_t a, b; const char *want; } cases[] = {
		{ DIF_SUBR_SUBSTR, STR_HELLO, 1, 1, 0, "ello" },
		{ DIF_SUBR_SUBSTR, STR_HELLO, 2, 1, 3, "ell" },
		{ DIF_SUBR_SUBSTR, STR_HELLO, 1, -2, 0, "lo" },
		{ DIF_SUBR_SUBSTR, STR_HELLO, 2, 0, -1, "hell" },
		{ DIF_SUBR_SUBSTR, STR_HELLO, 2, -7, 4, "he" },
		{ DIF_SUBR_SUBSTR, STR_HELLO, 1, 9, 0, "" },
		{ DIF_SUBR_BASENAME, STR_PATH, 0, 0, 0, "libc.so" },
		{ DIF_SUBR_DIRNAME, STR_PATH, 0, 0, 0, "/usr/lib" },
		{ DIF_SUBR_BASENAME, STR_HELLO, 0, 0, 0, "hello" },
		{ DIF_SUBR_DIRNAME, STR_HELLO, 0, 0, 0, "." },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		env.scratch_used = 0;
		const char *got = call_string(t, &env, cases[i].subr, cases[i].s, cases[i].n, cases[i].a,
					      cases[i].b);
		CHECK(t, !strcmp(got, cases[i].want), "%s case %zu: '%s', want '%s'",
		      dif_subr_name(cases[i].subr), i, got, cases[i].want);
	}
	/* lltostr(-255), lltostr(255, 16), strlen, index("hello", "lo"), strjoin, SCMP */
	struct dif_prog p = PROG(I(LDI, 1, 0, 0, -255), I(PUSHT, 0, 1, 0, 0),
				 I(CALL, 2, 0, 0, DIF_SUBR_LLTOSTR), I(PUSHT, 0, 2, 0, 64),
				 I(CALL, 3, 0, 0, DIF_SUBR_STRLEN), I(RET, 0, 3, 0, 0));
	CHECK(t, run(t, p, &env, &out, &fault) == 0 && out == 4, "strlen(lltostr(-255)) = %llu",
	      (unsigned long long)out);
	p = PROG(I(LDSTR, 1, 0, 0, STR_HELLO), I(LDSTR, 2, 0, 0, STR_LO), I(PUSHT, 0, 1, 0, 64),
		 I(PUSHT, 0, 2, 0, 64), I(CALL, 3, 0, 0, DIF_SUBR_INDEX), I(RET, 0, 3, 0, 0));
	CHECK(t, run(t, p, &env, &out, &fault) == 0 && out == 3, "index = %lld", (long long)out);
	p = PROG(I(LDSTR, 1, 0, 0, STR_HELLO), I(LDSTR, 2, 0, 0, STR_LO), I(PUSHT, 0, 1, 0, 64),
		 I(PUSHT, 0, 2, 0, 64), I(CALL, 3, 0, 0, DIF_SUBR_STRJOIN), I(LDSTR, 4, 0, 0, STR_HELLO),
		 I(SCMP, 5, 3, 4, 0), I(SCMP, 6, 4, 4, 0), I(SUB, 5, 5, 6, 0), I(RET, 0, 5, 0, 0));
	env.scratch_used = 0;
	CHECK(t, run(t, p, &env, &out, &fault) == 0 && out == 1 &&
	      !strcmp(env.scratch, "hellolo"), "strjoin/scmp: %lld '%s'", (long long)out, env.scratch);
	p = PROG(I(LDI, 1, 0, 0, 255), I(LDI, 2, 0, 0, 16), I(PUSHT, 0, 1, 0, 0), I(PUSHT, 0, 2, 0, 0),
		 I(CALL, 3, 0, 0, DIF_SUBR_LLTOSTR), I(RET, 0, 3, 0, 0));
	env.scratch_used = 0;
	CHECK(t, run(t, p, &env, &out, &fault) == 0 && !strcmp((const char *)(uintptr_t)out, "0xff"),
	      "lltostr(255, 16)");
}

HOST_TEST(dif_string_searches_stay_in_bounds)
{
	struct fake_env env = { 0 };
	struct dif_fault fault;
	uint64_t out = 0;
	/* "abcd" ends the readable memory without a NUL: the copy faults there, not past it. */
	memcpy(env.mem + MEM_SIZE - 4, "abcd", 4);
	struct dif_prog p = PROG(I(LDI, 1, 0, 0, (int32_t)(MEM_BASE + MEM_SIZE - 4)),
				 I(LDI, 2, 0, 0, 'z'), I(PUSHT, 0, 1, 0, 64), I(PUSHT, 0, 2, 0, 0),
				 I(CALL, 3, 0, 0, DIF_SUBR_STRCHR), I(RET, 0, 3, 0, 0));
	CHECK(t, run(t, p, &env, &out, &fault) == -1 && fault.kind == DIF_FAULT_BADADDR &&
	      fault.addr == MEM_BASE + MEM_SIZE && fault.pc == 4, "unterminated: %s at %#llx",
	      dif_fault_name(fault.kind), (unsigned long long)fault.addr);
	/* Only strsize - 1 (63) bytes are searched; a match is an address in the scratch copy. */
	memset(env.mem, 'a', 69);
	env.mem[69] = 'z';
	env.mem[70] = '\0';
	p = PROG(I(LDI, 1, 0, 0, (int32_t)MEM_BASE), I(LDI, 2, 0, 0, 'z'), I(PUSHT, 0, 1, 0, 64),
		 I(PUSHT, 0, 2, 0, 0), I(CALL, 3, 0, 0, DIF_SUBR_STRRCHR), I(RET, 0, 3, 0, 0));
	env.scratch_used = 0;
	CHECK(t, run(t, p, &env, &out, &fault) == 0 && out == 0, "past strsize: %#llx",
	      (unsigned long long)out);
	p = PROG(I(LDI, 1, 0, 0, (int32_t)MEM_BASE), I(LDI, 2, 0, 0, 'a'), I(PUSHT, 0, 1, 0, 64),
		 I(PUSHT, 0, 2, 0, 0), I(CALL, 3, 0, 0, DIF_SUBR_STRCHR), I(RET, 0, 3, 0, 0));
	env.scratch_used = 0;
	CHECK(t, run(t, p, &env, &out, &fault) == 0 && out == (uint64_t)(uintptr_t)env.scratch &&
	      strlen(env.scratch) == 63, "copy: %#llx, %zu bytes", (unsigned long long)out,
	      strlen(env.scratch));
	/* NULL compares as "" and nothing is read at 0: SCMP(0, "hello") -1, ("hello", 0) 1, (0, 0) 0. */
	p = PROG(I(LDSTR, 1, 0, 0, STR_HELLO), I(SCMP, 2, 0, 1, 0), I(LDI, 3, 0, 0, -1),
		 I(SEQ, 2, 2, 3, 0), I(SCMP, 4, 1, 0, 0), I(LDI, 5, 0, 0, 1), I(SEQ, 4, 4, 5, 0),
		 I(SCMP, 6, 0, 0, 0), I(SEQ, 6, 6, 0, 0), I(AND, 2, 2, 4, 0), I(AND, 2, 2, 6, 0),
		 I(RET, 0, 2, 0, 0));
	env.scratch_used = 0;
	CHECK(t, run(t, p, &env, &out, &fault) == 0 && out == 1, "NULL vs strings: %lld (%s)",
	      (long long)out, dif_fault_name(fault.kind));
	/* Integer results give their copies back: 40 index calls need 80 strings, scratch holds 32. */
	struct dif_insn many[123] = { I(LDSTR, 1, 0, 0, STR_HELLO), I(LDSTR, 2, 0, 0, STR_LO) };
	for (int i = 0; i < 40; i++) {
		many[2 + 3 * i] = (struct dif_insn)I(PUSHT, 0, 1, 0, 64);
		many[3 + 3 * i] = (struct dif_insn)I(PUSHT, 0, 2, 0, 64);
		many[4 + 3 * i] = (struct dif_insn)I(CALL, 3, 0, 0, DIF_SUBR_INDEX);
	}
	many[122] = (struct dif_insn)I(RET, 0, 3, 0, 0);
	env.scratch_used = 0;
	CHECK(t, run(t, prog(many, 123), &env, &out, &fault) == 0 && out == 3 &&
	      env.scratch_used == 0, "40 index calls: %s, scratch %zu", dif_fault_name(fault.kind),
	      env.scratch_used);
	struct dif_env_ops keeping = fake_ops;
	keeping.scratch_release = NULL;
	char why[160];
	struct dif_prog mp = prog(many, 123);
	CHECK(t, dif_verify(&mp, why, sizeof(why)) == 0 &&
	      run_with(t, &mp, &keeping, &env, &out, &fault) == -1 && fault.kind == DIF_FAULT_NOSCRATCH,
	      "without giving back: %s", dif_fault_name(fault.kind));
	env.scratch_used = 0;
	/* strtok needs the environment's place for it. */
	struct dif_env_ops no_place = fake_ops;
	no_place.strtok_state = NULL;
	p = PROG(I(LDSTR, 1, 0, 0, STR_HELLO), I(PUSHT, 0, 1, 0, 64), I(PUSHT, 0, 1, 0, 64),
		 I(CALL, 2, 0, 0, DIF_SUBR_STRTOK), I(RET, 0, 2, 0, 0));
	CHECK(t, dif_verify(&p, why, sizeof(why)) == 0 &&
	      run_with(t, &p, &no_place, &env, &out, &fault) == -1 && fault.kind == DIF_FAULT_ILLOP,
	      "strtok without a place: %s", dif_fault_name(fault.kind));
}

HOST_TEST(dif_variables)
{
	struct fake_env env = { 0 };
	struct dif_fault fault;
	uint64_t out = 0;
	/* g = 41; a[1, 2] = g + 1; a[1, 2] + a[3, 4] (missing: 0) */
	struct dif_prog p = PROG(I(LDI, 1, 0, 0, 41), I(STG, 0, 1, 0, 0), I(LDG, 2, 0, 0, 0),
				 I(LDI, 3, 0, 0, 1), I(ADD, 2, 2, 3, 0), I(LDI, 4, 0, 0, 2),
				 I(PUSHT, 0, 3, 0, 0), I(PUSHT, 0, 4, 0, 0), I(STGA, 0, 2, 0, 1), I(LDGA, 5, 0, 0, 1),
				 I(POPT, 0, 0, 0, 0), I(LDI, 3, 0, 0, 3), I(LDI, 4, 0, 0, 4), I(PUSHT, 0, 3, 0, 0),
				 I(PUSHT, 0, 4, 0, 0), I(LDGA, 6, 0, 0, 1), I(ADD, 5, 5, 6, 0), I(RET, 0, 5, 0, 0));
	CHECK(t, run(t, p, &env, &out, &fault) == 0 && out == 42 && env.globals[1] == 41,
	      "variables: %llu", (unsigned long long)out);
	for (int i = 0; i < NASSOC; i++)
		env.assoc[i].used = true;
	CHECK(t, run(t, p, &env, &out, &fault) == -1 && fault.kind == DIF_FAULT_DYNVAR && fault.pc == 8,
	      "full dynamic space: %s at %u", dif_fault_name(fault.kind), fault.pc);
}

HOST_TEST(dif_copyin_reads_user_memory_only)
{
	struct fake_env env = { 0 };
	struct dif_fault fault;
	uint64_t out = 0;
	/* copyinstr(USER_FAKE) and copyinstr(USER_FAKE, 4) */
	struct dif_prog p = PROG(I(LDI, 1, 0, 0, (int32_t)USER_FAKE), I(PUSHT, 0, 1, 0, 0),
				 I(CALL, 2, 0, 0, DIF_SUBR_COPYINSTR), I(RET, 0, 2, 0, 0));
	CHECK(t, run(t, p, &env, &out, &fault) == 0 &&
	      !strcmp((const char *)(uintptr_t)out, "/etc/motd"), "copyinstr");
	p = PROG(I(LDI, 1, 0, 0, (int32_t)USER_FAKE), I(LDI, 3, 0, 0, 4), I(PUSHT, 0, 1, 0, 0),
		 I(PUSHT, 0, 3, 0, 0), I(CALL, 2, 0, 0, DIF_SUBR_COPYINSTR), I(RET, 0, 2, 0, 0));
	env.scratch_used = 0;
	CHECK(t, run(t, p, &env, &out, &fault) == 0 &&
	      !strcmp((const char *)(uintptr_t)out, "/etc"), "copyinstr(addr, 4)");
	/* *(int *)copyin(USER_FAKE + 16, 4) == 42: the copy is kernel (scratch) memory */
	p = PROG(I(LDI, 1, 0, 0, (int32_t)USER_FAKE + 16), I(LDI, 3, 0, 0, 4), I(PUSHT, 0, 1, 0, 0),
		 I(PUSHT, 0, 3, 0, 0), I(CALL, 2, 0, 0, DIF_SUBR_COPYIN), I(RET, 0, 2, 0, 0));
	env.scratch_used = 0;
	CHECK(t, run(t, p, &env, &out, &fault) == 0 && out &&
	      *(const int *)(uintptr_t)out == 42, "copyin");
	/* A string at the end of the mapped bytes without a NUL: the next byte faults. */
	struct { const char *what; struct dif_prog p; enum dif_fault_kind kind; uint64_t addr; } bad[] = {
		{ "kernel-readable, not user", PROG(I(LDI, 1, 0, 0, (int32_t)MEM_BASE),
			I(PUSHT, 0, 1, 0, 0), I(CALL, 2, 0, 0, DIF_SUBR_COPYINSTR), I(RET, 0, 2, 0, 0)),
		  DIF_FAULT_BADADDR, MEM_BASE },
		{ "untouched user page", PROG(I(LDI, 1, 0, 0, (int32_t)USER_FAKE + 4096),
			I(LDI, 3, 0, 0, 8), I(PUSHT, 0, 1, 0, 0), I(PUSHT, 0, 3, 0, 0),
			I(CALL, 2, 0, 0, DIF_SUBR_COPYIN), I(RET, 0, 2, 0, 0)),
		  DIF_FAULT_BADADDR, USER_FAKE + 4096 },
		{ "larger than strsize", PROG(I(LDI, 1, 0, 0, (int32_t)USER_FAKE),
			I(LDI, 3, 0, 0, 65), I(PUSHT, 0, 1, 0, 0), I(PUSHT, 0, 3, 0, 0),
			I(CALL, 2, 0, 0, DIF_SUBR_COPYIN), I(RET, 0, 2, 0, 0)),
		  DIF_FAULT_BADARG, 65 },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		env.scratch_used = 0;
		CHECK(t, run(t, bad[i].p, &env, &out, &fault) == -1 && fault.kind == bad[i].kind &&
		      fault.addr == bad[i].addr && fault.pc == bad[i].p.ninsns - 2,
		      "%s: kind %d addr %llx pc %u", bad[i].what, fault.kind,
		      (unsigned long long)fault.addr, fault.pc);
	}
	/* An environment without user memory: copyin faults, never reads through read. */
	struct dif_env_ops no_user = fake_ops;
	no_user.copyin = NULL;
	p = PROG(I(LDI, 1, 0, 0, (int32_t)USER_FAKE), I(PUSHT, 0, 1, 0, 0),
		 I(CALL, 2, 0, 0, DIF_SUBR_COPYINSTR), I(RET, 0, 2, 0, 0));
	env.scratch_used = 0;
	CHECK(t, run_with(t, &p, &no_user, &env, &out, &fault) == -1 && fault.kind == DIF_FAULT_BADADDR,
	      "no copyin op: kind %d", fault.kind);
	/* The last built-in and subroutine are known to the verifier; the next ones are not. */
	char why[160];
	p = PROG(I(LDB, 1, 0, 0, DIF_VAR_LIMIT - 1), I(RET, 0, 1, 0, 0));
	CHECK(t, dif_verify(&p, why, sizeof(why)) == 0, "last built-in refused: %s", why);
	CHECK(t, !strcmp(dif_builtin_name(DIF_VAR_ERRNO), "errno") &&
	      !strcmp(dif_builtin_name(DIF_VAR_PS_PSARGS), "curpsinfo->pr_psargs") &&
	      !strcmp(dif_subr_name(DIF_SUBR_COPYINSTR), "copyinstr") &&
	      !strcmp(dif_builtin_name(DIF_VAR_LIMIT), "?"), "names");
}
