// SPDX-License-Identifier: BSD-2-Clause
/*
 * The "probes" stream source: one struct chan_probe_record per firing
 * of the probes a spec matches, written into the stream's per-CPU
 * buffers from probe context and collected by the host (`scion probe
 * record`). Opening the stream enables a handler consumer on each probe
 * (all of them, or none); closing disables them, and probe_disable
 * guarantees that no CPU still runs the handler when it returns.
 */
#include <scion/probe.h>
#include <scion/channel.h>
#include <scion/chan_proto.h>
#include <scion/chan_wire.h>
#include <scion/tbuf.h>
#include <scion/thread.h>
#include <scion/clock.h>
#include <scion/cpu.h>
#include <scion/mm.h>
#include <scion/format.h>
#include <scion/string.h>
#include <scion/errno.h>

#define RECORD_PROBES_MAX 4096

struct probe_stream {
	unsigned n;
	struct probe *probes[RECORD_PROBES_MAX];
	struct probe_consumer consumers[RECORD_PROBES_MAX];
	struct probe_consumer *enabled[RECORD_PROBES_MAX];
};

void probe_record_hit(const struct probe_hit *hit, void *bufs)
{
	struct chan_probe_record *rec = tbuf_reserve(bufs, sizeof(*rec));
	if (!rec)
		return;
	struct thread *t = this_cpu()->current;
	rec->timestamp_ns = clock_ns();
	rec->tid = t ? t->tid : 0;
	rec->arg0 = trap_frame_arg(hit->regs, 0);
	rec->probe_id = hit->probe->id;
	rec->cpu = (uint16_t)this_cpu_index();
	rec->size = sizeof(*rec);
}

static bool collect(struct probe *p, void *arg)
{
	struct probe_stream *r = arg;
	if (r->n == RECORD_PROBES_MAX) {
		r->n++;		/* too many: the caller refuses the spec */
		return false;
	}
	r->probes[r->n++] = p;
	return true;
}

static int record_open(struct tbuf_set *bufs, const char *args, void **priv, char *why,
		       size_t whylen)
{
	const char *reason = NULL;

	if (!*args) {
		snprintf(why, whylen, "give a probe spec, e.g. fbt::bcache_read:entry");
		return -EINVAL;
	}
	struct probe_stream *r = kzalloc(sizeof(*r));
	if (!r) {
		snprintf(why, whylen, "no memory for the probe stream");
		return -ENOMEM;
	}
	int found = probe_lookup(args, collect, r, &reason);
	if (found < 0 || r->n == 0 || r->n > RECORD_PROBES_MAX) {
		if (found < 0)
			snprintf(why, whylen, "%s: %s", args, reason ? reason : errno_name(found));
		else if (r->n == 0)
			snprintf(why, whylen, "no probe matches %s", args);
		else
			snprintf(why, whylen, "%s matches more than %u probes", args, RECORD_PROBES_MAX);
		kfree(r);
		return found < 0 ? found : r->n ? -E2BIG : -ENOENT;
	}
	for (unsigned i = 0; i < r->n; i++) {
		r->consumers[i] = (struct probe_consumer){
			.action = PROBE_HANDLER, .handler = probe_record_hit, .arg = bufs,
		};
		r->enabled[i] = &r->consumers[i];
	}
	unsigned enabled = probe_enable_batch(r->probes, r->enabled, r->n);
	if (enabled != r->n) {
		/* All or none: disable the ones that were enabled. */
		unsigned k = 0;
		for (unsigned i = 0; i < r->n; i++)
			if (r->consumers[i].probe)
				r->enabled[k++] = &r->consumers[i];
		probe_disable_batch(r->enabled, k);
		snprintf(why, whylen, "%u of the %u probes %s matches could not be enabled (the "
			 "console says why)", r->n - enabled, r->n, args);
		kfree(r);
		return -EINVAL;
	}
	*priv = r;
	return 0;
}

static void record_close(void *priv)
{
	struct probe_stream *r = priv;
	probe_disable_batch(r->enabled, r->n);
	kfree(r);
}

/* A big-endian machine's records to the wire's order: all of one size (probe_record_hit). */
static void record_to_wire(void *priv, uint8_t *records, uint32_t bytes)
{
	(void)priv;
	_Static_assert(sizeof(struct chan_probe_record) % TBUF_ALIGN == 0,
		       "probe records must lie back to back in the buffers");
	chan_wire_to_le(CHAN_WIRE(chan_probe_record), records,
			bytes / sizeof(struct chan_probe_record));
}

CHAN_STREAM_SOURCE_WIRE(probes_source, "probes", "PROBE-SPEC", record_open, record_close, NULL,
			NULL, record_to_wire);
