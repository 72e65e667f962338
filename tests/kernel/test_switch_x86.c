// SPDX-License-Identifier: BSD-2-Clause
/*
 * The x86-64 context switch keeps what a caller of thread_yield is owed
 * (switch_fixture.S): the switch itself saves only the frame and stack
 * pointers, and every other callee-saved register is the switching
 * function's own prologue's to keep (arch/x86/include/arch/context.h).
 * Two threads pinned to one CPU yield to each other through the fixture,
 * each with its own register values, and check them after every switch,
 * with interrupts enabled and masked. Left out of other ports' test
 * kernels (their arch.mk).
 */
#include <scion/ktest.h>
#include <scion/thread.h>
#include <scion/sched.h>
#include <scion/cpu.h>
#include <arch/cpu.h>

#define SWITCH_ROUNDS 200
#define SEEN_FP_GAP 40		/* switch_fixture.S's %rbp - %rsp after the call */

void switch_fixture_call(void (*fn)(void), uint64_t seed, uint64_t seen[6]);

struct switch_side {
	uint64_t seed;		/* this side's values: seed + round * 16 + 1 .. + 5 */
	volatile bool *stop;
	unsigned rounds, wrong, irq_wrong;
	unsigned long long first_wrong[6];	/* as printed */
};

/* One round: the fixture's call of thread_yield, then whether each register came back. */
static void one_round(struct switch_side *s, bool masked)
{
	uint64_t seen[6];
	uint64_t seed = s->seed + (uint64_t)s->rounds * 16;
	irqflags_t f = arch_irq_save();

	if (!masked)
		arch_irq_enable();
	switch_fixture_call(thread_yield, seed, seen);
	bool enabled = arch_irq_flags_enabled(arch_irq_save());
	arch_irq_restore(f);
	if (enabled == masked)
		s->irq_wrong++;
	bool ok = seen[5] == SEEN_FP_GAP;
	for (unsigned i = 0; i < 5; i++)
		ok = ok && seen[i] == seed + i + 1;
	if (!ok && !s->wrong++)
		for (unsigned i = 0; i < 6; i++)
			s->first_wrong[i] = seen[i];
	s->rounds++;
}

static void partner(void *arg)
{
	struct switch_side *s = arg;
	while (!READ_ONCE(*s->stop))
		one_round(s, s->rounds % 2);
}

KTEST(sched_switch_keeps_registers, 1)
{
	volatile bool stop = false;
	struct switch_side mine = { .seed = 0x1000000000ull, .stop = &stop };
	struct switch_side theirs = { .seed = 0x2000000000ull, .stop = &stop };
	struct thread *me = thread_current();
	int cpu = (int)this_cpu_index();
	int was = thread_set_affinity(me, cpu);

	thread_yield();		/* now on cpu */
	struct thread *other = thread_create("switch-partner", partner, &theirs, cpu);
	KT_ASSERT(t, other, "cannot create the partner thread");
	uint64_t in0 = me->se.switches_in;
	for (unsigned i = 0; i < SWITCH_ROUNDS; i++)
		one_round(&mine, i % 2);
	uint64_t switched = me->se.switches_in - in0;
	stop = true;
	thread_join(other);
	thread_set_affinity(me, was);
	KT_EXPECT(t, switched >= SWITCH_ROUNDS / 2, "%llu switches back in over %u yields",
		  (unsigned long long)switched, SWITCH_ROUNDS);
	KT_EXPECT(t, theirs.rounds > 0, "the partner never ran a round");
	const struct switch_side *sides[] = { &mine, &theirs };
	for (unsigned k = 0; k < 2; k++) {
		const struct switch_side *s = sides[k];
		KT_EXPECT(t, s->wrong == 0,
			  "side %u: %u of %u rounds lost registers; first: %llx %llx %llx %llx "
			  "%llx, frame gap %llu", k, s->wrong, s->rounds,
			  s->first_wrong[0], s->first_wrong[1], s->first_wrong[2],
			  s->first_wrong[3], s->first_wrong[4], s->first_wrong[5]);
		KT_EXPECT(t, s->irq_wrong == 0, "side %u: %u of %u rounds came back with the "
			  "interrupt flag changed", k, s->irq_wrong, s->rounds);
	}
}
