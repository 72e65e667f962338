// SPDX-License-Identifier: BSD-2-Clause
/*
 * The timer: %tick counts at TICK_HZ (100 MHz on QEMU's sun4u:
 * ../shared/PLATFORMS.md); when it reaches %tick_cmpr the CPU sets
 * SOFTINT bit 0 (TICK_INT), an interrupt at level 14 (trap 0x4e), which
 * trap.c hands to timer_interrupt at TL 0. Each interrupt counts one
 * tick and sets the next compare value one period after the last one
 * (or after now, when interrupts were masked for longer than a period),
 * so ticks neither drift nor stop.
 * Once the portable core runs (arch_irq_init), trap.c makes every
 * interrupt also the core's tick (clock_timer_interrupt: the clock, the
 * scheduler's time slices, a graft's watchdog) and polls the UART for
 * console input (sparc64_console_poll: input is polled at the tick's
 * rate, since device interrupts are not routed yet: arch/irq.h).
 * Invariant: only timer_interrupt writes %tick_cmpr after the timer starts.
 */
#include <arch/cpu.h>
#include <arch/timer.h>

#include "sparc64_internal.h"

#define TICK_HZ		100000000ul
#define SOFTINT_TICK	(1ul << 0)
#define SOFTINT_L14	(1ul << 14)

static volatile uint64_t ticks;
static uint64_t next_cmpr, period = TICK_HZ / TIMER_HZ;
static bool core_clock;		/* the core's clock runs (arch_timer_start from clock_start_cpu) */

static void write_tick_cmpr(uint64_t v)
{
	__asm__ __volatile__("wr %0, 0, %%tick_cmpr" : : "r"(v) : "memory");
}

uint64_t tick_freq(void)
{
	return TICK_HZ;
}

uint64_t arch_cycles_per_second(void)
{
	return TICK_HZ;
}

void arch_udelay(uint64_t us)
{
	uint64_t end = arch_cycles() + us * (TICK_HZ / 1000000);

	while ((int64_t)(arch_cycles() - end) < 0)
		cpu_relax();
}

uint64_t timer_ticks(void)
{
	return ticks;
}

/*
 * arch_timer_start - start the periodic interrupt at hz (arch/timer.h);
 * timer_init starts it at TIMER_HZ.
 * Steps: 1. clear a stale TICK_INT; 2. compare value one period ahead
 * (bit 63, INT_DIS, clear: enabled). Interrupts stay masked until the
 * caller sets PSTATE.IE.
 */
void arch_timer_start(unsigned hz)
{
	__asm__ __volatile__("wr %0, 0, %%clear_softint" : : "r"(SOFTINT_TICK | SOFTINT_L14));
	period = TICK_HZ / hz;
	next_cmpr = rd_tick() + period;
	write_tick_cmpr(next_cmpr);
	/* The boot's rate; fast ticks (profile-N, the monitor's bursts) come and go quietly. */
	static bool announced;
	if (!announced)
		early_printf("timer: %%tick at %lu Hz, interrupt level 14 every %lu ticks (%u Hz)\n",
			     TICK_HZ, (unsigned long)period, hz);
	announced = true;
}

/* The boot self-checks' timer (before the core's clock). */
void timer_init(void)
{
	arch_timer_start(TIMER_HZ);
}

/* From arch_irq_init: the core's clock takes the interrupts from now on. */
void sparc64_timer_core_clock(void)
{
	core_clock = true;
}

/*
 * timer_interrupt - level 14, at TL 0 with interrupts masked.
 * Steps: 1. acknowledge (clear TICK_INT and level 14 in SOFTINT);
 * 2. count; 3. next compare value, never in the past.
 */
void timer_interrupt(void)
{
	__asm__ __volatile__("wr %0, 0, %%clear_softint" : : "r"(SOFTINT_TICK | SOFTINT_L14));
	ticks++;
	next_cmpr += period;
	uint64_t now = rd_tick();
	if ((int64_t)(next_cmpr - now) <= 0)
		next_cmpr = now + period;
	write_tick_cmpr(next_cmpr);
}

bool sparc64_timer_core(void)
{
	return core_clock;
}
