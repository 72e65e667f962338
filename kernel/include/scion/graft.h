/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Graft points and grafts (VINO) on the kernel side.
 *
 * A graft point is a method or an event of a kernel object, named
 * "object.method". Callers always call through the point's slot, a
 * function pointer: with nothing grafted it holds the default
 * implementation, so dispatch is one indirect call. Installing a graft
 * stores the point's dispatcher in the slot; the dispatcher runs the
 * graft in a transaction (kernel/graft/txn.c) and falls back to the
 * default when it aborts. Points come from a linker table:
 *
 *   GRAFT_POINT_METHOD(bcache_evict, bcache_policy.evict, lru_evict,
 *                      1000, check_victim, "contract ...");
 *
 * Every point's type is declared once in grafts/include/graft/<object>.h
 * (GRAFT_POINT_<id>), shared with graft sources; the macros here check
 * that the slot and the default have exactly that type. Points take at
 * most six integer or pointer arguments and return an integer, a
 * pointer or nothing (one calling convention serves every dispatcher).
 *
 * Lock order: graft_registry mutex -> point lock (a leaf spinlock, also
 * taken by aborts in any context).
 */
#ifndef SCION_GRAFT_H
#define SCION_GRAFT_H

#include <scion/compiler.h>
#include <scion/spinlock.h>
#include <scion/list.h>
#include <graft/graft.h>
#include <arch/sfi.h>

struct graft;
struct probe;

enum graft_point_kind {
	GRAFT_KIND_METHOD,	/* one graft replaces the default (per scope) */
	GRAFT_KIND_EVENT,	/* the default runs, then every handler */
};

#define GRAFT_POINT_MAX_INSTALLED 8

/* How a graft point's invocation ended (graft_point_recorder.done). */
enum graft_outcome {
	GRAFT_OUTCOME_DEFAULT = 1,	/* no graft applied: the default ran */
	GRAFT_OUTCOME_COMMITTED = 2,	/* a graft ran and committed (events: every handler did) */
	GRAFT_OUTCOME_ABORTED = 3,	/* a graft aborted (the default answered) */
};

struct graft_point;

/*
 * A recorder of a point's invocations (kernel/record/point_record.c):
 * while one is set the point's slot holds its dispatcher, which calls
 * it around every invocation, grafted or not.
 */
struct graft_point_recorder {
	/*
	 * call - Overview: an invocation of p begins.
	 * Arguments: its six argument words.
	 * Return value: a cookie handed to done.
	 * Caller's context: the point's caller's (any context; may not sleep).
	 */
	uint64_t (*call)(const struct graft_point *p, const uint64_t args[6]);
	/*
	 * done - Overview: the invocation with cookie ended.
	 * Arguments: result (masked to the point's width; 0 for events), outcome.
	 * Caller's context: as call.
	 */
	void (*done)(const struct graft_point *p, uint64_t cookie, uint64_t result,
		     enum graft_outcome outcome);
};

/* The mutable half of a graft point. */
struct graft_point_state {
	struct spinlock lock;
	struct graft *installed[GRAFT_POINT_MAX_INSTALLED];	/* lock to change; read lock-free */
	struct graft *global;		/* lock to change, read lock-free: of installed[], the
					   method graft for every thread (NULL: none) */
	uint32_t scoped;		/* lock to change, read lock-free: how many of
					   installed[] are scoped to one thread */
	uint32_t used;			/* lock to change, read lock-free: installed[i] is
					   NULL for every i >= used */
	struct graft *common;		/* lock to change, read lock-free: global, when
					   nothing else is to be asked (a method point, no
					   recorder, no scoped graft, global not direct): what
					   the dispatcher's common case runs (NULL: none) */
	struct graft *lone_direct;	/* lock to change, read lock-free: an event point's
					   only handler when it is a direct graft for every
					   thread and there is no recorder: what
					   graft_dispatch_event calls without its loop
					   (NULL: none) */
	const struct graft_point_recorder *recorder;	/* lock to change; read lock-free */
	uint64_t budget_cycles;		/* time budget per invocation; 0 until graft_init */
	uint32_t budget_us;		/* lock */
	/* graft:OBJECT:METHOD:invoke / commit / abort (kernel/graft/probes.c);
	   set once when the probe registry is first used, NULL before */
	struct probe *probe_invoke, *probe_commit, *probe_abort;
	unsigned probes_live;		/* the three probes' consumers (their soft
					   also_live): one load tells the dispatcher */
};

/*
 * check_result - Overview: decide whether a method graft's result is one
 *   the caller can use; a refused result aborts the transaction.
 * Arguments: result (the return value, masked to its type's width),
 *   args (the invocation's arguments).
 * Return value: NULL to accept, or a one-line reason.
 * Caller's context: as the graft point's caller, inside the transaction
 *   before it commits (its undo log still applies); may not sleep.
 */
typedef const char *(*graft_check_fn)(uint64_t result, const uint64_t args[6]);

struct graft_point {
	const char *name;		/* "bcache.evict" */
	const char *signature;		/* "int (void)", as in the graft headers */
	const char *contract;		/* one paragraph: when called, context, what it may change */
	enum graft_point_kind kind;
	uint8_t result_bytes;		/* 0 for void */
	uint64_t result_mask;		/* the bits of a result word its type keeps */
	void **slot;			/* what callers call through */
	void *default_fn;
	void *dispatcher;
	uint32_t default_budget_us;
	graft_check_fn check_result;	/* methods only; NULL accepts anything */
	struct graft_point_state *state;
};

LINKER_TABLE_DECLARE(struct graft_point, graft_points);

#define GRAFT_POINT_RESULT_BYTES(id) GRAFT_POINT_RESULT_BYTES_(GRAFT_POINT_##id)
#define GRAFT_POINT_RESULT_BYTES_(...) GRAFT_POINT_RESULT_BYTES__(__VA_ARGS__)
#define GRAFT_POINT_RESULT_BYTES__(dotted, ret, params) \
	((uint8_t)__builtin_choose_expr(__builtin_types_compatible_p(ret, void), 0, sizeof(ret)))

/* The bits of a result word that a result of n bytes keeps (none for void). */
#define GRAFT_RESULT_MASK(n) ((n) >= 8 ? ~0ull : (1ull << (8 * (n) % 64)) - 1)

/*
 * The generic dispatchers a point's slot leads to while grafted (through
 * the point's own, which gathers the arguments): graft_dispatch for a
 * method point (it also takes an event point, by the general way),
 * graft_dispatch_event for an event point only.
 */
uint64_t graft_dispatch(const struct graft_point *p, const uint64_t args[6]);
uint64_t graft_dispatch_event(const struct graft_point *p, const uint64_t args[6]);

#define GRAFT_POINT_DEFINE_(id, kindv, slot_lvalue, default_impl, budget, check, text) \
	_Static_assert(__builtin_types_compatible_p(__typeof__(slot_lvalue), graft_fn_##id *), \
		       "the slot of graft point " #id " does not have its declared type"); \
	static struct graft_point_state graft_point_state_##id = { \
		.lock = SPINLOCK_INIT("graft-point " #id), .budget_us = (budget), \
	}; \
	static uint64_t graft_dispatch_##id(uint64_t, uint64_t, uint64_t, uint64_t, \
					    uint64_t, uint64_t); \
	const struct graft_point graft_point_##id LINKER_TABLE_ENTRY(graft_points) = { \
		.name = GRAFT_POINT_NAME(id), .signature = GRAFT_POINT_SIGNATURE(id), \
		.contract = (text), .kind = (kindv), \
		.result_bytes = GRAFT_POINT_RESULT_BYTES(id), \
		.result_mask = GRAFT_RESULT_MASK(GRAFT_POINT_RESULT_BYTES(id)), \
		.slot = (void **)&(slot_lvalue), \
		.default_fn = (void *)(graft_fn_##id *)(default_impl), \
		.dispatcher = (void *)graft_dispatch_##id, \
		.default_budget_us = (budget), .check_result = (check), \
		.state = &graft_point_state_##id, \
	}; \
	static uint64_t graft_dispatch_##id(uint64_t a0, uint64_t a1, uint64_t a2, \
					    uint64_t a3, uint64_t a4, uint64_t a5) \
	{ \
		const uint64_t args[6] = { a0, a1, a2, a3, a4, a5 }; \
		return (kindv) == GRAFT_KIND_EVENT ? graft_dispatch_event(&graft_point_##id, args) \
						   : graft_dispatch(&graft_point_##id, args); \
	}

/*
 * GRAFT_POINT_METHOD / GRAFT_POINT_EVENT - define graft point id.
 * Arguments: slot_lvalue, the function pointer callers call through
 *   (initialised to default_impl by its owner); default_impl (an
 *   event's does nothing: it is what the slot holds while no handler
 *   is installed, and the dispatcher never calls it); budget,
 *   the time budget per invocation in microseconds (`graft budget`
 *   changes it); check, a graft_check_fn or NULL (methods); text, the
 *   contract shown by `graft points -v`.
 */
#define GRAFT_POINT_METHOD(id, slot_lvalue, default_impl, budget, check, text) \
	GRAFT_POINT_DEFINE_(id, GRAFT_KIND_METHOD, slot_lvalue, default_impl, budget, check, text)
#define GRAFT_POINT_EVENT(id, slot_lvalue, default_impl, budget, text) \
	GRAFT_POINT_DEFINE_(id, GRAFT_KIND_EVENT, slot_lvalue, default_impl, budget, NULL, text)

/*
 * Exported graft API: GRAFT_EXPORT(fn) makes fn resolvable by grafts. A
 * sandboxed graft's call of fn runs fn on the graft's own stack, with at
 * least SFI_API_STACK bytes of it free below (arch/sfi.h): an exported
 * function may need no more stack than a kernel thread has.
 */
struct graft_export {
	const char *name;
	uintptr_t address;
};
LINKER_TABLE_DECLARE(struct graft_export, graft_exports);
#define GRAFT_EXPORT(fn) \
	static const struct graft_export UNIQUE(graft_export_) LINKER_TABLE_ENTRY(graft_exports) = { \
		#fn, (uintptr_t)&(fn) \
	}

/* A loaded graft. */
struct graft {
	char name[GRAFT_NAME_MAX];		/* set once */
	char source[48];			/* set once: boot module or "channel" */
	uint32_t version;			/* set once */
	const struct graft_point *point;	/* set once */
	uintptr_t entry;			/* set once */
	uintptr_t code_start, code_end;		/* set once: its text */
	uintptr_t region[3];			/* set once: text, rodata, data (graft area) */
	size_t region_size[3];			/* set once */
	bool builtin;				/* set once: kernel code registered as a graft (tests) */
	bool direct;				/* set once: built-in code that ends on its own and
						   cannot fail (a recorder, which writes a record
						   and returns): called without a transaction, so
						   no budget aborts it on a loaded host's slow
						   guest and recording costs no begin and commit;
						   it must not reach its own point */
	bool sandboxed;				/* set once: verified, runs in its sandbox (arch/sfi.h) */
	struct arch_sfi sfi;			/* set once: its windows, when sandboxed */
	bool quiet;				/* set once: aborts are not logged (benchmarks) */
	void *image;				/* set once: a copy of the ELF image (NULL: built in) */
	size_t image_size;			/* set once */
	uint64_t scope_tid;			/* point lock: 0 = every thread */
	bool installed;				/* point lock */
	uint64_t commits, aborts;		/* atomic; invocations are their sum */
	uint64_t cycles;			/* atomic: time inside the graft */
	uint64_t verify_cycles;			/* atomic: what the last graft_reverify took */
	char last_abort[112];			/* abort_lock (txn.c) */
	struct list_node node;			/* graft_registry mutex */
};

/*
 * graft_point_find - the point named name, or NULL.
 * Caller's context: any.
 */
const struct graft_point *graft_point_find(const char *name);

/* Whether the point named name has a graft installed. */
bool graft_point_grafted(const char *name);

/*
 * graft_point_set_recorder - call r around every invocation of p (NULL:
 * stop). A recorder's functions may still run on other CPUs for
 * invocations already begun when this returns; the caller waits for
 * them (kernel/record/ runs a cross-call round).
 * Return value: 0, or -EBUSY when p has another recorder.
 * Caller's context: any; takes the point lock.
 */
int graft_point_set_recorder(const struct graft_point *p, const struct graft_point_recorder *r);

/*
 * graft_point_installed_name - the name of the graft installed at point
 * for every thread (not a thread-scoped one), copied into buf.
 * Return value: false when there is none (the default runs) or no such point.
 * Caller's context: any; takes the point lock.
 */
bool graft_point_installed_name(const char *point, char *buf, size_t n);

/* How graft_load treats an image. */
enum graft_load_mode {
	GRAFT_SANDBOXED,	/* the default: the verifier must accept its code (arch/sfi.h) */
	GRAFT_TRUSTED,		/* explicitly asked for: unverified, runs unconfined (for comparison) */
};

/*
 * graft_load - link a graft image (an ELF relocatable object) into the
 * graft area and register it, not installed.
 * Arguments: image/size (copied), source (for messages and `graft
 *   list`), mode: GRAFT_SANDBOXED verifies the code and runs it in its
 *   sandbox; GRAFT_TRUSTED loads an image built without the sandboxing
 *   step as it is (and refuses one built with it); err/errlen for a
 *   one-line reason on failure.
 * Return value: the graft, or NULL with err filled.
 * Caller's context: thread, no spinlocks; takes the registry mutex.
 */
struct graft *graft_load(const void *image, size_t size, const char *source,
			 enum graft_load_mode mode, char *err, size_t errlen);

/*
 * graft_load_private - link another copy of loaded graft g (its own
 * code and its own data) that is not registered and cannot be
 * installed: a simulation instance runs it with txn_run. Its aborts
 * are not logged on the console.
 * Return value: the copy, or NULL with err filled (g built in, memory).
 * Caller's context: thread, no spinlocks. graft_unload_private frees it.
 */
struct graft *graft_load_private(const struct graft *g, char *err, size_t errlen);
void graft_unload_private(struct graft *g);

/*
 * graft_find - a loaded graft by name, or NULL. Caller's context: thread.
 */
struct graft *graft_find(const char *name);

/*
 * graft_install - make g run at its graft point, for every thread
 * (tid 0) or only for thread tid.
 * Return value: 0; -EBUSY when a method point already has a graft for
 *   that scope, or g is installed; -ENOSPC when the point is full.
 *   err receives one line on failure.
 * Caller's context: thread, no spinlocks.
 */
int graft_install(struct graft *g, uint64_t tid, char *err, size_t errlen);

/*
 * graft_remove - stop running g; the point's slot returns to the default
 * when nothing else is installed there. Invocations already running
 * finish. Return value: 0 or -ENOENT when g was not installed.
 * Caller's context: any; takes the point lock.
 */
int graft_remove(struct graft *g);

/*
 * graft_remove_scoped - remove every graft installed for thread tid
 *   alone (a process's grafts when it exits: `graft install NAME pid N`).
 * Return value: how many were removed.
 * Caller's context: thread, no spinlocks; takes the registry mutex.
 */
unsigned graft_remove_scoped(uint64_t tid);

/*
 * graft_load_line - the one line that says what became of loading a
 * graft from source: "graft: SOURCE: loaded 'NAME' for POINT (version
 * N[, trusted])" when g is the graft loaded, else "graft: SOURCE:
 * refused: WHY". The console, the event and GRAFT_LOAD's answer all
 * carry it. Writes at most size - 2 characters and a NUL (room for a
 * newline); returns their number. Caller's context: any.
 */
#define GRAFT_LOAD_LINE 224
size_t graft_load_line(char *buf, size_t size, const char *source, const struct graft *g,
		       const char *why);

/*
 * A trusted code object that is not a graft (kernel/graft/code_object.c):
 * a kernel function's clone the host compiled, for a code adaptation
 * (scion/codeadapt.h). Its manifest's point names the function.
 */
#define GRAFT_CODE_REGIONS 3
struct graft_code {
	uint64_t entry;			/* the manifest's entry, inside text */
	uintptr_t text;			/* the executable region */
	size_t text_size;
	uintptr_t region[GRAFT_CODE_REGIONS];	/* text, rodata, data; 0: none */
	size_t region_size[GRAFT_CODE_REGIONS];
	char name[GRAFT_NAME_MAX];
	char point[GRAFT_POINT_MAX];
};

/*
 * graft_code_load - Overview: link a code object into the graft area,
 *   unverified (it is kernel code the host built), its text executable.
 * Arguments: image/size (read only); c, filled; err/errlen, one line.
 * Return value: 0, or a negative errno with err (the loader's reasons;
 *   an undefined symbol that is not a global kernel function).
 * Caller's context: thread, no spinlocks, may sleep.
 */
int graft_code_load(const void *image, size_t size, struct graft_code *c, char *err,
		    size_t errlen);

/* Free a loaded code object's memory; nothing may run in it any more. Context: thread. */
void graft_code_free(struct graft_code *c);

/* Visit every loaded graft (registry mutex held; fn may not sleep). */
void graft_foreach(void (*fn)(struct graft *g, void *arg), void *arg);

/*
 * graft_create_builtin - a graft whose code is the kernel function fn
 * (tests and benchmarks of the transaction machinery), not registered,
 * not installed. Return value: NULL if point does not exist or fn is not
 * the start of a kernel function. graft_destroy_builtin removes and
 * frees it; the caller makes sure no invocation is running.
 */
struct graft *graft_create_builtin(const char *name, const char *point, void *fn);
void graft_destroy_builtin(struct graft *g);

/*
 * Overview: a consistent snapshot of g's counters: invocations equals
 *   commits + aborts, which two unsynchronised reads while the graft runs
 *   on another CPU would not promise.
 * Arguments: g; out: the three counters.
 * Return value: none. After a few attempts that each raced a running
 *   invocation, the last (nearly consistent) reading.
 * Caller's context: any; does not sleep.
 */
struct graft_counts {
	uint64_t invocations, commits, aborts;
};
void graft_counts(const struct graft *g, struct graft_counts *out);

/* g's last abort reason (empty if none). Any context. */
void graft_last_abort(const struct graft *g, char *buf, size_t n);

/* Load the grafts that came as boot modules. Caller: init thread, once. */
void graft_init(void);

/* Set a point's time budget in microseconds (1 .. 10 s). */
int graft_point_set_budget(const struct graft_point *p, uint32_t us);

#endif
