// SPDX-License-Identifier: BSD-2-Clause
/*
 * Host tests of the DIF compiler (scion/dif_jit.h, arch/x86/dif_jit.c).
 * The interpreter's own tests already run every program both ways
 * (dif_both.h); here:
 *   - random programs over every opcode and operand format, each one the
 *     verifier accepts run natively and interpreted against the same
 *     environment (loads, stores, variables, subroutines, faults), which
 *     must agree in status, result, fault and every byte of state;
 *   - the native code of each, decoded by Scion's x86 decoder: every
 *     byte decodes, every branch lands on an instruction of the code,
 *     the only indirect transfers are the calls the compiler makes, and
 *     every memory write goes to the run state, the result or the stack;
 *   - what the compiler refuses, and that nothing is left allocated;
 *   - a program that is one built-in's value is marked so (its code
 *     answers what the environment does), and its near misses are not.
 */
#include <stdio.h>
#include <string.h>
#include "host_test.h"
#include "host_jit.h"
#include "dif_both.h"
#include <scion/dif_jit.h>
#include <arch/insn.h>

#define I(op, rd, r1, r2, imm) { DIF_OP_##op, rd, r1, r2, imm }
#define MEM_BASE   0x30000ull
#define MEM_SIZE   128
#define SCRATCH    1024
#define NVARS      6
#define MAX_LEN    48

struct jit_env {
	uint8_t mem[MEM_SIZE];		/* readable at MEM_BASE */
	uint8_t scratch[SCRATCH];	/* writable once taken */
	size_t used;
	uint64_t vars[NVARS];		/* scalars by variable id; assocs by first key */
	uint64_t assoc[NVARS][4];
	uint64_t calls;			/* built-in and random calls, in order */
	uint64_t strtok[2];
};

static int env_read(void *env, uint64_t addr, void *buf, size_t n)
{
	struct jit_env *e = env;
	if (addr >= MEM_BASE && addr - MEM_BASE <= MEM_SIZE && n <= MEM_SIZE - (addr - MEM_BASE)) {
		memcpy(buf, e->mem + (addr - MEM_BASE), n);
		return 0;
	}
	uint64_t s = (uint64_t)(uintptr_t)e->scratch;
	if (addr >= s && addr - s <= SCRATCH && n <= SCRATCH - (addr - s)) {
		memmove(buf, (const void *)(uintptr_t)addr, n);
		return 0;
	}
	return -14;
}

static uint64_t env_builtin(void *env, unsigned id)
{
	struct jit_env *e = env;
	e->calls = e->calls * 31 + id;
	switch (id % 4) {
	case 0: return MEM_BASE + 8 * (id % 8);		/* an address that reads */
	case 1: return (uint64_t)(uintptr_t)e->scratch;	/* the scratch area */
	case 2: return (uint64_t)-(int64_t)id;
	default: return id * 0x0101010101ull;
	}
}

static int env_load_var(void *env, const struct dif_var *v, const struct dif_tuple_item *keys,
			unsigned nkeys, uint64_t *out)
{
	struct jit_env *e = env;
	*out = v->kind == DIF_KIND_ASSOC ? e->assoc[v->id % NVARS][keys[0].value % 4] +
		nkeys : e->vars[v->id % NVARS];
	return 0;
}

static int env_store_var(void *env, const struct dif_var *v, const struct dif_tuple_item *keys,
			 unsigned nkeys, uint64_t value)
{
	struct jit_env *e = env;
	if (v->kind == DIF_KIND_ASSOC) {
		if (keys[0].value == 13)
			return -28;	/* dynamic variable space exhausted */
		e->assoc[v->id % NVARS][keys[0].value % 4] = value + nkeys;
	} else {
		e->vars[v->id % NVARS] = value;
	}
	return 0;
}

static void *env_scratch(void *env, size_t bytes)
{
	struct jit_env *e = env;
	size_t need = (bytes + 7) & ~(size_t)7;
	if (need > SCRATCH - e->used)
		return NULL;
	e->used += need;
	return e->scratch + e->used - need;
}

static uint64_t env_random(void *env)
{
	struct jit_env *e = env;
	return ++e->calls;
}

static uint64_t *env_strtok(void *env)
{
	return ((struct jit_env *)env)->strtok;
}

static void env_release(void *env, void *from)
{
	struct jit_env *e = env;
	e->used = (size_t)((uint8_t *)from - e->scratch);
}

static int env_copyin(void *env, uint64_t addr, void *buf, size_t n)
{
	return addr >= MEM_BASE + MEM_SIZE / 2 ? env_read(env, addr, buf, n) : -14;
}

static bool env_writable(void *env, uint64_t addr, size_t n)
{
	struct jit_env *e = env;
	uint64_t s = (uint64_t)(uintptr_t)e->scratch;
	return addr >= s && addr - s <= e->used && n <= e->used - (addr - s);
}

static const struct dif_env_ops ops = {
	.read = env_read, .builtin = env_builtin, .load_var = env_load_var,
	.store_var = env_store_var, .scratch = env_scratch, .random = env_random,
	.speculation = env_random, .strtok_state = env_strtok, .scratch_release = env_release,
	.copyin = env_copyin, .writable = env_writable,
};

static const char strtab[] = "alpha\0be/ta\0\0gamma.delta\0";
static const uint64_t ints[] = {
	MEM_BASE, MEM_BASE + 6, MEM_BASE + 64, 0x8000000000000000ull, ~0ull, 1, 13, 0,
};
static const struct dif_var vars[] = {
	{ .id = 1, .scope = DIF_SCOPE_GLOBAL, .kind = DIF_KIND_SCALAR, .type = DIF_TYPE_INT },
	{ .id = 2, .scope = DIF_SCOPE_GLOBAL, .kind = DIF_KIND_ASSOC, .type = DIF_TYPE_INT,
	  .nkeys = 1 },
	{ .id = 3, .scope = DIF_SCOPE_THREAD, .kind = DIF_KIND_SCALAR, .type = DIF_TYPE_INT },
	{ .id = 4, .scope = DIF_SCOPE_CLAUSE, .kind = DIF_KIND_SCALAR, .type = DIF_TYPE_INT },
	{ .id = 5, .scope = DIF_SCOPE_THREAD, .kind = DIF_KIND_ASSOC, .type = DIF_TYPE_INT,
	  .nkeys = 2 },
};

static uint64_t seed = 0x5c10ad1fu;

static uint32_t rnd(uint32_t n)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return n ? (uint32_t)(seed % n) : 0;
}

static int32_t random_imm(void)
{
	static const int32_t edges[] = { 0, 1, -1, 7, 8, 63, 64, 127, -128, INT32_MAX, INT32_MIN };
	return rnd(3) ? edges[rnd(sizeof(edges) / sizeof(edges[0]))] : (int32_t)rnd(UINT32_MAX);
}

/* The variable of vars[] with the scope and kind op needs. */
static int32_t var_of(uint8_t op)
{
	switch (op) {
	case DIF_OP_LDG: case DIF_OP_STG: return 0;
	case DIF_OP_LDGA: case DIF_OP_STGA: return 1;
	case DIF_OP_LDT: case DIF_OP_STT: return 2;
	case DIF_OP_LDL: case DIF_OP_STL: return 3;
	default: return 4;	/* LDTA, STTA */
	}
}

/* An operand for each field the opcode's format uses; the verifier judges the rest. */
static struct dif_insn random_insn(uint32_t pc, uint32_t n)
{
	struct dif_insn in = { .op = (uint8_t)rnd(DIF_OP_LIMIT) };
	uint8_t reg = (uint8_t)(1 + rnd(DIF_NREGS - 1));
	uint8_t src1 = (uint8_t)rnd(6), src2 = (uint8_t)rnd(6);	/* few registers: reuse */
	switch (dif_op_format(in.op)) {
	case DIF_FMT_R3: in.rd = reg % 6 ? reg % 6 : 1; in.r1 = src1; in.r2 = src2; break;
	case DIF_FMT_R2: in.rd = reg % 6 ? reg % 6 : 1; in.r1 = src1; break;
	case DIF_FMT_LDI: in.rd = (uint8_t)(1 + rnd(5)); in.imm = random_imm(); break;
	case DIF_FMT_TAB:
		in.rd = (uint8_t)(1 + rnd(5));
		in.imm = in.op == DIF_OP_LDC ? (int32_t)rnd(sizeof(ints) / 8) :
			 (int32_t)(const int32_t[]){ 0, 6, 12, 13, 19 }[rnd(5)];
		break;
	case DIF_FMT_BR: in.r1 = src1; in.r2 = src2; /* fall through */
	case DIF_FMT_BA: in.imm = (int32_t)rnd(n - pc - 1); break;
	case DIF_FMT_LD: in.rd = (uint8_t)(1 + rnd(5)); in.r1 = src1; in.imm = (int32_t)rnd(80) - 8;
		break;
	case DIF_FMT_ST: in.r1 = src1; in.r2 = src2; in.imm = (int32_t)rnd(24) - 8; break;
	case DIF_FMT_VLD: case DIF_FMT_VST:
		in.rd = dif_op_format(in.op) == DIF_FMT_VLD ? (uint8_t)(1 + rnd(5)) : 0;
		in.r1 = dif_op_format(in.op) == DIF_FMT_VST ? src1 : 0;
		in.imm = var_of(in.op);
		break;
	case DIF_FMT_BLT: in.rd = (uint8_t)(1 + rnd(5)); in.imm = (int32_t)rnd(DIF_VAR_LIMIT); break;
	case DIF_FMT_PUSH: in.r1 = src1; in.imm = rnd(2) ? 0 : 16; break;
	case DIF_FMT_CALL: in.rd = (uint8_t)(1 + rnd(5)); in.imm = (int32_t)rnd(DIF_SUBR_LIMIT);
		break;
	case DIF_FMT_CHK: in.r1 = src1; in.imm = (int32_t)(1 + rnd(70)); break;
	case DIF_FMT_RET: in.r1 = src1; break;
	default: break;
	}
	return in;
}

static void fill_env(struct jit_env *e)
{
	memset(e, 0, sizeof(*e));
	for (unsigned i = 0; i < MEM_SIZE; i++)
		e->mem[i] = (uint8_t)(i * 37 + 11);
	memcpy(e->mem + 80, "/usr/bin/env\0", 13);
	for (unsigned i = 0; i < SCRATCH; i++)
		e->scratch[i] = (uint8_t)(0xa5 ^ i);
}

/* Every instruction decodes, branches land on instruction starts, writes stay in bounds. */
static void check_code(struct host_test_ctx *t, const struct dif_prog *p)
{
	const uint8_t *code = (const uint8_t *)(uintptr_t)p->native;
	size_t len = 0;
	bool starts[8192] = { false };
	uint64_t targets[1024];
	unsigned ntargets = 0;
	uint64_t base = (uint64_t)(uintptr_t)code;
	size_t total = p->native_len;
	CHECK(t, total > 0 && total < sizeof(starts), "code of %zu bytes", total);
	while (len < total && total < sizeof(starts)) {
		struct insn in;
		if (insn_decode(&in, code + len, total - len, base + len) != INSN_OK) {
			host_fail(t, __FILE__, __LINE__, "native code does not decode at +%zu", len);
			return;
		}
		starts[len] = true;
		bool direct = in.cf == INSN_CF_JMP || in.cf == INSN_CF_JCC;
		if (direct && ntargets < 1024)
			targets[ntargets++] = in.target;
		CHECK(t, direct || in.cf == INSN_CF_NONE || in.cf == INSN_CF_RET ||
		      in.cf == INSN_CF_CALL_INDIRECT, "%s at +%zu transfers control otherwise",
		      insn_mnemonic(&in), len);
		if (in.mem_write && in.has_modrm && (in.modrm >> 6) != 3) {
			unsigned b = in.has_sib ? (in.sib & 7u) : (in.modrm & 7u);
			b |= (in.rex & 1u) << 3;
			CHECK(t, b == INSN_RBX || b == INSN_R12, "%s at +%zu writes through %s",
			      insn_mnemonic(&in), len, insn_reg_name(b));
		}
		len += in.length;
	}
	for (unsigned i = 0; i < ntargets; i++)
		CHECK(t, targets[i] >= base && targets[i] < base + total && starts[targets[i] - base],
		      "a branch to +%lld, not an instruction of the code",
		      (long long)(targets[i] - base));
}

HOST_TEST(dif_jit_random_programs_agree_with_the_interpreter)
{
	unsigned verified = 0, faulted = 0, returned = 0, used[DIF_OP_LIMIT] = { 0 };
	unsigned long runs_before = dif_both_runs;
	for (unsigned round = 0; round < 30000 && !t->failed; round++) {
		struct dif_insn insns[MAX_LEN];
		uint32_t n = 2 + rnd(MAX_LEN - 1);
		for (uint32_t pc = 0; pc + 1 < n; pc++)
			insns[pc] = random_insn(pc, n);
		insns[n - 1] = (struct dif_insn)I(RET, 0, (uint8_t)rnd(6), 0, 0);
		struct dif_prog p = { .insns = insns, .ninsns = n, .ints = ints,
				      .nints = sizeof(ints) / 8, .strtab = strtab,
				      .strtab_len = sizeof(strtab), .vars = vars,
				      .nvars = sizeof(vars) / sizeof(vars[0]),
				      .rtype = DIF_TYPE_INT, .strsize = 32 };
		char why[160];
		if (dif_verify(&p, why, sizeof(why)))
			continue;
		verified++;
		for (uint32_t pc = 0; pc < n; pc++)
			used[insns[pc].op]++;
		struct jit_env env;
		fill_env(&env);
		uint64_t out;
		struct dif_fault fault;
		if (dif_run_both(t, &p, &ops, &env, sizeof(env), NULL, &out, &fault))
			faulted++;
		else
			returned++;
		if (round % 16 == 0 && !dif_jit_compile(&p)) {
			check_code(t, &p);
			dif_jit_release(&p);
		}
	}
	CHECK(t, verified > 20000 && dif_both_runs - runs_before == verified,
	      "%u programs verified, %lu run both ways", verified, dif_both_runs - runs_before);
	CHECK(t, faulted > 2000 && returned > 2000, "%u faulted, %u returned", faulted, returned);
	for (unsigned op = 0; op < DIF_OP_LIMIT; op++)
		CHECK(t, used[op] > 20, "%s in only %u verified programs", dif_op_name(op), used[op]);
	CHECK(t, host_jit_live() == 0, "%zu native programs left allocated", host_jit_live());
}

HOST_TEST(dif_jit_refuses_what_it_cannot_compile)
{
	struct dif_jit_abi abi = { 0 };
	uint32_t at[4];
	/* No RET at the end, a branch past the end, a constant past its table: no code. */
	const struct dif_insn no_ret[] = { I(LDI, 1, 0, 0, 1), I(MOV, 2, 1, 0, 0) };
	const struct dif_insn far[] = { I(BA, 0, 0, 0, 1), I(RET, 0, 1, 0, 0) };
	const struct dif_insn bad_ldc[] = { I(LDC, 1, 0, 0, 9), I(RET, 0, 1, 0, 0) };
	const struct dif_insn ok[] = { I(LDI, 1, 0, 0, 5), I(RET, 0, 1, 0, 0) };
	struct dif_prog p = { .ints = ints, .nints = 1 };
	p.insns = no_ret, p.ninsns = 2;
	CHECK(t, arch_dif_jit_emit(&p, &abi, NULL, 0, at) == 0, "a program without RET compiled");
	p.insns = far;
	CHECK(t, arch_dif_jit_emit(&p, &abi, NULL, 0, at) == 0, "a branch past the end compiled");
	p.insns = bad_ldc;
	CHECK(t, arch_dif_jit_emit(&p, &abi, NULL, 0, at) == 0, "LDC 9 of 1 constant compiled");
	p.insns = ok;
	size_t len = arch_dif_jit_emit(&p, &abi, NULL, 0, at);
	uint8_t code[256];
	CHECK(t, len > 0 && arch_dif_jit_emit(&p, &abi, code, len, at) == len,
	      "a two-instruction program: %zu bytes", len);
	/* Too little room: more than cap bytes reported, nothing past cap written. */
	memset(code, 0xcc, sizeof(code));
	CHECK(t, arch_dif_jit_emit(&p, &abi, code, len / 2, at) == len && code[len / 2] == 0xcc,
	      "a buffer of half the code was written past");
	/* No executable memory: the program stays interpreted, and still runs. */
	host_jit_enabled = false;
	struct dif_prog q = { .insns = ok, .ninsns = 2, .ints = ints, .nints = 1 };
	CHECK(t, dif_jit_compile(&q) == -1 && !q.native, "compiled without executable memory");
	host_jit_enabled = true;
	struct jit_env env;
	fill_env(&env);
	uint64_t out;
	struct dif_fault fault;
	CHECK(t, dif_run(&q, &ops, &env, &out, &fault) == 0 && out == 5, "interpreted: %llu",
	      (unsigned long long)out);
	CHECK(t, dif_jit_compile(&q) == 0 && q.native && dif_run(&q, &ops, &env, &out, &fault) == 0 &&
	      out == 5, "native: %llu", (unsigned long long)out);
	dif_jit_release(&q);
	CHECK(t, !q.native && host_jit_live() == 0, "released, %zu left", host_jit_live());
}

HOST_TEST(dif_jit_lone_builtin_is_the_environments_value)
{
	/* `ldb rN, V; ret rN` (a key of probefunc or arg0): marked, and its code's answer is
	 * the environment's, which the tracing framework then asks for itself (trace_run). */
	static const unsigned ids[] = { DIF_VAR_ARG0, DIF_VAR_ARG5, DIF_VAR_PROBEFUNC,
					DIF_VAR_PROBENAME, DIF_VAR_TIMESTAMP };
	for (unsigned i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		const struct dif_insn lone[] = { I(LDB, 3, 0, 0, (int32_t)ids[i]),
						 I(RET, 0, 3, 0, 0) };
		struct dif_prog p = { .insns = lone, .ninsns = 2 };
		struct jit_env env;
		struct dif_fault fault;
		uint64_t out = 0;
		fill_env(&env);
		uint64_t calls = env.calls, want = env_builtin(&env, ids[i]), asked = env.calls;
		env.calls = calls;
		CHECK(t, dif_jit_compile(&p) == 0 && p.lone_builtin == ids[i] + 1,
		      "builtin %u: marked %u", ids[i], p.lone_builtin);
		CHECK(t, p.native && dif_run(&p, &ops, &env, &out, &fault) == 0 && out == want &&
		      fault.kind == DIF_FAULT_NONE && env.calls == asked,
		      "builtin %u: %#llx, the environment's %#llx", ids[i], (unsigned long long)out,
		      (unsigned long long)want);
		dif_jit_release(&p);
		CHECK(t, !p.lone_builtin && !p.native, "builtin %u: still marked after release",
		      ids[i]);
	}
	/* Near misses keep their native code and its answer. */
	const struct dif_insn other_reg[] = { I(LDB, 3, 0, 0, DIF_VAR_ARG0), I(RET, 0, 2, 0, 0) };
	const struct dif_insn longer[] = { I(LDB, 3, 0, 0, DIF_VAR_ARG0), I(MOV, 4, 3, 0, 0),
					   I(RET, 0, 4, 0, 0) };
	const struct dif_insn *miss[] = { other_reg, longer };
	const uint32_t lens[] = { 2, 3 };
	for (unsigned i = 0; i < 2; i++) {
		struct dif_prog p = { .insns = miss[i], .ninsns = lens[i] };
		struct jit_env env;
		struct dif_fault fault;
		uint64_t out;
		fill_env(&env);
		CHECK(t, dif_jit_compile(&p) == 0 && p.native && !p.lone_builtin,
		      "near miss %u marked %u", i, p.lone_builtin);
		dif_run_both(t, &p, &ops, &env, sizeof(env), NULL, &out, &fault);
		dif_jit_release(&p);
	}
	CHECK(t, host_jit_live() == 0, "%zu native programs left allocated", host_jit_live());
}
