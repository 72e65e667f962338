// SPDX-License-Identifier: BSD-2-Clause
/*
 * Trace sessions: what `scion trace` runs. A session is born from a
 * TRACE_START request carrying a trace object (scion/dof.h) and lives
 * exactly as long as the stream that carries its data to the host:
 *
 *   1. load and check the object (dof.c), match each clause's probe
 *      descriptions and give every (clause, probe) pair an EPID;
 *   2. allocate the per-CPU state, aggregation buffers, dynamic
 *      variable space, speculations and globals;
 *   3. open the stream (the "trace" source): its buffers become the
 *      principal buffers; the session enters WARMUP, its probes are
 *      enabled (they run nothing yet), BEGIN's clauses run, and the
 *      session becomes ACTIVE (unless BEGIN called exit());
 *   4. every switch interval the stream sends the principal buffers,
 *      then the drain hook the aggregation buffers and a status chunk;
 *   5. STREAM_CLOSE (or a new HELLO): the session enters DRAINING (no
 *      probe runs anything), END's clauses run, the probes are
 *      disabled, the last drain sends what is left, with ENDED set in
 *      the status, and the session is freed.
 * dtrace:::BEGIN, END and ERROR are probes of their own (the dtrace
 * provider) that only the session fires, for its own clauses.
 */
#include <scion/channel.h>
#include <scion/chan_proto.h>
#include <scion/mm.h>
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>
#include <scion/clock.h>
#include <scion/sort.h>
#include <scion/symtab.h>
#include <arch/rtc.h>
#include <scion/trace.h>
#include "trace_internal.h"

#define DEFAULT_BUFSIZE 65536

static struct probe *dtrace_begin, *dtrace_end, *dtrace_error;

static void dtrace_provide(void)
{
	dtrace_begin = probe_create_soft("dtrace", "", "", "BEGIN", true);
	dtrace_end = probe_create_soft("dtrace", "", "", "END", true);
	dtrace_error = probe_create_soft("dtrace", "", "", "ERROR", true);
}
PROBE_PROVIDER(dtrace_provider, "dtrace", dtrace_provide, NULL);

/* Matching: the (clause, probe) pairs, in clause order. */
struct matches {
	uint32_t n, cap;
	uint32_t *clause;
	struct probe **probe;
	uint32_t clause_start;		/* first pair of the clause being matched */
	bool overflow;
};

static bool collect(struct probe *p, void *arg)
{
	struct matches *m = arg;
	for (uint32_t i = m->clause_start; i < m->n; i++)
		if (m->probe[i] == p)
			return true;	/* two descriptions of one clause: one ECB */
	if (m->n == m->cap) {
		uint32_t cap = m->cap ? m->cap * 2 : 64;
		if (cap > TRACE_MAX_ECBS) {
			m->overflow = true;
			return false;
		}
		uint32_t *c = kmalloc(cap * sizeof(*c));
		struct probe **pr = kmalloc(cap * sizeof(*pr));
		if (!c || !pr) {
			kfree(c);
			kfree(pr);
			m->overflow = true;
			return false;
		}
		if (m->n) {
			memcpy(c, m->clause, m->n * sizeof(*c));
			memcpy(pr, m->probe, m->n * sizeof(*pr));
		}
		kfree(m->clause);
		kfree(m->probe);
		m->clause = c;
		m->probe = pr;
		m->cap = cap;
	}
	m->probe[m->n++] = p;
	return true;
}

static int match_probes(struct trace_session *s, struct matches *m, char *why, size_t whylen)
{
	for (uint32_t ci = 0; ci < s->obj.nclauses; ci++) {
		struct trace_clause *c = &s->obj.clauses[ci];
		m->clause_start = m->n;
		for (uint32_t d = 0; d < c->nprobes; d++) {
			char spec[4 * (DOF_MAX_PROBEDESC + 1)];
			const char *reason = NULL;
			snprintf(spec, sizeof(spec), "%s:%s:%s:%s", c->desc[d][0], c->desc[d][1],
				 c->desc[d][2], c->desc[d][3]);
			uint32_t before = m->n;
			int found = probe_lookup(spec, collect, m, &reason);
			if (m->overflow) {
				snprintf(why, whylen, "more than %u enabled probes", TRACE_MAX_ECBS);
				return -E2BIG;
			}
			if (found < 0) {
				snprintf(why, whylen, "probe description %s: %s", spec,
					 reason ? reason : errno_name(found));
				return found;
			}
			if (found == 0 && m->n == before) {
				snprintf(why, whylen, "probe description %s does not match any probes",
					 spec);
				return -ENOENT;
			}
		}
		for (uint32_t i = m->clause_start; i < m->n; i++)
			m->clause[i] = ci;
	}
	return 0;
}

static void append(struct trace_ecb **chain, struct trace_ecb *e)
{
	while (*chain)
		chain = &(*chain)->next;
	*chain = e;
}

/* ECBs from the matches; one enabling per probe, its ECBs in EPID order. */
static enum trace_site site_of(const struct probe *p)
{
	if (p->soft || strcmp(p->provider, "fbt"))
		return TRACE_SITE_INSIDE;
	return strcmp(p->name, "return") ? TRACE_SITE_ENTRY : TRACE_SITE_RETURN;
}

static int build_ecbs(struct trace_session *s, struct matches *m)
{
	s->necbs = m->n;
	s->ecbs = kzalloc((m->n ? m->n : 1) * sizeof(*s->ecbs));
	uint64_t *order = kmalloc((m->n ? m->n : 1) * sizeof(*order));
	s->enablings = kzalloc((m->n ? m->n : 1) * sizeof(*s->enablings));
	if (!s->ecbs || !order || !s->enablings) {
		kfree(order);
		return -ENOMEM;
	}
	uint32_t n = 0;
	for (uint32_t i = 0; i < m->n; i++) {
		struct trace_ecb *e = &s->ecbs[i];
		e->epid = i + 1;
		e->clause = &s->obj.clauses[m->clause[i]];
		e->probe = m->probe[i];
		e->site = site_of(e->probe);
		if (e->probe == dtrace_begin)
			append(&s->begin, e);
		else if (e->probe == dtrace_end)
			append(&s->end, e);
		else if (e->probe == dtrace_error)
			append(&s->error, e);
		else
			order[n++] = (uint64_t)e->probe->id << 32 | i;
	}
	sort_u64(order, n);
	for (uint32_t k = 0; k < n; k++) {
		struct trace_ecb *e = &s->ecbs[order[k] & 0xffffffffu];
		struct trace_enabling *en = s->nenablings ? &s->enablings[s->nenablings - 1] : NULL;
		if (!en || en->ecbs->probe != e->probe) {
			en = &s->enablings[s->nenablings++];
			en->session = s;
			if (e->site == TRACE_SITE_RETURN && e->probe->nsites) {
				uint64_t offset = 0;
				symtab_lookup_addr(&kernel_symtab, e->probe->sites[0], &offset);
				en->function = e->probe->sites[0] - offset;
			}
			en->consumer = (struct probe_consumer){
				.action = PROBE_HANDLER, .handler = trace_probe_handler, .arg = en,
			};
		}
		append(&en->ecbs, e);
	}
	kfree(order);
	return 0;
}

/* Bytes of memory free, less an eighth left for the rest of the kernel. */
static uint64_t spare_memory(void)
{
	struct pmm_stats m;
	pmm_get_stats(&m);
	uint64_t free_bytes = m.free_pages * PAGE_SIZE;
	return free_bytes - free_bytes / 8;
}

/*
 * The size of o's aggregation buffers and the smallest entry they hold.
 * An aggsize the program asked for is refused, with the largest that
 * fits, when memory cannot hold two buffers of it per CPU; the default
 * is lowered instead (as dtrace's bufresize=auto lowers), and the event
 * says so. A program without aggregations gets the smallest buffers.
 */
static int size_aggregations(const struct trace_object *o, uint32_t *bytes, uint32_t *min_entry,
			     char *why, size_t whylen)
{
	*bytes = (uint32_t)o->option[DOF_OPT_AGGSIZE];
	*min_entry = trace_agg_min_entry(o);
	if (!o->naggs) {
		*bytes = DOF_AGGSIZE_MIN;
		return 0;
	}
	unsigned ncpus = cpu_count();
	uint64_t spare = spare_memory();
	uint32_t fit = *bytes;
	while (fit > DOF_AGGSIZE_MIN && aggbuf_bytes_needed(fit, *min_entry, ncpus) > spare)
		fit /= 2;
	if (fit == *bytes)
		return 0;
	if (o->option_given[DOF_OPT_AGGSIZE]) {
		snprintf(why, whylen, "aggsize=%uk needs %llu MiB for %u CPUs (two buffers each, "
			 "with their index); %llu MiB of memory are spare: at most aggsize=%uk fits",
			 *bytes >> 10, (unsigned long long)(aggbuf_bytes_needed(*bytes, *min_entry,
										ncpus) >> 20),
			 ncpus, (unsigned long long)(spare >> 20), fit >> 10);
		return -ENOMEM;
	}
	channel_event("trace: aggregation size lowered to %uk (%llu MiB of memory spare)",
		      fit >> 10, (unsigned long long)(spare >> 20));
	*bytes = fit;
	return 0;
}

static int allocate(struct trace_session *s, char *why, size_t whylen)
{
	const struct trace_object *o = &s->obj;
	uint32_t aggsize, min_entry;
	int err = size_aggregations(o, &aggsize, &min_entry, why, whylen);
	if (err)
		return err;
	if (trace_session_allocate(s, aggsize, min_entry)) {
		snprintf(why, whylen, "no memory for the session's buffers");
		return -ENOMEM;
	}
	uint64_t wall = arch_rtc_seconds();
	s->wall_base_ns = wall ? wall * 1000000000ull - clock_ns() : 0;
	return 0;
}

/* Every enabling's consumer, for the batch calls. */
static struct probe_consumer **consumers_of(struct trace_session *s, struct probe ***probes)
{
	struct probe_consumer **cs = kmalloc((s->nenablings ? s->nenablings : 1) * sizeof(*cs));
	*probes = kmalloc((s->nenablings ? s->nenablings : 1) * sizeof(**probes));
	if (!cs || !*probes) {
		kfree(cs);
		kfree(*probes);
		return NULL;
	}
	for (uint32_t i = 0; i < s->nenablings; i++) {
		cs[i] = &s->enablings[i].consumer;
		(*probes)[i] = s->enablings[i].ecbs->probe;
	}
	return cs;
}

static void disable_all(struct trace_session *s)
{
	struct probe **probes;
	struct probe_consumer **cs = consumers_of(s, &probes);
	if (cs) {
		probe_disable_batch(cs, s->nenablings);
	} else {
		for (uint32_t i = 0; i < s->nenablings; i++)
			probe_disable(&s->enablings[i].consumer);
	}
	kfree(cs);
	kfree(probes);
}

static int trace_open(struct tbuf_set *bufs, const char *args, void **priv, char *why,
		      size_t whylen)
{
	struct trace_session *s = *priv;
	(void)args;
	if (!s) {
		snprintf(why, whylen, "trace sessions start with a TRACE_START request (scion trace)");
		return -EINVAL;
	}
	s->bufs = bufs;
	__atomic_store_n(&s->state, TRACE_WARMUP, __ATOMIC_RELEASE);
	struct probe **probes;
	struct probe_consumer **cs = consumers_of(s, &probes);
	if (!cs) {
		snprintf(why, whylen, "no memory to enable %u probes", s->nenablings);
		return -ENOMEM;
	}
	unsigned enabled = probe_enable_batch(probes, cs, s->nenablings);
	kfree(cs);
	kfree(probes);
	if (enabled != s->nenablings) {
		disable_all(s);
		snprintf(why, whylen, "%u of %u probes could not be enabled (the console says why)",
			 s->nenablings - enabled, s->nenablings);
		return -EINVAL;
	}
	trace_fire_session_probe(s, s->begin, (const uint64_t[6]){ 0 }, TRACE_WARMUP);
	enum trace_state warm = TRACE_WARMUP;
	__atomic_compare_exchange_n(&s->state, &warm, TRACE_ACTIVE, false, __ATOMIC_ACQ_REL,
				    __ATOMIC_RELAXED);
	return 0;
}

static void trace_close(void *priv)
{
	struct trace_session *s = priv;
	__atomic_store_n(&s->state, TRACE_DRAINING, __ATOMIC_RELEASE);
	trace_fire_session_probe(s, s->end, (const uint64_t[6]){ 0 }, TRACE_DRAINING);
	__atomic_store_n(&s->state, TRACE_STOPPED, __ATOMIC_RELEASE);
	disable_all(s);
}

/* Send CPU cpu's aggregation snapshot in chunks of whole entries. */
static void send_aggregations(struct trace_session *s, struct chan_stream_sink *sink, unsigned cpu)
{
	uint32_t bytes;
	const uint8_t *data = aggbuf_taken(s->aggs, cpu, &bytes);
	uint32_t start = 0, at = 0, entries = 0;
	while (at < bytes) {
		const struct dof_aggent *e = (const struct dof_aggent *)(data + at);
		uint32_t size = (uint32_t)sizeof(*e) + e->keybytes + e->valbytes;
		if (at + size - start > CHANNEL_CHUNK_MAX) {
			chan_stream_send(sink, CHAN_CHUNK_AGG | cpu, entries, 0, data + start,
					 at - start);
			start = at;
			entries = 0;
		}
		at += size;
		entries++;
	}
	if (at > start)
		chan_stream_send(sink, CHAN_CHUNK_AGG | cpu, entries, 0, data + start, at - start);
}

static void trace_drain(void *priv, struct chan_stream_sink *sink)
{
	struct trace_session *s = priv;
	aggbuf_switch(s->aggs);
	for (unsigned cpu = 0; cpu < cpu_count() && cpu < MAX_CPUS; cpu++)
		send_aggregations(s, sink, cpu);
	struct dof_status st = {
		.dynvar_drops = __atomic_load_n(&s->counters.dynvar_drops, __ATOMIC_RELAXED),
		.spec_drops = __atomic_load_n(&s->counters.spec_drops, __ATOMIC_RELAXED),
		.spec_unavail = __atomic_load_n(&s->counters.spec_unavail, __ATOMIC_RELAXED),
		.agg_drops = __atomic_load_n(&s->counters.agg_drops, __ATOMIC_RELAXED),
		.errors = __atomic_load_n(&s->counters.errors, __ATOMIC_RELAXED),
	};
	if (__atomic_load_n(&s->exited, __ATOMIC_ACQUIRE)) {
		st.flags |= DOF_STATUS_EXITED;
		st.exit_status = s->exit_status;
	}
	if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == TRACE_STOPPED)
		st.flags |= DOF_STATUS_ENDED;
	chan_stream_send(sink, CHAN_CHUNK_STATUS, 0, 0, &st, sizeof(st));
}

static void trace_release(void *priv)
{
	trace_session_free(priv);
}

CHAN_STREAM_SOURCE_FULL(trace_source, "trace", "(opened by TRACE_START)", trace_open,
			trace_close, trace_drain, trace_release);

/*
 * TRACE_START: u32 bufsize, u32 switch_ms, the object. Replies with the
 * stream id, the CPUs, and each EPID's clause and probe.
 */
int trace_start_request(uint32_t seq, const uint8_t *body, uint32_t len)
{
	char why[192];
	struct matches m = { 0 };
	int err;

	if (len < 8) {
		channel_error(seq, -EINVAL, "trace start: give u32 bufsize, u32 switch_ms and a "
			      "trace object");
		return -EINVAL;
	}
	uint32_t bufsize = (uint32_t)chan_get_le(body, 4);
	uint32_t switch_ms = (uint32_t)chan_get_le(body + 4, 4);
	struct trace_session *s = kzalloc(sizeof(*s));
	if (!s) {
		channel_error(seq, -ENOMEM, "trace start: no memory for a session");
		return -ENOMEM;
	}
	if ((err = dof_load(body + 8, len - 8, &s->obj, why, sizeof(why))))
		goto fail;
	if ((err = match_probes(s, &m, why, sizeof(why))))
		goto fail;
	if ((err = build_ecbs(s, &m))) {
		snprintf(why, sizeof(why), "no memory for %u enabled probes", m.n);
		goto fail;
	}
	if ((err = allocate(s, why, sizeof(why))))
		goto fail;
	uint32_t stream;
	if ((err = channel_stream_start(&trace_source, s, bufsize ? bufsize : DEFAULT_BUFSIZE,
					switch_ms, "", &stream, why, sizeof(why))))
		goto fail;
	/* From here the stream owns the session. */
	size_t reply_len = 12 + (size_t)m.n * 8;
	uint8_t *reply = kmalloc(reply_len);
	if (!reply) {
		channel_error(seq, -ENOMEM, "trace start: stream %u is open but no memory for the "
			      "reply; close it", stream);
	} else {
		chan_put_le(reply, stream, 4);
		chan_put_le(reply + 4, cpu_count(), 4);
		chan_put_le(reply + 8, m.n, 4);
		for (uint32_t i = 0; i < m.n; i++) {
			chan_put_le(reply + 12 + i * 8, m.clause[i], 4);
			chan_put_le(reply + 16 + i * 8, m.probe[i]->id, 4);
		}
		channel_respond(seq, 0, reply, reply_len);
		kfree(reply);
	}
	kfree(m.clause);
	kfree(m.probe);
	return 0;
fail:
	kfree(m.clause);
	kfree(m.probe);
	trace_session_free(s);
	channel_error(seq, err, "trace start: %s", why);
	return err;
}
