// SPDX-License-Identifier: BSD-2-Clause
/*
 * The compiled run of a program (dref_kernel_run): the kernel's own
 * trace machinery on the host. The object's bytes go through dof_load
 * (every program through dif_verify); the session's enabled probes,
 * enablings are made as session.c's build_ecbs makes them (over the
 * oracle's own probes: session.c matches the kernel's, over the control
 * channel) and its memory by session.c's own trace_session_allocate
 * (session_state.c); then
 * each firing enters where a probe hit enters the kernel,
 * the handler trace_probe_handler_for gives, with the registers of the
 * hit (BEGIN and END
 * through trace_fire_session_probe), on the CPU, thread and clock
 * reading the scenario gives, and the consumer's side reads the
 * principal and aggregation buffers with session_read.c's walks
 * whenever the scenario drains them, merging aggregation snapshots with
 * trace_agg_merge as the host consumer does.
 */
#include <stdio.h>
#include <string.h>
#include <scion/thread.h>
#include <scion/mm.h>
#include <scion/trace.h>
#include <trace/trace_internal.h>
#include "dref.h"
#include "dref_kernel.h"

#define BUFSIZE (256u << 10)		/* per CPU: room for every record between drains */
#define FUNCTION_BASE 0xffffffff81000000ull	/* where the fbt probes' functions start */

struct host_session {
	struct trace_session *s;
	struct probe probes[DREF_NPROBES];
	struct trace_enabling *enabling[DREF_NPROBES];
	struct thread threads[DREF_THREADS];
	struct dref_results *out;
};

static enum trace_site site_of(const struct dref_probe *p)
{
	return p->site == DREF_SITE_ENTRY ? TRACE_SITE_ENTRY :
	       p->site == DREF_SITE_RETURN ? TRACE_SITE_RETURN : TRACE_SITE_INSIDE;
}

static void append(struct trace_ecb **chain, struct trace_ecb *e)
{
	while (*chain)
		chain = &(*chain)->next;
	*chain = e;
}

/* session.c's build_ecbs over the matches of dref_match: EPIDs, chains, one enabling per probe. */
static int build_ecbs(struct host_session *h, const struct dref_ecbs *m)
{
	struct trace_session *s = h->s;
	s->necbs = m->n;
	s->ecbs = kzalloc((m->n ? m->n : 1) * sizeof(*s->ecbs));
	s->enablings = kzalloc(DREF_NPROBES * sizeof(*s->enablings));
	if (!s->ecbs || !s->enablings)
		return -1;
	for (unsigned i = 0; i < m->n; i++) {
		struct trace_ecb *e = &s->ecbs[i];
		unsigned p = m->ecb[i].probe;
		e->epid = i + 1;
		e->clause = &s->obj.clauses[m->ecb[i].clause];
		e->probe = &h->probes[p];
		e->site = site_of(&dref_probes[p]);
		if (p == DREF_PROBE_BEGIN) {
			append(&s->begin, e);
		} else if (p == DREF_PROBE_END) {
			append(&s->end, e);
		} else if (p == DREF_PROBE_ERROR) {
			append(&s->error, e);
		} else {
			if (!h->enabling[p]) {
				struct trace_enabling *en = &s->enablings[s->nenablings++];
				en->session = s;
				en->function = FUNCTION_BASE + 0x1000 * p;
				h->enabling[p] = en;
			}
			append(&h->enabling[p]->ecbs, e);	/* EPID order: clause order */
		}
	}
	return 0;
}

/* session.c's allocate with the object's aggsize (the host has the memory session.c checks for). */
static int allocate(struct trace_session *s, uint64_t wall_base)
{
	const struct trace_object *o = &s->obj;
	uint32_t aggsize = o->naggs ? (uint32_t)o->option[DOF_OPT_AGGSIZE] : DOF_AGGSIZE_MIN;
	s->wall_base_ns = wall_base;
	return trace_session_allocate(s, aggsize, trace_agg_min_entry(o));
}

static void session_free(struct trace_session *s)
{
	tbuf_destroy(s->bufs);
	trace_session_free(s);
}

/* ---- the consumer's side: session_read.c's walks, merged as the host consumer merges ---- */

static void take_entry(void *arg, unsigned cpu, const struct dof_aggent *e)
{
	struct host_session *h = arg;
	uint32_t n = e->valbytes / 8;
	bool fresh;
	uint64_t *into = dref_agg_entry(h->out, cpu, e->agg, dof_aggent_key(e), e->keybytes, n,
					&fresh);
	uint8_t func = (uint8_t)trace_session_agg_func(h->s, e->agg);
	trace_agg_merge(func, into, dof_aggent_values(e), n, fresh);
}

static void take_aggregations(struct host_session *h)
{
	trace_session_take_aggregations(h->s, take_entry, h);
}

static void take_record(void *arg, unsigned cpu, const struct dof_rechdr *r, uint32_t size)
{
	struct host_session *h = arg;
	uint8_t copy[DOF_MAX_RECORD];
	if (size > sizeof(copy))
		size = sizeof(copy);
	memcpy(copy, r, size);
	if (r->epid == DOF_EPID_ERROR && size == sizeof(*r) + sizeof(struct dof_error))
		((struct dof_error *)(copy + sizeof(*r)))->pc = 0;	/* a host address */
	dref_add_record(h->out, cpu, copy, size);
}

static void take_records(struct host_session *h)
{
	h->out->record_drops += trace_session_take_records(h->s, take_record, h);
}

static void take_globals(struct host_session *h)
{
	struct trace_session *s = h->s;
	struct dref_results *out = h->out;
	for (unsigned id = 0; id < out->nglobals && id < DIF_MAX_VARS; id++) {
		const struct trace_var *r = &s->obj.globals[id];
		if (out->global_is_array[id] || !r->used || r->kind != DIF_KIND_SCALAR)
			continue;
		const uint8_t *slot = s->globals + r->offset;
		if (r->type == DIF_TYPE_STRING)
			snprintf(out->global_str[id], DREF_STRMAX, "%.*s", (int)r->size, slot);
		else
			memcpy(&out->global_int[id], slot, 8);
	}
}

/* ---- firing ---- */

static void on_thread(struct host_session *h, const struct dref_scenario *sc,
		      const struct dref_firing *f)
{
	struct thread *t = &h->threads[f->thread];
	const struct dref_thread *d = &sc->threads[f->thread];
	memset(t, 0, sizeof(*t));
	t->tid = d->tid;
	snprintf(t->name, sizeof(t->name), "%s", d->name);
	t->run_cycles = d->run_ns;	/* the host's counter counts ns (dref_kernel.c) */
	t->oncpu_since = d->oncpu_since;
	t->se.affinity = d->affinity;
	t->se.ticks_run = d->ticks_run;
	t->se.switches_in = d->switches_in;
	dref_host_on(f->cpu, t, f->now);
}

static void fire(struct host_session *h, const struct dref_scenario *sc,
		 const struct dref_firing *f)
{
	struct trace_enabling *en = h->enabling[f->probe];
	on_thread(h, sc, f);
	if (en) {
		struct trap_frame frame = { 0 };
		for (unsigned a = 0; a < 6; a++)
			trap_frame_set_arg(&frame, a, f->regs[a]);
		uint64_t addr = en->function;
		if (dref_probes[f->probe].site == DREF_SITE_RETURN) {
			addr += f->regs[0];		/* the ret that fired */
			frame.rax = f->regs[1];
		}
		trap_frame_set_pc(&frame, addr);
		struct probe_hit hit = { .probe = &h->probes[f->probe],
					 .addr = addr, .regs = &frame };
		cpu_probe_hit_begin(this_cpu());
		en->consumer.handler(&hit, en);
		cpu_probe_hit_end(this_cpu());
	}
	if (f->drain_after) {
		take_records(h);
		take_aggregations(h);
	}
}

static void fire_session_probe(struct host_session *h, const struct dref_scenario *sc,
			       const struct dref_firing *f, struct trace_ecb *chain,
			       enum trace_state runs_in)
{
	static const uint64_t zeros[6];
	on_thread(h, sc, f);
	trace_fire_session_probe(h->s, chain, zeros, runs_in);
}

int dref_kernel_run(const struct dt_object *obj, const struct dref_scenario *sc,
		    const struct dref_ecbs *ecbs, struct dref_results *out, char *why, size_t whylen)
{
	struct host_session h = { .out = out };
	dref_host_cpus(sc->ncpus);
	for (unsigned i = 0; i < DREF_NPROBES; i++) {
		const struct dref_probe *d = &dref_probes[i];
		h.probes[i] = (struct probe){ .id = d->id, .provider = d->provider,
					      .module = d->module, .function = d->function,
					      .name = d->name };
	}
	h.s = kzalloc(sizeof(*h.s));
	if (!h.s) {
		snprintf(why, whylen, "no memory for a session");
		return -1;
	}
	if (dof_load(obj->bytes, (uint32_t)obj->size, &h.s->obj, why, whylen)) {
		session_free(h.s);
		return -1;
	}
	if (build_ecbs(&h, ecbs) || allocate(h.s, sc->wall_base) ||
	    !(h.s->bufs = tbuf_create(BUFSIZE))) {
		snprintf(why, whylen, "no memory for the session's buffers");
		session_free(h.s);
		return -1;
	}
	struct trace_session *s = h.s;
	/* As trace_session_start: the policy's decisions, then each enabling's handler. */
	if (trace_bufpolicy_start(s)) {
		snprintf(why, whylen, "no memory for the buffer policy");
		session_free(s);
		return -1;
	}
	for (uint32_t i = 0; i < s->nenablings; i++)
		s->enablings[i].consumer.handler = trace_probe_handler_for(&s->enablings[i]);
	__atomic_store_n(&s->state, TRACE_WARMUP, __ATOMIC_RELEASE);
	fire_session_probe(&h, sc, &sc->begin, s->begin, TRACE_WARMUP);
	enum trace_state warm = TRACE_WARMUP;
	__atomic_compare_exchange_n(&s->state, &warm, TRACE_ACTIVE, false, __ATOMIC_ACQ_REL,
				    __ATOMIC_RELAXED);
	for (unsigned i = 0; i < sc->nfirings; i++)
		fire(&h, sc, &sc->firings[i]);
	__atomic_store_n(&s->state, TRACE_DRAINING, __ATOMIC_RELEASE);
	fire_session_probe(&h, sc, &sc->end, s->end, TRACE_DRAINING);
	__atomic_store_n(&s->state, TRACE_STOPPED, __ATOMIC_RELEASE);
	take_records(&h);
	take_aggregations(&h);
	take_globals(&h);
	struct dof_status st;
	trace_session_status(s, &st);
	out->errors = st.errors;
	out->dynvar_drops = st.dynvar_drops;
	out->agg_drops = st.agg_drops;
	out->exited = st.flags & DOF_STATUS_EXITED;
	out->exit_status = st.exit_status;
	session_free(s);
	return 0;
}
