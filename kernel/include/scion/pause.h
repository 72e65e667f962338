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
 * pause_hit_end - the end of a probe hit on this CPU: pause the current
 *   thread when a consumer asked for it and the site can (can_pause: the
 *   general jump dispatcher, out of probe context; interrupts are enabled
 *   while it waits and masked again before it returns), else count the
 *   request refused. Called through pause_at_hit_end, a pointer: what it
 *   runs (the channel, the scheduler) is not probe-context code, and the
 *   probe machinery's unprobeable set (tools/check_noprobe.py) stops at
 *   indirect calls. Caller's context: a probe dispatcher after
 *   cpu_probe_hit_end, interrupts masked, only when cpu->pause_tid is set.
 */
extern void (*pause_at_hit_end)(struct trap_frame *frame, bool can_pause);

/* At a hit's end: pause_at_hit_end when a consumer asked for a pause. */
static inline void pause_hit_done(struct trap_frame *frame, bool can_pause)
{
	if (__builtin_expect(this_cpu()->pause_tid != 0, 0))
		pause_at_hit_end(frame, can_pause);
}

#define PAUSE_STACK_MAX 32

struct paused_thread_info {
	uint64_t tid;
	char name[24];
	uint64_t addr;			/* the probed instruction it paused at */
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

#endif
