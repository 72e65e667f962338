/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the code generator's host tests share: compiling D through
 * dt_generate, and a fake kernel that runs a clause's generated programs
 * with the portable interpreter (dif_run) the way the kernel would:
 * predicate, then each action in order, recording values, updating
 * variables of the three scopes (associative arrays keyed by tuples
 * compared by value, strings by content) and aggregations.
 */
#ifndef D_CG_HELPERS_H
#define D_CG_HELPERS_H

#include <scion/dif_exec.h>
#include "dtrace.h"

#define FAKE_MAX_VARS    64
#define FAKE_MAX_RECORDS 64
#define FAKE_MAX_AGGS    16
#define FAKE_STR         512	/* bytes kept of a recorded string */
#define FAKE_SCRATCH     (64 * 1024)

struct fake_tuple {
	unsigned n;
	uint64_t value[DIF_MAX_TUPLE];	/* integers */
	char *str[DIF_MAX_TUPLE];	/* strings (copies), NULL for integers */
};

struct fake_var {
	uint8_t scope, kind;
	uint16_t id;
	uint64_t thread;		/* thread scope: whose */
	struct fake_tuple keys;
	uint64_t value;			/* integer, or the address of str */
	char *str;			/* string variables: a copy; by reference: storage */
	size_t byref_size;		/* by reference: str's bytes (0: not one) */
};

/* One value a clause recorded (RECORD, EXIT) or one aggregation update. */
struct fake_value {
	bool is_string;
	uint64_t value;
	char str[FAKE_STR];		/* a string, or an object's bytes */
	uint32_t nbytes;		/* an object traced whole: its bytes in str */
};

struct fake_agg_update {
	uint32_t agg;
	unsigned nkeys;
	struct fake_value keys[DT_MAX_KEYS];
	bool has_value;
	uint64_t value;
	bool has_incr;			/* a weighted (l)quantize: its increment */
	uint64_t incr;
};

struct fake_kernel {
	uint64_t builtin[DIF_VAR_LIMIT];	/* strings as host addresses */
	uint64_t thread;			/* the current thread, for self-> */
	struct fake_var vars[FAKE_MAX_VARS];
	unsigned nvars;
	char scratch[FAKE_SCRATCH];
	size_t scratch_used;
	uint64_t next_speculation;
	uint64_t strtok[2];			/* strtok()'s place: one firing's */
	/* what the last fire() did */
	bool fired;				/* the predicate was true */
	struct fake_value records[FAKE_MAX_RECORDS];
	unsigned nrecords;
	struct fake_agg_update aggs[FAKE_MAX_AGGS];
	unsigned naggs;
	uint64_t speculations[4];		/* SPECULATE, COMMIT, DISCARD ids, in order */
	unsigned nspeculations;
	struct dif_fault fault;			/* of the failing program, if any */
	/* Memory D may load from byte for byte (pointer tests); reads into it
	   that run past its end fault. */
	const void *memory;
	size_t memory_size;
};

extern const struct dif_env_ops fake_kernel_ops;

/* Built-ins with recognizable values: execname "kworker", probefunc "bcache_read"... */
void fake_kernel_init(struct fake_kernel *k);
/* Free the variables' copies. */
void fake_kernel_reset(struct fake_kernel *k);

/*
 * Run clause `index` of obj once. Return value: 0, or -1 when a program
 * faulted (k->fault says how); clause-local variables start empty.
 */
int fake_fire(struct fake_kernel *k, const struct dt_object *obj, int index);

/*
 * Compile src and fire its clause 0 once in a fresh fake kernel (built-ins
 * as fake_kernel_init sets them): its records go to recs[0..max), *n
 * says how many. Return value: 0, or -1 with why (the first compile
 * error, or the fault). d_fire_over: the same with [memory, memory +
 * size) as the kernel's readable memory.
 */
int d_fire_over(const char *src, void *memory, size_t size, struct fake_value *recs,
		unsigned max, unsigned *n, char *why, size_t whysize);
int d_fire_once(const char *src, struct fake_value *recs, unsigned max, unsigned *n, char *why,
		size_t whysize);

/* Compile D source and generate its code; NULL (with *p kept for errors) on failure. */
struct dt_object *d_generate(const char *src, struct dt_program **p);
/* "TAG: message" of the program's first error, or "none". */
const char *d_first_error(const struct dt_program *p, char *buf, size_t size);

#define D_NARGS 3	/* arg0..arg2 the runs below set */

/* Run clause 0 of src once with arg0..arg2; 0, or -1 (compile error or fault: *why). */
int d_run(const char *src, const int64_t args[D_NARGS], struct fake_kernel *k, char *why,
	  size_t whysize);
/* The value of trace(expr) in BEGIN; false (with why) if it did not compile or faulted. */
bool d_eval(const char *expr, const int64_t args[D_NARGS], uint64_t *value, char *why,
	    size_t whysize);

#endif
