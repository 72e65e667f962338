// SPDX-License-Identifier: BSD-2-Clause
/*
 * Benchmarks of the foundation: boot time, context switch, cross-calls.
 * Under `make bench` (QEMU -icount shift=0) the cycle counter counts
 * guest instructions, so the figures are instructions per operation.
 */
#include <scion/bench.h>
#include <scion/boot.h>
#include <scion/shell.h>
#include <scion/thread.h>
#include <scion/sched.h>
#include <scion/xcall.h>
#include <scion/cpu.h>
#include <scion/textpoke.h>
#include <scion/string.h>
#include <scion/format.h>
#include <arch/cpu.h>

#define SWITCH_ROUNDS 2000
#define XCALL_ROUNDS 2000
#define POKE_ROUNDS 500

BENCH(boot, 1)
{
	const struct boot_phase *phases;
	unsigned n = boot_phases(&phases);
	uint64_t prev = boot_info.entry_cycles;
	char figure[48];

	if (!shell_first_prompt_cycles)
		return;
	bench_report("boot.entry_to_prompt", shell_first_prompt_cycles - boot_info.entry_cycles,
		     "cycles");
	for (unsigned i = 0; i < n; i++) {
		snprintf(figure, sizeof(figure), "boot.phase.%s", phases[i].name);
		bench_report(figure, phases[i].cycles - prev, "cycles");
		prev = phases[i].cycles;
	}
	bench_report("boot.phase.to_prompt", shell_first_prompt_cycles - prev, "cycles");
}

static volatile bool switch_stop;

static void yield_loop(void *arg)
{
	(void)arg;
	while (!switch_stop)
		thread_yield();
}

BENCH(context_switch, 1)
{
	/* Two threads pinned to one CPU, yielding to each other. */
	switch_stop = false;
	struct thread *other = thread_create("bench-yield", yield_loop, NULL, 0);
	struct thread *me_pinned = thread_current();
	if (!other)
		return;
	int saved = thread_set_affinity(me_pinned, 0);
	thread_yield();	/* now on CPU 0 */
	uint64_t switches0 = me_pinned->se.switches_in;
	uint64_t c0 = arch_cycles();
	for (int i = 0; i < SWITCH_ROUNDS; i++)
		thread_yield();
	uint64_t c1 = arch_cycles();
	uint64_t switches = (me_pinned->se.switches_in - switches0) * 2;
	switch_stop = true;
	thread_join(other);
	thread_set_affinity(me_pinned, saved);
	if (switches)
		bench_report("sched.context_switch", (c1 - c0) / switches, "cycles");
}

static void nothing(void *arg)
{
	(void)arg;
}

BENCH(xcall, 1)
{
	uint64_t c0 = arch_cycles();
	for (int i = 0; i < XCALL_ROUNDS; i++)
		xcall_all(nothing, NULL);
	uint64_t c1 = arch_cycles();
	bench_report("xcall.all", (c1 - c0) / XCALL_ROUNDS, "cycles");
	if (cpu_count() < 2)
		return;
	/* Pinned where it runs, so the target stays another CPU for every round. */
	struct thread *me = thread_current();
	irqflags_t f = spin_lock_irqsave(&sched_lock);
	int saved = me->se.affinity;
	unsigned here = this_cpu_index();
	me->se.affinity = (int)here;
	spin_unlock_irqrestore(&sched_lock, f);
	unsigned target = here == 0 ? 1 : 0;
	c0 = arch_cycles();
	for (int i = 0; i < XCALL_ROUNDS; i++)
		xcall_one(target, nothing, NULL);
	c1 = arch_cycles();
	f = spin_lock_irqsave(&sched_lock);
	me->se.affinity = saved;
	spin_unlock_irqrestore(&sched_lock, f);
	bench_report("xcall.one_remote", (c1 - c0) / XCALL_ROUNDS, "cycles");
}

BENCH(text_poke, 1)
{
	extern char poke_target_insn[], poke_target_insn_end[];
	size_t len = (size_t)(poke_target_insn_end - poke_target_insn);
	uint8_t original[16];

	memcpy(original, poke_target_insn, len);
	uint64_t c0 = arch_cycles();
	for (int i = 0; i < POKE_ROUNDS; i++)
		text_poke(poke_target_insn, original, len);
	uint64_t c1 = arch_cycles();
	bench_report("text_poke.same_bytes", (c1 - c0) / POKE_ROUNDS, "cycles");
}
