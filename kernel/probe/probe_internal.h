/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Interfaces between the files of kernel/probe. Everything here runs in
 * .text.noprobe (the Makefile moves the whole directory there, and the
 * arch's probe files with it). The machine's half is the contract of
 * scion/probe_arch.h; nothing here knows an instruction encoding.
 *
 * probe_mutex guards the probe list, every site's fields except those
 * marked otherwise, and the patch heap. The breakpoint handler reads the
 * site table and a site's published consumer list without locks: both
 * are replaced, never changed in place, and old versions are freed only
 * after a round of cross-calls (every CPU has left any handler since).
 */
#ifndef KERNEL_PROBE_INTERNAL_H
#define KERNEL_PROBE_INTERNAL_H

#include <scion/probe.h>
#include <scion/probe_arch.h>
#include <scion/mutex.h>
#include <scion/textpoke.h>

extern struct mutex probe_mutex;

/*
 * What the breakpoint handler and the dispatcher need of a site, published
 * as one pointer and never edited in place (a change publishes a new one).
 * Each state belongs to the patch built for it and is freed with it.
 */
struct site_state {
	uint64_t addr;				/* the probed instruction */
	uint8_t mechanism;			/* enum probe_site_mechanism */
	uint8_t length;				/* a jump site's region (its patch relocates
						   it), 0 for a breakpoint site */
	uint64_t resume;			/* where a trapped CPU goes on: patch or copy */
	uint64_t hits;				/* atomic: consumers run in C (and hot's) */
	uint64_t missed;			/* atomic: nested hits, consumers skipped */
	bool retired;				/* replaced: its patch's calls run the site's current state */
	/*
	 * A patch that runs its one handler itself (struct probe_patch_handler)
	 * counts in patch data memory, which its code reaches directly:
	 * hot[PATCH_HOT_HITS] its hits (PROBE_PATCH_HITS_RETIRED set with
	 * retired), hot[PATCH_HOT_PROBE] the hit's probe. NULL otherwise.
	 */
	uint64_t *hot;
#define PATCH_HOT_HITS  0
#define PATCH_HOT_PROBE 1
#define PATCH_HOT_SLOTS 2
	bool pooled;				/* from site_build's pool (one consumer), not kmalloc */
	unsigned n;
	unsigned ncall;				/* c[0 .. ncall-1] run in C, the rest inline */
	struct probe_consumer *c[];
};

/*
 * Every patch starts with this header, in the patch memory itself, so a
 * fault or backtrace inside a patch can be told which kernel address the
 * code stands for without a lock (patch_origin). map[i] covers code from
 * its offset to the next entry's: inserted code maps to the site, each
 * relocated instruction to where it came from.
 */
#define PATCH_MAGIC 0x53435054u		/* "TPCS" */
/*
 * A function copy's patch (patch_copy.c): the same header, with a map
 * entry per instruction (nmap up to the instructions of the function)
 * and site the copied function's entry.
 */
#define PATCH_COPY_MAGIC 0x59504f43u	/* "COPY" */
/* The most 64-byte units a patch may take: patch_heap.c's back map holds 1 + 254. */
#define PATCH_UNITS_MAX 255

struct patch_header {
	uint32_t magic;
	uint16_t nmap;				/* at most PROBE_PATCH_ORIGINS_MAX */
	uint16_t code_offset;			/* where the code starts */
	uint64_t site;				/* the probed address */
	struct probe_patch_origin map[];	/* code: offset from the patch's start;
						   orig: of the original from the site */
};

struct patch {
	uint64_t addr;				/* its memory (the header is first) */
	uint64_t entry;				/* where its code starts: jumps go here */
	uint32_t size;				/* bytes reserved */
	uint64_t springboard;			/* retired with the patch: the slot that led to
						   it (freed with it), or 0 */
	struct site_state *state;		/* what it was built for (owned) */
	struct list_node node;			/* retired patches (probe_mutex) */
};

/* A consumer attached to a site (a probe with several sites has one link per site). */
struct site_link {
	struct probe_consumer *consumer;
	struct list_node node;
};

struct probe_site {
	uint64_t addr;
	uint8_t mechanism;			/* enum probe_site_mechanism */
	uint8_t length;				/* bytes patched: 1, or the detoured region */
	uint8_t orig[ARCH_PROBE_REGION_MAX];		/* the original bytes of the region */
	const char *why_not_jump;
	uint32_t live_before;			/* registers live at addr (analysis) */
	struct patch *patch;			/* the code (jump) or out-of-line copy */
	uint64_t springboard;			/* jump: the slot that reaches a far patch, or 0 */
	struct site_state *state;		/* published: read by the handler */
	struct probe_site *next_hash;		/* published; read by the handler */
	struct list_node consumer_list;		/* struct site_link: every consumer here */
	struct site_link first_link;		/* in consumer_list while its consumer is set:
						   most sites have one, with no allocation */
	unsigned nconsumers;
	struct list_node node;			/* all sites */
	struct list_node work;			/* sites one batch operation works on */
	uint8_t want;				/* enum probe_site_change: what the batch does */
};


/* site.c */
struct probe_site *site_lookup(uint64_t addr);	/* lock-free */
void site_unpublish(struct probe_site *s);
/* Every address one enabling operation attaches to, sorted. */
struct site_batch {
	const uint64_t *sorted;
	size_t n;
};

/*
 * Batched: attach cs[i] at addrs[i] for all i (errors[i]: 0 or why not);
 * returns how many succeeded. No jump probe created here swallows an
 * address of coming (may be NULL), so later batches of the same
 * operation are not refused for overlap.
 */
unsigned site_attach_batch(const uint64_t *addrs, struct probe_consumer **cs, unsigned n,
			   int *errors, const struct site_batch *coming);
void site_detach_batch(const uint64_t *addrs, struct probe_consumer **cs, unsigned n);
void site_get_counts(uint32_t *sites, uint32_t *jumps, uint32_t *breakpoints);
extern uint64_t probe_sync_rounds, probe_installs, probe_removals, probe_refused_jumps;

/* site_build.c */
/* A new patch (and state) for s and its consumers. Return value: 0 or -ENOMEM. */
int site_build(struct probe_site *s, struct patch **out);
/* Turn s, about to be a jump site, into a breakpoint site with why as the reason. */
int site_demote_to_breakpoint(struct probe_site *s, const char *why);
/* Free a state site_build made (with its patch). */
void site_state_free(struct site_state *st);
/* Mark st replaced: its patch's calls go to the site's current state. */
void site_state_retire(struct site_state *st);
/* The hits st has counted, in C and in its patch. */
uint64_t site_state_hits(const struct site_state *st);

/* site_commit.c */
/*
 * Carry out the `want` of every site on work (linked by probe_site.work)
 * with ops and steps as room for one text write and one step description
 * per site; frees removed sites and leaves the others with
 * PROBE_CHANGE_NONE, off the list.
 */
void site_commit(struct list_node *work, struct text_poke_op *ops, struct probe_step_site *steps);

/* patch_heap.c */
struct patch *patch_alloc(uint32_t size);	/* up to PATCH_UNITS_MAX units */
uint8_t *patch_writable(const struct patch *p);	/* a writable alias of its code (one page) */
/* Write len bytes at offset into p's code through the direct map, page by page. */
void patch_write(const struct patch *p, uint32_t offset, const void *src, size_t len);
void patch_retire(struct patch *p);		/* free once nothing can run in it */
void patch_collect(void);			/* free retired patches now safe */
uint64_t *data_alloc(unsigned n);		/* n slots in a row, zeroed */
/* Give a slot back once no retired patch is left, as one of them may still use it. */
void data_free(uint64_t *slot);
/* Give slots back now: only the caller's patch used them, and it can run no more. */
void data_release(uint64_t *slot, unsigned n);

/* obj_pool.c: fixed-size objects, allocated and freed under probe_mutex. */
struct probe_pool {
	size_t size;			/* of an object: a multiple of 8 */
	unsigned per_chunk;		/* objects taken from kmalloc at once */
	void *free;			/* freed objects, linked through their first word */
};
#define PROBE_POOL_INIT(type, n) { ALIGN_UP(sizeof(type), 8), (n), NULL }
void *probe_pool_alloc(struct probe_pool *pool);	/* zeroed; NULL without memory */
void probe_pool_free(struct probe_pool *pool, void *obj);
extern struct probe_pool probe_site_pool, patch_pool;

/* safety.c */
/*
 * Is any CPU's interrupted pc, or any word on any thread's stack, inside
 * [start, end)? Conservative: a stale word makes it "in use".
 */
bool code_in_use(const uint64_t *starts, const uint64_t *ends, unsigned n, bool *in_use);
/*
 * probe_check_address, and where it passes, *live: the registers live at
 * addr (as cfg_live_at; all of them when the analysis cannot say).
 */
int probe_check_site(uint64_t addr, const char **why, uint32_t *live);

/* dispatch.c */
/*
 * probe_dispatch_frame, probe_dispatch_handler - a jump patch's frame
 *   call (probe_patch_plan.call_fn): run the C consumers of the site
 *   state the patch was built for (state), or of the site's current
 *   state when that one was retired. _handler is for a state whose one
 *   C consumer is a handler for every thread; _frame for any.
 * Arguments: frame, the registers at the site; state, the patch's
 *   struct site_state.
 * Caller's context: a patch, on the probed code's stack, interrupts
 *   masked by the patch (arch_probe_build_patch); may not sleep.
 */
void probe_dispatch_frame(struct trap_frame *frame, uint64_t state);
void probe_dispatch_handler(struct trap_frame *frame, uint64_t state);
bool consumer_inline(const struct probe_consumer *c, uint32_t live_before);
/* No retired patch is left: released accumulators may be reused. */
void accumulators_quiet(void);
/* Per-CPU slot offsets of an accumulator, for inline code (from the per-CPU base). */
void accumulator_slots(const struct probe_accumulator *acc, struct patch_accumulator *out);

/* soft.c: software-fired probes' consumer slots. Caller holds probe_mutex. */
int soft_attach(struct probe *p, struct probe_consumer *c);
void soft_detach(struct probe *p, struct probe_consumer *c);
/* After soft_detach, before the consumer may be freed: every CPU passes a cross-call. */
void soft_quiesce(void);

#endif
