// SPDX-License-Identifier: BSD-2-Clause
/*
 * The DIF interpreter (scion/dif_exec.h). It relies on what dif_verify
 * proved (opcodes, registers, table indexes, forward branches ending in
 * RET) and checks the rest as it goes: load addresses and alignment
 * through the environment's fault-tolerant read, store addresses
 * against what the environment lets the program write, division by zero,
 * tuple depth, scratch space, string bounds. Strings are addresses of
 * NUL-terminated bytes read through the same fault-tolerant path, never
 * more than the program's strsize.
 *
 * Portable: the host tests and the fuzz target run it with fake
 * environments.
 */
#include <scion/dif_exec.h>
#include <scion/errno.h>
#include <scion/string.h>
#include "dif_internal.h"

static const char *const fault_names[DIF_FAULT_KINDS] = {
	[DIF_FAULT_NONE] = "no error",
	[DIF_FAULT_BADADDR] = "invalid address",
	[DIF_FAULT_ALIGN] = "invalid alignment",
	[DIF_FAULT_DIVZERO] = "divide-by-zero",
	[DIF_FAULT_NOSCRATCH] = "out of scratch space",
	[DIF_FAULT_TUPLE] = "tuple stack overflow",
	[DIF_FAULT_DYNVAR] = "dynamic variable drop",
	[DIF_FAULT_BADARG] = "illegal argument",
	[DIF_FAULT_ILLOP] = "illegal operation",
	[DIF_FAULT_BADINDEX] = "index out of bounds",
};

const char *dif_fault_name(enum dif_fault_kind kind)
{
	return kind < DIF_FAULT_KINDS ? fault_names[kind] : "?";
}

int dif_fail(struct run *x, enum dif_fault_kind kind, uint64_t addr)
{
	x->fault->kind = kind;
	x->fault->pc = x->pc;
	x->fault->addr = addr;
	return -1;
}

long dif_copy_string(const struct dif_env_ops *ops, void *env, uint64_t addr, char *buf,
		     size_t max, uint64_t *bad)
{
	size_t len = 0;
	while (len + 1 < max) {
		uint64_t at = addr + len;
		size_t n = DIF_READ_CHUNK - (size_t)(at % DIF_READ_CHUNK);
		if (n > max - 1 - len)
			n = max - 1 - len;
		if (ops->read(env, at, buf + len, n)) {
			buf[len] = '\0';
			*bad = at;
			return -1;
		}
		for (size_t i = 0; i < n; i++) {
			if (buf[len + i] == '\0') {
				memset(buf + len + i, 0, n - i);
				return (long)(len + i);
			}
		}
		len += n;
	}
	buf[len] = '\0';
	return (long)len;
}

long dif_read_string(struct run *x, uint64_t addr, char *buf, size_t max)
{
	uint64_t bad;
	long len = dif_copy_string(x->ops, x->env, addr, buf, max, &bad);
	return len < 0 ? dif_fail(x, DIF_FAULT_BADADDR, bad) : len;
}

char *dif_scratch_string(struct run *x)
{
	char *s = x->ops->scratch(x->env, x->p->strsize);
	if (!s)
		dif_fail(x, DIF_FAULT_NOSCRATCH, 0);
	return s;
}

void *dif_scratch_mark(struct run *x)
{
	return x->ops->scratch_release ? x->ops->scratch(x->env, 0) : NULL;
}

void dif_scratch_release(struct run *x, void *mark)
{
	if (mark)
		x->ops->scratch_release(x->env, mark);
}

static int load(struct run *x, const struct dif_insn *in, uint64_t *out)
{
	static const struct { uint8_t size; bool sign; } shape[] = {
		[DIF_OP_LDSB] = { 1, true }, [DIF_OP_LDSH] = { 2, true }, [DIF_OP_LDSW] = { 4, true },
		[DIF_OP_LDUB] = { 1, false }, [DIF_OP_LDUH] = { 2, false }, [DIF_OP_LDUW] = { 4, false },
		[DIF_OP_LDX] = { 8, false },
	};
	unsigned size = shape[in->op].size;
	uint64_t addr = x->r[in->r1] + (uint64_t)(int64_t)in->imm;
	uint8_t bytes[8] = { 0 };

	if (addr % size)
		return dif_fail(x, DIF_FAULT_ALIGN, addr);
	if (x->ops->read(x->env, addr, bytes, size))
		return dif_fail(x, DIF_FAULT_BADADDR, addr);
	/* Memory is read in the machine's own byte order (sparc64 is big-endian). */
	uint64_t v = 0;
	if (size == 1) {
		v = bytes[0];
	} else if (size == 2) {
		uint16_t h;
		__builtin_memcpy(&h, bytes, 2);
		v = h;
	} else if (size == 4) {
		uint32_t w;
		__builtin_memcpy(&w, bytes, 4);
		v = w;
	} else {
		__builtin_memcpy(&v, bytes, 8);
	}
	if (shape[in->op].sign && size < 8 && (v >> (8 * size - 1)) & 1)
		v |= ~0ull << (8 * size);
	*out = v;
	return 0;
}

/* *(r2 + imm) = r1, in the machine's byte order, where the environment allows it. */
static int store(struct run *x, const struct dif_insn *in)
{
	static const uint8_t size_of[] = {
		[DIF_OP_STB] = 1, [DIF_OP_STH] = 2, [DIF_OP_STW] = 4, [DIF_OP_STX] = 8,
	};
	unsigned size = size_of[in->op];
	uint64_t addr = x->r[in->r2] + (uint64_t)(int64_t)in->imm, v = x->r[in->r1];

	if (addr % size)
		return dif_fail(x, DIF_FAULT_ALIGN, addr);
	if (!x->ops->writable || !x->ops->writable(x->env, addr, size))
		return dif_fail(x, DIF_FAULT_BADADDR, addr);
	void *to = (void *)(uintptr_t)addr;
	if (size == 1) {
		*(uint8_t *)to = (uint8_t)v;
	} else if (size == 2) {
		uint16_t h = (uint16_t)v;
		__builtin_memcpy(to, &h, 2);
	} else if (size == 4) {
		uint32_t w = (uint32_t)v;
		__builtin_memcpy(to, &w, 4);
	} else {
		__builtin_memcpy(to, &v, 8);
	}
	return 0;
}

static int divide(struct run *x, unsigned op, uint64_t a, uint64_t b, uint64_t *out)
{
	if (b == 0)
		return dif_fail(x, DIF_FAULT_DIVZERO, 0);
	int64_t sa = (int64_t)a, sb = (int64_t)b;
	bool overflow = sa == INT64_MIN && sb == -1;	/* C leaves it undefined: wrap */
	switch (op) {
	case DIF_OP_SDIV: *out = overflow ? a : (uint64_t)(sa / sb); break;
	case DIF_OP_SREM: *out = overflow ? 0 : (uint64_t)(sa % sb); break;
	case DIF_OP_UDIV: *out = a / b; break;
	default:          *out = a % b; break;
	}
	return 0;
}

/* A string to compare: D's NULL (0) compares as "", as in DTrace, where strtok() == NULL works. */
static int compared_string(struct run *x, uint64_t addr, char *buf)
{
	if (!addr) {
		buf[0] = '\0';
		return 0;
	}
	return dif_read_string(x, addr, buf, x->p->strsize) < 0 ? -1 : 0;
}

static int compare_strings(struct run *x, uint64_t a, uint64_t b, uint64_t *out)
{
	void *mark = dif_scratch_mark(x);
	char *sa = dif_scratch_string(x), *sb = sa ? dif_scratch_string(x) : NULL;
	if (!sb || compared_string(x, a, sa) || compared_string(x, b, sb))
		return -1;
	int c = strcmp(sa, sb);
	*out = (uint64_t)(int64_t)(c < 0 ? -1 : c > 0);
	dif_scratch_release(x, mark);
	return 0;
}

static int access_var(struct run *x, const struct dif_insn *in, bool store)
{
	const struct dif_var *v = &x->p->vars[in->imm];
	const struct dif_tuple_item *keys = NULL;
	unsigned nkeys = 0;
	if (v->kind == DIF_KIND_ASSOC) {
		if (x->ntuple != v->nkeys)
			return dif_fail(x, DIF_FAULT_BADARG, 0);
		keys = x->tuple;
		nkeys = x->ntuple;
	}
	int err = store ? x->ops->store_var(x->env, v, keys, nkeys, x->r[in->r1])
			: x->ops->load_var(x->env, v, keys, nkeys, &x->r[in->rd]);
	if (!err)
		return 0;
	return dif_fail(x, err == -EFAULT ? DIF_FAULT_BADADDR :
			   err == -ENOMEM ? DIF_FAULT_NOSCRATCH : DIF_FAULT_DYNVAR, 0);
}

static bool branch_taken(unsigned op, uint64_t a, uint64_t b)
{
	switch (op) {
	case DIF_OP_BEQ:  return a == b;
	case DIF_OP_BNE:  return a != b;
	case DIF_OP_BLT:  return (int64_t)a < (int64_t)b;
	case DIF_OP_BLE:  return (int64_t)a <= (int64_t)b;
	case DIF_OP_BLTU: return a < b;
	case DIF_OP_BLEU: return a <= b;
	default:          return true;	/* BA */
	}
}

static uint64_t arith(unsigned op, uint64_t a, uint64_t b)
{
	switch (op) {
	case DIF_OP_ADD:  return a + b;
	case DIF_OP_SUB:  return a - b;
	case DIF_OP_MUL:  return a * b;
	case DIF_OP_AND:  return a & b;
	case DIF_OP_OR:   return a | b;
	case DIF_OP_XOR:  return a ^ b;
	case DIF_OP_SHL:  return a << (b & 63);
	case DIF_OP_SHR:  return a >> (b & 63);
	case DIF_OP_SAR:  return (uint64_t)((int64_t)a >> (b & 63));
	case DIF_OP_SEQ:  return a == b;
	case DIF_OP_SNE:  return a != b;
	case DIF_OP_SLT:  return (int64_t)a < (int64_t)b;
	case DIF_OP_SLE:  return (int64_t)a <= (int64_t)b;
	case DIF_OP_SLTU: return a < b;
	default:          return a <= b;	/* SLEU */
	}
}

/*
 * One instruction at x->pc; *done once RET ran. Inlined in dif_run's loop
 * (a call per instruction there would cost a third more) and in
 * dif_exec_insn. Return value: 0 or -1 (fault).
 */
static inline __attribute__((always_inline)) int step(struct run *x, uint64_t *result,
						    bool *done)
{
	const struct dif_prog *p = x->p;
	const struct dif_insn *in = &p->insns[x->pc];
	uint64_t *rd = &x->r[in->rd], a = x->r[in->r1], b = x->r[in->r2];

	switch (in->op) {
	case DIF_OP_NOP:
		break;
	case DIF_OP_SDIV: case DIF_OP_UDIV: case DIF_OP_SREM: case DIF_OP_UREM:
		if (divide(x, in->op, a, b, rd))
			return -1;
		break;
	case DIF_OP_SCMP:
		if (compare_strings(x, a, b, rd))
			return -1;
		break;
	case DIF_OP_NOT: *rd = ~a; break;
	case DIF_OP_NEG: *rd = -a; break;
	case DIF_OP_MOV: *rd = a; break;
	case DIF_OP_LDI: *rd = (uint64_t)(int64_t)in->imm; break;
	case DIF_OP_LDC: *rd = p->ints[in->imm]; break;
	case DIF_OP_LDSTR: *rd = (uint64_t)(uintptr_t)(p->strtab + in->imm); break;
	case DIF_OP_BEQ: case DIF_OP_BNE: case DIF_OP_BLT: case DIF_OP_BLE:
	case DIF_OP_BLTU: case DIF_OP_BLEU: case DIF_OP_BA:
		if (branch_taken(in->op, a, b))
			x->pc += (uint32_t)in->imm;
		break;
	case DIF_OP_LDSB: case DIF_OP_LDSH: case DIF_OP_LDSW: case DIF_OP_LDUB:
	case DIF_OP_LDUH: case DIF_OP_LDUW: case DIF_OP_LDX:
		if (load(x, in, rd))
			return -1;
		break;
	case DIF_OP_BND:
		if (a >= (uint64_t)(uint32_t)in->imm)
			return dif_fail(x, DIF_FAULT_BADINDEX, a);
		break;
	case DIF_OP_STB: case DIF_OP_STH: case DIF_OP_STW: case DIF_OP_STX:
		if (store(x, in))
			return -1;
		break;
	case DIF_OP_LDG: case DIF_OP_LDT: case DIF_OP_LDL: case DIF_OP_LDGA: case DIF_OP_LDTA:
		return access_var(x, in, false);
	case DIF_OP_STG: case DIF_OP_STT: case DIF_OP_STL: case DIF_OP_STGA: case DIF_OP_STTA:
		return access_var(x, in, true);
	case DIF_OP_LDB:
		*rd = x->ops->builtin(x->env, (unsigned)in->imm);
		break;
	case DIF_OP_PUSHT:
		if (x->ntuple == DIF_MAX_TUPLE)
			return dif_fail(x, DIF_FAULT_TUPLE, 0);
		x->tuple[x->ntuple++] = (struct dif_tuple_item){ a, (uint32_t)in->imm };
		break;
	case DIF_OP_POPT:
		x->ntuple = 0;
		break;
	case DIF_OP_CALL:
		if (dif_subr_call(x, (unsigned)in->imm, rd))
			return -1;
		x->ntuple = 0;
		break;
	case DIF_OP_RET:
		*result = a;
		*done = true;
		break;
	default:
		if (in->op >= DIF_OP_LIMIT || dif_op_format(in->op) != DIF_FMT_R3)
			return dif_fail(x, DIF_FAULT_ILLOP, 0);
		*rd = arith(in->op, a, b);
		break;
	}
	x->r[0] = 0;
	return 0;
}

int dif_exec_insn(struct run *x)
{
	uint64_t unused;
	bool done;
	return step(x, &unused, &done);
}

/*
 * The interpreter's loop, out of line: dif_run's native path then needs
 * no callee-saved registers or frame of its own beyond x, which was a
 * dozen instructions of every native program's run.
 */
static __noinline int interpret(struct run *x, uint64_t *result)
{
	const struct dif_prog *p = x->p;
	bool done = false;

	__builtin_memset(x->r, 0, sizeof(x->r));	/* inline stores: no call */
	/* Forward branches only: the pc grows every step, so this ends by ninsns steps. */
	for (x->pc = 0; x->pc < p->ninsns; x->pc++) {
		if (step(x, result, &done))
			return -1;
		if (done)
			return 0;
	}
	x->pc = p->ninsns - 1;
	return dif_fail(x, DIF_FAULT_ILLOP, 0);	/* no RET: dif_verify refuses such programs */
}

int dif_run(const struct dif_prog *p, const struct dif_env_ops *ops, void *env,
	    uint64_t *result, struct dif_fault *fault)
{
	/*
	 * Registers start at zero (a program may read one it never wrote);
	 * the tuple is not cleared: only its first ntuple items are ever
	 * read (dif_subr_call checks each subroutine's arity, a variable's
	 * keys their count), and clearing it was a third of a short
	 * program's cost.
	 */
	struct run x;

	x.p = p;
	x.ops = ops;
	x.env = env;
	x.fault = fault;
	x.ntuple = 0;
	fault->kind = DIF_FAULT_NONE;
	if (p->native)	/* it clears the registers it uses itself */
		return p->native(&x, result) ? -1 : 0;
	return interpret(&x, result);
}
