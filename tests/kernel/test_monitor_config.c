// SPDX-License-Identifier: BSD-2-Clause
/*
 * In-kernel tests of the profile configuration loader (kernel/monitor/
 * config.c) and the online monitor's red flags (redflag.c): a good file
 * loads and sets the sampler's intervals; every check profile_config.h
 * lists refuses a file made to fail it alone, with one line naming the
 * field, and the configuration in force stays; synthetic series of a
 * gauge and a counter raise exactly the flags their bands call for, in
 * the bucket of the sample's time of day, and the monitor:::redflag
 * probe sees each with its arguments. The files are built here, with
 * the CRC the channel's frames use (zlib's), in native order, and loaded
 * as the host sends them: little-endian (as_sent).
 */
#include <scion/ktest.h>
#include <scion/monitor.h>
#include <scion/mm.h>
#include <scion/errno.h>
#include <scion/string.h>
#include <scion/profile_config.h>
#include <scion/chan_wire.h>
#include <arch/trap.h>
#include "probe_test.h"
#include "../../kernel/channel/frame.h"
#include "../../kernel/monitor/monitor_internal.h"

#define DAY_2026_11_25  1795564800	/* seconds since 1970 */
#define DAY_2026_11_26  1795651200
#define BUCKETS         96		/* 15 minutes each */
#define BUCKET_MS       (PROFILE_DAY_MS / BUCKETS)
#define NS_PER_MS       1000000ull
#define MSG_BYTES       256
#define SCALE           PROFILE_VALUE_SCALE

/* A profile configuration under construction: a file in buf and typed views of it. */
struct cfg_file {
	uint8_t *buf;
	size_t size;
	struct profile_config_header *h;
	struct profile_config_resource *r;
	struct profile_config_bucket *b;	/* resource i's at i * h->bucket_count */
};

struct resource_spec {
	const char *name;
	uint8_t kind, scope;
	uint32_t interval_ms, window_ms, duration_ms;
	bool banded;
};

/* Each bucket k of a banded resource: expected (k + 1) * unit, band +- unit / 2. */
static void fill_buckets(struct cfg_file *f, unsigned i, int64_t unit)
{
	for (unsigned k = 0; k < f->h->bucket_count; k++) {
		struct profile_config_bucket *b = &f->b[i * f->h->bucket_count + k];
		b->expected = (int64_t)(k + 1) * unit;
		b->low = b->expected - unit / 2;
		b->high = b->expected + unit / 2;
	}
}

/* Fill in total_size and the CRC, as the host's writer does. */
static void seal(struct cfg_file *f)
{
	f->h->total_size = (uint32_t)f->size;
	f->h->crc32 = 0;
	f->h->crc32 = chan_crc32(0, f->buf, f->size);
}

static bool build(struct cfg_file *f, const struct resource_spec *specs, unsigned n,
		  int64_t day, int64_t unit)
{
	f->size = sizeof(*f->h) + n * (sizeof(*f->r) + BUCKETS * sizeof(*f->b));
	f->buf = kzalloc(f->size + 64);		/* room to pad the file in a test */
	if (!f->buf)
		return false;
	f->h = (void *)f->buf;
	f->r = (void *)(f->buf + sizeof(*f->h));
	f->b = (void *)(f->buf + sizeof(*f->h) + n * sizeof(*f->r));
	*f->h = (struct profile_config_header){
		.magic = PROFILE_CONFIG_MAGIC, .version = PROFILE_CONFIG_VERSION,
		.header_size = sizeof(*f->h), .resource_size = sizeof(*f->r),
		.bucket_size = sizeof(*f->b), .resource_count = n, .bucket_count = BUCKETS,
		.bucket_ms = BUCKET_MS, .value_scale = PROFILE_VALUE_SCALE, .valid_day = day,
		.generated = day - 3600, .burst_every_s = 3600, .burst_ms = 500,
	};
	strlcpy(f->h->machine, "testbox", sizeof(f->h->machine));
	for (unsigned i = 0; i < n; i++) {
		struct profile_config_resource *r = &f->r[i];
		strlcpy(r->name, specs[i].name, sizeof(r->name));
		r->kind = specs[i].kind;
		r->scope = specs[i].scope;
		r->interval_ms = specs[i].interval_ms;
		r->window_ms = specs[i].window_ms;
		r->duration_ms = specs[i].duration_ms;
		r->flags = specs[i].banded ? PROFILE_FLAG_BANDED : 0;
		if (specs[i].banded)
			fill_buckets(f, i, unit);
	}
	seal(f);
	return true;
}

static const struct resource_spec standard[] = {
	{ "cpu.busy", PROFILE_KIND_COUNTER, PROFILE_SCOPE_CPU, 50, 1000, 5000, true },
	{ "mm.free", PROFILE_KIND_GAUGE, PROFILE_SCOPE_GLOBAL, 200, 200, 400, true },
	{ "thread.cpu", PROFILE_KIND_COUNTER, PROFILE_SCOPE_THREAD, 1000, 1000, 1000, false },
	{ "nosuch.resource", PROFILE_KIND_GAUGE, PROFILE_SCOPE_GLOBAL, 100, 100, 100, true },
};
#define STANDARD_N (sizeof(standard) / sizeof(standard[0]))

static unsigned index_of(const char *name)
{
	const struct monitor_source *s = monitor_source_find(name);
	int i = s ? monitor_source_index(s) : -1;
	return i < 0 ? MONITOR_SOURCES_MAX : (unsigned)i;
}

/* zlib's CRC-32 of a file with its crc32 field taken as zero, as seal() computes it. */
static uint32_t crc_without_field(const uint8_t *file, size_t size)
{
	struct profile_config_header h;
	memcpy(&h, file, sizeof(h));
	h.crc32 = 0;
	uint32_t crc = chan_crc32(0, &h, sizeof(h));
	return chan_crc32(crc, file + sizeof(h), size - sizeof(h));
}

/*
 * f as the host sends it, in room bytes (at least f->size; zeros after):
 * little-endian, as profile_config.h says. The tests build and break
 * files in native order; on a big-endian machine the copy is turned
 * (what does not fit the file's bytes, by a broken count, is left as it
 * is) and its CRC made anew over the turned bytes, off by as much as the
 * test left f's CRC off (a seal kept, a seal broken). NULL: no memory.
 */
static uint8_t *as_sent(const struct cfg_file *f, size_t room)
{
	uint8_t *wire = kzalloc(room);
	if (!wire || !CHAN_WIRE_SWAPS || f->size < sizeof(*f->h)) {
		if (wire)
			memcpy(wire, f->buf, f->size);
		return wire;
	}
	memcpy(wire, f->buf, f->size);
	uint32_t off_by = f->h->crc32 ^ crc_without_field(f->buf, f->size);
	size_t resources = (f->size - sizeof(*f->h)) / sizeof(*f->r);
	if (resources > f->h->resource_count)
		resources = f->h->resource_count;
	size_t at = sizeof(*f->h) + resources * sizeof(*f->r);
	uint64_t buckets = (uint64_t)resources * f->h->bucket_count;
	if (buckets > (f->size - at) / sizeof(*f->b))
		buckets = (f->size - at) / sizeof(*f->b);
	chan_wire_to_le(CHAN_WIRE(profile_config_resource), wire + sizeof(*f->h), resources);
	chan_wire_to_le(CHAN_WIRE(profile_config_bucket), wire + at, (size_t)buckets);
	chan_wire_to_le(CHAN_WIRE(profile_config_header), wire, 1);
	uint32_t crc = crc_without_field(wire, f->size) ^ off_by;
	for (unsigned i = 0; i < sizeof(crc); i++)	/* the field alone, little-endian */
		wire[offsetof(struct profile_config_header, crc32) + i] = (uint8_t)(crc >> (8 * i));
	return wire;
}

static int load(const struct cfg_file *f, char *msg)
{
	uint8_t *wire = as_sent(f, f->size);
	if (!wire) {
		snprintf(msg, MSG_BYTES, "test: no memory for the file as sent");
		return -ENOMEM;
	}
	int err = monitor_config_load(wire, f->size, msg, MSG_BYTES);
	kfree(wire);
	return err;
}

/* The sampler's intervals before a test, put back after it. */
struct saved_intervals {
	uint32_t ms[MONITOR_SOURCES_MAX];
};

static void save_intervals(struct saved_intervals *s)
{
	for (unsigned i = 0; i < MONITOR_SOURCES_MAX; i++)
		s->ms[i] = i < monitor_source_count() ? monitor_interval_of(i) : 0;
}

static void restore_intervals(const struct saved_intervals *s)
{
	char why[96];
	for (unsigned i = 0; i < monitor_source_count(); i++)
		monitor_set_interval(monitor_source_at(i)->name, s->ms[i], why, sizeof(why));
}

KTEST(monitor_config_load_good, 1)
{
	static struct saved_intervals saved;
	struct cfg_file f;
	char msg[MSG_BYTES];
	int64_t day = 0;

	save_intervals(&saved);
	unsigned busy = index_of("cpu.busy"), free_ = index_of("mm.free"),
		 tcpu = index_of("thread.cpu");
	KT_ASSERT(t, busy < MONITOR_SOURCES_MAX && free_ < MONITOR_SOURCES_MAX &&
		  tcpu < MONITOR_SOURCES_MAX, "cpu.busy, mm.free or thread.cpu has no index");
	/* Start from intervals the file will change. */
	monitor_set_interval("cpu.busy", 100, msg, sizeof(msg));
	monitor_set_interval("mm.free", 100, msg, sizeof(msg));
	monitor_set_interval("thread.cpu", 100, msg, sizeof(msg));
	KT_ASSERT(t, build(&f, standard, STANDARD_N, DAY_2026_11_25, 100 * SCALE), "no memory");
	int err = load(&f, msg);
	KT_EXPECT(t, err == 0, "refused: %s", msg);
	KT_EXPECT(t, !strcmp(msg, "profile config: loaded for 2026-11-25 (machine testbox): 4 "
			     "resources, 96 buckets of 15 min, 3 intervals changed, 1 unknown"),
		  "said '%s'", msg);
	KT_EXPECT(t, monitor_interval_of(busy) == 50 && monitor_interval_of(free_) == 200 &&
		  monitor_interval_of(tcpu) == 1000, "intervals %u %u %u, not 50 200 1000",
		  monitor_interval_of(busy), monitor_interval_of(free_), monitor_interval_of(tcpu));
	KT_EXPECT(t, monitor_config_in_force(&day) && day == DAY_2026_11_25,
		  "in force for day %lld", (long long)day);

	/* The same file again changes no interval; another day replaces it whole. */
	err = load(&f, msg);
	KT_EXPECT(t, err == 0 && strstr(msg, " 0 intervals changed, 1 unknown"), "said '%s'", msg);
	f.h->valid_day = DAY_2026_11_26;
	f.r[0].interval_ms = 20;
	seal(&f);
	err = load(&f, msg);
	KT_EXPECT(t, err == 0 && strstr(msg, "loaded for 2026-11-26") &&
		  strstr(msg, " 1 intervals changed"), "said '%s'", msg);
	KT_EXPECT(t, monitor_config_in_force(&day) && day == DAY_2026_11_26 &&
		  monitor_interval_of(busy) == 20, "day %lld, cpu.busy every %u ms",
		  (long long)day, monitor_interval_of(busy));

	/* Bands are checked only for banded resources: thread.cpu's zeroed buckets are fine. */
	f.r[2].flags = 0;
	f.b[2 * BUCKETS].low = 5;
	seal(&f);
	err = load(&f, msg);
	KT_EXPECT(t, err == 0, "an unbanded resource's buckets were checked: %s", msg);
	kfree(f.buf);
	restore_intervals(&saved);
}

/* One refusal: how to break a good file, and what the line must name. */
struct refusal {
	const char *what;
	void (*breaks)(struct cfg_file *f);	/* then sealed, unless it breaks the seal itself */
	bool keep_seal;
	const char *names;
};

#define BREAK(id, stmt) static void break_##id(struct cfg_file *f) { stmt; }
BREAK(short_header, f->size = sizeof(*f->h) - 1)
BREAK(magic, f->h->magic ^= 1)
BREAK(version, f->h->version = 2)
BREAK(header_size, f->h->header_size = 95)
BREAK(resource_size, f->h->resource_size = 49)
BREAK(bucket_size, f->h->bucket_size = 16)
BREAK(value_scale, f->h->value_scale = 100)
BREAK(resources_0, f->h->resource_count = 0)
BREAK(resources_max, f->h->resource_count = PROFILE_MAX_RESOURCES + 1)
BREAK(buckets_0, f->h->bucket_count = 0)
BREAK(buckets_max, f->h->bucket_count = PROFILE_MAX_BUCKETS + 1)
BREAK(bucket_ms, f->h->bucket_ms += 1)
BREAK(total_size_over, f->h->total_size += 24; f->h->crc32 = 0;
      f->h->crc32 = chan_crc32(0, f->buf, f->size))
BREAK(total_size_under, f->h->total_size -= 1; f->h->crc32 = 0;
      f->h->crc32 = chan_crc32(0, f->buf, f->size))
BREAK(padded, f->size += 24)	/* total_size says so too: the counts do not */
BREAK(truncated, f->h->total_size = (uint32_t)f->size; f->h->crc32 = 0;
      f->h->crc32 = chan_crc32(0, f->buf, f->size); f->size -= 1)
BREAK(crc, f->h->crc32 ^= 0x100)
BREAK(crc_contents, f->b[5].expected ^= 1 << 20)
BREAK(reserved, f->h->reserved = 1)
BREAK(machine_unterminated, memset(f->h->machine, 'm', sizeof(f->h->machine)))
BREAK(machine_empty, memset(f->h->machine, 0, sizeof(f->h->machine)))
BREAK(name_empty, memset(f->r[1].name, 0, sizeof(f->r[1].name)))
BREAK(name_unterminated, memset(f->r[1].name, 'a', sizeof(f->r[1].name)))
BREAK(name_unprintable, f->r[1].name[2] = 7)
BREAK(name_space, f->r[1].name[2] = ' ')
BREAK(name_padding, f->r[1].name[sizeof(f->r[1].name) - 1] = 'x')
BREAK(name_duplicate, memset(f->r[2].name, 0, sizeof(f->r[2].name));
      strlcpy(f->r[2].name, "cpu.busy", sizeof(f->r[2].name)))
BREAK(kind, f->r[1].kind = 2)
BREAK(scope, f->r[1].scope = 3)
BREAK(flags, f->r[1].flags |= 0x4)
BREAK(interval_below, f->r[1].interval_ms = 0)
BREAK(interval_above, f->r[1].interval_ms = PROFILE_MAX_INTERVAL_MS + 1)
BREAK(window, f->r[1].window_ms = f->r[1].interval_ms - 1)
BREAK(duration_below, f->r[1].duration_ms = f->r[1].window_ms - 1)
BREAK(duration_above, f->r[1].duration_ms = PROFILE_DAY_MS + 1)
BREAK(low_above_expected, f->b[BUCKETS + 7].low = f->b[BUCKETS + 7].expected + 1)
BREAK(expected_above_high, f->b[BUCKETS + 9].expected = f->b[BUCKETS + 9].high + 1)
BREAK(low_negative, f->b[BUCKETS + 3].low = -1)
BREAK(burst, f->h->burst_ms = 70000)

static const struct refusal refusals[] = {
	{ "header cut short", break_short_header, true, "95 bytes, shorter than the 96-byte header" },
	{ "magic", break_magic, false, "magic 0x46435052" },
	{ "version", break_version, false, "version 2" },
	{ "header_size", break_header_size, false, "header_size 95" },
	{ "resource_size", break_resource_size, false, "resource_size 49" },
	{ "bucket_size", break_bucket_size, false, "bucket_size 16" },
	{ "value_scale", break_value_scale, false, "value_scale 100" },
	{ "no resources", break_resources_0, false, "resource_count 0" },
	{ "too many resources", break_resources_max, false, "resource_count 257" },
	{ "no buckets", break_buckets_0, false, "bucket_count 0" },
	{ "too many buckets", break_buckets_max, false, "bucket_count 1441" },
	{ "buckets not a day", break_bucket_ms, false, "bucket_ms 900001 is not a day" },
	{ "total_size over the file", break_total_size_over, true, "the file has" },
	{ "total_size under the file", break_total_size_under, true, "the file has" },
	{ "padded file", break_padded, false, "buckets make" },
	{ "truncated file", break_truncated, true, "the file has" },
	{ "crc field", break_crc, true, "crc32" },
	{ "contents under the crc", break_crc_contents, true, "crc32" },
	{ "reserved", break_reserved, false, "reserved" },
	{ "machine unterminated", break_machine_unterminated, false, "machine name not NUL" },
	{ "machine empty", break_machine_empty, false, "machine name empty" },
	{ "name empty", break_name_empty, false, "resource 1: name empty" },
	{ "name unterminated", break_name_unterminated, false, "resource 1: name not NUL" },
	{ "name unprintable", break_name_unprintable, false, "resource 1: name unprintable byte 0x07" },
	{ "name with a space", break_name_space, false, "resource 1: name unprintable byte 0x20" },
	{ "name padding", break_name_padding, false, "resource 1: name byte 31 after the NUL" },
	{ "name twice", break_name_duplicate, false, "resource 2 'cpu.busy': name is resource 0's" },
	{ "kind", break_kind, false, "resource 1 'mm.free': kind 2 unknown" },
	{ "scope", break_scope, false, "resource 1 'mm.free': scope 3 unknown" },
	{ "flag", break_flags, false, "resource 1 'mm.free': flags 0x5 has unknown flag 0x4" },
	{ "interval below", break_interval_below, false, "'mm.free': interval_ms 0 below 1" },
	{ "interval above", break_interval_above, false, "'mm.free': interval_ms 3600001 above" },
	{ "window", break_window, false, "'mm.free': window_ms 199 below interval_ms 200" },
	{ "duration below", break_duration_below, false, "'mm.free': duration_ms 199 below window_ms" },
	{ "duration above", break_duration_above, false, "'mm.free': duration_ms 86400001 above a day" },
	{ "low above expected", break_low_above_expected, false, "'mm.free': bucket 7: low" },
	{ "expected above high", break_expected_above_high, false, "'mm.free': bucket 9: expected" },
	{ "low negative", break_low_negative, false, "'mm.free': bucket 3: low -1 below 0" },
	{ "burst the sampler refuses", break_burst, false, "burst_ms 70000" },
};

KTEST(monitor_config_refusals, 1)
{
	static struct saved_intervals saved;
	struct cfg_file good, f;
	char msg[MSG_BYTES];
	int64_t day = 0;

	save_intervals(&saved);
	KT_ASSERT(t, build(&good, standard, STANDARD_N, DAY_2026_11_25, 100 * SCALE), "no memory");
	KT_ASSERT(t, load(&good, msg) == 0, "the good file was refused: %s", msg);
	uint32_t busy_ms = monitor_interval_of(index_of("cpu.busy"));
	for (size_t i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++) {
		const struct refusal *c = &refusals[i];
		KT_ASSERT(t, build(&f, standard, STANDARD_N, DAY_2026_11_26, 100 * SCALE),
			  "no memory");
		f.r[0].interval_ms = busy_ms + 1;	/* a refused file must not set it */
		seal(&f);
		c->breaks(&f);
		if (!c->keep_seal)
			seal(&f);
		msg[0] = '\0';
		int err = load(&f, msg);
		KT_EXPECT(t, err < 0, "%s: accepted ('%s')", c->what, msg);
		KT_EXPECT(t, !strncmp(msg, "profile config: ", 16) && !strchr(msg, '\n'),
			  "%s: not one line: '%s'", c->what, msg);
		KT_EXPECT(t, strstr(msg, c->names), "%s: '%s' does not say '%s'", c->what, msg,
			  c->names);
		KT_EXPECT(t, monitor_config_in_force(&day) && day == DAY_2026_11_25 &&
			  monitor_interval_of(index_of("cpu.busy")) == busy_ms,
			  "%s: the configuration in force changed (day %lld)", c->what,
			  (long long)day);
		kfree(f.buf);
	}
	/* Empty and oversized bodies, as the channel op may pass them. */
	KT_EXPECT(t, monitor_config_load(good.buf, 0, msg, sizeof(msg)) == -EINVAL &&
		  strstr(msg, "0 bytes, shorter than the 96-byte header"), "empty: '%s'", msg);
	uint8_t *huge = as_sent(&good, CHAN_MAX_PAYLOAD);
	KT_ASSERT(t, huge, "no memory");
	KT_EXPECT(t, monitor_config_load(huge, CHAN_MAX_PAYLOAD, msg, sizeof(msg)) == -EINVAL &&
		  strstr(msg, "the file has 262144 bytes"), "huge: '%s'", msg);
	kfree(huge);
	kfree(good.buf);
	restore_intervals(&saved);
}

/* A gauge (mm.free) and a counter (channel.bytes) with tight bands for synthetic series. */
static const struct resource_spec flagged[] = {
	/* every sample alone in its window: the mean is the sample */
	{ "mm.free", PROFILE_KIND_GAUGE, PROFILE_SCOPE_GLOBAL, 100, 100, 1000, true },
	{ "channel.bytes", PROFILE_KIND_COUNTER, PROFILE_SCOPE_GLOBAL, 100, 1000, 2000, true },
};

struct flag_seen {
	uint64_t hits;
	uint64_t name, value, expected, low, high;	/* the last firing's arguments */
};

static void flag_handler(const struct probe_hit *hit, void *arg)
{
	struct flag_seen *s = arg;
	s->hits++;
	s->name = trap_frame_arg(hit->regs, 0);
	s->value = trap_frame_arg(hit->regs, 1);
	s->expected = trap_frame_arg(hit->regs, 2);
	s->low = trap_frame_arg(hit->regs, 3);
	s->high = trap_frame_arg(hit->regs, 4);
}

/* n samples of value every 100 ms from *now; wall is now + wall_offset. */
static void feed(unsigned index, uint64_t *now, int64_t wall_offset, uint64_t value, unsigned n)
{
	for (unsigned i = 0; i < n; i++, *now += 100 * NS_PER_MS)
		monitor_redflag_observe(index, *now, (int64_t)*now + wall_offset, value);
}

/* A counter source advancing by step every 100 ms. */
static void feed_rate(unsigned index, uint64_t *now, uint64_t *value, uint64_t step, unsigned n)
{
	for (unsigned i = 0; i < n; i++, *now += 100 * NS_PER_MS, *value += step)
		monitor_redflag_observe(index, *now, (int64_t)*now, *value);
}

/* What a red-flag test runs with: the flagged configuration loaded, sampling off. */
struct flagged_run {
	struct saved_intervals saved;
	struct monitor_ctl_status status;	/* before: sampling is restarted if it was on */
	struct cfg_file f;
	char msg[MSG_BYTES];
	unsigned gauge, counter;		/* mm.free's and channel.bytes' indexes */
};

/* Set up run (static: it is large); NULL, or why the test cannot run. */
static const char *flagged_setup(struct flagged_run *run)
{
	save_intervals(&run->saved);
	run->gauge = index_of("mm.free");
	run->counter = index_of("channel.bytes");
	if (run->gauge >= MONITOR_SOURCES_MAX || run->counter >= MONITOR_SOURCES_MAX)
		return "mm.free or channel.bytes has no index";
	if (monitor_source_at(run->counter)->kind != MONITOR_COUNTER ||
	    monitor_source_at(run->counter)->scope != MONITOR_SCOPE_GLOBAL)
		return "channel.bytes is not a global counter";
	/* The measurement thread feeds the same sources: keep it off while the series run. */
	monitor_get_status(&run->status);
	monitor_stop();
	/* bucket k: expected (k + 1) * 100, band +-50 (the gauge's unit; per second for the counter) */
	if (!build(&run->f, flagged, 2, DAY_2026_11_25, 100 * SCALE))
		return "no memory";
	return load(&run->f, run->msg) ? run->msg : NULL;
}

static void flagged_teardown(struct flagged_run *run)
{
	kfree(run->f.buf);
	restore_intervals(&run->saved);
	if (run->status.running)
		monitor_start(run->msg, sizeof(run->msg));
}

/*
 * Synthetic series of a gauge and a counter at real time: in the band,
 * out for less than the duration, out for longer (one flag however long),
 * back in and out again, the bucket of the time of day, a reload.
 */
KTEST(monitor_redflag_series, 1)
{
	static struct flagged_run run;
	const char *why = flagged_setup(&run);
	KT_ASSERT(t, !why, "cannot run: %s", why);
	unsigned gauge = run.gauge, counter = run.counter;

	uint64_t before = monitor_redflag_count(), now = 1000 * NS_PER_MS;
	/* Bucket 0 of the day: [50, 150]. */
	feed(gauge, &now, 0, 100, 20);
	KT_EXPECT(t, monitor_redflag_count() == before, "a flag in the band");
	feed(gauge, &now, 0, 300, 10);		/* outside for 900 ms: shorter than 1000 */
	feed(gauge, &now, 0, 100, 2);
	KT_EXPECT(t, monitor_redflag_count() == before, "a flag for 900 ms outside of 1000");
	feed(gauge, &now, 0, 300, 11);		/* outside for 1000 ms */
	KT_EXPECT(t, monitor_redflag_count() == before + 1, "%llu flags for 1000 ms outside, not 1",
		  (unsigned long long)(monitor_redflag_count() - before));
	feed(gauge, &now, 0, 10, 50);		/* still outside, now below */
	KT_EXPECT(t, monitor_redflag_count() == before + 1, "a second flag while still outside");
	feed(gauge, &now, 0, 150, 1);		/* back inside (the border is inside) */
	feed(gauge, &now, 0, 300, 11);
	KT_EXPECT(t, monitor_redflag_count() == before + 2, "%llu flags after going out again",
		  (unsigned long long)(monitor_redflag_count() - before));

	/* The bucket follows the time of day: 200 is outside 00:00's band, inside 00:15's. */
	int64_t quarter_past = (int64_t)BUCKET_MS * (int64_t)NS_PER_MS;
	int64_t days_later = 3 * (int64_t)PROFILE_DAY_MS * (int64_t)NS_PER_MS;
	feed(gauge, &now, 0, 100, 1);
	feed(gauge, &now, quarter_past, 200, 30);
	feed(gauge, &now, days_later + quarter_past, 200, 30);
	KT_EXPECT(t, monitor_redflag_count() == before + 2, "a flag for 200 at 00:15");
	feed(gauge, &now, days_later, 200, 11);
	KT_EXPECT(t, monitor_redflag_count() == before + 3, "200 at 00:00 raised %llu flags",
		  (unsigned long long)(monitor_redflag_count() - before - 2));

	/* The counter: 10 per 100 ms is 100 per second, in its band; 30 is 300 per second. */
	uint64_t value = 5000;
	feed_rate(counter, &now, &value, 10, 30);
	KT_EXPECT(t, monitor_redflag_count() == before + 3, "a flag for a rate in the band");
	feed_rate(counter, &now, &value, 30, 40);
	KT_EXPECT(t, monitor_redflag_count() == before + 4, "%llu counter flags, not 1",
		  (unsigned long long)(monitor_redflag_count() - before - 3));

	/* A new configuration forgets the excursion in progress: 400 + 700 ms are not 1000. */
	feed(gauge, &now, 0, 100, 1);
	feed(gauge, &now, 0, 300, 5);
	KT_EXPECT(t, load(&run.f, run.msg) == 0, "reload refused: %s", run.msg);
	feed(gauge, &now, 0, 300, 8);
	KT_EXPECT(t, monitor_redflag_count() == before + 4, "a flag counted time from before "
		  "the reload");
	flagged_teardown(&run);
}

/* Named probe_* so the harness runs it where text patching works (single-threaded TCG). */
KTEST_NEEDS(probe_monitor_redflag, 1, FEATURE_PROBES)
{
	static struct flagged_run run;
	struct flag_seen seen = { 0 };
	char full[128];

	struct probe *p = probe_named("monitor:::redflag");
	KT_ASSERT(t, p, "no probe monitor:::redflag");
	probe_fullname(p, full, sizeof(full));
	KT_EXPECT(t, !strncmp(full, "monitor:kernel:", 15) && !probe_named("sdt:::redflag"),
		  "the probe is %s", full);
	const char *why = flagged_setup(&run);
	KT_ASSERT(t, !why, "cannot run: %s", why);
	unsigned gauge = run.gauge, counter = run.counter;
	struct probe_consumer c = { .action = PROBE_HANDLER, .handler = flag_handler, .arg = &seen };
	KT_ASSERT(t, probe_enable(p, &c) == 0, "enabling monitor:::redflag failed");

	uint64_t before = monitor_redflag_count(), now = 1000 * NS_PER_MS, value = 0;
	feed(gauge, &now, 0, 300, 11);
	KT_EXPECT(t, seen.hits == 1 && seen.name && !strcmp((const char *)seen.name, "mm.free") &&
		  seen.value == 300 * SCALE && seen.expected == 100 * SCALE &&
		  seen.low == 50 * SCALE && seen.high == 150 * SCALE,
		  "%llu hits; the last saw value %llu expected %llu band %llu..%llu",
		  (unsigned long long)seen.hits, (unsigned long long)seen.value,
		  (unsigned long long)seen.expected, (unsigned long long)seen.low,
		  (unsigned long long)seen.high);
	feed_rate(counter, &now, &value, 30, 40);	/* 300 per second from the start */
	KT_EXPECT(t, seen.hits == 2 && !strcmp((const char *)seen.name, "channel.bytes") &&
		  seen.value == 300 * SCALE, "%llu hits; the counter's rate seen %llu",
		  (unsigned long long)seen.hits, (unsigned long long)seen.value);
	KT_EXPECT(t, monitor_redflag_count() == before + seen.hits, "%llu flags counted for %llu "
		  "probe hits", (unsigned long long)(monitor_redflag_count() - before),
		  (unsigned long long)seen.hits);
	probe_disable(&c);
	KT_EXPECT(t, text_identical(), "text differs from the booted image");
	flagged_teardown(&run);
}

/* n samples 100 ms apart on the monotonic clock and 1 s apart on a 10x calendar. */
static void feed_scaled(unsigned index, uint64_t *now, int64_t *wall, uint64_t *value,
			uint64_t step, unsigned n)
{
	for (unsigned i = 0; i < n; i++, *now += 100 * NS_PER_MS, *wall += 1000 * (int64_t)NS_PER_MS,
	     *value += step)
		monitor_redflag_observe(index, *now, *wall, *value);
}

/*
 * Under a scaled calendar, windows and durations are calendar time and a
 * counter's rate is per monotonic second (scion/monitor_rec.h): at 10x,
 * samples 100 ms apart are 1 s apart on the calendar, so the gauge's
 * 1 s outside takes two of them, and the counter's window of 1 s holds
 * only the sample itself, so its rate is taken since the sample before.
 */
KTEST(monitor_redflag_calendar_time, 1)
{
	static struct flagged_run run;
	const char *why = flagged_setup(&run);
	KT_ASSERT(t, !why, "cannot run: %s", why);
	unsigned gauge = run.gauge, counter = run.counter;
	uint64_t before = monitor_redflag_count(), now = 1000 * NS_PER_MS, level = 300, value = 0;
	int64_t wall = 0;

	/* The gauge's duration is 1 s of the calendar: the second sample outside flags. */
	feed_scaled(gauge, &now, &wall, &level, 0, 1);
	KT_EXPECT(t, monitor_redflag_count() == before, "a flag at the first sample outside");
	feed_scaled(gauge, &now, &wall, &level, 0, 1);
	KT_EXPECT(t, monitor_redflag_count() == before + 1, "%llu flags after 1 s of the calendar "
		  "outside", (unsigned long long)(monitor_redflag_count() - before));

	/* The counter: 10 per 100 ms of monotonic time is 100 per second, in band, at any scale. */
	feed_scaled(counter, &now, &wall, &value, 10, 30);
	KT_EXPECT(t, monitor_redflag_count() == before + 1, "a rate of 10 per 100 ms was taken as "
		  "per calendar time");
	/* Each sample is the value before its step: the first of these is still 10 on. */
	feed_scaled(counter, &now, &wall, &value, 30, 3);	/* outside for 1 s of the calendar */
	KT_EXPECT(t, monitor_redflag_count() == before + 1, "a flag after 1 s of 2 outside");
	feed_scaled(counter, &now, &wall, &value, 30, 1);
	KT_EXPECT(t, monitor_redflag_count() == before + 2, "%llu counter flags after 2 s of the "
		  "calendar outside, not 1",
		  (unsigned long long)(monitor_redflag_count() - before - 1));
	flagged_teardown(&run);
}
