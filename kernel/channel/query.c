// SPDX-License-Identifier: BSD-2-Clause
/*
 * The ops that report the kernel's state to the host in structured
 * records (scion/chan_reply.h): STATUS, STATS, PROBE_LIST, GRAFT_LIST
 * and METRICS (EVENTS is event.c's), and the list answers they share;
 * METRIC_ADD and METRIC_REMOVE set KernInst metrics up and take them down.
 * Each reads the subsystems' own APIs and fills the records; the shell
 * commands that print the same facts for people read the same APIs, so
 * the two never disagree and the host never reads the shell's text.
 *
 * A list request is a struct chan_list_request (PROBE_LIST: then the
 * spec); the answer is one page of records after its start, and says
 * whether there are more.
 */
#include <scion/adapt.h>
#include <scion/chan_reply.h>
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>
#include <scion/mm.h>
#include <scion/clock.h>
#include <scion/cpu.h>
#include <scion/graft.h>
#include <scion/probe.h>
#include <scion/metrics.h>
#include <scion/proc.h>
#include <scion/version.h>
#include <arch/timer.h>
#include "channel_internal.h"

#define KIB_PER_PAGE 4
#define SPEC_MAX     256

int chan_list_begin(struct chan_list *l, uint32_t seq, const uint8_t *body, uint32_t len,
		    const struct chan_wire_layout *record, const char *what, bool more_body)
{
	size_t record_bytes = record->size;
	struct chan_list_request req;

	*l = (struct chan_list){ .seq = seq, .record = record, .record_bytes = record_bytes,
				 .room = CHAN_LIST_PAGE_BYTES / record_bytes };
	if (len < sizeof(struct chan_list_request)) {
		channel_error(seq, -EINVAL, "%s: a request of %u bytes; give a u64 start (0 for the "
			      "first records)", what, len);
		return -EINVAL;
	}
	if (!more_body && len > sizeof(struct chan_list_request)) {
		channel_error(seq, -EINVAL, "%s: a request of %u bytes; it takes %zu", what, len,
			      sizeof(struct chan_list_request));
		return -EINVAL;
	}
	memcpy(&req, body, sizeof(req));
	chan_wire_from_le(CHAN_WIRE(chan_list_request), &req, 1);
	l->start = req.start;
	l->head.record_bytes = (uint32_t)record_bytes;
	l->page = kzalloc(sizeof(l->head) + l->room * record_bytes);
	if (!l->page) {
		channel_error(seq, -ENOMEM, "%s: no memory for %zu records", what, l->room);
		return -ENOMEM;
	}
	return 0;
}

void *chan_list_add(struct chan_list *l, uint64_t key)
{
	l->head.total++;
	if (key <= l->start || l->head.more)
		return NULL;
	if (l->head.count == l->room) {
		l->head.more = 1;
		return NULL;
	}
	l->head.next = key;
	return l->page + sizeof(l->head) + l->head.count++ * l->record_bytes;
}

int chan_list_finish(struct chan_list *l)
{
	if (!l->head.more)
		l->head.next = l->head.count ? l->head.next : l->start;
	uint32_t count = l->head.count;
	memcpy(l->page, &l->head, sizeof(l->head));
	chan_wire_to_le(CHAN_WIRE(chan_list_head), l->page, 1);
	chan_wire_to_le(l->record, l->page + sizeof(l->head), count);
	channel_respond(l->seq, 0, l->page, sizeof(l->head) + count * l->record_bytes);
	kfree(l->page);
	return 0;
}

/* A report's request has no body. */
static int no_body(uint32_t seq, uint32_t len, const char *what)
{
	if (!len)
		return 0;
	channel_error(seq, -EINVAL, "%s: a request of %u bytes; it takes none", what, len);
	return -EINVAL;
}

static void count_graft(struct graft *g, void *arg)
{
	uint32_t *counts = arg;
	counts[0]++;
	counts[1] += READ_ONCE(g->installed);
}

int channel_op_status(uint32_t seq, const uint8_t *body, uint32_t len)
{
	struct chan_status s = { 0 };
	struct pmm_stats mem;
	struct probe_stats probes;
	uint32_t grafts[2] = { 0, 0 };

	(void)body;
	if (no_body(seq, len, "status"))
		return -EINVAL;
	pmm_get_stats(&mem);
	probe_get_stats(&probes);
	graft_foreach(count_graft, grafts);
	strlcpy(s.version, scion_version, sizeof(s.version));
	strlcpy(s.build, scion_build_info, sizeof(s.build));
	s.uptime_ms = clock_ticks() * 1000 / HZ;
	s.cpus = cpu_count();
	s.memory_kib = mem.managed_pages * KIB_PER_PAGE;
	s.memory_free_kib = mem.free_pages * KIB_PER_PAGE;
	s.grafts_loaded = grafts[0];
	s.grafts_installed = grafts[1];
	s.probes = probes.probes;
	s.probe_sites = probes.sites;
	s.jump_sites = probes.jump_sites;
	s.breakpoint_sites = probes.breakpoint_sites;
	s.probe_installs = probes.installs;
	s.probe_removals = probes.removals;
	s.sync_rounds = probes.sync_rounds;
	s.jumps_refused = probes.refused_jumps;
	s.channel_frames_accepted = channel.parser.accepted;
	s.channel_frames_rejected = channel.parser.rejected;
	s.cycles_per_second = arch_cycles_per_second();
	chan_wire_to_le(CHAN_WIRE(chan_status), &s, 1);
	channel_respond(seq, 0, &s, sizeof(s));
	return 0;
}

void channel_get_stats(struct chan_channel_stats *s)
{
	const struct chan_parser *p = &channel.parser;
	const struct channel_counters *c = &channel.counters;

	*s = (struct chan_channel_stats){
		.frames_accepted = p->accepted, .frames_rejected = p->rejected,
		.garbage_bytes = p->garbage_bytes,
		.rx_bytes = c->rx_bytes, .tx_bytes = c->tx_bytes, .frames_sent = c->frames_sent,
		.errors_sent = c->errors_sent, .requests = c->requests,
		.requests_failed = c->requests_failed, .hellos = c->hellos,
		.version_mismatches = c->version_mismatches, .rx_stalls = c->rx_stalls,
		.rx_ring_used = READ_ONCE(channel.ring_head) - READ_ONCE(channel.ring_tail),
		.rx_held = READ_ONCE(channel.input_held), .parser_state = (uint32_t)p->state,
	};
	for (int r = CHAN_REJECT_NONE + 1; r < CHAN_REJECT_KINDS; r++)
		s->rejected[r] = p->rejects[r];
}

int channel_op_stats(uint32_t seq, const uint8_t *body, uint32_t len)
{
	struct chan_channel_stats s;

	(void)body;
	if (no_body(seq, len, "stats"))
		return -EINVAL;
	channel_get_stats(&s);
	chan_wire_to_le(CHAN_WIRE(chan_channel_stats), &s, 1);
	channel_respond(seq, 0, &s, sizeof(s));
	return 0;
}

static bool list_probe(struct probe *p, int64_t count, void *arg)
{
	struct chan_probe_info *r = chan_list_add(arg, p->id);
	if (r) {
		*r = (struct chan_probe_info){ .id = p->id, .sites = p->nsites,
					       .consumers = READ_ONCE(p->nconsumers), .count = count };
		probe_fullname(p, r->name, sizeof(r->name));
	}
	return true;
}

int channel_op_probe_list(uint32_t seq, const uint8_t *body, uint32_t len)
{
	char spec[SPEC_MAX];
	const char *why;
	struct chan_list l;
	size_t n = len > sizeof(struct chan_list_request) ? len - sizeof(struct chan_list_request) : 0;

	if (n >= sizeof(spec) || strnlen((const char *)body + sizeof(struct chan_list_request), n) != n) {
		channel_error(seq, -EINVAL, "probe list: give a spec of at most %u bytes, no NUL",
			      SPEC_MAX - 1);
		return -EINVAL;
	}
	int err = chan_list_begin(&l, seq, body, len, CHAN_WIRE(chan_probe_info), "probe list",
				  true);
	if (err)
		return err;
	memcpy(spec, body + sizeof(struct chan_list_request), n);
	spec[n] = '\0';
	err = probe_shell_list(spec, list_probe, &l, &why);
	if (err < 0) {
		kfree(l.page);
		channel_error(seq, err, "probe list %s: %s", spec, why);
		return err;
	}
	return chan_list_finish(&l);
}

struct graft_listing {
	struct chan_list *list;
	uint64_t key;
};

static void list_graft(struct graft *g, void *arg)
{
	struct graft_listing *gl = arg;
	struct chan_graft_info *r = chan_list_add(gl->list, ++gl->key);
	uint64_t hz = arch_cycles_per_second(), per_us = hz / 1000000 ? hz / 1000000 : 1;

	if (!r)
		return;
	strlcpy(r->name, g->name, sizeof(r->name));
	strlcpy(r->point, g->point->name, sizeof(r->point));
	r->installed = READ_ONCE(g->installed);
	r->scope_tid = r->installed ? READ_ONCE(g->scope_tid) : 0;
	struct graft_counts n;

	graft_counts(g, &n);
	r->invocations = n.invocations;
	r->commits = n.commits;
	r->aborts = n.aborts;
	r->cycles = READ_ONCE(g->cycles);
	r->time_us = hz ? r->cycles / per_us : 0;
	r->mode = g->builtin ? CHAN_GRAFT_BUILTIN : g->sandboxed ? CHAN_GRAFT_SANDBOXED
								   : CHAN_GRAFT_TRUSTED;
	r->text_start = g->code_start;
	r->text_bytes = (uint32_t)(g->code_end - g->code_start);
	r->verify_cycles = READ_ONCE(g->verify_cycles);
	graft_last_abort(g, r->last_abort, sizeof(r->last_abort));
}

int channel_op_graft_list(uint32_t seq, const uint8_t *body, uint32_t len)
{
	struct chan_list l;
	int err = chan_list_begin(&l, seq, body, len, CHAN_WIRE(chan_graft_info), "graft list",
				  false);
	if (err)
		return err;
	struct graft_listing gl = { &l, 0 };
	graft_foreach(list_graft, &gl);
	return chan_list_finish(&l);
}

static void list_metric(const struct metric_value *v, void *arg)
{
	static const uint32_t kinds[] = { [METRIC_COUNT] = CHAN_METRIC_COUNT,
		[METRIC_LATENCY] = CHAN_METRIC_LATENCY, [METRIC_CONCURRENCY] = CHAN_METRIC_CONCURRENCY };
	struct chan_metric_info *r = chan_list_add(arg, v->id);
	if (!r)
		return;
	*r = (struct chan_metric_info){ .id = v->id, .kind = kinds[v->kind], .tid = v->tid,
					.calls = v->calls, .inside = v->inside, .area = v->area,
					.elapsed = v->elapsed };
	strlcpy(r->function, v->function, sizeof(r->function));
}

int channel_op_metric_add(uint32_t seq, const uint8_t *body, uint32_t len)
{
	static const enum metric_kind kinds[] = { [CHAN_METRIC_COUNT] = METRIC_COUNT,
		[CHAN_METRIC_LATENCY] = METRIC_LATENCY,
		[CHAN_METRIC_CONCURRENCY] = METRIC_CONCURRENCY };
	struct chan_metric_add_request req;
	if (len != sizeof(req)) {
		channel_error(seq, -EINVAL, "metric add: give a struct chan_metric_add_request "
			      "(%zu bytes), not %u bytes", sizeof(req), len);
		return -EINVAL;
	}
	memcpy(&req, body, sizeof(req));
	chan_wire_from_le(CHAN_WIRE(chan_metric_add_request), &req, 1);
	if (req.kind < CHAN_METRIC_COUNT || req.kind > CHAN_METRIC_CONCURRENCY ||
	    strnlen(req.function, sizeof(req.function)) == sizeof(req.function) || req.pid < 0) {
		channel_error(seq, -EINVAL, "metric add: kind %u, pid %d: give kind 1..3, pid >= 0 "
			      "and a NUL-terminated function", req.kind, req.pid);
		return -EINVAL;
	}
	uint64_t tid = 0;
	if (req.pid && !(tid = proc_thread_id(req.pid))) {
		channel_error(seq, -ESRCH, "metric add: no process %d", req.pid);
		return -ESRCH;
	}
	int id = metric_add(kinds[req.kind], req.function, tid);
	if (id < 0) {
		channel_error(seq, id, "metric add: %s on '%s': %s", metric_kind_name(kinds[req.kind]),
			      req.function, id == -ENOENT ? "no fbt probe for it" :
			      id == -ENOSPC ? "every accumulator is in use" :
			      "it cannot be measured (it never returns, or cannot be probed)");
		return id;
	}
	struct chan_metric_add_reply reply = { .id = (uint32_t)id };
	chan_wire_to_le(CHAN_WIRE(chan_metric_add_reply), &reply, 1);
	channel_respond(seq, 0, &reply, sizeof(reply));
	return 0;
}

int channel_op_metric_remove(uint32_t seq, const uint8_t *body, uint32_t len)
{
	struct chan_metric_remove_request req;
	if (len != sizeof(req)) {
		channel_error(seq, -EINVAL, "metric remove: give a struct chan_metric_remove_request "
			      "(%zu bytes), not %u bytes", sizeof(req), len);
		return -EINVAL;
	}
	memcpy(&req, body, sizeof(req));
	chan_wire_from_le(CHAN_WIRE(chan_metric_remove_request), &req, 1);
	if (!req.id) {
		metric_clear();
	} else if (metric_remove(req.id)) {
		channel_error(seq, -ENOENT, "metric remove: no metric %u", req.id);
		return -ENOENT;
	}
	channel_respond(seq, 0, NULL, 0);
	return 0;
}

int channel_op_metrics(uint32_t seq, const uint8_t *body, uint32_t len)
{
	struct chan_list l;
	int err = chan_list_begin(&l, seq, body, len, CHAN_WIRE(chan_metric_info), "metrics",
				  false);
	if (err)
		return err;
	metric_foreach(list_metric, &l);
	return chan_list_finish(&l);
}

/* ADAPT_DECISIONS and ADAPT_ROWS: the adaptation loop's decisions kept (scion/adapt.h). */
static struct adapt_decision_copy decisions_copy[CHAN_ADAPT_DECISIONS];	/* channel thread */

int channel_op_adapt_decisions(uint32_t seq, const uint8_t *body, uint32_t len)
{
	struct chan_list l;
	int err = chan_list_begin(&l, seq, body, len, CHAN_WIRE(chan_adapt_decision),
				  "adapt decisions", false);
	if (err)
		return err;
	size_t count = adapt_decisions_copy(decisions_copy);
	for (size_t k = 0; k < count; k++) {
		struct chan_adapt_decision *r = chan_list_add(&l, decisions_copy[k].d.number);
		if (r)
			*r = decisions_copy[k].d;
	}
	return chan_list_finish(&l);
}

int channel_op_adapt_rows(uint32_t seq, const uint8_t *body, uint32_t len)
{
	struct chan_list l;
	int err = chan_list_begin(&l, seq, body, len, CHAN_WIRE(chan_adapt_row), "adapt rows",
				  false);
	if (err)
		return err;
	size_t count = adapt_decisions_copy(decisions_copy);
	for (size_t k = 0; k < count; k++) {
		const struct adapt_decision_copy *c = &decisions_copy[k];
		for (uint32_t i = 0; i < c->d.rows; i++) {
			struct chan_adapt_row *r = chan_list_add(&l, c->d.number * CHAN_ADAPT_ROW_KEYS +
								 i + 1);
			if (r)
				*r = c->row[i];
		}
	}
	return chan_list_finish(&l);
}
