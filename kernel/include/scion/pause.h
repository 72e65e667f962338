/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Pausing a kernel thread at a probe (KernInst's debugging application):
 * D's pause() action asks for it from probe context; once the hit's
 * consumers are done, the general jump-probe dispatcher pauses the
 * thread there, with the probe's registers kept, while the rest of the
 * kernel runs on; `pause continue TID` (or all) resumes it, and the code
 * after the probe runs as if nothing had happened. The host is told by
 * a channel event ("pause: thread N (NAME) paused at FUNC+OFF").
 *
 * Where the thread cannot sleep, the hit is reported, not paused, with
 * the reason (pause_stats): interrupts masked at the probed instruction,
 * a spinlock held, an interrupt handler, the idle thread, the control
 * channel's own thread (the host could never resume it), an open graft
 * transaction, or a breakpoint or software-fired site (their consumers
 * run in trap or interrupt-masked code that must not sleep). A mutex the
 * thread holds stays held while it is paused, as under any debugger.
 *
 * A single step (kernel/debug/step.c, pause_step) pauses the thread
 * again at the next instruction it reaches: pause_request_step asks for
 * a pause that may also be taken at a breakpoint site, on a machine whose
 * breakpoint trap runs on the thread's own stack (ARCH_PAUSE_AT_BREAKPOINT
 * in arch/trap.h): a breakpoint site runs one instruction out of line,
 * where a jump site runs its whole region.
 */
#ifndef SCION_PAUSE_H
#define SCION_PAUSE_H

#include <stdbool.h>
#include <stdint.h>
#include <scion/probe.h>
#include <scion/cpu.h>

/*
 * pause_request - ask that the current thread pause at hit once its
 *   consumers are done (or count why it cannot).
 * Caller's context: probe context (a consumer), interrupts masked.
 */
void pause_request(const struct probe_hit *hit);

/*
 * pause_request_step - pause_request for a single step's probe: the
 *   pause may also be taken at a breakpoint site (see above).
 * Caller's context: probe context (a consumer), interrupts masked.
 */
void pause_request_step(const struct probe_hit *hit);

/* Where a hit ends: what pause_hit_end may do there. */
enum pause_site {
	PAUSE_SITE_SOFT,		/* software-fired: never pauses */
	PAUSE_SITE_TRAP,		/* a breakpoint site: a step's request only, where the
					   machine allows (ARCH_PAUSE_AT_BREAKPOINT) */
	PAUSE_SITE_JUMP,		/* the general jump dispatcher */
};

/*
 * pause_hit_end - the end of a probe hit on this CPU: pause the current
 *   thread when a consumer asked for it and the site can (site: the
 *   general jump dispatcher, or a breakpoint site for a step's request;
 *   out of probe context; interrupts are enabled while it waits and
 *   masked again before it returns), else count the request refused.
 *   region: the bytes of text from the hit's address the thread runs as
 *   one when it goes on (a jump site's relocated region), 0 for one
 *   instruction (a breakpoint site's out-of-line copy). A breakpoint
 *   site's frame must already resume in the copy (arch_probe_resume):
 *   the patch stays alive while a word of the paused thread's stack
 *   points into it. Called through pause_at_hit_end, a pointer: what it
 *   runs (the channel, the scheduler) is not probe-context code, and the
 *   probe machinery's unprobeable set (tools/check_noprobe.py) stops at
 *   indirect calls. Caller's context: a probe dispatcher after
 *   cpu_probe_hit_end, interrupts masked, only when cpu->pause_tid is set.
 */
extern void (*pause_at_hit_end)(struct trap_frame *frame, enum pause_site site,
				unsigned region);

/* At a hit's end: pause_at_hit_end when a consumer asked for a pause. */
static inline void pause_hit_done(struct trap_frame *frame, enum pause_site site,
				  unsigned region)
{
	if (__builtin_expect(this_cpu()->pause_tid != 0, 0))
		pause_at_hit_end(frame, site, region);
}

#define PAUSE_STACK_MAX 32

struct paused_thread_info {
	uint64_t tid;
	char name[24];
	uint64_t addr;			/* the probed instruction it paused at */
	unsigned region;		/* bytes from addr it runs as one when resumed (a
					   jump site's region), 0: one instruction */
	uint64_t seq;			/* this pause's number (pause_stats.paused after it) */
	uint64_t since_ns;
	/*
	 * Its stack when it paused, innermost first (the probed instruction
	 * first): walked by the thread itself, since a walk checks its
	 * addresses against the walking thread's own stack.
	 */
	uint64_t stack[PAUSE_STACK_MAX];
	unsigned nstack;
};

struct pause_stats {
	uint64_t paused;		/* threads paused so far */
	uint64_t refused;		/* requests refused */
	uint64_t last_refused_addr;
	const char *last_refused_why;	/* a string constant, or NULL */
};

/*
 * pause_continue - resume the paused thread tid (0: every one).
 * Return value: how many were resumed (0: no such paused thread).
 * Caller's context: thread, may sleep.
 */
unsigned pause_continue(uint64_t tid);

/* Call fn for each paused thread (a copy), in the order they paused. Context: thread. */
void pause_foreach(void (*fn)(const struct paused_thread_info *p, void *arg), void *arg);

/*
 * pause_with_frame - call fn with the registers tid paused with (fn may
 *   read them and walk the stack); the thread stays paused meanwhile.
 * Return value: 0, or -ENOENT when tid is not paused. Context: thread.
 */
int pause_with_frame(uint64_t tid, void (*fn)(const struct trap_frame *f, void *arg), void *arg);

void pause_get_stats(struct pause_stats *s);

/*
 * pause_find - the paused thread tid's information, copied into *out.
 * Return value: 0, or -ENOENT when tid is not paused. Context: thread.
 */
int pause_find(uint64_t tid, struct paused_thread_info *out);

/*
 * pause_wait_paused - wait until thread tid is paused by a pause later
 *   than the one numbered after (its seq), for at most timeout_ticks.
 * Arguments: out, filled with that pause's information.
 * Return value: 0, or -ETIMEDOUT. Caller's context: thread, may sleep.
 */
int pause_wait_paused(uint64_t tid, uint64_t after, uint64_t timeout_ticks,
		      struct paused_thread_info *out);

/*
 * pause_step - single-step the paused thread tid (kernel/debug/step.c):
 *   from the instruction it is paused at, work out where it can go next
 *   (the structural analysis's instruction summary: the next
 *   instruction, a branch's target or both, a direct call's callee, a
 *   return's return address from its stack, a jump table's entries),
 *   put a probe for that thread alone on each, resume it, wait until it
 *   pauses again at one of them, and take the probes away.
 * Arguments: tid; to, set to where it paused again; ran, set to the
 *   instructions it ran (more than one when it was paused at a jump
 *   probe whose jump covers several); why, set on failure to a line
 *   saying what stopped the step (valid until the next step's).
 * Return value: 0; -ENOENT (not paused), -EINVAL (a next place that
 *   cannot be known or probed: nothing was changed), -ENOMEM,
 *   -ETIMEDOUT (resumed, but it did not
 *   pause again in time: it runs on, its step probes removed).
 * Caller's context: thread, may sleep (steps run one at a time); not the
 *   paused thread.
 */
int pause_step(uint64_t tid, uint64_t *to, unsigned *ran, const char **why);

#endif
