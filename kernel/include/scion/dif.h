/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * DIF, the trace bytecode: what the D compiler (host/dtrace/) emits
 * for predicates and action arguments, and what the kernel verifies
 * when a program is loaded (kernel/trace/dif_verify.c) and runs in
 * probe context (kernel/trace/dif_exec.c). Portable C shared with the
 * host: the compiler, the host tests and the fuzz target include it.
 *
 * A program is a sequence of fixed 8-byte instructions over sixteen
 * 64-bit registers (r0 reads as 0 and is never written), with its own
 * tables of 64-bit constants, strings and variables. Branches go
 * forward only and every path ends in RET, so a program runs at most
 * as many instructions as it holds: no loop, no unbounded time.
 * Memory is read through a fault-tolerant path, and written only where
 * the environment allows it (this firing's scratch space: what alloca()
 * gave, strings subroutines made); results go to registers, variables
 * and scratch, all bounded.
 *
 * The instruction table below is the one place opcodes are defined:
 * the enum, the names and the operand formats all come from it.
 */
#ifndef SCION_DIF_H
#define SCION_DIF_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

#define DIF_VERSION      1
#define DIF_NREGS        16
#define DIF_MAX_INSNS    4096
#define DIF_MAX_INTS     1024
#define DIF_MAX_STRTAB   65536
#define DIF_MAX_VARS     256
#define DIF_MAX_TUPLE    10	/* values pushed for one key or one call */
#define DIF_STRSIZE_MAX  4096	/* longest string a variable, key or result holds */
#define DIF_ALLOCA_MAX   65536	/* most bytes one alloca, bcopy or copyinto may ask for
				   (no environment's scratch is larger) */

struct dif_insn {
	uint8_t op;
	uint8_t rd;		/* destination register */
	uint8_t r1, r2;		/* sources */
	int32_t imm;		/* immediate, offset or table index */
};

/*
 * Operand formats: which fields an instruction uses. The verifier
 * insists every field a format does not use is zero.
 *   R3   rd = r1 OP r2             R2   rd = OP r1
 *   LDI  rd = imm (sign-extended)  TAB  rd = table[imm] (constant or string)
 *   BR   if (r1 OP r2) pc += 1 + imm, imm >= 0
 *   BA   pc += 1 + imm, imm >= 0
 *   LD   rd = *(r1 + imm), the load's size and sign from the opcode
 *   ST   *(r2 + imm) = r1, the store's size from the opcode; the bytes
 *        must lie in memory the environment lets the program write
 *   CHK  fault (index out of bounds) unless r1 < imm, unsigned; imm > 0:
 *        an index into a D array variable of imm elements
 *   VLD  rd = variable imm         VST  variable imm = r1
 *   BLT  rd = built-in variable imm
 *   PUSH push r1 onto the tuple (imm 0: an integer; else a string of at
 *        most imm bytes, copied by value)
 *   POP  empty the tuple           CALL rd = subroutine imm (args: the tuple)
 *   RET  return r1                 NONE no operands
 */
enum dif_format {
	DIF_FMT_NONE, DIF_FMT_R3, DIF_FMT_R2, DIF_FMT_LDI, DIF_FMT_TAB, DIF_FMT_BR,
	DIF_FMT_BA, DIF_FMT_LD, DIF_FMT_VLD, DIF_FMT_VST, DIF_FMT_BLT, DIF_FMT_PUSH,
	DIF_FMT_POP, DIF_FMT_CALL, DIF_FMT_RET, DIF_FMT_ST, DIF_FMT_CHK,
};

/* Variable scopes and kinds an instruction touches (VLD/VST), or 0. */
#define DIF_SCOPE_GLOBAL 1
#define DIF_SCOPE_THREAD 2	/* self-> */
#define DIF_SCOPE_CLAUSE 3	/* this-> */
#define DIF_KIND_SCALAR  0
#define DIF_KIND_ASSOC   1	/* keyed by the tuple */

/*           name   format        scope              kind */
#define DIF_INSTRUCTIONS(X) \
	X(NOP,   DIF_FMT_NONE, 0,                0) \
	X(ADD,   DIF_FMT_R3,   0,                0) \
	X(SUB,   DIF_FMT_R3,   0,                0) \
	X(MUL,   DIF_FMT_R3,   0,                0) \
	X(SDIV,  DIF_FMT_R3,   0,                0) \
	X(UDIV,  DIF_FMT_R3,   0,                0) \
	X(SREM,  DIF_FMT_R3,   0,                0) \
	X(UREM,  DIF_FMT_R3,   0,                0) \
	X(AND,   DIF_FMT_R3,   0,                0) \
	X(OR,    DIF_FMT_R3,   0,                0) \
	X(XOR,   DIF_FMT_R3,   0,                0) \
	X(SHL,   DIF_FMT_R3,   0,                0) \
	X(SHR,   DIF_FMT_R3,   0,                0) \
	X(SAR,   DIF_FMT_R3,   0,                0) \
	X(SEQ,   DIF_FMT_R3,   0,                0) \
	X(SNE,   DIF_FMT_R3,   0,                0) \
	X(SLT,   DIF_FMT_R3,   0,                0) \
	X(SLE,   DIF_FMT_R3,   0,                0) \
	X(SLTU,  DIF_FMT_R3,   0,                0) \
	X(SLEU,  DIF_FMT_R3,   0,                0) \
	X(SCMP,  DIF_FMT_R3,   0,                0) \
	X(NOT,   DIF_FMT_R2,   0,                0) \
	X(NEG,   DIF_FMT_R2,   0,                0) \
	X(MOV,   DIF_FMT_R2,   0,                0) \
	X(LDI,   DIF_FMT_LDI,  0,                0) \
	X(LDC,   DIF_FMT_TAB,  0,                0) \
	X(LDSTR, DIF_FMT_TAB,  0,                0) \
	X(BEQ,   DIF_FMT_BR,   0,                0) \
	X(BNE,   DIF_FMT_BR,   0,                0) \
	X(BLT,   DIF_FMT_BR,   0,                0) \
	X(BLE,   DIF_FMT_BR,   0,                0) \
	X(BLTU,  DIF_FMT_BR,   0,                0) \
	X(BLEU,  DIF_FMT_BR,   0,                0) \
	X(BA,    DIF_FMT_BA,   0,                0) \
	X(LDSB,  DIF_FMT_LD,   0,                0) \
	X(LDSH,  DIF_FMT_LD,   0,                0) \
	X(LDSW,  DIF_FMT_LD,   0,                0) \
	X(LDUB,  DIF_FMT_LD,   0,                0) \
	X(LDUH,  DIF_FMT_LD,   0,                0) \
	X(LDUW,  DIF_FMT_LD,   0,                0) \
	X(LDX,   DIF_FMT_LD,   0,                0) \
	X(LDG,   DIF_FMT_VLD,  DIF_SCOPE_GLOBAL, DIF_KIND_SCALAR) \
	X(STG,   DIF_FMT_VST,  DIF_SCOPE_GLOBAL, DIF_KIND_SCALAR) \
	X(LDT,   DIF_FMT_VLD,  DIF_SCOPE_THREAD, DIF_KIND_SCALAR) \
	X(STT,   DIF_FMT_VST,  DIF_SCOPE_THREAD, DIF_KIND_SCALAR) \
	X(LDL,   DIF_FMT_VLD,  DIF_SCOPE_CLAUSE, DIF_KIND_SCALAR) \
	X(STL,   DIF_FMT_VST,  DIF_SCOPE_CLAUSE, DIF_KIND_SCALAR) \
	X(LDGA,  DIF_FMT_VLD,  DIF_SCOPE_GLOBAL, DIF_KIND_ASSOC) \
	X(STGA,  DIF_FMT_VST,  DIF_SCOPE_GLOBAL, DIF_KIND_ASSOC) \
	X(LDTA,  DIF_FMT_VLD,  DIF_SCOPE_THREAD, DIF_KIND_ASSOC) \
	X(STTA,  DIF_FMT_VST,  DIF_SCOPE_THREAD, DIF_KIND_ASSOC) \
	X(LDB,   DIF_FMT_BLT,  0,                0) \
	X(PUSHT, DIF_FMT_PUSH, 0,                0) \
	X(POPT,  DIF_FMT_POP,  0,                0) \
	X(CALL,  DIF_FMT_CALL, 0,                0) \
	X(RET,   DIF_FMT_RET,  0,                0) \
	X(STB,   DIF_FMT_ST,   0,                0) \
	X(STH,   DIF_FMT_ST,   0,                0) \
	X(STW,   DIF_FMT_ST,   0,                0) \
	X(STX,   DIF_FMT_ST,   0,                0) \
	X(BND,   DIF_FMT_CHK,  0,                0)

enum dif_op {
#define DIF_OP_ENUM(name, fmt, scope, kind) DIF_OP_##name,
	DIF_INSTRUCTIONS(DIF_OP_ENUM)
#undef DIF_OP_ENUM
	DIF_OP_LIMIT,
};

/*
 * Built-in variables (LDB). The curthread-> ones are the members of the
 * current thread D can read (curthread->tid and ->name are TID and
 * EXECNAME): the compiler never needs struct thread's layout; the
 * curpsinfo-> ones likewise for the current process (illumos's psinfo_t
 * members Scion has). New ones go at the end: the numbers are the
 * kernel's and the compiler's (host/dtrace/dt_cg_names.c) alike.
 * For a kernel thread pid, ppid, uid and the curpsinfo numbers are 0,
 * execname and pr_fname its thread name, pr_psargs "".
 */
#define DIF_BUILTINS(X) \
	X(TIMESTAMP,  "timestamp",  DIF_TYPE_INT) \
	X(VTIMESTAMP, "vtimestamp", DIF_TYPE_INT) \
	X(CPU,        "cpu",        DIF_TYPE_INT) \
	X(TID,        "tid",        DIF_TYPE_INT) \
	X(PID,        "pid",        DIF_TYPE_INT) \
	X(EXECNAME,   "execname",   DIF_TYPE_STRING) \
	X(PROBEPROV,  "probeprov",  DIF_TYPE_STRING) \
	X(PROBEMOD,   "probemod",   DIF_TYPE_STRING) \
	X(PROBEFUNC,  "probefunc",  DIF_TYPE_STRING) \
	X(PROBENAME,  "probename",  DIF_TYPE_STRING) \
	X(EPID,       "epid",       DIF_TYPE_INT) \
	X(ID,         "id",         DIF_TYPE_INT) \
	X(CURTHREAD,  "curthread",  DIF_TYPE_INT) \
	X(ARG0,       "arg0",       DIF_TYPE_INT) \
	X(ARG1,       "arg1",       DIF_TYPE_INT) \
	X(ARG2,       "arg2",       DIF_TYPE_INT) \
	X(ARG3,       "arg3",       DIF_TYPE_INT) \
	X(ARG4,       "arg4",       DIF_TYPE_INT) \
	X(ARG5,       "arg5",       DIF_TYPE_INT) \
	X(ARG6,       "arg6",       DIF_TYPE_INT) \
	X(ARG7,       "arg7",       DIF_TYPE_INT) \
	X(ARG8,       "arg8",       DIF_TYPE_INT) \
	X(ARG9,       "arg9",       DIF_TYPE_INT) \
	X(WALLTIMESTAMP, "walltimestamp", DIF_TYPE_INT) \
	X(THREAD_AFFINITY,   "curthread->affinity",    DIF_TYPE_INT) \
	X(THREAD_TICKS_RUN,  "curthread->ticks_run",   DIF_TYPE_INT) \
	X(THREAD_SWITCHES_IN, "curthread->switches_in", DIF_TYPE_INT) \
	X(CALLER,     "caller",     DIF_TYPE_INT) \
	X(PPID,       "ppid",       DIF_TYPE_INT) \
	X(UID,        "uid",        DIF_TYPE_INT) \
	X(ERRNO,      "errno",      DIF_TYPE_INT) \
	X(PS_PID,     "curpsinfo->pr_pid",    DIF_TYPE_INT) \
	X(PS_PPID,    "curpsinfo->pr_ppid",   DIF_TYPE_INT) \
	X(PS_FNAME,   "curpsinfo->pr_fname",  DIF_TYPE_STRING) \
	X(PS_PSARGS,  "curpsinfo->pr_psargs", DIF_TYPE_STRING) \
	X(STACKDEPTH, "stackdepth", DIF_TYPE_INT)

/*
 * Subroutines (CALL): name, arguments (min, max), result type, and
 * whether the scratch space a call takes is kept (KEEP: its result
 * points there) or given back when it returns (DROP: copies it made for
 * itself). strstr,
 * strchr and strrchr give an address inside their first argument (a
 * copy of it in scratch space) or 0, D's NULL; strtok keeps its place
 * for the rest of the probe firing (struct dif_env_ops' strtok_state).
 * copyin(addr, size) copies size bytes (at most the program's strsize)
 * of the current process's memory into scratch and gives their address;
 * copyinstr(addr[, max]) its string: both through struct dif_env_ops'
 * copyin, which never resolves a page fault (an untouched page, a kernel
 * address, a kernel thread: an invalid address fault).
 * alloca(size) gives size bytes of zeroed scratch, 8-byte aligned, that
 * the program may write (ST) for the rest of the firing; bcopy(src, dst,
 * size) copies size readable bytes at src and copyinto(addr, size, dst)
 * size bytes of the current process's memory, both into dst, which must
 * be writable (an invalid address fault names the first bad address).
 * toupper, tolower, strtoll, cleanpath and the byte order conversions
 * (htons... ntohll: the value's low 16, 32 or 64 bits between the
 * machine's order and the network's, big-endian) are in
 * kernel/trace/dif_subr_convert.c.
 */
#define DIF_SUBR_DROP 0
#define DIF_SUBR_KEEP 1
#define DIF_SUBROUTINES(X) \
	X(STRLEN,   "strlen",   1, 1, DIF_TYPE_INT,    DIF_SUBR_DROP) \
	X(STRJOIN,  "strjoin",  2, 2, DIF_TYPE_STRING, DIF_SUBR_KEEP) \
	X(SUBSTR,   "substr",   2, 3, DIF_TYPE_STRING, DIF_SUBR_KEEP) \
	X(INDEX,    "index",    2, 3, DIF_TYPE_INT,    DIF_SUBR_DROP) \
	X(LLTOSTR,  "lltostr",  1, 2, DIF_TYPE_STRING, DIF_SUBR_KEEP) \
	X(BASENAME, "basename", 1, 1, DIF_TYPE_STRING, DIF_SUBR_KEEP) \
	X(DIRNAME,  "dirname",  1, 1, DIF_TYPE_STRING, DIF_SUBR_KEEP) \
	X(RAND,     "rand",     0, 0, DIF_TYPE_INT,    DIF_SUBR_DROP) \
	X(SPECULATION, "speculation", 0, 0, DIF_TYPE_INT, DIF_SUBR_DROP) \
	X(STRSTR,   "strstr",   2, 2, DIF_TYPE_STRING, DIF_SUBR_KEEP) \
	X(STRCHR,   "strchr",   2, 2, DIF_TYPE_STRING, DIF_SUBR_KEEP) \
	X(STRRCHR,  "strrchr",  2, 2, DIF_TYPE_STRING, DIF_SUBR_KEEP) \
	X(RINDEX,   "rindex",   2, 3, DIF_TYPE_INT,    DIF_SUBR_DROP) \
	X(STRTOK,   "strtok",   2, 2, DIF_TYPE_STRING, DIF_SUBR_KEEP) \
	X(COPYIN,   "copyin",   2, 2, DIF_TYPE_INT,    DIF_SUBR_KEEP) \
	X(COPYINSTR, "copyinstr", 1, 2, DIF_TYPE_STRING, DIF_SUBR_KEEP) \
	X(ALLOCA,   "alloca",   1, 1, DIF_TYPE_INT,    DIF_SUBR_KEEP) \
	X(BCOPY,    "bcopy",    3, 3, DIF_TYPE_INT,    DIF_SUBR_DROP) \
	X(COPYINTO, "copyinto", 3, 3, DIF_TYPE_INT,    DIF_SUBR_DROP) \
	X(TOUPPER,  "toupper",  1, 1, DIF_TYPE_STRING, DIF_SUBR_KEEP) \
	X(TOLOWER,  "tolower",  1, 1, DIF_TYPE_STRING, DIF_SUBR_KEEP) \
	X(STRTOLL,  "strtoll",  1, 2, DIF_TYPE_INT,    DIF_SUBR_DROP) \
	X(HTONS,    "htons",    1, 1, DIF_TYPE_INT,    DIF_SUBR_DROP) \
	X(HTONL,    "htonl",    1, 1, DIF_TYPE_INT,    DIF_SUBR_DROP) \
	X(HTONLL,   "htonll",   1, 1, DIF_TYPE_INT,    DIF_SUBR_DROP) \
	X(NTOHS,    "ntohs",    1, 1, DIF_TYPE_INT,    DIF_SUBR_DROP) \
	X(NTOHL,    "ntohl",    1, 1, DIF_TYPE_INT,    DIF_SUBR_DROP) \
	X(NTOHLL,   "ntohll",   1, 1, DIF_TYPE_INT,    DIF_SUBR_DROP) \
	X(CLEANPATH, "cleanpath", 1, 1, DIF_TYPE_STRING, DIF_SUBR_KEEP)

enum dif_type {
	DIF_TYPE_INT = 1,	/* 64-bit integer */
	DIF_TYPE_STRING = 2,	/* pointer to a NUL-terminated string; 0 is D's NULL,
				   which SCMP compares as "" and a read faults on */
	DIF_TYPE_BYREF = 3,	/* a variable held by reference (a struct, a fixed-size
				   array): a load gives its storage's address, which the
				   program reads and writes (ST); it is never stored whole */
};

#define DIF_BYREF_MAX 16384	/* most bytes of a variable held by reference */

enum dif_builtin {
#define DIF_BUILTIN_ENUM(name, text, type) DIF_VAR_##name,
	DIF_BUILTINS(DIF_BUILTIN_ENUM)
#undef DIF_BUILTIN_ENUM
	DIF_VAR_LIMIT,
};

enum dif_subr {
#define DIF_SUBR_ENUM(name, text, min, max, type, scratch) DIF_SUBR_##name,
	DIF_SUBROUTINES(DIF_SUBR_ENUM)
#undef DIF_SUBR_ENUM
	DIF_SUBR_LIMIT,
};

/* One variable a program uses; the program's instructions name it by index. */
struct dif_var {
	uint16_t id;		/* the variable's number in its scope, shared across programs */
	uint8_t scope;		/* DIF_SCOPE_* */
	uint8_t kind;		/* DIF_KIND_* */
	uint8_t type;		/* DIF_TYPE_* */
	uint8_t nkeys;		/* assoc: values in its key tuple */
	uint16_t size;		/* string: most bytes it holds, NUL included; by
				   reference (global or clause-local scalar): its bytes */
};

struct dif_prog {
	const struct dif_insn *insns;
	uint32_t ninsns;
	const uint64_t *ints;	/* LDC */
	uint32_t nints;
	const char *strtab;	/* LDSTR: offsets of NUL-terminated strings */
	uint32_t strtab_len;
	const struct dif_var *vars;
	uint32_t nvars;
	uint8_t rtype;		/* DIF_TYPE_* of what RET returns (BYREF: an object's
				   address, whose rsize bytes are its value) */
	uint16_t rsize;		/* string result: most bytes, NUL included; object: its bytes */
	uint16_t strsize;	/* most bytes of a string the program makes or
				   compares, NUL included (D's strsize option) */
	/* Its native code (scion/dif_jit.h), or NULL: dif_run interprets it. */
	int (*native)(void *run, uint64_t *result);
	void *native_mem;	/* what dif_jit_release gives back */
	uint32_t native_len;	/* bytes of native code */
	/*
	 * With native code: a program that is one built-in's value (`ldb
	 * rN, V; ret rN`, as a key of probefunc or arg0 compiles) has
	 * DIF_VAR_* V + 1 here, so that a caller may ask the environment for
	 * it without entering the code (trace_run); 0 otherwise.
	 */
	uint16_t lone_builtin;
};

/*
 * dif_verify - check a program before it may run: every opcode known,
 * unused fields zero, registers in range and r0 never written, branches
 * forward and inside the program, the last instruction RET, table
 * indexes and string offsets inside their tables (each string
 * terminated), variables of the scope and kind the instruction needs,
 * known built-ins and subroutines, table sizes within the limits.
 * Arguments: p; why/whylen receive one line naming the first problem
 *   and the instruction index where there is one.
 * Return value: 0, or -EINVAL.
 * Caller's context: any; pure (no allocation, no locks).
 */
int dif_verify(const struct dif_prog *p, char *why, size_t whylen);

/* Names for messages and disassembly; "?" for a value out of range. */
const char *dif_op_name(unsigned op);
enum dif_format dif_op_format(unsigned op);
const char *dif_builtin_name(unsigned id);
const char *dif_subr_name(unsigned id);

#endif
