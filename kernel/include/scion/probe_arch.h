/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The arch contract for probes: what the portable probe machinery
 * (kernel/probe/) needs of the machine to patch its running text, in the
 * shape of Linux's optimized kprobes (arch_prepare_kprobe,
 * arch_check_optimized_kprobe, arch_prepare_optimized_kprobe,
 * arch_optimize_kprobes): prepare a site, check a jump's region, build a
 * site's patch, write one step of the protocol for a batch of sites, and
 * tell a probe's breakpoint from any other. Each port implements it in
 * arch/<arch>/probe_site.c and arch/<arch>/splice.c, with its sizes and
 * names in arch/probe.h and its code builder in arch/patch.h; the
 * portable code never writes an instruction byte itself.
 *
 * A site patches the text at one address with one of these mechanisms:
 *   - a breakpoint probe: the machine's trap instruction over the probed
 *     instruction; the breakpoint handler runs the consumers and resumes
 *     the CPU in an out-of-line copy of the instruction (its patch);
 *   - a jump probe: a branch to a code patch replaces the instructions of
 *     a region (the patch runs inline annotations or calls the consumers,
 *     then the relocated region, then branches back);
 *   - a jump probe through a springboard: when the site's patch lies beyond
 *     its branch's reach (the near patch arena is full, or far patches were
 *     asked for), the branch goes to a slot near the site whose longer jump
 *     reaches the patch (KernInst on SPARC reused boot-only code for them;
 *     arch_probe_springboard_alloc). The slot belongs to the site until the
 *     site is removed, and is freed with its last patch.
 *
 * The protocol changes a batch of sites with one round of CPU
 * synchronisation per step, never one per site (kernel/probe/site_commit.c):
 *   1. write the breakpoint, sync;
 *   2. make sure no CPU or thread is inside a new jump's region past its
 *      first instruction (the portable code looks; a site still in use
 *      becomes a breakpoint probe, whose breakpoint is already in place);
 *   3. write the body, sync;
 *   4. arm, sync;
 *   5. retire the patches and sites the batch replaced or removed, sync.
 * Removal runs the same steps towards the original bytes. What each
 * write step (1, 3, 4) writes at each site is the arch's: a step may
 * write nothing at a site. The invariant a port keeps: after every step,
 * a CPU that runs any byte of a site's region runs the original
 * instructions, traps to the breakpoint handler, or branches to the
 * site's current patch; never a half-written instruction.
 *
 * Every hook runs in .text.noprobe (the port's arch.mk lists its files
 * in ARCH_NOPROBE_SRCS), under probe_mutex, except arch_probe_is_breakpoint
 * and arch_probe_breakpoint_addr, which the breakpoint handler calls
 * lock-free with interrupts masked.
 */
#ifndef SCION_PROBE_ARCH_H
#define SCION_PROBE_ARCH_H

#include <scion/compiler.h>
#include <scion/textpoke.h>
#include <arch/patch.h>
#include <arch/probe.h>

enum probe_site_mechanism {
	PROBE_SITE_BREAKPOINT = 1,
	PROBE_SITE_JUMP = 2,
	PROBE_SITE_SPRINGBOARD = 3,	/* reserved */
};

/* What a commit does to a site. */
enum probe_site_change {
	PROBE_CHANGE_NONE,
	PROBE_CHANGE_INSTALL,		/* a new site: patch the text */
	PROBE_CHANGE_REBUILD,		/* new consumers: the site's branch goes to a new patch */
	PROBE_CHANGE_REMOVE,		/* no consumer left: restore the original bytes */
};

/* The steps of the protocol (above); tests observe the text after 1, 3 and 4. */
enum probe_step {
	PROBE_STEP_BREAKPOINT = 1,
	PROBE_STEP_CHECK = 2,
	PROBE_STEP_BODY = 3,
	PROBE_STEP_ARM = 4,
	PROBE_STEP_RETIRE = 5,
};

/* One site of a batch, as a write step sees it. */
struct probe_step_site {
	uint64_t addr;
	uint8_t mechanism;		/* enum probe_site_mechanism */
	uint8_t change;			/* enum probe_site_change */
	uint8_t length;			/* bytes of its region (a breakpoint probe: its instruction) */
	const uint8_t *orig;		/* the region's original bytes */
	uint64_t patch;			/* where its (new) patch's code starts */
	uint64_t springboard;		/* its slot, or 0 (arch_probe_springboard_alloc) */
	struct arch_probe_bytes room;	/* the arch's: bytes written at a step, valid until the
					   step's writes are done */
};

/* Code a jump probe's patch runs inline, before any call (no register saved). */
enum probe_inline_kind {
	PROBE_INLINE_COUNT,		/* add 1 to a counter */
	PROBE_INLINE_ACCUMULATE,	/* bring an accumulator up to now, add delta */
};

struct probe_patch_inline {
	uint8_t kind;			/* enum probe_inline_kind */
	int8_t delta;			/* ACCUMULATE: +1 on entry, -1 on exit */
	uint64_t counter;		/* COUNT: the counter, in patch data memory */
	struct patch_accumulator slots;	/* ACCUMULATE: its per-CPU slots */
};

/*
 * A jump probe's one C consumer when it is a handler for every thread:
 * the patch may run it itself (arch_probe_build_patch), doing what
 * probe_dispatch_handler does in C without the call into it. In steps,
 * interrupts masked, with state = the plan's call_cookie:
 * 1. consumers already running on this CPU (the running flag, bit 0, of
 *    its cpu_run word set, which this step sets if it was clear): if the
 *    state is retired, go to 3; else add 1 to the state's missed
 *    counter (atomically) and return;
 * 2. add 1 to the hits counter (atomically): if that sets its sign
 *    (PROBE_PATCH_HITS_RETIRED: the state is retired), clear the running
 *    flag and go to 3; else call fn(hit, arg) with hit = { the frame,
 *    the probe in probe_slot, the site }, add 1 to cpu_run (which clears
 *    the flag and counts the CPU's hit: scion/cpu.h) and return;
 * 3. call retired_fn(frame, state), the general dispatcher, which runs
 *    the site's current consumers (or counts the hit missed).
 * The frame may be lean (scion/probe.h, struct probe_hit): a port that
 * saves less than every register completes the frame before step 3's
 * call. A port that does not do this calls call_fn, which does the same
 * in C (its hits are the state's own, not the hits slot's).
 */
#define PROBE_PATCH_HITS_RETIRED (1ull << 63)

struct probe_patch_handler {
	uint64_t fn;			/* probe_handler_fn */
	uint64_t arg;
	uint64_t hits;			/* the hits counter: a slot in patch data memory */
	uint64_t probe_slot;		/* a slot in patch data memory holding the hit's probe */
	uint64_t retired_fn;		/* void (*)(struct trap_frame *, uint64_t state) */
	uint32_t retired, missed;	/* offsets in the state: its bool retired and 64-bit
					   missed counter */
	uint32_t cpu_run;		/* offset in struct cpu (the per-CPU base) of its
					   probe_run word (scion/cpu.h) */
};

/* What a site's patch must do. */
struct probe_patch_plan {
	uint64_t site;			/* the probed address */
	unsigned length;		/* bytes of the region the patch stands for */
	uint8_t mechanism;		/* enum probe_site_mechanism */
	uint32_t live;			/* registers live at the site (arch/analysis.h masks) */
	const struct probe_patch_inline *inl;	/* jump probe: inline code, in order */
	unsigned ninline;
	uint64_t call_fn;		/* jump probe: non-zero to call call_fn(frame, call_cookie)
					   with every register saved in a struct trap_frame
					   and interrupts masked */
	uint64_t call_cookie;
	const struct probe_patch_handler *handler;	/* or NULL: call_fn's work, for the
							   patch to do itself if it can */
	const struct probe_redirect *redirect;	/* or NULL: after the inline code and the call
						   (both mechanisms), the guard and jump */
};

/*
 * Where each piece of a patch's code came from, for backtraces and fault
 * reports inside patches: code from offset m[i].code (from the start of
 * the code) up to the next entry stands for the instruction at
 * site + m[i].orig (inserted code: the site itself). Inserted code
 * before the region and after it (a port's rare ways, out of the common
 * way's line), and one entry per relocated instruction.
 */
#define PROBE_PATCH_ORIGINS_MAX (ARCH_PROBE_REGION_MAX + 2)
struct probe_patch_origin {
	uint16_t code;
	uint16_t orig;
};
struct probe_patch_origins {
	struct probe_patch_origin m[PROBE_PATCH_ORIGINS_MAX];
	unsigned n;
};

/*
 * arch_probe_prepare_breakpoint - Overview: prepare a breakpoint probe
 *   at addr: check that the instruction there can run out of line, in
 *   a patch, and say how many bytes it has.
 * Arguments: addr, an instruction boundary of an analysed function
 *   (probe_check_address accepted it); length, set on success; why, set
 *   on failure.
 * Return value: 0; -EINVAL with *why when the instruction depends on
 *   where it is in a way that cannot be rewritten.
 * Caller's context: thread, probe_mutex held.
 */
int arch_probe_prepare_breakpoint(uint64_t addr, unsigned *length, const char **why);

/*
 * arch_probe_check_region - Overview: check a jump probe at addr: find
 *   the region its branch would cover and check that patching it is
 *   safe by what the structural analysis knows (scion/cfg.h): no branch
 *   target inside it after its first instruction, no call but as its
 *   last, inside its function (or the padding after a function that
 *   does not fall through), every instruction relocatable. Whether a CPU
 *   is inside it is checked later (step 2).
 * Arguments: addr, as arch_probe_prepare_breakpoint; length, set to the
 *   region's bytes (at most ARCH_PROBE_REGION_MAX); why, set on failure.
 * Return value: 0; -EINVAL with *why.
 * Caller's context: thread, probe_mutex held (may run the analysis).
 */
int arch_probe_check_region(uint64_t addr, unsigned *length, const char **why);

/*
 * arch_probe_build_patch - Overview: build a site's patch into b: for a
 *   jump probe the inline code, the call if any, the relocated region
 *   and the branch back; for a breakpoint probe the relocated
 *   instruction and the branch back. With plan->redirect, the redirect's
 *   guard and jump come before the relocated code, for both mechanisms
 *   (a breakpoint resumes at the patch's start with the site's registers);
 *   a port without redirects (ARCH_PROBE_REDIRECTS false) is never asked.
 * Arguments: b, the buffer (at the address its code will run at; the
 *   first pass sizes the patch at PATCH_CODE_BASE, so every branch the
 *   builder emits must be as long wherever it runs); plan, what the patch
 *   does; origins, emptied then filled with where each piece of code
 *   came from.
 * Return value: none; b->overflow or b->out_of_reach says the patch did
 *   not fit (patch_buf_ok).
 * Caller's context: thread, probe_mutex held; the region was checked
 *   when the site was created.
 */
void arch_probe_build_patch(struct patch_buf *b, const struct probe_patch_plan *plan,
			    struct probe_patch_origins *origins);

/*
 * arch_probe_write_step - Overview: the text writes of one step of the
 *   protocol for a batch of sites (the steps are above; the port's file
 *   says what each writes).
 * Arguments: step, PROBE_STEP_BREAKPOINT, _BODY or _ARM; sites[0 .. n-1],
 *   the batch (sites with PROBE_CHANGE_NONE are skipped; their room is
 *   written); ops, room for n writes, each pointing into its site's room.
 * Return value: the number of ops filled (the caller writes them all with
 *   one text_poke_batch, then every CPU syncs).
 * Caller's context: thread, probe_mutex held; the batch's patches exist.
 */
size_t arch_probe_write_step(unsigned step, struct probe_step_site *sites, size_t n,
			     struct text_poke_op *ops);

/*
 * arch_probe_is_breakpoint - Overview: whether the text at addr holds the
 *   machine's breakpoint instruction now (a trap at an address with no
 *   site is retried when the breakpoint there was removed while the
 *   trap was being taken).
 * Arguments: addr, a trapped breakpoint's address (arch_probe_breakpoint_addr).
 * Return value: true when a breakpoint is there.
 * Caller's context: the breakpoint handler, interrupts masked; lock-free.
 */
bool arch_probe_is_breakpoint(uint64_t addr);

/*
 * arch_probe_breakpoint_addr (inline, arch/probe.h) - Overview: the
 *   address of the breakpoint a trap frame trapped on (a machine may
 *   report the pc after the breakpoint instruction).
 */

/*
 * arch_probe_resume - Overview: send a CPU that trapped on a site's
 *   breakpoint on: into the site's out-of-line copy (a breakpoint site)
 *   or its patch (a jump site whose jump is being written). A machine
 *   with delayed branches keeps the trap's next pc for a copy, so a
 *   copied delay slot goes on to its branch's target.
 * Arguments: frame, the trap frame; resume, the copy or patch;
 *   out_of_line, true for a breakpoint site's copy.
 * Return value: none; the frame resumes there.
 * Caller's context: the breakpoint handler, interrupts masked; lock-free.
 */
void arch_probe_resume(struct trap_frame *frame, uint64_t resume, bool out_of_line);

/*
 * arch_probe_return_value - Overview: the value the function returns, as
 *   seen at one of its return sites (an fbt return probe), before the
 *   return instruction runs. On x86 it is already in %rax. On a machine
 *   with delayed returns it may not exist yet: SPARC's `retl; mov 1, %o0`
 *   computes it in the delay slot, and `ret; restore %i0, 1, %o0` in the
 *   restore, so the port works it out from the site's instructions (as
 *   booted: the live site holds the probe's branch or trap) and the
 *   registers. Where the port cannot (a tail call's site: the value comes
 *   later; an instruction it does not emulate) it returns its best guess,
 *   which its file documents.
 * Arguments: frame, the registers at the site (struct probe_hit's regs:
 *   a trap's frame or a jump patch's); site, the probed instruction
 *   (struct probe_hit's addr), a return or a tail call of an analysed
 *   function.
 * Return value: the return value (the whole register: a narrower C type
 *   is in its low bits).
 * Caller's context: probe context (a consumer's handler, interrupts
 *   masked, lock-free): it calls nothing probe-able and never faults.
 */
uint64_t arch_probe_return_value(const struct trap_frame *frame, uint64_t site);

/*
 * arch_probe_refusal - Overview: a reason the machine forbids probes at
 *   addr that the portable checks do not know (code that runs at trap
 *   level above zero, on SPARC), checked before any other.
 * Arguments: addr, any address.
 * Return value: NULL when the machine has no objection, else a one-line
 *   reason.
 * Caller's context: any; no locks needed.
 */
const char *arch_probe_refusal(uint64_t addr);

/*
 * arch_probe_reaches - Overview: whether a jump probe's branch at site
 *   reaches a patch at patch directly (else it needs a springboard).
 * Arguments: site, a probe site; patch, a patch's entry.
 * Return value: true when no springboard is needed.
 * Caller's context: any.
 */
bool arch_probe_reaches(uint64_t site, uint64_t patch);

/*
 * arch_probe_springboard_alloc - Overview: take a free springboard slot
 *   (ARCH_PROBE_SPRINGBOARD_LEN bytes of text the kernel no longer runs:
 *   reclaimed boot-only code, padding) within the branch's reach of site,
 *   that no CPU or thread is in (probe_range_in_use). Its text is written
 *   by the write steps.
 * Arguments: site, the probe site; why, set when none is left.
 * Return value: the slot's address, or 0.
 * Caller's context: thread, probe_mutex held.
 */
uint64_t arch_probe_springboard_alloc(uint64_t site, const char **why);

/*
 * arch_probe_springboard_free - Overview: give a slot back and put its
 *   original bytes back in the text (nothing branches to it any more and
 *   no CPU is inside it: the caller checked).
 * Arguments: slot, from arch_probe_springboard_alloc.
 * Caller's context: thread, probe_mutex held; may write text (text_poke).
 */
void arch_probe_springboard_free(uint64_t slot);

/*
 * arch_probe_springboard_contains - Overview: whether [addr, addr + len)
 *   lies in the port's springboard space (text_poke writes there too).
 * Caller's context: any.
 */
bool arch_probe_springboard_contains(uint64_t addr, size_t len);

/*
 * probe_range_in_use (portable, for the arch) - Overview: whether any
 *   CPU's interrupted pc or any word on any thread's stack lies in
 *   [start, end) (conservative).
 * Caller's context: thread, probe_mutex held.
 */
bool probe_range_in_use(uint64_t start, uint64_t end);

#endif
