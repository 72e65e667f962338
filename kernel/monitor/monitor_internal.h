/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Inside the monitor module: what the sampler (sampler.c: the
 * measurement graft on timer.tick, the measurement thread, intervals,
 * bursts, the calendar), the "monitor" stream (monitor_stream.c), the
 * profile configuration (config.c) and the online monitor's red flags
 * (redflag.c) ask of one another.
 *
 * Sources are numbered in name order (monitor_source_next), 0 to
 * monitor_source_count() - 1: the index a stream's records use.
 *
 * Lock order: monitor_config_lock (mutex, config.c) -> monitor_lock
 * (mutex, sampler.c) -> the stream's buffer lock (a leaf spinlock).
 */
#ifndef MONITOR_INTERNAL_H
#define MONITOR_INTERNAL_H

#include <scion/monitor.h>
#include <scion/monitor_rec.h>
#include <scion/compiler.h>

#define MONITOR_SOURCES_MAX 128		/* sources the sampler keeps state for */

/* ---- sampler.c ---------------------------------------------------- */

/* The number of sources and the source at index (NULL past the end). Any context. */
unsigned monitor_source_count(void);
const struct monitor_source *monitor_source_at(unsigned index);
/* index of s, or -1. Any context. */
int monitor_source_index(const struct monitor_source *s);

/*
 * monitor_set_interval - sample the sources that pattern names every ms
 *   milliseconds: a source's name, a resource (the part before the dot:
 *   "bcache" names every bcache.* source) or "*" for all.
 * Return value: the number of sources changed, or -EINVAL / -ENOENT with
 *   one line in why (ms out of PROFILE_MIN_INTERVAL_MS ..
 *   PROFILE_MAX_INTERVAL_MS, nothing named so).
 * Caller's context: thread, may sleep; takes monitor_lock.
 */
int monitor_set_interval(const char *pattern, uint32_t ms, char *why, size_t whylen);

/* The interval of source index, in ms. Any context. */
uint32_t monitor_interval_of(unsigned index);

/*
 * monitor_set_burst - a burst of burst_ms samples 1 ms apart at least
 *   every every_s seconds (burst_ms 0: no bursts).
 * Return value: 0, or -EINVAL with why (burst_ms over 60000, every_s
 *   0 with bursts on, or a burst longer than the time between bursts).
 * Caller's context: thread, may sleep.
 */
int monitor_set_burst(uint32_t burst_ms, uint32_t every_s, char *why, size_t whylen);

/*
 * monitor_set_clock - the calendar runs scale / MONITOR_SCALE_ONE times
 *   as fast as real time from now on; start_s, when not 0, puts the
 *   calendar at that time (seconds since 1970) now.
 * Return value: 0, or -EINVAL with why (scale 0 or over 1000000 x).
 * Caller's context: thread, may sleep (it may read the RTC).
 */
int monitor_set_clock(uint32_t scale, int64_t start_s, char *why, size_t whylen);

/*
 * monitor_real_ms_of - the monotonic milliseconds that calendar_ms of the
 *   calendar take at the present time scale, within the sampler's
 *   interval range (a profile configuration's intervals are calendar time).
 * Caller's context: any.
 */
uint32_t monitor_real_ms_of(uint32_t calendar_ms);

/* The calendar at monotonic time mono_ns (nanoseconds since 1970). Any context. */
int64_t monitor_wall_ns(uint64_t mono_ns);

/* Start / stop sampling. Caller's context: thread, may sleep. */
int monitor_start(char *why, size_t whylen);
void monitor_stop(void);

/*
 * monitor_burst_now - begin a burst at the next wake-up, whatever the
 *   schedule says. Return value: 0, or -EINVAL with why when sampling
 *   is off or bursts are (burst length 0). Caller's context: thread.
 */
int monitor_burst_now(char *why, size_t whylen);

/* The monitor's state now. Caller's context: thread. */
void monitor_get_status(struct monitor_ctl_status *st);

/* ---- config.c ----------------------------------------------------- */

/*
 * monitor_config_load - check a profile configuration file
 *   (scion/profile_config.h) and put it in force: its intervals and
 *   burst schedule through the sampler, its bands to the red flags.
 * Arguments: file/size (copied), msg/msglen: one line either way.
 * Return value: 0 (msg says what was loaded), or a negative errno with
 *   msg saying which check failed; the configuration in force stays.
 * Caller's context: thread, may sleep.
 */
int monitor_config_load(const void *file, size_t size, char *msg, size_t msglen);

/* Whether a configuration is in force; *valid_day its day. Caller's context: thread. */
bool monitor_config_in_force(int64_t *valid_day);

/*
 * monitor_cmd_config - the shell's `monitor config [show]` (argv[0] is
 *   "monitor", argv[1] "config"): the configuration in force (machine,
 *   day, each resource's interval, window, duration, and a banded one's
 *   bucket for the time of day now) and the red flags raised, or "no
 *   profile configuration loaded".
 * Return value: 0, or -EINVAL after a usage line.
 * Caller's context: the shell's thread, may sleep.
 */
int monitor_cmd_config(int argc, char **argv);

/* ---- redflag.c ---------------------------------------------------- */

/*
 * monitor_redflag_observe - the online monitor's view of one sample of
 *   a global or per-CPU source taken at its interval (not in a burst):
 *   value is the source's value (a per-CPU source's sum over the CPUs).
 *   Compares the source's mean over its window with its time-of-day
 *   bucket's band and raises a red flag when it stays outside for the
 *   configured duration.
 * Caller's context: the measurement thread, may sleep; no monitor lock held.
 */
void monitor_redflag_observe(unsigned index, uint64_t mono_ns, int64_t wall_ns, uint64_t value);

/* Red flags raised since boot. Any context. */
uint64_t monitor_redflag_count(void);

/* ---- monitor_stream.c --------------------------------------------- */

/*
 * monitor_stream_round - hand one round to the open stream, if any.
 * Arguments: flags (MONITOR_ROUND_BURST), the round's times, its samples.
 * Caller's context: the measurement thread; no lock held.
 */
void monitor_stream_round(uint16_t flags, uint64_t mono_ns, int64_t wall_ns,
			  const struct monitor_sample *samples, unsigned n);

/* Announce a thread to the open stream the first time a round samples it. */
void monitor_stream_thread(uint64_t tid, const char *name);

/* Announce a process likewise (its pid and name). */
void monitor_stream_process(int32_t pid, const char *name);

/* Counts for monitor_get_status. */
bool monitor_stream_open(void);
void monitor_stream_totals(uint64_t *written, uint64_t *dropped);

#endif
