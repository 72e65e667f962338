/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Dynamic probes on the running kernel's text (kernel/probe/).
 *
 * A probe is a named point, provider:module:function:name, with one or
 * more sites (addresses): fbt:kernel:thread_create:entry has one,
 * fbt:kernel:thread_create:return one per ret. Creating a probe touches
 * no text; enabling it attaches a consumer to each of its sites, and the
 * first consumer at an address patches the text there:
 *
 *   - jump probe (djprobe): a branch to a code patch holding inline
 *     annotations (counters, accumulators) or a call to the dispatcher
 *     with every register saved, the relocated instructions the branch
 *     displaced, and a branch back. Used when the analysis shows it safe.
 *   - breakpoint probe: the machine's breakpoint instruction; the trap
 *     handler runs the consumers and sends the CPU through an
 *     out-of-line copy of the instruction.
 *   - springboard probe: reserved for a machine whose short branch
 *     cannot reach the patch area (scion/probe_arch.h); none yet.
 * How each is written is the arch's (scion/probe_arch.h).
 *
 * Probes on the same address share one site and one patch. Removing the
 * last consumer restores the original bytes; `text verify` proves it.
 *
 * Lock order: the registry's mutex -> probe_mutex -> text_poke's mutex ->
 * spinlocks (kernel/probe/registry.c); all are taken by thread context.
 */
#ifndef SCION_PROBE_H
#define SCION_PROBE_H

#include <scion/compiler.h>
#include <scion/list.h>
#include <arch/trap.h>

struct probe;
struct probe_site;

/* What a consumer does when its probe fires. */
enum probe_action {
	PROBE_COUNT,		/* add 1 to a counter (inline when possible) */
	PROBE_ENTER,		/* accumulator +1: a thread enters the measured region */
	PROBE_EXIT,		/* accumulator -1: a thread leaves it */
	PROBE_HANDLER,		/* call a C function with the registers */
	PROBE_REDIRECT,		/* send the CPU elsewhere (struct probe_redirect): the
				   site's last consumer, code in its patch, never run in C */
};

/*
 * Where a PROBE_REDIRECT consumer sends the CPU, and when: after every
 * other consumer at the site has run, the patch's guard compares and, when
 * every test holds, jumps to *target instead of running the site's
 * instructions (scion/codeadapt.h). The slots are patch data memory
 * (probe_counter_alloc), which patch code reaches directly; they may be
 * changed while installed (a store the next hit sees).
 */
struct probe_redirect {
	uint64_t *target;		/* where to jump */
	uint64_t *value;		/* NULL: no argument test; else argument arg must
					   equal it */
	unsigned arg;			/* 0-based: the site's function's argument */
	unsigned arg_bytes;		/* 8, or 4: only the low half is the argument's (a
					   32-bit argument's upper half is undefined) */
	uint64_t *tid;			/* NULL: any thread; else the current thread's id must */
	uint64_t *taken;		/* incremented on every jump */
};

enum probe_mechanism {
	PROBE_MECH_AUTO,	/* jump when safe, else breakpoint */
	PROBE_MECH_JUMP,	/* jump or refuse */
	PROBE_MECH_BREAKPOINT,
	PROBE_MECH_SPRINGBOARD,	/* reserved: no machine uses it yet */
};

/*
 * What people call a mechanism ("auto", "jump", and the machine's name
 * for its breakpoint probe, from arch/probe.h), for the shell and the host.
 * Caller's context: any.
 */
const char *probe_mechanism_name(enum probe_mechanism m);

/*
 * A handler that runs as a jump site's one consumer for every thread
 * (no tid, no may_pause) may be called from the site's patch with a
 * lean frame (struct probe_patch_handler): its regs show the argument
 * and scratch registers, rbx, rbp, the pc, stack pointer and flags, but
 * not the registers a C function keeps itself (x86's r12..r15), nor a
 * vector, error or stack segment word. What the trace and stream
 * consumers read (the arguments, a return value, a stack walk) is
 * there; a consumer that needs every register (a debugger's: may_pause)
 * is run by the general dispatcher, whose frame is whole. The frame
 * comes first: a patch builds the hit below its frame in the order it
 * pushes them.
 */
struct probe_hit {
	struct trap_frame *regs;	/* registers there (read them; changes are ignored) */
	struct probe *probe;
	uint64_t addr;			/* the probed instruction */
};

typedef void (*probe_handler_fn)(const struct probe_hit *hit, void *arg);

/*
 * Time-weighted count of threads inside a region: each CPU keeps its own
 * three slots (struct cpu.probe_slots); the sums over CPUs give the total.
 */
struct probe_accumulator {
	unsigned slot;			/* index of the first of 3 per-CPU slots */
	uint64_t started;		/* cycle counter when it was set up */
	uint64_t thread_depth;		/* one-thread consumers (tid): calls the thread
					   entered since set-up and has not left; only
					   that thread writes it, interrupts masked */
};

struct probe_consumer {
	enum probe_action action;
	uint64_t *counter;		/* PROBE_COUNT: in patch data memory */
	struct probe_accumulator *acc;	/* PROBE_ENTER / PROBE_EXIT */
	probe_handler_fn handler;	/* PROBE_HANDLER */
	void *arg;
	const struct probe_redirect *redirect;	/* PROBE_REDIRECT: at most one per site; its
						   sites accept no other (-EEXIST) */
	uint64_t tid;			/* fire only in this thread (0: any); never inline */
	bool no_inline;			/* run it in C even where inline code could */
	bool may_pause;			/* it may ask the thread to pause (scion/pause.h): its
					   jump sites take the general dispatcher, whose pause
					   point the one-handler one leaves out */
	enum probe_mechanism mechanism;	/* what a site it creates uses (AUTO by default) */
	struct probe *probe;		/* set while enabled, NULL otherwise (probe_mutex) */
	struct probe *firing_for;	/* the probe hits report: set before its sites are
					   patched (a hit may come while enabling) */
	struct list_node node;		/* the probe's consumers (probe_mutex) */
};

/*
 * A probe fired by software (probe_fire) rather than by patched text:
 * the dtrace, profile and graft providers' probes. Its consumers sit in
 * fixed slots that probe_fire reads lock-free with interrupts masked;
 * a slot is cleared, then every CPU passes a cross-call, before its
 * consumer may be freed.
 */
#define PROBE_SOFT_CONSUMERS 8
struct probe_soft {
	struct probe_consumer *slot[PROBE_SOFT_CONSUMERS];	/* probe_mutex to change */
	unsigned live;			/* probe_mutex to change: slots in use */
	unsigned *also_live;		/* set before the first enabling (or NULL): a
					   provider's own count, kept with live (probe_mutex to
					   change), shared by several probes: the syscall
					   provider's one load per system call */
	bool session_only;		/* set once: fired by trace sessions themselves
					   (dtrace:::BEGIN), never enabled */
	uint64_t hits, missed;		/* atomic */
};

struct probe {
	uint32_t id;			/* 1, 2, ...: never reused */
	const char *provider;		/* these four and sites live with the probe */
	const char *module;
	const char *function;
	const char *name;
	uint32_t nsites;
	const uint64_t *sites;		/* addresses of the instructions it probes */
	struct list_node consumers;	/* probe_mutex: struct probe_consumer */
	unsigned nconsumers;		/* probe_mutex */
	struct probe_soft *soft;	/* set once: fired by probe_fire, no sites */
	/*
	 * Set once by its provider before it can be enabled (or NULL): bytes
	 * its sites' code tests before reaching them (scion/sdt.h's gated
	 * sites), each counting the enabled probes it serves (probes of one
	 * inline function's site share it). The registry adds 1 once the
	 * first consumer is attached to every site and takes it away when
	 * the last one leaves (probe_mutex).
	 */
	uint8_t **gates;
	uint32_t ngates;
};

/*
 * Providers: a linker table, so the registry names none of them.
 * provide() creates all of the provider's probes at the registry's first
 * use; provide_named() creates the probe an exact module/function/name
 * asks for (profile-97, tick-1s), when there is one to create.
 */
struct probe_provider {
	const char *name;
	/*
	 * provide - Overview: create the provider's probes.
	 * Caller's context: thread, the registry mutex held (may call
	 *   probe_create and probe_create_soft), may sleep.
	 */
	void (*provide)(void);
	/*
	 * provide_named - Overview: create the probe module:function:name
	 *   of this provider if it can exist and does not yet.
	 * Arguments: the three parts, none a glob (function and module may
	 *   be empty: any).
	 * Return value: 0 (created, existed, or not a name it creates), or
	 *   -EINVAL with *why for a name it would create but cannot
	 *   (profile-0).
	 * Caller's context: as provide.
	 */
	int (*provide_named)(const char *module, const char *function, const char *name,
			     const char **why);
};
LINKER_TABLE_DECLARE(struct probe_provider, probe_providers);
#define PROBE_PROVIDER(var, name_, provide_, provide_named_) \
	static const struct probe_provider var LINKER_TABLE_ENTRY(probe_providers) = { \
		.name = (name_), .provide = (provide_), .provide_named = (provide_named_) }

/*
 * probe_create_soft - register a probe fired by probe_fire.
 * Arguments: the four name parts (copied); session_only: only trace
 *   sessions fire it, for their own enablings (dtrace:::BEGIN);
 *   probe_enable refuses it.
 * Return value: the probe, or NULL when out of memory.
 * Caller's context: thread, may sleep.
 */
struct probe *probe_create_soft(const char *provider, const char *module, const char *function,
				const char *name, bool session_only);

/* The probe with exactly this name, or NULL. Caller's context: thread, may sleep. */
struct probe *probe_find(const char *provider, const char *module, const char *function,
			 const char *name);

void probe_fire_consumers(struct probe *p, struct trap_frame *frame);

/*
 * probe_fire - run the consumers of software probe p.
 * Arguments: frame, the registers handlers see: arguments through
 *   trap_frame_arg, pc / frame pointer for stacks (the caller fills it,
 *   e.g. with trap_frame_capture and trap_frame_set_arg).
 * Caller's context: any, including interrupts; one load and a branch
 *   while nothing is enabled.
 */
static inline void probe_fire(struct probe *p, struct trap_frame *frame)
{
	if (__builtin_expect(__atomic_load_n(&p->soft->live, __ATOMIC_RELAXED) != 0, 0))
		probe_fire_consumers(p, frame);
}

/*
 * probe_create - register a probe. Providers call it; it touches no text.
 * Arguments: the four name parts (copied); sites, nsites: the addresses
 *   of the instructions it probes (copied; checked when enabled).
 * Return value: the probe (never freed: ids stay valid), or NULL when out
 *   of memory.
 * Caller's context: thread, may sleep (takes probe_mutex).
 */
struct probe *probe_create(const char *provider, const char *module, const char *function,
			   const char *name, const uint64_t *sites, uint32_t nsites);

/* A probe's full name into buf: provider:module:function:name. Return value: buf. */
char *probe_fullname(const struct probe *p, char *buf, size_t size);

/*
 * probe_lookup - find probes by name.
 * Arguments: spec, provider:module:function:name where each part may be
 *   empty (any) or a glob and fewer parts fill from the right (a lone word
 *   names a function); or function+0xoff, or insn:kernel:function:0xoff,
 *   for the instruction there (that probe is created on first use). fn is
 *   called for each match until it returns false (it may not enable or
 *   disable probes: the registry is locked); *why receives the reason of
 *   a failure.
 * Return value: the number of probes matched (fn may have stopped early),
 *   or -EINVAL / -ENOENT / -ENOMEM with *why (malformed spec, no such
 *   function, an address that cannot be probed).
 * Caller's context: thread, may sleep. The first call creates the fbt and
 *   sdt probes (and runs the structural analysis if it has not run).
 */
int probe_lookup(const char *spec, bool (*fn)(struct probe *p, void *arg), void *arg,
		 const char **why);

/*
 * probe_shell_list - probe_lookup, with each probe's count from the
 *   shell's `probe enable` enablings (-1 where it has none): what `probe
 *   list` prints and the channel's PROBE_LIST op reports.
 * Caller's context: as probe_lookup.
 */
int probe_shell_list(const char *spec, bool (*fn)(struct probe *p, int64_t count, void *arg),
		     void *arg, const char **why);

/* The probe with this id, or NULL. Caller's context: thread, may sleep. */
struct probe *probe_by_id(uint32_t id);

/*
 * probe_enable - attach consumer c to every site of p; the first
 * consumer at an address patches the text there (c->mechanism says
 * which mechanism a new site may use).
 * Arguments: p; c, set up by the caller, not enabled elsewhere; it must
 *   stay valid until probe_disable returns.
 * Return value: 0; -EBUSY when c is already enabled; -ENOENT for a probe
 *   without sites; -EINVAL when a site was refused (the reason is
 *   printed: not probeable, or an overlap with a jump probe, or a
 *   mechanism that differs from the site's). All sites or none.
 * Caller's context: thread, no spinlocks held, may sleep.
 */
int probe_enable(struct probe *p, struct probe_consumer *c);

/*
 * probe_disable - detach c from its probe's sites; text is restored where
 * no consumer is left. When it returns, no CPU runs c any more and c may
 * be freed. Does nothing for a consumer that is not enabled.
 * Caller's context: thread, no spinlocks held, may sleep. Cannot fail
 *   (waits for memory if there is none).
 */
void probe_disable(struct probe_consumer *c);

/*
 * probe_enable_batch - enable probes[i] with consumers[i] for all i,
 * installing the sites in batches of up to PROBE_BATCH per round of
 * three CPU synchronisations (as Linux does), not one round per site. A
 * jump probe created here never swallows another site of the same call.
 * Return value: the number of probes enabled (each all-or-nothing, as
 *   probe_enable). Caller's context: as probe_enable.
 */
#define PROBE_BATCH 256
unsigned probe_enable_batch(struct probe **probes, struct probe_consumer **consumers, unsigned n);

/* Detach many consumers, batched like probe_enable_batch. Context: as probe_disable. */
void probe_disable_batch(struct probe_consumer **consumers, unsigned n);

/*
 * probe_disable_all - disable every consumer of every probe, batched.
 * Their owners see c->probe == NULL (`probe clear`, tests that must
 * leave clean). Caller's context: as probe_disable.
 */
void probe_disable_all(void);

/*
 * probe_counter_alloc - a zeroed 64-bit counter in patch data memory,
 * which inline patch code reaches RIP-relatively.
 * Return value: the counter, or NULL when that memory is exhausted.
 * probe_counter_free gives it back once no patch can still use it.
 * Caller's context: thread, may sleep.
 */
uint64_t *probe_counter_alloc(void);
void probe_counter_free(uint64_t *counter);

/*
 * Accumulators (PROBE_ENTER / PROBE_EXIT consumers): init claims one of
 * PROBE_CPU_SLOTS / 3 and starts its clock (-ENOSPC when all are in use);
 * read sums the CPUs' slots: threads inside now, the time-weighted area
 * (cycles x threads) up to now, and the cycles since init; release gives
 * it back once no patch can still use it.
 * Caller's context: thread, may sleep (read: any).
 */
int probe_accumulator_init(struct probe_accumulator *acc);
void probe_accumulator_read(const struct probe_accumulator *acc, int64_t *inside,
			    uint64_t *area, uint64_t *elapsed);
void probe_accumulator_release(struct probe_accumulator *acc);

/*
 * probe_record_hit - a PROBE_HANDLER that writes one struct
 * chan_probe_record (scion/chan_proto.h) per hit into the per-CPU
 * buffer set bufs (scion/tbuf.h), or counts a drop: the "probes"
 * stream source's consumer (kernel/probe/probe_stream.c).
 * Caller's context: probe context (interrupts masked).
 */
void probe_record_hit(const struct probe_hit *hit, void *bufs);

/*
 * probe_check_address - whether an instruction probe may go at addr.
 * Return value: 0, or -EINVAL with *why: boot-only code, not kernel text,
 *   the probe machinery's own code (.text.noprobe), in no analysed
 *   function, not an instruction boundary.
 * Caller's context: thread (may run the analysis), may sleep.
 */
int probe_check_address(uint64_t addr, const char **why);

/* What the site at addr uses and why (`probe info`). */
struct probe_site_info {
	bool present;			/* a site is patched there */
	enum probe_mechanism mechanism;	/* PROBE_MECH_JUMP or PROBE_MECH_BREAKPOINT */
	unsigned length;		/* bytes patched */
	const char *why_not_jump;	/* NULL for a jump probe */
	uint64_t hits;			/* consumer runs in C (inline code is not counted) */
	uint64_t missed;		/* hits while this CPU ran consumers: skipped */
	unsigned consumers;
	uint64_t patch;			/* where its code (or out-of-line copy) starts */
	uint64_t springboard;		/* a jump probe's slot that reaches a far patch, or 0 */
};
/* Fill info for addr. Caller's context: thread, may sleep. */
void probe_site_info(uint64_t addr, struct probe_site_info *info);

/*
 * probe_run_locked - fn(arg) with the probe machinery's lock held, as the
 * arch's site checks and patch builds (scion/probe_arch.h) need when a
 * test calls them directly.
 * Caller's context: thread, may sleep; fn must not enable or disable probes.
 */
void probe_run_locked(void (*fn)(void *arg), void *arg);

/*
 * probe_set_far_patches - build the next patches in the far arena (a
 * machine whose splice branch is short has one: its sites then branch
 * through springboards), for experiments, tests and the springboard
 * benchmark; false: near first, as normal.
 * Caller's context: thread, may sleep.
 */
void probe_set_far_patches(bool far);

/* Counts since boot, for `stats` and benchmarks. */
struct probe_stats {
	uint32_t probes, sites, jump_sites, breakpoint_sites;
	uint64_t installs, removals, sync_rounds, refused_jumps;
};
/* Fill s. Caller's context: thread, may sleep. */
void probe_get_stats(struct probe_stats *s);

/*
 * probe_breakpoint - the arch breakpoint handler's hook, for every
 * breakpoint instruction taken in kernel mode.
 * Arguments: frame, the trapped registers (as the trap left them:
 *   arch_probe_breakpoint_addr finds the breakpoint).
 * Return value: true when the breakpoint was a probe's, or one removed
 *   while the trap was being taken; frame's pc is then where execution
 *   goes on. false for any other breakpoint (the caller reports it as a
 *   fault).
 * Caller's context: trap handler, interrupts masked; lock-free. Runs in
 *   .text.noprobe with everything it calls (tools/check_noprobe.py).
 */
bool probe_breakpoint(struct trap_frame *frame);

/*
 * For tests of the text-changing protocol (site_commit.c, scion/probe_arch.h):
 * fn is called, with the probe lock held, after steps 1, 3 and 4 of
 * every commit (enum probe_step), when the text of that step is in place
 * on every CPU. NULL turns it off.
 */
void probe_set_step_observer(void (*fn)(unsigned step, void *arg), void *arg);

/*
 * probe_patch_origin - the kernel text address code at pc stands for, when
 * pc lies in a probe patch: the original of a relocated instruction, or
 * the probed address for code a probe inserted. For fault reports and
 * backtraces. Return value: false when pc is in no live patch.
 * Caller's context: any (no locks; reads the patch's own header).
 */
bool probe_patch_origin(uint64_t pc, uint64_t *origin);

#endif
