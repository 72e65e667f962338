// SPDX-License-Identifier: BSD-2-Clause
/*
 * Trace sessions: the life scion/trace.h describes, for any client.
 * This file loads the object, matches its probe descriptions to probes
 * (EPIDs in clause order, one enabling per probe), sizes its aggregation
 * space to the memory there is, and moves the session through its
 * states; session_state.c holds its memory, session_read.c reads its
 * data, trace_stream.c binds it to the control channel.
 * dtrace:::BEGIN, END and ERROR are probes of their own (the dtrace
 * provider) that only the session fires, for its own clauses.
 *
 * States move LOADED -> WARMUP -> ACTIVE -> DRAINING -> STOPPED, forward
 * only; exit() in a clause moves WARMUP or ACTIVE to DRAINING (ecb.c).
 */
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
			/* dtrace's -Z (zdefs): a description may match nothing. */
			if (found == 0 && m->n == before && !s->obj.option[DOF_OPT_ZDEFS]) {
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
				.action = PROBE_HANDLER, .arg = en,	/* .handler: at the start */
			};
		}
		for (uint32_t a = 0; a < e->clause->nactions; a++)
			if (e->clause->actions[a].kind == DOF_ACT_PAUSE)
				en->consumer.may_pause = true;	/* its sites need a pause point */
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
 * is lowered instead (as dtrace's bufresize=auto lowers), and the
 * session's notice says so. A program without aggregations gets the smallest buffers.
 */
static int size_aggregations(const struct trace_object *o, uint32_t *bytes, uint32_t *min_entry,
			     char *notice, char *why, size_t whylen)
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
	snprintf(notice, TRACE_NOTICE_MAX, "trace: aggregation size lowered to %uk (%llu MiB "
		 "of memory spare)", fit >> 10, (unsigned long long)(spare >> 20));
	*bytes = fit;
	return 0;
}

static int allocate(struct trace_session *s, char *why, size_t whylen)
{
	const struct trace_object *o = &s->obj;
	uint32_t aggsize, min_entry;
	int err = size_aggregations(o, &aggsize, &min_entry, s->notice, why, whylen);
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

int trace_session_create(const uint8_t *object, uint32_t len, struct trace_session **out,
			 char *why, size_t whylen)
{
	struct matches m = { 0 };
	struct trace_session *s = kzalloc(sizeof(*s));
	int err;
	if (!s) {
		snprintf(why, whylen, "no memory for a session");
		return -ENOMEM;
	}
	if ((err = dof_load(object, len, &s->obj, why, whylen)))
		goto fail;
	if ((err = match_probes(s, &m, why, whylen)))
		goto fail;
	if ((err = build_ecbs(s, &m))) {
		snprintf(why, whylen, "no memory for %u enabled probes", m.n);
		goto fail;
	}
	if ((err = allocate(s, why, whylen)))
		goto fail;
	kfree(m.clause);
	kfree(m.probe);
	*out = s;
	return 0;
fail:
	kfree(m.clause);
	kfree(m.probe);
	trace_session_free(s);
	return err;
}

const char *trace_session_notice(const struct trace_session *s)
{
	return s->notice[0] ? s->notice : NULL;
}

/*
 * Start, in order:
 *   1. the principal buffers (the caller's or the session's own), and
 *      what the buffer policy needs (bufpolicy.c);
 *   2. WARMUP, then every probe enabled in one batch: probe hits find
 *      the state WARMUP and run nothing;
 *   3. BEGIN's clauses (they may call exit(), moving to DRAINING);
 *   4. WARMUP -> ACTIVE, unless exit() moved it on.
 */
int trace_session_start(struct trace_session *s, struct tbuf_set *bufs, char *why,
			size_t whylen)
{
	if (!bufs) {
		bufs = tbuf_create(TRACE_DEFAULT_BUFSIZE);
		if (!bufs) {
			snprintf(why, whylen, "no memory for %u bytes of trace buffers per CPU",
				 TRACE_DEFAULT_BUFSIZE);
			return -ENOMEM;
		}
		s->own_bufs = true;
	}
	s->bufs = bufs;
	if (trace_bufpolicy_start(s)) {
		snprintf(why, whylen, "no memory for bufpolicy=ring's %u bytes per CPU", bufs->size);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < s->nenablings; i++)
		s->enablings[i].consumer.handler = trace_probe_handler_for(&s->enablings[i]);
	__atomic_store_n(&s->state, TRACE_WARMUP, __ATOMIC_RELEASE);
	struct probe **probes;
	struct probe_consumer **cs = consumers_of(s, &probes);
	if (!cs) {
		__atomic_store_n(&s->state, TRACE_STOPPED, __ATOMIC_RELEASE);
		snprintf(why, whylen, "no memory to enable %u probes", s->nenablings);
		return -ENOMEM;
	}
	unsigned enabled = probe_enable_batch(probes, cs, s->nenablings);
	kfree(cs);
	kfree(probes);
	s->enabled = true;
	if (enabled != s->nenablings) {
		__atomic_store_n(&s->state, TRACE_STOPPED, __ATOMIC_RELEASE);
		disable_all(s);
		s->enabled = false;
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

/*
 * Stop, in order:
 *   1. DRAINING: probe hits run nothing (exit() may have moved it here);
 *   2. END's clauses, once, if the session started;
 *   3. STOPPED, then the probes disabled (disabling waits out every hit
 *      in flight, so nothing runs on the session's memory afterwards).
 */
void trace_session_stop(struct trace_session *s)
{
	enum trace_state was = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
	if (was == TRACE_STOPPED && !s->enabled)
		return;
	if (was != TRACE_STOPPED && was != TRACE_LOADED) {
		__atomic_store_n(&s->state, TRACE_DRAINING, __ATOMIC_RELEASE);
		trace_fire_session_probe(s, s->end, (const uint64_t[6]){ 0 }, TRACE_DRAINING);
	}
	__atomic_store_n(&s->state, TRACE_STOPPED, __ATOMIC_RELEASE);
	if (s->enabled) {
		disable_all(s);
		s->enabled = false;
	}
}

void trace_session_destroy(struct trace_session *s)
{
	if (!s)
		return;
	trace_session_stop(s);
	if (s->own_bufs)
		tbuf_destroy(s->bufs);
	trace_session_free(s);
}

uint32_t trace_session_necbs(const struct trace_session *s)
{
	return s->necbs;
}

uint32_t trace_session_native_programs(const struct trace_session *s, uint32_t *nprogs)
{
	*nprogs = s->obj.nprogs;
	return s->obj.njit;
}

void trace_session_ecb(const struct trace_session *s, uint32_t epid, uint32_t *clause,
		       uint32_t *probe_id)
{
	const struct trace_ecb *e = &s->ecbs[epid - 1];
	*clause = (uint32_t)(e->clause - s->obj.clauses);
	*probe_id = e->probe->id;
}
