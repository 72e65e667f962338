// SPDX-License-Identifier: BSD-2-Clause
/*
 * The machine layer's self-checks, run at boot by the boot option
 * `selftest=all` (tests/integration/test_sparc64.py boots them). Each check
 * prints `test NAME: OK (N ms)` or `test NAME: FAILED: why`, as the
 * in-kernel tests do, and the run ends in `N passed, M failed`; then the
 * machine powers off (exit 0) or, when a check failed, panics (exit 1
 * through pvpanic). Three more stop the machine on purpose, each with a
 * report and a panic: `selftest=panic` makes the fault of fault_report
 * with no fixup; `selftest=spill32` forces the spill of a window whose
 * %sp is even (a 32-bit frame: refused); `selftest=tl2` the spill of a
 * window whose stack is unmapped (the spill handler faults at TL 2).
 * The checks: the timer interrupt counts ticks; 200 nested calls spill
 * and fill register windows (a timer interrupt arriving at the deepest
 * one) and return the right value; a load from an unmapped address
 * gives a fault report naming the faulting function, and resumes; the
 * portable core's spinlocks and random bytes work over the arch headers.
 */
#include <scion/cpu.h>
#include <scion/random.h>
#include <scion/spinlock.h>
#include <scion/string.h>
#include <scion/symtab.h>

#include "sparc64_internal.h"

/* Nothing is mapped here: above the kernel's 4 MB, below OpenBIOS. */
#define UNMAPPED_ADDR	0x50000000ul
#define DEPTH		200
/* An even stack pointer: a 32-bit frame, which the spill handler refuses. */
#define BAD_SP_32BIT	0x40000ff0ul

/* selftest_windows.S: never returns. */
__noreturn void selftest_bad_window(uint64_t sp);

static unsigned passed, failed;

static void result(const char *name, uint64_t t0, const char *why)
{
	if (why) {
		failed++;
		early_printf("test %s: FAILED: %s\n", name, why);
	} else {
		passed++;
		early_printf("test %s: OK (%lu ms)\n", name,
			     (unsigned long)((rd_tick() - t0) / (tick_freq() / 1000)));
	}
}

/* Spin until the tick count passes `target` or `seconds` pass. */
static bool wait_ticks(uint64_t target, unsigned seconds)
{
	uint64_t end = rd_tick() + seconds * tick_freq();

	while (timer_ticks() < target)
		if ((int64_t)(rd_tick() - end) > 0)
			return false;
	return true;
}

static const char *check_timer(void)
{
	uint64_t t = timer_ticks();

	if (!wait_ticks(t + 10, 2))
		return "fewer than 10 ticks in 2 s (no level-14 interrupts?)";
	return NULL;
}

/*
 * Recursion with values live across every call: each level keeps three
 * locals in its window, which must come back intact after the window was
 * spilled (by deeper calls) and filled (on the way back).
 */
static volatile unsigned deepest_saw_tick;

static __noinline uint64_t deep(uint64_t n)
{
	uint64_t a = n * 3 + 1, b = n ^ 0x5a5a, c = n << 7;

	if (n == 0) {
		uint64_t t = timer_ticks();
		deepest_saw_tick = wait_ticks(t + 1, 2);
		return 1;
	}
	uint64_t r = deep(n - 1);
	return r + a + (b ^ c) + n;
}

static const char *check_windows(void)
{
	uint64_t want = 1;

	for (uint64_t n = 1; n <= DEPTH; n++)
		want += n * 3 + 1 + ((n ^ 0x5a5a) ^ (n << 7)) + n;
	if (deep(DEPTH) != want)
		return "200-deep recursion returned a wrong value (a window spilled or filled wrong)";
	if (!deepest_saw_tick)
		return "no timer interrupt while 200 frames deep";
	return NULL;
}

/* A load from an unmapped address; its pc is selftest_fault_site. */
extern const uint64_t selftest_fault_site;

__noinline uint64_t selftest_fault_load(uint64_t addr)
{
	uint64_t v = 0;

	__asm__ __volatile__("1:\tldx [%1], %0\n\t"
			     ".pushsection .data\n\t.align 8\n\t"
			     ".globl selftest_fault_site\n"
			     "selftest_fault_site:\n\t.xword 1b\n\t.popsection"
			     : "+r"(v) : "r"(addr) : "memory");
	return v;
}

static char fault_function[96];
static uint64_t fault_address, fault_tt;

static void fault_hook(const struct trap_frame *tf)
{
	backtrace_symbolize(tf->tpc, fault_function, sizeof(fault_function));
	fault_address = tf->fault_addr;
	fault_tt = tf->tt;
}

static __noinline const char *check_fault(void)
{
	static const char want[] = "selftest_fault_load+0x";

	trap_set_fixup(selftest_fault_site, selftest_fault_site + 4, fault_hook);
	selftest_fault_load(UNMAPPED_ADDR);
	if (fault_tt != TT_DMMU_MISS)
		return "no data MMU miss reported for the unmapped load";
	if (strncmp(fault_function, want, sizeof(want) - 1))
		return "the report does not name selftest_fault_load";
	if (fault_address != UNMAPPED_ADDR)
		return "the report gives the wrong fault address";
	return NULL;
}

/*
 * The first portable core code on sparc64 (kernel/core/spinlock.c,
 * kernel/lib/random.c over arch/cpu.h and arch/percpu.h): a spinlock
 * masks interrupts and counts itself on this CPU; random_bytes differs
 * call to call.
 */
static const char *check_core(void)
{
	static struct spinlock lock = SPINLOCK_INIT("selftest");
	uint64_t r1[2], r2[2];

	if (!arch_irqs_enabled())
		return "interrupts masked before the check";
	irqflags_t f = spin_lock_irqsave(&lock);
	bool masked = !arch_irqs_enabled(), held = spin_held_here(&lock);
	unsigned depth = this_cpu()->lock_depth;
	spin_unlock_irqrestore(&lock, f);
	if (!masked || !held || depth != 1)
		return "spin_lock_irqsave: interrupts not masked, or the lock not counted as held";
	if (!arch_irqs_enabled() || this_cpu()->lock_depth != 0 || spin_held_here(&lock))
		return "spin_unlock_irqrestore: interrupts not restored, or the lock still held";
	random_bytes(r1, sizeof(r1));
	random_bytes(r2, sizeof(r2));
	if (!memcmp(r1, r2, sizeof(r1)))
		return "random_bytes returned the same 16 bytes twice";
	return NULL;
}

void selftest_run(const char *which)
{
	uint64_t t0;

	if (!strcmp(which, "panic")) {
		early_printf("selftest: a load from unmapped 0x%lx, with no fixup\n", UNMAPPED_ADDR);
		selftest_fault_load(UNMAPPED_ADDR);
		panic("selftest: the unmapped load did not fault");
	}
	if (!strcmp(which, "spill32")) {
		early_printf("selftest: a window with a 32-bit (even) %%sp must be spilled\n");
		selftest_bad_window(BAD_SP_32BIT);
	}
	if (!strcmp(which, "tl2")) {
		early_printf("selftest: a window spill into unmapped memory (a fault at TL 2)\n");
		selftest_bad_window(UNMAPPED_ADDR - STACK_BIAS);
	}
	t0 = rd_tick();
	result("sparc64_timer_ticks", t0, check_timer());
	t0 = rd_tick();
	result("sparc64_window_spill_fill", t0, check_windows());
	t0 = rd_tick();
	result("sparc64_fault_report", t0, check_fault());
	t0 = rd_tick();
	result("sparc64_core_spinlock_random", t0, check_core());
	early_printf("%u passed, %u failed\n", passed, failed);
	if (failed)
		panic("selftest: %u check(s) failed", failed);
	power_off();
}
