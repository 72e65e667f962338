// SPDX-License-Identifier: BSD-2-Clause
/*
 * In-kernel tests of the statistics sources the modules publish to the
 * monitor (scion/monitor.h): the table (the resources the profile needs,
 * well-formed and unique names), counters that only grow, each CPU's
 * time split into busy + idle + irq adding up to the time since boot,
 * and sources that move by exactly what the test did: CPU time spun,
 * block cache reads and disk waits (the thread's and the disk's), trace
 * buffer drops, graft invocations and commits, probe hits; and each
 * per-thread source's per-process twin (the same unit and kind, a
 * thread's share moved into a process when it leaves it).
 */
#include <scion/ktest.h>
#include <scion/monitor.h>
#include <scion/bcache.h>
#include <scion/tbuf.h>
#include <scion/clock.h>
#include <scion/cpu.h>
#include <scion/mm.h>
#include <scion/sched.h>
#include <scion/thread.h>
#include <scion/string.h>
#include <scion/format.h>
#include <arch/cpu.h>
#include <scion/errno.h>
#include <graft/test.h>
#include "graft_test.h"
#include "probe_test.h"

/* The resources issue 22's profile asks every kernel to publish. */
static const char *const required[] = {
	"cpu.busy", "cpu.idle", "cpu.irq", "sched.runq", "sched.runnable", "sched.blocked",
	"mm.free", "mm.heap", "bcache.reads", "bcache.hits", "bcache.misses", "bcache.waits",
	"bcache.evictions", "bcache.prefetches", "disk.requests", "disk.bytes", "disk.busy",
	"disk.latency", "graft.invocations", "graft.commits", "graft.aborts", "probe.hits",
	"trace.drops", "channel.bytes", "thread.cpu", "thread.bcache_reads", "thread.disk_wait",
	"process.cpu", "process.bcache_reads", "process.disk_wait",
};

#define SPIN_NS        (30 * 1000 * 1000ull)	/* the CPU time the test burns */
#define SPLIT_SLACK_NS (2 * 1000 * 1000ull)	/* reads of one CPU's three parts are apart */
#define BLOCKS         8			/* read twice: misses, then hits */

static bool well_formed(const char *name)
{
	size_t n = strlen(name);
	if (!n || n >= MONITOR_NAME_MAX || !strchr(name, '.') || name[0] == '.' || name[n - 1] == '.')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') ||
		      name[i] == '.' || name[i] == '_'))
			return false;
	return true;
}

KTEST(monitor_sources_table, 1)
{
	unsigned n = 0;
	for (const struct monitor_source *s = monitor_source_next(NULL); s;
	     s = monitor_source_next(s), n++) {
		KT_EXPECT(t, well_formed(s->name), "source name '%s' is not resource.statistic",
			  s->name);
		KT_EXPECT(t, s->unit && s->unit[0], "%s has no unit", s->name);
		KT_EXPECT(t, s->kind <= MONITOR_GAUGE && s->scope <= MONITOR_SCOPE_PROCESS,
			  "%s: kind %u scope %u", s->name, s->kind, s->scope);
		const struct monitor_source *next = monitor_source_next(s);
		KT_EXPECT(t, !next || strcmp(next->name, s->name) > 0, "%s is published twice",
			  s->name);
	}
	KT_EXPECT(t, n == LINKER_TABLE_COUNT(monitor_sources), "walked %u of %zu sources", n,
		  LINKER_TABLE_COUNT(monitor_sources));
	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++)
		KT_EXPECT(t, monitor_source_find(required[i]), "no source %s", required[i]);
	KT_EXPECT(t, !monitor_source_find("cpu") && !monitor_source_find("nonesuch.x"),
		  "found a source that does not exist");
	uint64_t v;
	KT_EXPECT(t, monitor_read(monitor_source_find("cpu.busy"), cpu_count(), &v) == -EINVAL,
		  "a CPU index out of range was read");
	KT_EXPECT(t, monitor_read(monitor_source_find("thread.cpu"), 0, &v) == -EINVAL,
		  "a per-thread source was read as a global one");
}

static uint64_t read_one(const char *name, unsigned index)
{
	uint64_t v = 0;
	monitor_read(monitor_source_find(name), index, &v);
	return v;
}

/* The current thread's value of a per-thread source. */
static uint64_t mine(const char *name)
{
	const struct monitor_source *s = monitor_source_find(name);
	static struct monitor_thread_row rows[128];
	int n = monitor_read_threads(&s, 1, rows, 128);
	uint64_t tid = thread_current()->tid;
	for (int i = 0; i < n && i < 128; i++)
		if (rows[i].tid == tid)
			return rows[i].value[0];
	return ~0ull;
}

static void spin(uint64_t ns)
{
	uint64_t until = clock_ns() + ns;
	while (clock_ns() < until)
		cpu_relax();
}

KTEST(monitor_counters_grow, 1)
{
	enum { MAX_VALUES = 128 };
	static uint64_t before[MAX_VALUES];
	unsigned n = 0;
	for (const struct monitor_source *s = monitor_source_next(NULL); s;
	     s = monitor_source_next(s))
		if (s->kind == MONITOR_COUNTER && s->scope <= MONITOR_SCOPE_CPU)
			for (unsigned i = 0; i < (s->scope == MONITOR_SCOPE_CPU ? cpu_count() : 1) &&
			     n < MAX_VALUES; i++)
				monitor_read(s, i, &before[n++]);
	spin(SPIN_NS / 10);
	thread_sleep_ms(20);
	n = 0;
	for (const struct monitor_source *s = monitor_source_next(NULL); s;
	     s = monitor_source_next(s))
		if (s->kind == MONITOR_COUNTER && s->scope <= MONITOR_SCOPE_CPU)
			for (unsigned i = 0; i < (s->scope == MONITOR_SCOPE_CPU ? cpu_count() : 1) &&
			     n < MAX_VALUES; i++) {
				uint64_t now;
				monitor_read(s, i, &now);
				KT_EXPECT(t, now >= before[n], "%s[%u] went back: %llu -> %llu",
					  s->name, i, (unsigned long long)before[n],
					  (unsigned long long)now);
				n++;
			}
}

KTEST(monitor_cpu_time_adds_up, 1)
{
	for (unsigned i = 0; i < cpu_count(); i++) {
		uint64_t from = clock_ns();
		uint64_t parts = read_one("cpu.busy", i) + read_one("cpu.idle", i) +
				 read_one("cpu.irq", i);
		uint64_t to = clock_ns();
		/* busy is the time left over, so the sum is the time since boot as of some read */
		KT_EXPECT(t, parts + SPLIT_SLACK_NS >= from && parts <= to + SPLIT_SLACK_NS,
			  "CPU %u: busy + idle + irq = %llu ns, the clock read %llu..%llu", i,
			  (unsigned long long)parts, (unsigned long long)from,
			  (unsigned long long)to);
		KT_EXPECT(t, read_one("cpu.irq", i) > 0, "CPU %u took no interrupt time", i);
	}

	/* Spinning: this thread's CPU time and the CPUs' busy time grow by about as much. */
	uint64_t cpu_before = mine("thread.cpu"), busy_before = 0, busy_after = 0;
	for (unsigned i = 0; i < cpu_count(); i++)
		busy_before += read_one("cpu.busy", i);
	spin(SPIN_NS);
	uint64_t cpu_after = mine("thread.cpu");
	for (unsigned i = 0; i < cpu_count(); i++)
		busy_after += read_one("cpu.busy", i);
	KT_EXPECT(t, cpu_after - cpu_before >= SPIN_NS * 9 / 10,
		  "spun %llu ns, thread.cpu grew %llu", (unsigned long long)SPIN_NS,
		  (unsigned long long)(cpu_after - cpu_before));
	KT_EXPECT(t, busy_after - busy_before >= SPIN_NS * 8 / 10,
		  "spun %llu ns, cpu.busy (all CPUs) grew %llu", (unsigned long long)SPIN_NS,
		  (unsigned long long)(busy_after - busy_before));
}

KTEST(monitor_block_io, 1)
{
	if (!bcache_available())
		KT_SKIP(t, "no disk vda, so no block cache (boot QEMU with the virtio-blk test disk)");
	uint8_t *buf = kmalloc(BCACHE_BLOCK_SIZE);
	KT_ASSERT(t, buf, "no memory");
	uint64_t reads = read_one("bcache.reads", 0), mine_reads = mine("thread.bcache_reads");
	uint64_t requests = read_one("disk.requests", 0), bytes = read_one("disk.bytes", 0);
	uint64_t busy = read_one("disk.busy", 0), latency = read_one("disk.latency", 0);
	uint64_t waited = mine("thread.disk_wait");
	KT_ASSERT(t, bcache_reset(BCACHE_DEFAULT_BUFFERS) == 0, "reset failed");
	/* A reset zeroes the cache's own counters, not the monitor's. */
	KT_EXPECT(t, read_one("bcache.reads", 0) == reads, "bcache.reads moved on a reset");
	for (int round = 0; round < 2; round++)
		for (uint64_t b = 0; b < BLOCKS; b++)
			KT_EXPECT(t, bcache_read(1000 + b * 97, buf) == 0, "read of block %llu failed",
				  (unsigned long long)b);
	bcache_settle();
	KT_EXPECT(t, read_one("bcache.reads", 0) - reads == 2 * BLOCKS, "bcache.reads grew by %llu",
		  (unsigned long long)(read_one("bcache.reads", 0) - reads));
	KT_EXPECT(t, mine("thread.bcache_reads") - mine_reads == 2 * BLOCKS,
		  "thread.bcache_reads grew by %llu",
		  (unsigned long long)(mine("thread.bcache_reads") - mine_reads));
	uint64_t more = read_one("disk.requests", 0) - requests;
	KT_EXPECT(t, more >= BLOCKS, "%llu disk requests for %u missed blocks",
		  (unsigned long long)more, BLOCKS);
	KT_EXPECT(t, read_one("disk.bytes", 0) - bytes >= (uint64_t)BLOCKS * BCACHE_BLOCK_SIZE,
		  "disk.bytes grew by %llu", (unsigned long long)(read_one("disk.bytes", 0) - bytes));
	KT_EXPECT(t, read_one("disk.busy", 0) > busy && read_one("disk.latency", 0) > latency,
		  "disk busy time or latency did not grow");
	KT_EXPECT(t, mine("thread.disk_wait") > waited, "the misses cost this thread no disk wait");
	kfree(buf);
}

KTEST(monitor_trace_drops, 1)
{
	struct tbuf_set *set = tbuf_create(TBUF_MIN_SIZE);
	KT_ASSERT(t, set, "no buffers");
	uint64_t before = read_one("trace.drops", 0);
	unsigned refused = 0;
	irqflags_t f = arch_irq_save();
	for (unsigned i = 0; i < TBUF_MIN_SIZE / TBUF_ALIGN + 5; i++)
		if (!tbuf_reserve(set, TBUF_ALIGN))
			refused++;
	arch_irq_restore(f);
	KT_EXPECT(t, refused == 5, "%u reservations refused, not 5", refused);
	KT_EXPECT(t, read_one("trace.drops", 0) - before == refused, "trace.drops grew by %llu",
		  (unsigned long long)(read_one("trace.drops", 0) - before));
	tbuf_destroy(set);
}

static long add_one(long a, long b)
{
	return a + b + 1;
}

extern graft_fn_test_method *test_method_slot;

KTEST(monitor_graft_calls, 1)
{
	struct graft *g = ktest_graft_install(t, "monitor-add-one", "test.method", add_one, 0);
	if (!g)
		return;
	uint64_t calls = read_one("graft.invocations", 0), commits = read_one("graft.commits", 0);
	for (int i = 0; i < 10; i++)
		KT_EXPECT(t, test_method_slot(i, 1) == i + 2, "the graft did not answer");
	KT_EXPECT(t, read_one("graft.invocations", 0) - calls == 10 &&
		     read_one("graft.commits", 0) - commits == 10,
		  "10 calls: invocations +%llu, commits +%llu",
		  (unsigned long long)(read_one("graft.invocations", 0) - calls),
		  (unsigned long long)(read_one("graft.commits", 0) - commits));
	graft_destroy_builtin(g);
}

/* probe.hits summed over every CPU (a thread may move between reads). */
static uint64_t probe_hits_all(void)
{
	uint64_t sum = 0;
	for (unsigned i = 0; i < cpu_count(); i++)
		sum += read_one("probe.hits", i);
	return sum;
}

/* A handler that calls the probed function again: its hits are nested, missed. */
static void call_again(const struct probe_hit *hit, void *arg)
{
	count_handler(hit, arg);
	pf_sum(1, 1);
}

#define PROBE_CALLS 100

/*
 * probe.hits grows by the hits whose consumers ran, on jump and
 * breakpoint sites alike; nested hits (missed) are not counted. Named
 * probe_* so the harness runs it where text patching works.
 */
KTEST_NEEDS(probe_monitor_hits, 1, FEATURE_PROBES)
{
	struct probe *entry = probe_named("fbt:kernel:pf_sum:entry"), *late = probe_at(pf_sum_late);
	uint64_t entry_hits = 0, late_hits = 0;
	struct probe_site_info info;

	KT_ASSERT(t, entry && late, "fixture probes missing");
	struct probe_consumer c_entry = { .action = PROBE_HANDLER, .handler = call_again,
					  .arg = &entry_hits, .mechanism = PROBE_MECH_JUMP };
	struct probe_consumer c_late = handler_consumer(&late_hits, PROBE_MECH_BREAKPOINT);
	struct probe *probes[] = { entry, late };
	struct probe_consumer *cs[] = { &c_entry, &c_late };
	KT_ASSERT(t, probe_enable_batch(probes, cs, 2) == 2, "enabling the fixture's probes failed");
	probe_site_info((uintptr_t)pf_sum, &info);
	uint64_t missed = info.missed, before = probe_hits_all();
	for (uint64_t i = 0; i < PROBE_CALLS; i++)
		KT_EXPECT(t, pf_sum(i, 1) == pf_sum_expected(i, 1), "wrong result while probed");
	uint64_t grew = probe_hits_all() - before;
	probe_site_info((uintptr_t)pf_sum, &info);
	probe_disable_batch(cs, 2);
	KT_EXPECT(t, entry_hits == PROBE_CALLS && late_hits == PROBE_CALLS,
		  "handlers ran %llu and %llu times for %u calls", (unsigned long long)entry_hits,
		  (unsigned long long)late_hits, PROBE_CALLS);
	KT_EXPECT(t, info.missed - missed == PROBE_CALLS, "%llu nested hits missed, not %u",
		  (unsigned long long)(info.missed - missed), PROBE_CALLS);
	KT_EXPECT(t, grew == 2 * PROBE_CALLS, "probe.hits grew by %llu for %u hits",
		  (unsigned long long)grew, 2 * PROBE_CALLS);
	KT_EXPECT(t, text_identical(), "text differs from the booted image");
}

/*
 * Every per-thread source has a per-process twin "process.STAT" of the
 * same unit and kind that sums it, and only those; slots are distinct;
 * the reader refuses any other source; a thread that leaves a process
 * adds what it had to the process's share (here into a local one).
 */
KTEST(monitor_process_twins, 1)
{
	unsigned threads = 0, processes = 0;
	bool slot_used[MONITOR_THREAD_SOURCES_MAX] = { false };
	for (const struct monitor_source *s = monitor_source_next(NULL); s;
	     s = monitor_source_next(s)) {
		if (s->scope == MONITOR_SCOPE_THREAD) {
			threads++;
			char twin[MONITOR_NAME_MAX];
			KT_EXPECT(t, !strncmp(s->name, "thread.", 7), "%s: not thread.STAT", s->name);
			snprintf(twin, sizeof(twin), "process.%s", s->name + 7);
			const struct monitor_source *p = monitor_source_find(twin);
			KT_EXPECT(t, p && p->scope == MONITOR_SCOPE_PROCESS && p->of_thread == s &&
				  p->kind == s->kind && !strcmp(p->unit, s->unit),
				  "%s has no per-process twin %s", s->name, twin);
			int slot = monitor_thread_slot(s);
			KT_EXPECT(t, slot >= 0 && !slot_used[slot] && p && monitor_thread_slot(p) == slot,
				  "%s: slot %d", s->name, slot);
			if (slot >= 0)
				slot_used[slot] = true;
		} else if (s->scope == MONITOR_SCOPE_PROCESS) {
			processes++;
			KT_EXPECT(t, s->of_thread && !strncmp(s->name, "process.", 8),
				  "%s: a per-process source that sums nothing", s->name);
		} else {
			KT_EXPECT(t, !s->of_thread, "%s sums a thread source", s->name);
		}
	}
	KT_EXPECT(t, threads && threads == processes, "%u per-thread, %u per-process sources",
		  threads, processes);

	static struct monitor_process_row rows[4];
	const struct monitor_source *bad = monitor_source_find("thread.cpu");
	KT_EXPECT(t, monitor_read_processes(&bad, 1, rows, 4) == -EINVAL,
		  "a per-thread source was read per process");

	const struct monitor_source *cpu = monitor_source_find("process.cpu");
	int slot = cpu ? monitor_thread_slot(cpu) : -1;
	struct monitor_exited acc = { { 0 } };
	spin(SPIN_NS / 10);
	uint64_t before = mine("thread.cpu");
	monitor_thread_leaves(thread_current(), &acc);
	uint64_t after = mine("thread.cpu");
	KT_EXPECT(t, slot >= 0 && acc.value[slot] >= before && acc.value[slot] <= after &&
		  acc.value[slot] >= SPIN_NS / 10,
		  "leaving moved %llu ns of thread.cpu (the thread had %llu..%llu)",
		  slot >= 0 ? (unsigned long long)acc.value[slot] : 0ull,
		  (unsigned long long)before, (unsigned long long)after);
	KT_EXPECT(t, monitor_read_processes(&cpu, 1, rows, 0) >= 0,
		  "reading no rows of processes failed");
}
