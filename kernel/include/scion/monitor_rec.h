/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The monitor's wire formats (VINO self-monitoring): the records of the
 * "monitor" stream that carries the measurement thread's samples to the
 * host (`scion profile collect`), and the bodies of the MONITOR and
 * PROFILE_CONFIG channel ops that control it. The host's parsers are
 * generated from this header (tools/gen_layouts.py); all integers are
 * little-endian.
 *
 * The stream. STREAM_OPEN "monitor BUFSIZE SWITCH_MS" turns sampling on
 * (if it was off) for as long as the stream is open; one monitor stream
 * at a time. The per-CPU buffers carry records, each starting with a
 * struct monitor_rec_head:
 *
 *   1. at open, one MONITOR_REC_SOURCE per statistics source, before
 *      any round (the stream describes itself: a source's index in a
 *      sample is its index here);
 *   2. MONITOR_REC_THREAD the first time a round samples a thread (its
 *      tid and name), MONITOR_REC_PROCESS the first time a round samples
 *      a process (its pid and name);
 *   3. MONITOR_REC_ROUND: one sampling round's time and its samples.
 *      A round whose samples do not fit one record continues in the
 *      next records with the same seq (MONITOR_ROUND_CONTINUED); the
 *      measurement thread writes a round from one CPU, in order.
 *
 * A round (or a part of one) that finds no room in its buffer is not
 * written: its samples are counted as dropped, and the next round
 * written carries lost_before, the samples lost since the one before,
 * so the host stores the gap where it was. Every drain ends with a
 * status chunk (CHAN_CHUNK_STATUS, struct monitor_stream_status) whose
 * counts cover the whole stream: the host checks that the samples it
 * stored equal samples_written.
 *
 * Times: mono_ns is clock_ns() (since boot); wall_ns is the calendar:
 * the RTC's time at the anchor plus the monotonic time since, times
 * the time scale (MONITOR_SCALE_ONE is real time; `monitor clock`
 * sets the scale and optionally where the simulated calendar starts).
 * Sampling intervals and bursts' 1 ms steps are monotonic time, so a
 * time scale changes where samples fall in the day, not how often they
 * are taken; a counter's rate is per monotonic second. What follows the
 * day is calendar time: the burst schedule, and a profile
 * configuration's buckets, windows and durations (a window of 15
 * minutes is 15 minutes of the day, under any scale). So a day at
 * scale 1440 passes in a minute and looks, bucket by bucket, like a
 * real one sampled more sparsely. A counter's value is cumulative; a per-CPU source has one
 * sample per CPU (scope_id the CPU), a per-thread one per thread
 * (scope_id the tid), a per-process one per process (scope_id the pid:
 * the sum over its threads, those that exited included, so a zombie
 * keeps its final figures until it is reaped), a global one scope_id 0.
 */
#ifndef SCION_MONITOR_REC_H
#define SCION_MONITOR_REC_H

#include <stdint.h>

#define MONITOR_STREAM_VERSION     2	/* 2: per-process sources and records */
#define MONITOR_SOURCE_NAME_MAX    32	/* = MONITOR_NAME_MAX (scion/monitor.h) */
#define MONITOR_SOURCE_UNIT_MAX    16
#define MONITOR_THREAD_NAME_MAX    24
#define MONITOR_PROCESS_NAME_MAX   24
#define MONITOR_ROUND_SAMPLES_MAX  250	/* samples in one round record */
#define MONITOR_SCALE_ONE          1000	/* time scale in thousandths: 1000 = real time */
#define MONITOR_DEFAULT_INTERVAL_MS 100
#define MONITOR_DEFAULT_BURST_MS   500	/* 1 ms samples in a burst */
#define MONITOR_DEFAULT_BURST_EVERY_S 3600

enum monitor_rec_type {
	MONITOR_REC_SOURCE = 1,
	MONITOR_REC_THREAD = 2,
	MONITOR_REC_ROUND = 3,
	MONITOR_REC_PROCESS = 4,
};

struct monitor_rec_head {
	uint16_t type;			/* enum monitor_rec_type */
	uint16_t size;			/* the whole record's bytes, samples included */
};

/* kind and scope as scion/monitor.h's enums (counter 0, gauge 1; global, cpu, thread,
 * process). */
struct monitor_rec_source {
	struct monitor_rec_head head;
	uint16_t index;			/* what samples call it */
	uint8_t kind;			/* enum monitor_kind */
	uint8_t scope;			/* enum monitor_scope */
	uint32_t interval_ms;		/* its sampling interval when the stream opened */
	uint32_t reserved;
	char name[MONITOR_SOURCE_NAME_MAX];	/* "bcache.hits", NUL-padded */
	char unit[MONITOR_SOURCE_UNIT_MAX];
};

struct monitor_rec_thread {
	struct monitor_rec_head head;
	uint32_t reserved;
	uint64_t tid;
	char name[MONITOR_THREAD_NAME_MAX];	/* NUL-padded */
};

struct monitor_rec_process {
	struct monitor_rec_head head;
	int32_t pid;
	char name[MONITOR_PROCESS_NAME_MAX];	/* the program's name, NUL-padded */
};

#define MONITOR_ROUND_BURST      0x1u	/* a 1 ms sample of a burst */
#define MONITOR_ROUND_CONTINUED  0x2u	/* more samples of the round before (same seq) */

struct monitor_sample {
	uint16_t source;		/* index of its MONITOR_REC_SOURCE */
	uint16_t reserved;
	uint32_t scope_id;		/* 0, the CPU, the tid or the pid */
	uint64_t value;
};

struct monitor_rec_round {
	struct monitor_rec_head head;
	uint16_t nsamples;		/* after this header */
	uint16_t flags;			/* MONITOR_ROUND_* */
	uint32_t seq;			/* 1, 2, ...: rounds of this stream */
	uint32_t lost_before;		/* samples dropped since the last round written */
	uint64_t mono_ns;
	int64_t wall_ns;		/* nanoseconds since 1970 on the (scaled) calendar */
	struct monitor_sample samples[];
};

/* Every drain's last chunk: the stream's counts so far. */
struct monitor_stream_status {
	uint32_t version;		/* MONITOR_STREAM_VERSION */
	uint32_t sources;		/* MONITOR_REC_SOURCE records written at open */
	uint64_t rounds_written;
	uint64_t samples_written;	/* in rounds that reached the buffers */
	uint64_t samples_dropped;	/* in rounds that did not */
	uint64_t rounds_dropped;
	uint64_t redflags;		/* red flags raised while the stream was open */
	int64_t last_wall_ns;		/* of the last round written (0: none yet) */
	uint32_t ended;			/* 1 in the last status: the stream closed */
	uint32_t reserved;
};

/*
 * The MONITOR op (CHAN_OP_MONITOR): one struct monitor_ctl_request; the
 * answer is struct monitor_ctl_status (the state after the command),
 * or an error frame with one line. `monitor ...` in the shell does the
 * same for people.
 */
enum monitor_ctl_cmd {
	MONITOR_CTL_STATUS = 1,		/* change nothing */
	MONITOR_CTL_INTERVAL = 2,	/* name (a source or a resource prefix "cpu"; "*": all), ms */
	MONITOR_CTL_BURST = 3,		/* ms = 1 ms samples per burst (0: none), every_s */
	MONITOR_CTL_CLOCK = 4,		/* scale (thousandths), start_s (0: keep the calendar where it is) */
	MONITOR_CTL_START = 5,		/* sample (without a stream: red flags only) */
	MONITOR_CTL_STOP = 6,
	MONITOR_CTL_BURST_NOW = 7,	/* start a burst now */
};

struct monitor_ctl_request {
	uint32_t cmd;			/* enum monitor_ctl_cmd */
	uint32_t ms;
	uint32_t every_s;
	uint32_t scale;
	int64_t start_s;
	char name[MONITOR_SOURCE_NAME_MAX];
};

struct monitor_ctl_status {
	uint32_t running;		/* sampling */
	uint32_t streaming;		/* a monitor stream is open */
	uint32_t sources;
	uint32_t min_interval_ms;	/* the shortest source interval */
	uint32_t burst_ms;
	uint32_t burst_every_s;
	uint32_t scale;			/* thousandths */
	uint32_t config_loaded;		/* a profile configuration is in force */
	uint64_t rounds;		/* sampling rounds since boot */
	uint64_t bursts;		/* bursts since boot */
	uint64_t samples_written;	/* since boot, into streams */
	uint64_t samples_dropped;
	uint64_t redflags;		/* raised since boot */
	int64_t wall_ns;		/* the calendar now */
	uint64_t mono_ns;
	int64_t config_valid_day;	/* the loaded configuration's day, seconds since 1970 */
};

/*
 * PROFILE_CONFIG (CHAN_OP_PROFILE_CONFIG): the bytes of a profile
 * configuration file (scion/profile_config.h) -> one line saying what
 * was loaded, or an error frame with the one line that says why not
 * (the configuration in force stays).
 */

#endif
