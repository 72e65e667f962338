/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The graft API: what a graft may call, and how it names the graft point
 * it implements. Shared by graft sources (built by `make grafts`) and by
 * the kernel, which compiles its exported functions and its graft point
 * definitions against these same declarations, so the two cannot drift.
 *
 * A graft is one C file:
 *
 *   #include <graft/bcache.h>
 *   static int clock_evict(void) { ... }
 *   GRAFT_METHOD(bcache_evict, "clock", 1, clock_evict);
 *
 * Graft code may call only functions declared in grafts/include/graft/
 * (the kernel exports exactly those; the loader refuses anything else),
 * may not sleep, and changes kernel state only through API calls, which
 * log how to undo the change. Every invocation runs in a transaction:
 * a fault, running past the graft point's time budget or graft_abort()
 * undoes the invocation's changes, releases the locks it took, removes
 * the graft, and the caller gets the default implementation's result.
 * A graft's own static data is its own: it is not undone.
 */
#ifndef GRAFT_GRAFT_H
#define GRAFT_GRAFT_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <graft/manifest.h>

/*
 * Each graft point is described once, in its module's header, by a macro
 * GRAFT_POINT_<id> expanding to: "dotted.name", return type, (parameters).
 * The signature the loader compares is "<return type> (<parameters>)"
 * spelled exactly as in that macro.
 */
#define GRAFT_POINT_TYPEDEF(id) GRAFT_POINT_TYPEDEF_(id, GRAFT_POINT_##id)
#define GRAFT_POINT_TYPEDEF_(id, ...) GRAFT_POINT_TYPEDEF__(id, __VA_ARGS__)
#define GRAFT_POINT_TYPEDEF__(id, dotted, ret, params) typedef ret graft_fn_##id params

#define GRAFT_POINT_NAME(id) GRAFT_POINT_NAME_(GRAFT_POINT_##id)
#define GRAFT_POINT_NAME_(...) GRAFT_POINT_NAME__(__VA_ARGS__)
#define GRAFT_POINT_NAME__(dotted, ret, params) dotted

#define GRAFT_POINT_SIGNATURE(id) GRAFT_POINT_SIGNATURE_(GRAFT_POINT_##id)
#define GRAFT_POINT_SIGNATURE_(...) GRAFT_POINT_SIGNATURE__(__VA_ARGS__)
#define GRAFT_POINT_SIGNATURE__(dotted, ret, params) #ret " " #params

/*
 * GRAFT_METHOD / GRAFT_EVENT - declare the graft this file implements.
 * Arguments: id of the graft point (e.g. bcache_evict), the graft's name
 *   (a string of [a-z0-9_-]), its version, and the function, which must
 *   have the graft point's type (the compiler checks).
 */
#ifndef GRAFT_NAME_SUFFIX
#define GRAFT_NAME_SUFFIX ""	/* the trusted build of a graft adds "-trusted" (grafts.mk) */
#endif
#define GRAFT_METHOD(id, gname, gversion, fn) \
	__attribute__((section(GRAFT_MANIFEST_SECTION), used, aligned(8))) \
	const struct graft_manifest graft_manifest = { \
		.magic = GRAFT_MANIFEST_MAGIC, .abi = GRAFT_ABI_VERSION, \
		.version = (gversion), .reserved = 0, .name = gname GRAFT_NAME_SUFFIX, \
		.point = GRAFT_POINT_NAME(id), .signature = GRAFT_POINT_SIGNATURE(id), \
		.entry = (uint64_t)(uintptr_t)(graft_fn_##id *)(fn), \
	}
#define GRAFT_EVENT(id, gname, gversion, fn) GRAFT_METHOD(id, gname, gversion, fn)

/* --- Transactions ------------------------------------------------------ */

/*
 * graft_abort - give up: the invocation's changes are undone, its locks
 * released, the graft removed, and the caller gets the default result.
 * Arguments: reason, one line for the log (copied).
 * Return value: does not return.
 */
__attribute__((noreturn)) void graft_abort(const char *reason);

/*
 * graft_lock - take API lock id (0 .. GRAFT_LOCKS - 1) for the rest of
 * the invocation: locks are two-phase, released only when the
 * transaction commits or aborts. Waiting counts against the time budget.
 * Taking a lock this CPU's transaction (or an enclosing one) already
 * holds returns at once.
 * Return value: 0, or -EINVAL for a bad id (the invocation goes on).
 */
int graft_lock(unsigned id);
#define GRAFT_LOCKS 8

/* --- Information --------------------------------------------------------- */

/* Cycle counter (the TSC on x86: instructions under -icount). */
uint64_t graft_cycles(void);
/* The calling thread's id, and the executing CPU's index. */
uint64_t graft_tid(void);
unsigned graft_cpu(void);
/* Append one line to the kernel log, prefixed with the graft's name. */
void graft_log(const char *msg);
/* Depth of transaction nesting on this CPU: 1 in a graft called directly. */
unsigned graft_nesting(void);

#endif
