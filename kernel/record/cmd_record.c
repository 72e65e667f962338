// SPDX-License-Identifier: BSD-2-Clause
/*
 * Shell: `record modules`, `record start MODULE|POINT`, `record stop`,
 * `record list`, `record show REC [trace|log] [FIRST [COUNT]]`,
 * `record delete REC`. Records print as one line each, in the text form
 * `scion record convert --to text` writes on the host
 * (host/scionhost/recfmt.py), so the two can be compared.
 */
#include <scion/record.h>
#include <scion/shell.h>
#include <scion/printk.h>
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>
#include <scion/bcache.h>
#include <graft/sched.h>
#include <scion/graft.h>

#define USAGE "record modules | start MODULE|POINT | stop | list | show REC [trace|log] " \
	      "[FIRST [COUNT]] | delete REC"
#define SHOW_DEFAULT_COUNT 20

static const char *const outcome_names[] = {
	[BCACHE_OUTCOME_HIT] = "hit", [BCACHE_OUTCOME_WAIT] = "wait",
	[BCACHE_OUTCOME_MISS] = "miss", [BCACHE_OUTCOME_ERROR] = "error",
};
static const char *const fate_names[] = {
	[BCACHE_PREFETCH_STARTED] = "started", [BCACHE_PREFETCH_CACHED] = "cached",
	[BCACHE_PREFETCH_NO_BUFFER] = "no-buffer", [BCACHE_PREFETCH_FAILED] = "failed",
};

static const char *const event_names[] = {
	[SCHED_EVENT_RUNNABLE] = "runnable", [SCHED_EVENT_BLOCK] = "block",
	[SCHED_EVENT_EXIT] = "exit", [SCHED_EVENT_TICK] = "tick", [SCHED_EVENT_YIELD] = "yield",
	[SCHED_EVENT_QUEUED] = "queued", [SCHED_EVENT_RUNNING] = "running",
	[SCHED_EVENT_SLEEPING] = "sleeping",
};

static const char *name_of(const char *const *names, size_t n, unsigned v)
{
	return v < n && names[v] ? names[v] : "?";
}

/* "-" for BCACHE_NO_BLOCK, else the block number. */
static const char *block_text(uint64_t b, char *buf, size_t n)
{
	if (b == BCACHE_NO_BLOCK)
		return "-";
	snprintf(buf, n, "%llu", (unsigned long long)b);
	return buf;
}

/* A sched record as one line; false when h is none. */
static bool print_sched_record(const struct rec_head *h)
{
	if (h->type == REC_SCHED_EVENT && h->size == sizeof(struct rec_sched_event)) {
		const struct rec_sched_event *e = (const void *)h;
		printk("seq=%llu tick=%llu time_ns=%llu cpu=%u tid=%llu event=%s affinity=%d\n",
		       (unsigned long long)e->seq, (unsigned long long)e->tick,
		       (unsigned long long)e->time_ns, h->cpu, (unsigned long long)e->tid,
		       name_of(event_names, ARRAY_SIZE(event_names), e->kind), e->affinity);
		return true;
	}
	if (h->type == REC_SCHED_EVENT && h->size == sizeof(struct rec_sched_state)) {
		const struct rec_sched_state *s = (const void *)h;
		const struct rec_sched_event *e = &s->event;
		printk("seq=%llu tick=%llu time_ns=%llu cpu=%u tid=%llu event=%s affinity=%d "
		       "ticks_run=%llu switches=%llu slice=%d\n", (unsigned long long)e->seq,
		       (unsigned long long)e->tick, (unsigned long long)e->time_ns, h->cpu,
		       (unsigned long long)e->tid,
		       name_of(event_names, ARRAY_SIZE(event_names), e->kind), e->affinity,
		       (unsigned long long)s->ticks_run, (unsigned long long)s->switches_in,
		       s->slice);
		return true;
	}
	if (h->type == REC_SCHED_PICK && h->size == sizeof(struct rec_sched_pick)) {
		const struct rec_sched_pick *p = (const void *)h;
		printk("seq=%llu tick=%llu cpu=%u tid=%llu prev=%llu queued=%u\n",
		       (unsigned long long)p->seq, (unsigned long long)p->tick, p->cpu,
		       (unsigned long long)p->tid, (unsigned long long)p->prev, p->queued);
		return true;
	}
	return false;
}

static const char *const point_outcome_names[] = {
	[GRAFT_OUTCOME_DEFAULT] = "default", [GRAFT_OUTCOME_COMMITTED] = "committed",
	[GRAFT_OUTCOME_ABORTED] = "aborted",
};

/* A graft point's call or done record; false when h is neither. */
static bool print_point_record(const struct rec_head *h)
{
	if (h->type == REC_POINT_CALL && h->size == sizeof(struct rec_point_call)) {
		const struct rec_point_call *r = (const void *)h;
		printk("seq=%llu time_ns=%llu cpu=%u tid=%llu args=", (unsigned long long)r->seq,
		       (unsigned long long)r->time_ns, h->cpu, (unsigned long long)r->tid);
		for (unsigned k = 0; k < 6; k++)
			printk("%s0x%llx", k ? "," : "", (unsigned long long)r->args[k]);
		printk("\n");
		return true;
	}
	if (h->type == REC_POINT_DONE && h->size == sizeof(struct rec_point_done)) {
		const struct rec_point_done *r = (const void *)h;
		printk("seq=%llu time_ns=%llu cpu=%u result=0x%llx outcome=%s\n",
		       (unsigned long long)r->seq, (unsigned long long)r->time_ns, h->cpu,
		       (unsigned long long)r->result,
		       name_of(point_outcome_names, ARRAY_SIZE(point_outcome_names), r->outcome));
		return true;
	}
	return false;
}

/* " op=write+sync+whole" for a write's flags; nothing for a read (printed as before writes). */
static void print_op(unsigned flags)
{
	if (!(flags & BCACHE_REQ_WRITE))
		return;
	printk(" op=write%s%s", flags & BCACHE_REQ_SYNC ? "+sync" : "",
	       flags & BCACHE_REQ_WHOLE ? "+whole" : "");
}

static void rec_print_record(const struct rec_head *h)
{
	char v[24];

	if (print_sched_record(h) || print_point_record(h))
		return;
	if (h->type == REC_BCACHE_REQUEST && h->size == sizeof(struct rec_bcache_request)) {
		const struct rec_bcache_request *r = (const void *)h;
		printk("seq=%llu time_ns=%llu cpu=%u tid=%llu pid=%llu block=%llu in_flight=%u",
		       (unsigned long long)r->seq, (unsigned long long)r->time_ns, h->cpu,
		       (unsigned long long)r->tid, (unsigned long long)r->pid,
		       (unsigned long long)r->block, r->in_flight);
		print_op(r->flags);
		printk("\n");
		return;
	}
	const struct rec_bcache_result *r = (const void *)h;
	if (h->type != REC_BCACHE_RESULT || h->size != REC_BCACHE_RESULT_BYTES(r->nprefetch)) {
		printk("record of type %u, %u bytes\n", h->type, h->size);
		return;
	}
	printk("seq=%llu cpu=%u block=%llu outcome=%s victim=%s latency_ns=%llu prefetch=",
	       (unsigned long long)r->seq, h->cpu, (unsigned long long)r->block,
	       name_of(outcome_names, ARRAY_SIZE(outcome_names), r->outcome),
	       block_text(r->victim, v, sizeof(v)), (unsigned long long)r->latency_ns);
	if (!r->nprefetch)
		printk("-");
	for (unsigned k = 0; k < r->nprefetch; k++)
		printk("%s%llu:%s/%s", k ? "," : "", (unsigned long long)r->prefetch[k].block,
		       name_of(fate_names, ARRAY_SIZE(fate_names), r->prefetch[k].fate),
		       block_text(r->prefetch[k].victim, v, sizeof(v)));
	print_op(r->flags);
	printk("\n");
}

static void list_one(const struct recording *r, void *arg)
{
	(void)arg;
	printk("rec%-4u %-8s %8llu %8llu %6llu  %-36s %s%s\n", r->id,
	       r->complete ? r->header[0].module : "-",
	       (unsigned long long)r->stream[0].records, (unsigned long long)r->stream[1].records,
	       (unsigned long long)(r->header[0].drops + r->header[1].drops),
	       r->complete ? r->header[0].policy : "(recording)", r->origin,
	       r->complete && (r->header[0].drops || r->header[1].drops) ? " INCOMPLETE" : "");
}

static int cmd_list(void)
{
	printk("%-7s %-8s %8s %8s %6s  %-36s %s\n", "rec", "module", "trace", "log", "drops",
	       "policy", "origin");
	rec_store_foreach(list_one, NULL);
	printk("store: %llu of %llu bytes\n", (unsigned long long)rec_store_bytes(),
	       (unsigned long long)rec_store_limit());
	return 0;
}

static int cmd_show(int argc, char **argv)
{
	unsigned id, stream = 0;
	uint64_t first = 1, count = SHOW_DEFAULT_COUNT;
	int a = 3;

	if (!rec_parse_id(argv[2], &id)) {
		printk("record: '%s' is not a recording (rec1, rec2, ...: `record list`)\n", argv[2]);
		return -EINVAL;
	}
	if (a < argc && (!strcmp(argv[a], "trace") || !strcmp(argv[a], "log")))
		stream = !strcmp(argv[a++], "log");
	if ((a < argc && parse_u64(argv[a++], &first, false)) ||
	    (a < argc && parse_u64(argv[a++], &count, false)) || a < argc || first == 0) {
		printk("record: usage: record show REC [trace|log] [FIRST [COUNT]] (FIRST from 1)\n");
		return -EINVAL;
	}
	struct recording *r = rec_store_get(id, false);
	if (!r) {
		printk("record: no complete recording rec%u (`record list`)\n", id);
		return -ENOENT;
	}
	const struct rec_file_header *h = &r->header[stream];
	printk("rec%u %s: %s, %s, %llu records, %llu dropped\n", id, stream ? "log" : "trace",
	       h->module, h->policy, (unsigned long long)r->stream[stream].records,
	       (unsigned long long)h->drops);
	struct rec_cursor cur;
	rec_cursor_init(&cur, &r->stream[stream]);
	uint64_t index = 0;
	for (const struct rec_head *rec; (rec = rec_cursor_next(&cur)) && index < first - 1 + count;)
		if (++index >= first)
			rec_print_record(rec);
	rec_store_put(r);
	return 0;
}

static int cmd_stop(void)
{
	char why[160];
	struct recording *r;
	int err = record_kernel_stop(&r, why, sizeof(why));
	if (err) {
		printk("record: %s\n", why);
		return err;
	}
	const struct rec_module *m = rec_module_find(r->header[0].module);
	printk("record: rec%u: %s, %llu %s, %llu %s, %llu dropped\n", r->id, r->header[0].module,
	       (unsigned long long)r->stream[0].records, m ? m->trace_what : "requests",
	       (unsigned long long)r->stream[1].records, m ? m->log_what : "results",
	       (unsigned long long)(r->header[0].drops + r->header[1].drops));
	if (why[0])
		printk("record: rec%u is incomplete: %s\n", r->id, why);
	rec_store_put(r);
	return 0;
}

static int cmd_record(int argc, char **argv)
{
	char why[160];

	if (argc == 2 && !strcmp(argv[1], "modules")) {
		LINKER_TABLE_FOREACH(struct rec_module, rec_modules, m)
			printk("%-10s trace at %s, log at %s%s\n", m->name, m->input_point,
			       m->output_point, m->available && !m->available() ? " (absent)" : "");
		printk("%-10s any graft point (`graft points`): its calls and how each ended\n",
		       "POINT");
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "start")) {
		int err = record_kernel_start(argv[2], why, sizeof(why));
		if (err)
			printk("record: %s\n", why);
		else
			printk("record: rec%u: recording %s; `record stop` ends it\n",
			       record_kernel_active(), argv[2]);
		return err;
	}
	if (argc == 2 && !strcmp(argv[1], "stop"))
		return cmd_stop();
	if (argc == 2 && !strcmp(argv[1], "list"))
		return cmd_list();
	if (argc >= 3 && !strcmp(argv[1], "show"))
		return cmd_show(argc, argv);
	if (argc == 3 && !strcmp(argv[1], "delete")) {
		unsigned id;
		int err = rec_parse_id(argv[2], &id) ? rec_store_delete(id) : -EINVAL;
		if (err == -EINVAL)
			printk("record: '%s' is not a recording (rec1, rec2, ...)\n", argv[2]);
		else if (err == -ENOENT)
			printk("record: no recording rec%u\n", id);
		else if (err == -EBUSY)
			printk("record: rec%u is in use (being recorded or replayed)\n", id);
		else
			printk("record: rec%u deleted\n", id);
		return err;
	}
	printk("record: usage: " USAGE "\n");
	return -EINVAL;
}
SHELL_COMMAND(record, "modules|start MODULE|POINT|stop|list|show REC [trace|log] [FIRST [COUNT]]|delete REC",
	      "record a module's trace (inputs) and log (outputs) for simulation", cmd_record);
