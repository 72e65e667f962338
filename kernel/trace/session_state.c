// SPDX-License-Identifier: BSD-2-Clause
/*
 * A session's memory: the per-CPU state, aggregation buffers, dynamic
 * variable space, speculations and globals a loaded trace object needs
 * (step 2 of session.c's life), and freeing them with the object. Kept
 * apart from session.c, which speaks to the control channel, so the D
 * oracle (tests/dref/) builds its host sessions with this very code.
 *
 * Invariant: trace_session_free undoes any prefix of
 * trace_session_allocate; the principal buffers (s->bufs) belong to
 * whoever made them (the channel's stream in the kernel) and are not
 * freed here.
 */
#include <scion/mm.h>
#include "trace_internal.h"

uint32_t trace_agg_min_entry(const struct trace_object *o)
{
	uint32_t min_entry = UINT32_MAX;
	for (uint32_t i = 0; i < o->naggs; i++) {
		uint32_t e = (uint32_t)sizeof(struct dof_aggent) + o->aggs[i].keybytes +
			     o->aggs[i].valbytes;
		if (e < min_entry)
			min_entry = e;
	}
	return o->naggs ? min_entry : DOF_AGGSIZE_MIN;
}

int trace_session_allocate(struct trace_session *s, uint32_t aggsize, uint32_t min_entry)
{
	const struct trace_object *o = &s->obj;
	s->aggs = aggbuf_create(aggsize, min_entry);
	s->dynvars = dynvar_create((uint32_t)o->option[DOF_OPT_DYNVARSIZE]);
	s->specs = spec_create((uint32_t)o->option[DOF_OPT_NSPEC],
			       (uint32_t)o->option[DOF_OPT_SPECSIZE]);
	s->globals = kzalloc(o->globals_bytes ? o->globals_bytes : 8);
	if (!s->aggs || !s->dynvars || !s->specs || !s->globals)
		return -1;
	for (unsigned i = 0; i < cpu_count(); i++) {
		struct trace_cpu *c = &s->cpu[i];
		c->staging = kmalloc(DOF_MAX_RECORD);
		c->scratch = kmalloc(TRACE_SCRATCH);
		c->locals = kzalloc(o->locals_bytes ? o->locals_bytes : 8);
		c->key = kmalloc(TRACE_KEY_MAX);
		c->agg_key = kmalloc(DOF_MAX_KEYBYTES);
		if (!c->staging || !c->scratch || !c->locals || !c->key || !c->agg_key)
			return -1;
	}
	return 0;
}

void trace_session_free(struct trace_session *s)
{
	for (unsigned i = 0; i < MAX_CPUS; i++) {
		kfree(s->cpu[i].staging);
		kfree(s->cpu[i].scratch);
		kfree(s->cpu[i].locals);
		kfree(s->cpu[i].key);
		kfree(s->cpu[i].agg_key);
	}
	trace_bufpolicy_free(s);
	aggbuf_destroy(s->aggs);
	dynvar_destroy(s->dynvars);
	spec_destroy(s->specs);
	kfree(s->globals);
	kfree(s->ecbs);
	for (uint32_t i = 0; s->enablings && i < s->nenablings; i++)
		kfree(s->enablings[i].plan);
	kfree(s->enablings);
	dof_free(&s->obj);
	kfree(s);
}
