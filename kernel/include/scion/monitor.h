/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Self-monitoring's statistics sources (VINO): every module publishes
 * the counters and gauges it keeps through the monitor_sources linker
 * table, never a hand-kept list, and the monitor (kernel/monitor/) reads
 * them all at each sampling round.
 *
 *   MONITOR_GLOBAL(bcache_hits, "bcache.hits", "reads", MONITOR_COUNTER, read_hits);
 *
 * A name is "resource.statistic" (the resource is what a profile's
 * interval and bands are kept for); a counter only grows (the analysis
 * takes differences), a gauge is a level. A source is global, per CPU
 * (read once for each CPU index) or per thread (read once for each
 * thread). Every per-thread statistic is published twice, with the same
 * decomposition per process: MONITOR_PER_THREAD(id, "cpu", ...) makes
 * "thread.cpu" (each thread's value) and "process.cpu" (a user
 * process's value: the sum over its live threads plus what its threads
 * that already exited had when they left it). A kernel thread belongs
 * to no process and counts only per thread.
 */
#ifndef SCION_MONITOR_H
#define SCION_MONITOR_H

#include <scion/compiler.h>

struct thread;

enum monitor_kind {
	MONITOR_COUNTER,	/* grows; the difference over an interval is what happened */
	MONITOR_GAUGE,		/* a level at the moment it is read */
};

enum monitor_scope {
	MONITOR_SCOPE_GLOBAL,
	MONITOR_SCOPE_CPU,
	MONITOR_SCOPE_THREAD,
	MONITOR_SCOPE_PROCESS,	/* a per-thread source summed over each process's threads */
};

#define MONITOR_NAME_MAX 32	/* bytes of a source's name, NUL included */
#define MONITOR_UNIT_MAX 16

struct monitor_source {
	const char *name;
	const char *unit;
	uint8_t kind;		/* enum monitor_kind */
	uint8_t scope;		/* enum monitor_scope */
	/*
	 * The reader of the source's scope (a per-process source has its
	 * per-thread twin's, read for each thread of the process).
	 * Caller's context: thread. global and cpu may sleep; thread is
	 * called for each thread with sched_lock held (it may not sleep or
	 * take a lock) and reads only that thread's fields.
	 */
	union {
		uint64_t (*global)(void);
		uint64_t (*cpu)(unsigned cpu);
		uint64_t (*thread)(const struct thread *t);
	} read;
	/* A per-process source: the per-thread source it sums (else NULL). */
	const struct monitor_source *of_thread;
};

LINKER_TABLE_DECLARE(struct monitor_source, monitor_sources);

#define MONITOR_SOURCE_(id, sname, sunit, skind, sscope, member, fn)			\
	MONITOR_SOURCE_OF_(id, sname, sunit, skind, sscope, member, fn, NULL)
#define MONITOR_SOURCE_OF_(id, sname, sunit, skind, sscope, member, fn, of)		\
	static const struct monitor_source monitor_source_##id				\
	LINKER_TABLE_ENTRY(monitor_sources) = {						\
		.name = sname, .unit = sunit, .kind = skind, .scope = sscope,		\
		.read.member = fn, .of_thread = of,					\
	};										\
	_Static_assert(sizeof(sname) <= MONITOR_NAME_MAX, "monitor source name too long"); \
	_Static_assert(sizeof(sunit) <= MONITOR_UNIT_MAX, "monitor source unit too long")

#define MONITOR_GLOBAL(id, name, unit, kind, fn) \
	MONITOR_SOURCE_(id, name, unit, kind, MONITOR_SCOPE_GLOBAL, global, fn)
#define MONITOR_PER_CPU(id, name, unit, kind, fn) \
	MONITOR_SOURCE_(id, name, unit, kind, MONITOR_SCOPE_CPU, cpu, fn)
/* stat: the statistic alone ("cpu"): publishes "thread." stat and "process." stat. */
#define MONITOR_PER_THREAD(id, stat, unit, kind, fn)					\
	MONITOR_SOURCE_(id, "thread." stat, unit, kind, MONITOR_SCOPE_THREAD, thread, fn);	\
	MONITOR_SOURCE_OF_(id##_process, "process." stat, unit, kind, MONITOR_SCOPE_PROCESS,	\
			   thread, fn, &monitor_source_##id)

/*
 * monitor_source_find - the source called name, or NULL.
 * Caller's context: any.
 */
const struct monitor_source *monitor_source_find(const char *name);

/* The sources in name order: the one after prev (NULL: the first), or NULL. Any context. */
const struct monitor_source *monitor_source_next(const struct monitor_source *prev);

/*
 * monitor_read - a global or per-CPU source's value (index: the CPU for
 *   a per-CPU source, ignored for a global one).
 * Return value: 0 with *value, or -EINVAL for a per-thread source or a
 *   CPU index out of range.
 * Caller's context: thread, may sleep.
 */
int monitor_read(const struct monitor_source *s, unsigned index, uint64_t *value);

/* One thread's per-thread sources, read together (monitor_read_threads). */
#define MONITOR_THREAD_SOURCES_MAX 8
struct monitor_thread_row {
	uint64_t tid;
	char name[24];
	uint64_t value[MONITOR_THREAD_SOURCES_MAX];	/* in the order of sources[] */
};

/*
 * monitor_read_threads - every thread's per-thread sources, at one moment;
 *   the CPUs' idle threads are left out (their time is cpu.idle), so the
 *   threads' thread.cpu adds up to the CPUs' busy time less interrupts.
 * Arguments: sources (nsources of them, at most MONITOR_THREAD_SOURCES_MAX,
 *   each per-thread), rows (room for max).
 * Return value: the threads there are (more than max when rows ran out:
 *   the first max were filled), or -EINVAL for a bad source list.
 * Caller's context: thread, no spinlock held (scheduling waits meanwhile).
 */
int monitor_read_threads(const struct monitor_source *const *sources, unsigned nsources,
			 struct monitor_thread_row *rows, unsigned max);

/*
 * A process's share of its threads that exited (struct process holds
 * one): for each per-thread source, what the threads had when they left
 * the process, by the source's slot (monitor_thread_slot).
 */
struct monitor_exited {
	uint64_t value[MONITOR_THREAD_SOURCES_MAX];
};

/* The slot of a per-thread source (or of a per-process one's twin) in a
 * struct monitor_exited, or -1 past MONITOR_THREAD_SOURCES_MAX. Any context. */
int monitor_thread_slot(const struct monitor_source *s);

/*
 * monitor_thread_leaves - add every per-thread source of t, read now,
 *   into acc: a thread leaving its process (it exits) keeps its share
 *   in the process's per-process figures.
 * Caller's context: t itself, before it stops counting as the
 *   process's; takes sched_lock (proc_lock may be held).
 */
void monitor_thread_leaves(const struct thread *t, struct monitor_exited *acc);

/* One process's per-process sources, read together (monitor_read_processes). */
struct monitor_process_row {
	int32_t pid;
	uint32_t threads;		/* live threads now (0: it exited, a zombie) */
	char name[24];
	uint64_t value[MONITOR_THREAD_SOURCES_MAX];	/* in the order of sources[] */
};

/*
 * monitor_read_processes - every process's per-process sources, at one
 *   moment: for each, the sum of its twin per-thread source over the
 *   process's live threads plus its exited threads' share.
 * Arguments: sources (nsources of them, at most MONITOR_THREAD_SOURCES_MAX,
 *   each per-process), rows (room for max).
 * Return value: the processes there are (more than max when rows ran
 *   out: the first max were filled), or -EINVAL for a bad source list.
 * Caller's context: thread, no spinlock held.
 */
int monitor_read_processes(const struct monitor_source *const *sources, unsigned nsources,
			   struct monitor_process_row *rows, unsigned max);

/*
 * monitor_ctl_request - the channel's MONITOR op (kernel/monitor/monitor_op.c):
 *   body is a struct monitor_ctl_request (scion/monitor_rec.h).
 * Return value: 0, or the -errno its error frame carried.
 * Caller's context: the channel thread, may sleep.
 */
int monitor_ctl_request(uint32_t seq, const uint8_t *body, uint32_t len);

/*
 * monitor_profile_config_request - the PROFILE_CONFIG op
 *   (scion/chan_proto.h, scion/monitor_rec.h): the body is a profile
 *   configuration file (scion/profile_config.h), loaded as the one in
 *   force; the answer is the loader's one line, or an error frame with
 *   the line naming the check that refused it.
 * Return value: 0, or the negative errno sent.
 * Caller's context: the channel thread, may sleep.
 */
int monitor_profile_config_request(uint32_t seq, const uint8_t *body, uint32_t len);

/*
 * monitor_config_boot - load the profile configurations given as boot
 *   modules (kernel/monitor/config_boot.c), printing one line for each.
 * Caller's context: the init thread, once, after graft_init.
 */
void monitor_config_boot(void);

/*
 * A red flag as its subscribers see it: the source's name (a kernel
 * string), its window's value and the band it left, in
 * PROFILE_VALUE_SCALE units (per second for a counter).
 */
struct monitor_redflag {
	const char *source;
	int64_t value, low, high, expected;
	uint64_t outside_ms;
};

#define MONITOR_REDFLAG_SUBSCRIBERS 4

/* A value in PROFILE_VALUE_SCALE units as a decimal: 1500 -> "1.500". Any context. */
void monitor_config_format_value(int64_t v, char *out, size_t size);

/*
 * monitor_redflag_subscribe - have fn called with every red flag raised
 *   from now on (the adaptation loop's detector, kernel/adapt/).
 * Arguments: fn, called with the flag; it must not sleep for long (the
 *   measurement thread's next sample waits for it) and must not take
 *   monitor_config_lock.
 * Return value: 0, or -ENOSPC when MONITOR_REDFLAG_SUBSCRIBERS are taken.
 * Caller's context: thread. fn runs on the measurement thread with no
 *   lock held, after the flag's event line and sdt probe.
 */
int monitor_redflag_subscribe(void (*fn)(const struct monitor_redflag *flag));

#endif
