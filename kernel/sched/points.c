// SPDX-License-Identifier: BSD-2-Clause
/*
 * The live scheduler's graft points: its two policies (sched.pick_next,
 * sched.tick, whose defaults are the round robin of policy_default.c)
 * and its input and output events (sched.event, sched.pick), on which
 * recording grafts write the scheduler's trace and log (kernel/record/);
 * and the kernel's side of scion/runq.h's environment: which instance
 * is current on each CPU while a policy runs.
 */
#include <scion/sched.h>
#include <scion/graft.h>
#include <scion/cpu.h>

void sched_event_ignored(const struct sched_event *e)
{
	(void)e;
}

void sched_pick_ignored(const struct sched_pick *p)
{
	(void)p;
}

struct sched_policy sched_policy = {
	.pick_next = sched_default_pick_next,
	.tick = sched_default_tick,
	.event = sched_event_ignored,
	.pick = sched_pick_ignored,
};

/* The instance whose policy runs on each CPU (scion/runq.h); its own CPU only. */
static struct sched_runq *current_instance[MAX_CPUS];

struct sched_runq *sched_env_current(void)
{
	return current_instance[this_cpu_index()];
}

struct sched_runq *sched_env_set_current(struct sched_runq *rq)
{
	struct sched_runq **slot = &current_instance[this_cpu_index()];
	struct sched_runq *outer = *slot;
	*slot = rq;
	return outer;
}

static const char *check_pick(uint64_t result, const uint64_t args[6])
{
	(void)args;
	return sched_check_pick(result);
}

GRAFT_POINT_METHOD(sched_pick_next, sched_policy.pick_next, sched_default_pick_next, 10000,
		   check_pick,
		   "choose the next thread for this CPU from the run queue (sched_lock held, "
		   "interrupts masked, mid-switch); default: oldest allowed (round robin)");
GRAFT_POINT_METHOD(sched_tick, sched_policy.tick, sched_default_tick, 10000, NULL,
		   "the running thread was charged a tick: preempt it? (timer interrupt, "
		   "sched_lock held); default: a 2-tick slice");
GRAFT_POINT_EVENT(sched_event, sched_policy.event, sched_event_ignored, 1000,
		  "a thread became runnable, blocked, ended, yielded or was charged a tick: the "
		  "scheduler's input (sched_lock held, interrupts masked, may not sleep; look only)");
GRAFT_POINT_EVENT(sched_pick, sched_policy.pick, sched_pick_ignored, 1000,
		  "the scheduler chose what a CPU runs next (cpu, chosen and previous thread, "
		  "queue length): its output (sched_lock held, interrupts masked, mid-switch, may "
		  "not sleep; look only)");
