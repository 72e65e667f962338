// SPDX-License-Identifier: BSD-2-Clause
/*
 * What the syscall provider costs a system call (kernel/proc/systrace.c):
 * a getpid round trip from user mode, with the provider disabled, with
 * one consumer (an empty handler) on syscall::getpid:entry, and with one
 * on another call's probe (syscall::read:entry: getpid must not pay for
 * it); and syscall_getpid, the round trip as things stand (what
 * tools/bench_trace.py measures under D programs it enables). Measured on userland/bench_getpid from the program archive: the
 * cycles from spawning it to reaping it with N = 4000 calls, minus the
 * same with N = 0, over N; the least of ROUNDS runs each (a timer tick
 * inflates one). Under `make bench` (-icount shift=0) cycles are guest
 * instructions, user and kernel alike, the loop's own two or three
 * included. Without the program in the boot archive it reports nothing.
 */
#include <scion/archive.h>
#include <scion/bench.h>
#include <scion/printk.h>
#include <scion/probe.h>
#include <scion/proc.h>
#include <arch/cpu.h>
#include "probe_test.h"

#define PROGRAM "/bench_getpid"
#define CALLS 4000
#define ROUNDS 5

static void empty_handler(const struct probe_hit *hit, void *arg)
{
	(void)hit;
	(void)arg;
}

/* Cycles from spawn to reap of PROGRAM with argument n: the least of ROUNDS, 0 on failure. */
static uint64_t run_cycles(const char *n)
{
	const char *const argv[] = { "bench_getpid", n, NULL };
	uint64_t best = UINT64_MAX;
	for (int r = 0; r < ROUNDS; r++) {
		int status = -1;
		uint64_t c0 = arch_cycles();
		int pid = proc_spawn(PROGRAM, argv, false);
		if (pid < 0 || proc_wait_kernel_child(pid, &status) || status != 0) {
			printk("bench syscall_probe: %s %s failed (%d, status %d)\n", PROGRAM, n, pid,
			       status);
			return 0;
		}
		uint64_t c = arch_cycles() - c0;
		if (c < best)
			best = c;
	}
	return best;
}

/* Cycles per getpid round trip now. */
static uint64_t per_call(void)
{
	uint64_t none = run_cycles("0"), many = run_cycles("4000");
	return none && many > none ? (many - none) / CALLS : 0;
}

static void report_with(const char *figure, const char *spec)
{
	struct probe *p = probe_named(spec);
	struct probe_consumer c = { .action = PROBE_HANDLER, .handler = empty_handler };
	if (!p || probe_enable(p, &c)) {
		printk("bench syscall_probe: cannot enable %s\n", spec);
		return;
	}
	uint64_t cost = per_call();
	probe_disable(&c);
	if (cost)
		bench_report(figure, cost, "cycles");
}

static bool have_program(void)
{
	if (archive_lookup(PROGRAM))
		return true;
	printk("bench syscall: no %s in the boot archive; skipped\n", PROGRAM);
	return false;
}

BENCH(syscall_getpid, 1)
{
	uint64_t cost = have_program() ? per_call() : 0;
	if (cost)
		bench_report("syscall.getpid.round_trip", cost, "cycles");
}

BENCH(syscall_probe, 1)
{
	if (!have_program())
		return;
	uint64_t none = per_call();
	if (!none)
		return;
	bench_report("syscall.getpid.provider_disabled", none, "cycles");
	report_with("syscall.getpid.entry_probe_enabled", "syscall::getpid:entry");
	report_with("syscall.getpid.other_call_probe_enabled", "syscall::read:entry");
}
