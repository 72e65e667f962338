// SPDX-License-Identifier: BSD-2-Clause
/*
 * Benchmarks of self-monitoring's cost (issue 22; kernel/monitor/):
 *
 *   monitor.read_all_sources   cycles to read every source once, as a
 *                              round does (every global and per-CPU
 *                              source, every thread's per-thread ones)
 *   monitor.round              the measurement thread's CPU time per
 *                              round with every source due each tick
 *                              (10 ms): the read, the stream's bookkeeping,
 *                              the wake-up by the tick graft and the switches
 *   monitor.share_100ms        the measurement thread's share of one CPU
 *                              at the default 100 ms, in parts per million
 *   monitor.share_burst        its share during a burst of 1 ms samples
 *
 * Under -icount shift=0 the cycle counter counts instructions, so the
 * first two are guest instructions. The thread's CPU time is its own
 * accounting (thread.cpu), converted to cycles at the measured rate.
 */
#include <scion/bench.h>
#include <scion/clock.h>
#include <scion/cpu.h>
#include <scion/mm.h>
#include <scion/string.h>
#include <arch/cpu.h>
#include <arch/timer.h>
#include "../../kernel/monitor/monitor_internal.h"

#define READ_ROUNDS   50
#define ROUND_MS      2000
#define SHARE_MS      3000
#define BURST_SAMPLES 500
#define THREAD_ROWS   64

/* Every source once, the way the sampler reads a round. */
static void read_everything(struct monitor_thread_row *rows)
{
	const struct monitor_source *per_thread[MONITOR_THREAD_SOURCES_MAX];
	const struct monitor_source *per_process[MONITOR_THREAD_SOURCES_MAX];
	static struct monitor_process_row procs[THREAD_ROWS];
	unsigned nthread = 0, nprocess = 0;
	uint64_t v;

	for (unsigned i = 0; i < monitor_source_count(); i++) {
		const struct monitor_source *s = monitor_source_at(i);
		if (s->scope == MONITOR_SCOPE_THREAD) {
			if (nthread < MONITOR_THREAD_SOURCES_MAX)
				per_thread[nthread++] = s;
			continue;
		}
		if (s->scope == MONITOR_SCOPE_PROCESS) {
			if (nprocess < MONITOR_THREAD_SOURCES_MAX)
				per_process[nprocess++] = s;
			continue;
		}
		for (unsigned c = 0; c < (s->scope == MONITOR_SCOPE_CPU ? cpu_count() : 1); c++)
			monitor_read(s, c, &v);
	}
	monitor_read_threads(per_thread, nthread, rows, THREAD_ROWS);
	monitor_read_processes(per_process, nprocess, procs, THREAD_ROWS);
}

/* The measurement thread's CPU time so far (ns), or 0 when it has none yet. */
static uint64_t sampler_cpu_ns(struct monitor_thread_row *rows)
{
	const struct monitor_source *cpu = monitor_source_find("thread.cpu");
	int n = monitor_read_threads(&cpu, 1, rows, THREAD_ROWS);
	for (int i = 0; i < n && i < THREAD_ROWS; i++)
		if (!strcmp(rows[i].name, "monitor"))
			return rows[i].value[0];
	return 0;
}

static uint64_t ns_to_cycles(uint64_t ns)
{
	uint64_t hz = arch_cycles_per_second();
	return ns / 1000000000ull * hz + ns % 1000000000ull * hz / 1000000000ull;
}

/* Run the sampler for ms; the thread's CPU ns and the rounds taken meanwhile. */
static void run_sampler(struct monitor_thread_row *rows, uint64_t ms, bool burst, uint64_t *cpu_ns,
			uint64_t *rounds, uint64_t *wall_ns)
{
	char why[160];
	struct monitor_ctl_status st;

	monitor_start(why, sizeof(why));
	thread_sleep_ms(50);		/* the thread exists and took its first round */
	uint64_t cpu0 = sampler_cpu_ns(rows);
	monitor_get_status(&st);
	uint64_t rounds0 = st.rounds, t0 = clock_ns();
	if (burst)
		monitor_burst_now(why, sizeof(why));
	thread_sleep_ms(ms);
	*cpu_ns = sampler_cpu_ns(rows) - cpu0;
	*wall_ns = clock_ns() - t0;
	monitor_get_status(&st);
	*rounds = st.rounds - rounds0;
	monitor_stop();
}

BENCH(monitor, 1)
{
	char why[160];
	struct monitor_thread_row *rows = kmalloc(THREAD_ROWS * sizeof(*rows));
	struct monitor_ctl_status before;
	uint64_t cpu_ns, rounds, wall_ns;

	if (!rows)
		return;
	monitor_get_status(&before);
	if (before.running || before.streaming) {
		kfree(rows);
		return;		/* someone is monitoring: measuring would disturb them */
	}
	read_everything(rows);	/* warm */
	uint64_t c0 = arch_cycles();
	for (int i = 0; i < READ_ROUNDS; i++)
		read_everything(rows);
	bench_report("monitor.read_all_sources", (arch_cycles() - c0) / READ_ROUNDS, "cycles");

	monitor_set_burst(0, 0, why, sizeof(why));
	monitor_set_interval("*", 10, why, sizeof(why));
	run_sampler(rows, ROUND_MS, false, &cpu_ns, &rounds, &wall_ns);
	if (rounds)
		bench_report("monitor.round", ns_to_cycles(cpu_ns) / rounds, "cycles");

	monitor_set_interval("*", MONITOR_DEFAULT_INTERVAL_MS, why, sizeof(why));
	run_sampler(rows, SHARE_MS, false, &cpu_ns, &rounds, &wall_ns);
	bench_report("monitor.share_100ms", cpu_ns * 1000000 / wall_ns, "ppm");

	monitor_set_burst(BURST_SAMPLES, MONITOR_DEFAULT_BURST_EVERY_S, why, sizeof(why));
	run_sampler(rows, BURST_SAMPLES, true, &cpu_ns, &rounds, &wall_ns);
	bench_report("monitor.share_burst", cpu_ns * 1000000 / wall_ns, "ppm");
	monitor_set_burst(before.burst_ms, before.burst_every_s, why, sizeof(why));
	kfree(rows);
}
