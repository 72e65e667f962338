// SPDX-License-Identifier: BSD-2-Clause
/*
 * The online monitor's red flags (VINO self-monitoring): each sample the
 * measurement thread takes of a source that the profile configuration
 * in force bands is folded into the source's window; the window's value
 * (a gauge's mean, a counter's rate per second, both in
 * PROFILE_VALUE_SCALE units) is compared with the band of the bucket
 * that covers the sample's time of day, and a value that stays outside
 * for the resource's duration raises one red flag: a count, an EVENT
 * line to the host, and the static probe monitor:::redflag. The next
 * flag for the source waits until its value has come back inside.
 *
 * Windows, durations and buckets are calendar time (scion/monitor_rec.h:
 * under a scaled calendar a window of 60 s is 60 s of the day), rates
 * per monotonic second. A window is REDFLAG_PANES panes of window_ms /
 * REDFLAG_PANES each (no per-sample history, whatever the interval):
 * its value covers the panes of the last window_ms, the oldest maybe in
 * part. No floating point: rates are computed by long division in base
 * 1000.
 *
 * Subscribers (monitor_redflag_subscribe) are called with each flag
 * after its event line and probe.
 *
 * Invariants: a source's state is read and written only under
 * monitor_config_lock (the measurement thread observes, a load resets),
 * so it always belongs to the configuration in force. Lock order:
 * monitor_config_lock only; the flag is raised after it is released;
 * subscribers_lock is taken alone, to add one.
 */
#include <scion/atomic.h>
#include <scion/channel.h>
#include <scion/format.h>
#include <scion/sdt.h>
#include <scion/string.h>
#include <scion/spinlock.h>
#include <scion/errno.h>
#include "config_internal.h"

#define REDFLAG_PANES 16
#define NS_PER_MS     1000000ull
#define BASE          1000u		/* long division's digit */
#define RATE_DIGITS   4			/* PROFILE_VALUE_SCALE * 1e9 ns per s = BASE^4 */
#define MEAN_DIGITS   1			/* PROFILE_VALUE_SCALE = BASE^1 */
_Static_assert(PROFILE_VALUE_SCALE == BASE, "the red flags' arithmetic assumes the scale 1000");

struct pane {
	uint64_t seq_plus_one;		/* calendar ns / pane_ns + 1; 0: empty */
	uint64_t first_mono_ns;		/* its first sample (a counter's rate starts there) */
	uint64_t first_value;
	uint64_t sum, count;		/* of its samples (a gauge's mean) */
};

struct redflag_source {
	struct pane pane[REDFLAG_PANES];
	uint64_t last_mono_ns;		/* the sample before this one; 0: none */
	uint64_t last_wall_ns;
	uint64_t last_value;
	bool outside;			/* the last value was outside the band */
	uint64_t outside_since_ns;	/* calendar time it left the band */
	bool raised;			/* this excursion's flag is raised */
	uint32_t flags;			/* raised under the configuration in force */
};

static struct redflag_source sources[MONITOR_SOURCES_MAX];	/* monitor_config_lock */
static uint64_t redflags_since_boot;				/* atomic */
static struct spinlock subscribers_lock = SPINLOCK_INIT("redflag_subscribers");
/* subscribers_lock to add; read lock-free (a slot is written once, before it is counted) */
static void (*subscribers[MONITOR_REDFLAG_SUBSCRIBERS])(const struct monitor_redflag *);
static unsigned subscriber_count;				/* subscribers_lock; read atomic */

/* What a raised flag reports, copied out of the configuration before the lock is dropped. */
struct redflag {
	const char *name;		/* the source's: lives as long as the kernel */
	int64_t value;
	struct profile_config_bucket band;
	uint64_t outside_ms;
};

/*
 * floor(a * BASE^digits / d), saturated at INT64_MAX; d > 0 and below
 * 2^64 / BASE (a day in ns is far below).
 */
static int64_t mul_div_base(uint64_t a, unsigned digits, uint64_t d)
{
	uint64_t whole = a / d, rest = a % d, frac = 0, scale = 1;

	for (unsigned k = 0; k < digits; k++) {
		rest *= BASE;
		frac = frac * BASE + rest / d;
		rest %= d;
		scale *= BASE;
	}
	if (whole > ((uint64_t)INT64_MAX - frac) / scale)
		return INT64_MAX;
	return (int64_t)(whole * scale + frac);
}

/* Fold one sample (at calendar time wall) into its pane. */
static void add_sample(struct redflag_source *st, uint64_t pane_ns, uint64_t mono_ns,
		       uint64_t wall, uint64_t value)
{
	uint64_t seq = wall / pane_ns + 1;
	struct pane *p = &st->pane[seq % REDFLAG_PANES];

	if (p->seq_plus_one != seq)
		*p = (struct pane){ .seq_plus_one = seq, .first_mono_ns = mono_ns,
				    .first_value = value };
	p->sum += value;
	p->count++;
}

/*
 * The window's value for the sample just added (at mono_ns, calendar
 * wall): a gauge's mean over the window; a counter's rate per monotonic
 * second since the window's first sample, or since the sample before
 * when the window holds only this one (a scaled calendar can make a
 * window shorter than the interval). false while there is none yet.
 */
static bool window_value(const struct redflag_source *st, uint8_t kind, uint64_t pane_ns,
			 uint64_t mono_ns, uint64_t wall, uint64_t value, int64_t *out)
{
	uint64_t now = wall / pane_ns + 1, sum = 0, count = 0;
	const struct pane *oldest = NULL;

	for (unsigned i = 0; i < REDFLAG_PANES; i++) {
		const struct pane *p = &st->pane[i];
		if (!p->seq_plus_one || p->seq_plus_one + REDFLAG_PANES <= now)
			continue;	/* empty, or older than the window */
		sum += p->sum;
		count += p->count;
		if (!oldest || p->seq_plus_one < oldest->seq_plus_one)
			oldest = p;
	}
	if (kind == PROFILE_KIND_GAUGE) {
		if (!count)
			return false;
		*out = mul_div_base(sum, MEAN_DIGITS, count);
		return true;
	}
	uint64_t from_ns = oldest ? oldest->first_mono_ns : mono_ns, from_value = value;
	if (oldest && from_ns < mono_ns)
		from_value = oldest->first_value;
	else if (st->last_mono_ns && st->last_mono_ns < mono_ns) {
		from_ns = st->last_mono_ns;
		from_value = st->last_value;
	} else {
		return false;
	}
	*out = mul_div_base(value - from_value, RATE_DIGITS, mono_ns - from_ns);
	return true;
}

/*
 * Raise one red flag. The probe's arguments: arg0 the resource's name
 * (a kernel string), arg1 the window's value, arg2 the bucket's
 * expected value, arg3 its low and arg4 its high bound, all in
 * PROFILE_VALUE_SCALE units (thousandths; per second for a counter).
 */
static __noinline void redflag_raise(const struct redflag *f)
{
	char value[24], low[24], high[24], expected[24];

	atomic_add(&redflags_since_boot, 1);
	monitor_config_format_value(f->value, value, sizeof(value));
	monitor_config_format_value(f->band.low, low, sizeof(low));
	monitor_config_format_value(f->band.high, high, sizeof(high));
	monitor_config_format_value(f->band.expected, expected, sizeof(expected));
	channel_event("monitor: red flag: %s %s outside [%s, %s] (expected %s) for %llu ms",
		      f->name, value, low, high, expected, (unsigned long long)f->outside_ms);
	SDT_PROBE5_P(monitor, redflag, f->name, f->value, f->band.expected, f->band.low,
		     f->band.high);
	struct monitor_redflag seen = {
		.source = f->name, .value = f->value, .low = f->band.low, .high = f->band.high,
		.expected = f->band.expected, .outside_ms = f->outside_ms,
	};
	unsigned n = atomic_load(&subscriber_count);
	for (unsigned k = 0; k < n; k++)
		subscribers[k](&seen);
}

int monitor_redflag_subscribe(void (*fn)(const struct monitor_redflag *flag))
{
	irqflags_t flags = spin_lock_irqsave(&subscribers_lock);
	int err = -ENOSPC;
	if (subscriber_count < MONITOR_REDFLAG_SUBSCRIBERS) {
		subscribers[subscriber_count] = fn;
		atomic_store(&subscriber_count, subscriber_count + 1);
		err = 0;
	}
	spin_unlock_irqrestore(&subscribers_lock, flags);
	return err;
}

/* Under monitor_config_lock: fold the sample in; true with *flag when a flag is due. */
static bool observe_locked(const struct monitor_config *cfg, unsigned index, uint64_t mono_ns,
			   int64_t wall_ns, uint64_t value, struct redflag *flag)
{
	int r = cfg->resource_of[index];
	if (r < 0 || !(cfg->resource[r].flags & PROFILE_FLAG_BANDED) ||
	    cfg->resource[r].scope == PROFILE_SCOPE_THREAD)
		return false;
	const struct profile_config_resource *res = &cfg->resource[r];
	struct redflag_source *st = &sources[index];
	uint64_t pane_ns = (uint64_t)res->window_ms * NS_PER_MS / REDFLAG_PANES;
	uint64_t wall = wall_ns < 0 ? 0 : (uint64_t)wall_ns;
	int64_t v;

	if (!pane_ns)
		pane_ns = 1;
	if (st->last_mono_ns && (mono_ns < st->last_mono_ns || wall < st->last_wall_ns ||
				 (res->kind == PROFILE_KIND_COUNTER && value < st->last_value))) {
		/* time, the calendar or a counter went back: start the window again */
		memset(st->pane, 0, sizeof(st->pane));
		st->last_mono_ns = 0;
		st->outside = false;
	}
	add_sample(st, pane_ns, mono_ns, wall, value);
	bool have = window_value(st, res->kind, pane_ns, mono_ns, wall, value, &v);
	st->last_mono_ns = mono_ns;
	st->last_wall_ns = wall;
	st->last_value = value;
	if (!have)
		return false;
	const struct profile_config_bucket *b = monitor_config_bucket(cfg, (unsigned)r, wall_ns);
	if (v >= b->low && v <= b->high) {
		st->outside = false;
		st->raised = false;	/* back inside: the next excursion may flag */
		return false;
	}
	if (!st->outside) {
		st->outside = true;
		st->outside_since_ns = wall;
	}
	uint64_t outside_ns = wall > st->outside_since_ns ? wall - st->outside_since_ns : 0;
	if (st->raised || outside_ns < (uint64_t)res->duration_ms * NS_PER_MS)
		return false;
	st->raised = true;
	st->flags++;
	*flag = (struct redflag){ .name = monitor_source_at(index)->name, .value = v, .band = *b,
				  .outside_ms = outside_ns / NS_PER_MS };
	return true;
}

void monitor_redflag_observe(unsigned index, uint64_t mono_ns, int64_t wall_ns, uint64_t value)
{
	struct redflag flag;
	bool raise = false;

	/* Without a configuration (most of the time) a round takes no lock per source. */
	if (index >= MONITOR_SOURCES_MAX || !READ_ONCE(monitor_config_current))
		return;
	mutex_lock(&monitor_config_lock);
	if (monitor_config_current)
		raise = observe_locked(monitor_config_current, index, mono_ns, wall_ns, value,
				       &flag);
	mutex_unlock(&monitor_config_lock);
	if (raise)
		redflag_raise(&flag);
}

uint64_t monitor_redflag_count(void)
{
	return atomic_load(&redflags_since_boot);
}

void monitor_redflag_reset_locked(void)
{
	memset(sources, 0, sizeof(sources));
}

uint32_t monitor_redflag_raised_locked(unsigned index)
{
	return index < MONITOR_SOURCES_MAX ? sources[index].flags : 0;
}
