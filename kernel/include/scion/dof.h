/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The trace object ("DOF", after DTrace's object format): what the D
 * compiler (host/dtrace/dt_dof.c) emits and the kernel loads
 * (kernel/trace/dof.c) when `scion trace` starts a session, plus the
 * layout of what the session sends back. Shared by the compiler, the
 * kernel and the host consumer (host/scionhost/dconsumer.py), so
 * every number here is part of the protocol.
 *
 * Encoding: little-endian, packed, no padding. The kernel reads it with
 * bounds checks and refuses anything malformed with one line.
 *
 *   object   := header options progs aggs clauses
 *   header   := u32 DOF_MAGIC, u16 DOF_VERSION, u16 0
 *   options  := u32 n, n x { u16 id (DOF_OPT_*), u16 0, u64 value }
 *   progs    := u32 n, n x prog                  (n <= DOF_MAX_PROGS)
 *   prog     := u32 ninsns, ninsns x { u8 op, u8 rd, u8 r1, u8 r2, i32 imm }
 *               u32 nints, nints x u64
 *               u32 strtab_len, strtab_len bytes
 *               u32 nvars, nvars x { u16 id, u8 scope, u8 kind, u8 type,
 *                                    u8 nkeys, u16 size }
 *               u8 rtype, u8 0, u16 rsize, u16 strsize
 *   aggs     := u32 n, n x agg                   (n <= DOF_MAX_AGGS)
 *   agg      := u8 func (DOF_AGG_*), u8 nkeys, u16 0,
 *               nkeys x { u8 type (DIF_TYPE_* or DOF_KEY_STACK), u8 0, u16 size },
 *               i64 lq_low, i64 lq_high, i64 lq_step   (lquantize's low, high and
 *               step; llquantize's low and high magnitudes and
 *               DOF_LLQ_PACK(factor, nsteps); else 0)
 *               (an aggregation's id is its index)
 *   clauses  := u32 n, n x clause                (n <= DOF_MAX_CLAUSES)
 *   clause   := u16 nprobes (1..DOF_MAX_PROBEDESCS), u16 flags (DOF_CLAUSE_*),
 *               nprobes x probedesc,
 *               u32 predicate (a prog index, or DOF_NONE),
 *               u16 nactions, u16 0, nactions x action
 *   probedesc:= 4 x { u16 len, len bytes }: provider, module, function,
 *               name; globs; an empty part matches anything
 *   action   := u16 kind (DOF_ACT_*), u16 nprogs, u32 arg,
 *               nprogs x u32 prog index
 *
 * Actions (arg and programs):
 *   EXPR       1 prog, run for its effect (assignments); no data
 *   RECORD     1 prog; records its value: 8 bytes for an integer, rsize
 *              bytes for a string (NUL-padded)  (trace, printf args, ...)
 *   STACK      arg = frames (1..DOF_MAX_FRAMES); records frames x u64
 *              kernel PCs, innermost first, 0-padded
 *   EXIT       1 prog; records the status (8 bytes); the session stops
 *              firing every ECB but END's from then on
 *   SPECULATE  1 prog (the speculation id); must come first: the
 *              clause's record goes to that speculation's buffer (the
 *              compiler runs the assignments a clause makes before
 *              speculate() in this program, ahead of the id)
 *   COMMIT     1 prog (id): the speculation's data joins the principal
 *              buffer, then it is free again; no data
 *   DISCARD    1 prog (id): its data is thrown away; no data
 *   CHILL, RAISE, PANIC, BREAKPOINT, STOP (dtrace's destructive actions;
 *              the loader refuses them unless DOF_OPT_DESTRUCTIVE is 1):
 *              chill and raise 1 prog (nanoseconds, the signal), the
 *              others none; no data. stop stops the process the probe
 *              fired in as it next returns to user mode, until SIGCONT. raise posts the signal to the process the probe fired
 *              in, taking effect as it next returns to user mode
 *   AGGREGATE  arg = agg id; a prog per key that is not a stack (the
 *              kernel walks stack keys itself), then the function's value
 *              progs (count: 0; lquantize, quantize, sum, min, max, avg,
 *              stddev: 1), and for quantize and lquantize optionally one
 *              more: the increment, what the value's bucket grows by
 *              (dtrace's quantize(x, incr), lquantize(x, lo, hi, step,
 *              incr); two's complement, so a negative one subtracts;
 *              without it, 1). nprogs tells which. No data in the record
 *
 * A clause with DOF_CLAUSE_RECORD writes one record per firing (unless
 * its predicate is false or an action fails): a struct dof_rechdr, then
 * each RECORD / STACK / EXIT action's data in action order, each at the
 * next multiple of 8. Actions the consumer runs (printf's format,
 * printa, clear, trunc, normalize, the default action) need only the
 * record's existence, and the consumer knows the clause's layout.
 *
 * Enabled probe ids (EPIDs) are numbered from 1 per session: clause c
 * has first_epid[c] .. first_epid[c] + nprobes[c] - 1, in the order the
 * TRACE_START reply gives (scion/chan_proto.h).
 */
#ifndef SCION_DOF_H
#define SCION_DOF_H

#include <stdint.h>
#include <scion/dif.h>

#define DOF_MAGIC        0x464f4453u	/* "SDOF" */
#define DOF_VERSION      4		/* 2: weighted (l)quantize; 3: stack() keys;
					   4: llquantize, options bufpolicy and destructive */
#define DOF_NONE         0xffffffffu
#define DOF_MAX_PROGS    4096
#define DOF_MAX_AGGS     256
#define DOF_MAX_CLAUSES  256
#define DOF_MAX_ACTIONS  64		/* per clause */
#define DOF_MAX_PROBEDESC 255		/* bytes of one part */
#define DOF_MAX_PROBEDESCS 64		/* probe descriptions per clause */
#define DOF_MAX_FRAMES   64
#define DOF_MAX_RECORD   8192		/* bytes of one clause's record */
#define DOF_MAX_KEYBYTES 2048		/* bytes of one aggregation key */
#define DOF_MAX_OBJECT   (1u << 20)

enum dof_option {
	DOF_OPT_NSPEC = 1,		/* speculative buffers */
	DOF_OPT_SPECSIZE = 2,		/* bytes of each speculative buffer */
	DOF_OPT_DYNVARSIZE = 3,		/* bytes of dynamic variable space */
	DOF_OPT_AGGSIZE = 4,		/* bytes of aggregation buffer per CPU */
	DOF_OPT_BUFPOLICY = 5,		/* enum dof_bufpolicy */
	DOF_OPT_ZDEFS = 6,		/* 1: a description matching no probe is no error (-Z) */
	DOF_OPT_DESTRUCTIVE = 7,	/* 1: destructive actions allowed (-w) */
	DOF_OPT_KTYPES = 8,		/* the id of the kernel types the program was compiled
					   against (kernel_ctf_id); absent: none */
	DOF_OPT_NOJIT = 9,		/* 1: the programs run interpreted (-x nojit) */
	DOF_OPT_LIMIT
};

/*
 * The principal buffers' policy (dtrace's bufpolicy), over the stream's
 * buffers of bufsize bytes per CPU:
 *   SWITCH  records go out every switch interval (a full buffer drops);
 *   FILL    a CPU stops recording once it has written bufsize bytes less
 *           END's records since the session began: that CPU's buffer has
 *           filled, the session moves to DRAINING as exit() moves it
 *           (END fires, its records fit) and the status says
 *           DOF_STATUS_FILLED and which CPUs filled;
 *   RING    each CPU keeps its newest records in a ring of bufsize bytes,
 *           overwriting the oldest, and the ring is sent once, after END,
 *           before the last aggregations and status.
 */
enum dof_bufpolicy {
	DOF_BUFPOLICY_SWITCH = 0,
	DOF_BUFPOLICY_FILL = 1,
	DOF_BUFPOLICY_RING = 2,
};

/*
 * What the kernel applies when an option is absent, and the range it
 * accepts (the compiler refuses less than the minimum and lowers more than
 * the maximum when bufresize=auto).
 */
#define DOF_NSPEC_DEFAULT	1
#define DOF_NSPEC_MIN		1
#define DOF_NSPEC_MAX		16
#define DOF_SPECSIZE_DEFAULT	4096
#define DOF_SPECSIZE_MIN	64
#define DOF_SPECSIZE_MAX	(64u << 10)
#define DOF_DYNVARSIZE_DEFAULT	(64u << 10)
#define DOF_DYNVARSIZE_MIN	(4u << 10)
#define DOF_DYNVARSIZE_MAX	(4u << 20)
/*
 * Aggregation buffers per CPU: dtrace's default, which holds a quantize()
 * keyed by function name for every kernel function (about 1.3 KiB each);
 * at most what the buffers' 32-bit offsets allow, and what memory allows
 * (the kernel refuses more: kernel/trace/session.c).
 */
#define DOF_AGGSIZE_DEFAULT	(4u << 20)
#define DOF_AGGSIZE_MIN		(4u << 10)
#define DOF_AGGSIZE_MAX		(1u << 30)

enum dof_clause_flag {
	DOF_CLAUSE_RECORD = 0x1,	/* writes a record per firing */
};

enum dof_action {
	DOF_ACT_EXPR = 1,
	DOF_ACT_RECORD = 2,
	DOF_ACT_STACK = 3,
	DOF_ACT_EXIT = 4,
	DOF_ACT_SPECULATE = 5,
	DOF_ACT_COMMIT = 6,
	DOF_ACT_DISCARD = 7,
	DOF_ACT_AGGREGATE = 8,
	DOF_ACT_CHILL = 9,		/* destructive: 1 prog, ns to spin (at most DOF_CHILL_MAX_NS) */
	DOF_ACT_RAISE = 10,		/* destructive: 1 prog, the signal for the current process */
	DOF_ACT_PANIC = 11,		/* destructive: no prog; the kernel panics */
	DOF_ACT_BREAKPOINT = 12,	/* destructive: no prog; a kernel breakpoint trap */
	DOF_ACT_STOP = 13,		/* destructive: no prog; stop the current process */
	DOF_ACT_PAUSE = 14,		/* destructive: no prog; pause the current kernel thread
					   where the probe fired (scion/pause.h) */
	DOF_ACT_LIMIT
};

/*
 * Aggregating functions and their values in an aggregation entry, all
 * u64 (two's complement for signed): deltas since the last snapshot,
 * which the consumer merges (adds, or takes the min / max).
 *   COUNT    [count]                SUM [sum]     MIN [min]   MAX [max]
 *   AVG      [count, sum]
 *   STDDEV   [count, sum, sum of squares low 64 bits, high 64 bits]
 *   QUANTIZE DOF_QUANTIZE_BUCKETS counts (sums of increments for a
 *            weighted one): bucket DOF_QUANTIZE_ZERO holds
 *            0; ZERO + k (k >= 1) holds [2^(k-1), 2^k); ZERO - k holds
 *            (-2^k, -2^(k-1)]
 *   LQUANTIZE (high - low) / step + 2 counts: [0] below low, [1 + i]
 *            [low + i*step, low + (i+1)*step), last: >= high
 *   LLQUANTIZE dof_llquantize_buckets() counts, illumos dtrace's
 *            log-linear layout: [0] below factor^low; then for each order
 *            of magnitude m from low to high, the values [factor^m,
 *            factor^(m+1)) in steps of factor^(m+1) / nsteps (1 when
 *            that is below 1), those steps starting at factor^m only;
 *            last: >= factor^(high+1). dof_llquantize_bucket() places a
 *            value.
 */
enum dof_agg_func {
	DOF_AGG_COUNT = 1,
	DOF_AGG_SUM = 2,
	DOF_AGG_MIN = 3,
	DOF_AGG_MAX = 4,
	DOF_AGG_AVG = 5,
	DOF_AGG_STDDEV = 6,
	DOF_AGG_QUANTIZE = 7,
	DOF_AGG_LQUANTIZE = 8,
	DOF_AGG_LLQUANTIZE = 9,
	DOF_AGG_LIMIT
};

/* chill(): what one call may spin, and the most per CPU per second (dtrace's 500 ms). */
#define DOF_CHILL_MAX_NS 500000000ull

#define DOF_QUANTIZE_BUCKETS 127
#define DOF_QUANTIZE_ZERO    63
#define DOF_LQUANTIZE_MAX_LEVELS 4096
#define DOF_LLQUANTIZE_MAX_BUCKETS 4096

/* llquantize's factor and steps per magnitude (each 16 bits, as in dtrace) in lq_step. */
#define DOF_LLQ_PACK(factor, nsteps) ((int64_t)(((uint64_t)(factor) << 16) | (uint16_t)(nsteps)))
#define DOF_LLQ_FACTOR(step)         ((uint16_t)((uint64_t)(step) >> 16))
#define DOF_LLQ_NSTEPS(step)         ((uint16_t)(step))

/*
 * Whether llquantize(factor, low, high, nsteps) has dtrace's shape:
 * factor >= 2, low < high, factor <= nsteps, factor divides nsteps and
 * nsteps divides a power of factor (whole, equal steps in every order),
 * and factor^(high + 2) fits in an int64 (the compiler's D_LLQUANT_*
 * checks; the kernel's loader repeats them).
 */
static inline int dof_llquantize_valid(uint64_t factor, uint64_t low, uint64_t high,
				       uint64_t nsteps)
{
	if (factor < 2 || factor > 0xffff || low >= high || high > 0xffff || nsteps > 0xffff ||
	    nsteps < factor || nsteps % factor)
		return 0;
	uint64_t p = factor;
	while (p < nsteps)
		p *= factor;
	if (p % nsteps)
		return 0;
	int64_t v = 1;
	for (uint64_t i = 0; i <= high + 1; i++)
		if (__builtin_mul_overflow(v, (int64_t)factor, &v))
			return 0;
	return 1;
}

/* The bucket of value v (the parameters valid): see LLQUANTIZE above. */
static inline uint32_t dof_llquantize_bucket(uint16_t factor, uint16_t low, uint16_t high,
					     uint16_t nsteps, int64_t v)
{
	int64_t start = 1;			/* factor^m: the first value of order m */
	for (unsigned m = 0; m < low; m++)
		start *= factor;
	if (v < start)
		return 0;
	uint32_t first = 1;			/* order m's first bucket */
	for (unsigned m = low; m <= high; m++) {
		int64_t end = start * factor;
		int64_t width = end > nsteps ? end / nsteps : 1;
		if (v < end)
			return first + (uint32_t)((v - start) / width);
		first += (uint32_t)((end - start) / width);
		start = end;
	}
	return first;				/* >= factor^(high + 1) */
}

/* How many buckets llquantize(factor, low, high, nsteps) has. */
static inline uint32_t dof_llquantize_buckets(uint16_t factor, uint16_t low, uint16_t high,
					      uint16_t nsteps)
{
	return dof_llquantize_bucket(factor, low, high, nsteps, INT64_MAX) + 1;
}

/*
 * One word of data: an integer datum of a record (trace(), a printf
 * argument, exit()'s status), a stack() frame, an integer or stack key
 * item, an aggregation value. Strings are bytes; everything else the
 * session sends is made of these words (the kernel turns each to
 * little-endian with this layout, scion/chan_wire.h).
 */
struct dof_word {
	uint64_t value;
};

/* Every record starts with this (8-byte aligned, 16 bytes). */
struct dof_rechdr {
	uint32_t epid;			/* DOF_EPID_ERROR: a struct dof_error follows */
	uint32_t probe_id;		/* the probe that fired */
	uint64_t timestamp;		/* ns since boot */
};

/*
 * A run-time error in an ECB: the record the kernel writes (after a
 * struct dof_rechdr with epid DOF_EPID_ERROR) into the principal buffer,
 * and then the dtrace:::ERROR probe fires with arg1 = epid, arg2 =
 * action (0 for the predicate, else 1-based), arg3 = DIF instruction,
 * arg4 = fault (enum dif_fault_kind), arg5 = address.
 */
#define DOF_EPID_ERROR 0xffffffffu
struct dof_error {
	uint32_t epid;			/* the ECB that failed */
	uint32_t action;		/* 0: predicate; n: the nth action */
	uint32_t pc;			/* instruction index in that program, or DIF_PC_NONE
					   when copying its result failed (arg3 then is -1) */
	uint32_t fault;			/* enum dif_fault_kind */
	uint64_t addr;
};

/*
 * An aggregation key item of type DOF_KEY_STACK is stack(): size / 8
 * kernel PCs (1 to DOF_MAX_FRAMES) of the firing's stack, innermost
 * first, 0-padded, walked as the STACK action walks them.
 */
#define DOF_KEY_STACK 3

/*
 * Aggregation data: one DATA chunk per CPU per snapshot, cpu field
 * CHAN_CHUNK_AGG | cpu (scion/chan_proto.h), holding entries, each
 * 8-aligned: u32 agg id, u16 key bytes, u16 value bytes, the key (its
 * items in order, each padded with zeros to a multiple of 8 bytes:
 * integers as 8 bytes, strings as their declared size, NUL-padded,
 * stacks as their frames), then the values (u64 each).
 */
struct dof_aggent {
	uint32_t agg;
	uint16_t keybytes;
	uint16_t valbytes;
};

/* An entry's key tuple, and its values (valbytes / 8 of them) after it. */
static inline const uint8_t *dof_aggent_key(const struct dof_aggent *e)
{
	return (const uint8_t *)(e + 1);
}

static inline const uint64_t *dof_aggent_values(const struct dof_aggent *e)
{
	return (const uint64_t *)(dof_aggent_key(e) + e->keybytes);
}

/*
 * Session status: one DATA chunk with cpu field CHAN_CHUNK_STATUS after
 * every snapshot, totals since the session started. It also marks the
 * end of a snapshot: the consumer merges the aggregation chunks before
 * it formats the records of that snapshot.
 */
struct dof_status {
	uint64_t dynvar_drops;		/* stores refused: dynamic variable space full */
	uint64_t spec_drops;		/* records that did not fit a speculative buffer, or
					   named a speculation not active */
	uint64_t spec_unavail;		/* speculation() found no free buffer */
	uint64_t agg_drops;		/* aggregation updates that found the buffer full */
	uint64_t errors;		/* ECB run-time errors */
	uint32_t flags;			/* DOF_STATUS_* */
	int32_t exit_status;		/* with DOF_STATUS_EXITED */
	uint64_t filled_cpus;		/* with DOF_STATUS_FILLED: bit n for CPU n */
};

#define DOF_STATUS_EXITED 0x1		/* exit() ran */
#define DOF_STATUS_ENDED  0x2		/* END has fired: the last snapshot */
#define DOF_STATUS_FILLED 0x4		/* bufpolicy=fill: a CPU's buffer filled */

#endif
