// SPDX-License-Identifier: BSD-2-Clause
/*
 * The table of CPUs and bringing one online. CPU i is cpu_table[i]; the
 * first cpu_count() entries are online. online_count only grows, and a
 * CPU is counted once it can take interrupts and cross-calls.
 */
#include <scion/cpu.h>
#include <scion/sched.h>
#include <scion/clock.h>
#include <scion/printk.h>
#include <scion/txn.h>
#include <arch/percpu.h>

struct cpu cpu_table[MAX_CPUS];
static unsigned online_count;

unsigned cpu_count(void)
{
	return __atomic_load_n(&online_count, __ATOMIC_ACQUIRE);
}

void cpu_init_boot(void)
{
	for (unsigned i = 0; i < MAX_CPUS; i++) {
		struct cpu *c = &cpu_table[i];
		c->self = c;
		c->index = i;
		txn_cpu_init(c);
		spin_init(&c->xcall_lock, "xcall-queue");
	}
	arch_set_this_cpu(&cpu_table[0]);
	cpu_table[0].online = true;
	online_count = 1;
}

void cpu_online_main(struct cpu *c)
{
	sched_start_secondary(c);
	clock_start_cpu();
	WRITE_ONCE(c->online, true);
	__atomic_add_fetch(&online_count, 1, __ATOMIC_RELEASE);
	sched_idle_loop();
}
