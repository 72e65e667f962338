// SPDX-License-Identifier: BSD-2-Clause
/*
 * Recording sessions (scion/record.h): a module's two recording grafts
 * installed on its input and output event points (or one graft point's
 * recorder, point_record.c), writing into one set of per-CPU buffers.
 * Two places take what they write:
 *
 *   - the "record" stream source: the channel's output thread switches
 *     the buffers and sends the records to the host (`scion record`),
 *     after a first STATUS chunk holding the trace and log headers;
 *   - a recording kept in the kernel (`record start`): the recorder
 *     thread switches the buffers every RECORDER_SWITCH_MS, keeps each
 *     CPU's records in order, and at `record stop` merges them by
 *     sequence number into the recording's trace and log.
 *
 * Nothing is lost silently: a record that does not fit a buffer, or the
 * store, is counted in the header's drops, and a recording with drops
 * says it is incomplete.
 *
 * A module with begin and end hooks (struct rec_module) opens and closes
 * its streams itself, both at one instant, and may start them with a
 * description of its state (the scheduler's does).
 *
 * Stopping: graft_remove leaves invocations already running to finish;
 * the recording grafts run at event points whose callers mask
 * interrupts, so once one round of cross-calls has run on every CPU no
 * CPU is still inside one, and the buffers may be switched a last time
 * and freed.
 *
 * Lock order: active_lock -> session_lock -> graft point locks.
 */
#include <scion/record.h>
#include <scion/graft.h>
#include <scion/channel.h>
#include <scion/chan_proto.h>
#include <scion/thread.h>
#include <scion/sched.h>
#include <scion/clock.h>
#include <scion/mutex.h>
#include <scion/xcall.h>
#include <scion/mm.h>
#include <scion/string.h>
#include <scion/format.h>
#include <scion/printk.h>
#include <scion/errno.h>

#define RECORDER_SWITCH_MS 50
#define RECORDER_BUFSIZE   (64 * 1024)

struct rec_session {
	const struct rec_module *module;	/* set once */
	struct graft *graft[2];			/* set once: input, output */
	struct tbuf_set *bufs;			/* set once */
};

static struct mutex session_lock = MUTEX_INIT(session_lock, "record-sessions");
static const struct rec_module *busy[8];	/* session_lock: modules being recorded */

const struct rec_module *rec_module_find(const char *name)
{
	LINKER_TABLE_FOREACH(struct rec_module, rec_modules, m)
		if (!strcmp(m->name, name))
			return m;
	return NULL;
}

void rec_header_init(struct rec_file_header *h, const struct rec_module *m, enum rec_stream s)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, REC_MAGIC, sizeof(h->magic));
	h->version = REC_VERSION;
	h->stream = (uint16_t)s;
	h->header_bytes = sizeof(*h);
	strlcpy(h->module, m->name, sizeof(h->module));
	m->describe(h);
}

static bool mark_busy(const struct rec_module *m, bool on)
{
	int free_slot = -1;
	for (unsigned i = 0; i < ARRAY_SIZE(busy); i++) {
		if (busy[i] == m) {
			if (!on)
				busy[i] = NULL;
			return !on;
		}
		if (!busy[i] && free_slot < 0)
			free_slot = (int)i;
	}
	if (on && free_slot >= 0)
		busy[free_slot] = m;
	return on && free_slot >= 0;
}

static void nothing(void *arg)
{
	(void)arg;
}

struct rec_session *rec_session_start(const struct rec_module *m, struct tbuf_set *bufs,
				      char *why, size_t whylen)
{
	if (m->available && !m->available()) {
		snprintf(why, whylen, "%s is not present on this machine", m->name);
		return NULL;
	}
	struct rec_session *s = kzalloc(sizeof(*s));
	if (!s) {
		snprintf(why, whylen, "no memory for a recording session");
		return NULL;
	}
	s->module = m;
	s->bufs = bufs;
	mutex_lock(&session_lock);
	if (!mark_busy(m, true)) {
		mutex_unlock(&session_lock);
		kfree(s);
		snprintf(why, whylen, "%s is being recorded already (`record stop` ends it)", m->name);
		return NULL;
	}
	*m->bufs = m->begin ? NULL : bufs;	/* with begin, the module opens its streams itself */
	const char *points[2] = { m->input_point, m->output_point };
	void *fns[2] = { m->input_graft, m->output_graft };
	char name[GRAFT_NAME_MAX], err[160] = "";
	for (unsigned k = 0; k < 2; k++) {
		snprintf(name, sizeof(name), "record-%s-%s", m->name, k ? "log" : "trace");
		s->graft[k] = graft_create_builtin(name, points[k], fns[k]);
		if (s->graft[k])	/* a recorder writes a record and returns: no transaction */
			s->graft[k]->direct = true;
		if (!s->graft[k] || graft_install(s->graft[k], 0, err, sizeof(err))) {
			snprintf(why, whylen, "cannot graft the recorder on %s: %s", points[k],
				 s->graft[k] ? err : "no such event point");
			graft_destroy_builtin(s->graft[k]);
			if (k)
				graft_destroy_builtin(s->graft[0]);
			xcall_all(nothing, NULL);
			*m->bufs = NULL;
			mark_busy(m, false);
			mutex_unlock(&session_lock);
			kfree(s);
			return NULL;
		}
	}
	if (m->begin)
		m->begin(bufs);
	mutex_unlock(&session_lock);
	return s;
}

void rec_session_stop(struct rec_session *s)
{
	mutex_lock(&session_lock);
	if (s->module->end)
		s->module->end();
	graft_destroy_builtin(s->graft[0]);
	graft_destroy_builtin(s->graft[1]);
	/* A grace period: every CPU takes an interrupt, so none is inside a recording graft. */
	xcall_all(nothing, NULL);
	*s->module->bufs = NULL;
	mark_busy(s->module, false);
	mutex_unlock(&session_lock);
	kfree(s);
}

/*
 * What a recording records: a module (its recording grafts), or a graft
 * point on its own (point_record.c; *session stays NULL). Fills both
 * headers. Return value: 0 or -errno with why filled.
 */
static int rec_target_start(const char *name, struct tbuf_set *bufs,
			    struct rec_file_header header[2], struct rec_session **session,
			    char *why, size_t whylen)
{
	const struct rec_module *m = rec_module_find(name);
	*session = NULL;
	if (!m) {
		int err = rec_point_start(name, bufs, why, whylen);
		if (!err) {
			rec_point_header(&header[0], name, REC_STREAM_TRACE);
			rec_point_header(&header[1], name, REC_STREAM_LOG);
		}
		return err;
	}
	rec_header_init(&header[0], m, REC_STREAM_TRACE);
	rec_header_init(&header[1], m, REC_STREAM_LOG);
	*session = rec_session_start(m, bufs, why, whylen);
	return *session ? 0 : -EBUSY;
}

static void rec_target_stop(struct rec_session *session)
{
	if (session)
		rec_session_stop(session);
	else
		rec_point_stop();
}

/* --- The "record" stream source: records to the host ------------------------- */

struct stream_recording {
	struct rec_session *session;	/* NULL: a graft point is recorded (point_record.c) */
	bool headers_sent;		/* the stream's drain lock */
	struct rec_file_header header[2];
};

static int stream_open(struct tbuf_set *bufs, const char *args, void **priv, char *why,
		       size_t whylen)
{
	struct stream_recording *r = kzalloc(sizeof(*r));
	if (!r) {
		snprintf(why, whylen, "no memory for the recording");
		return -ENOMEM;
	}
	int err = rec_target_start(args, bufs, r->header, &r->session, why, whylen);
	if (err) {
		kfree(r);
		return err;
	}
	*priv = r;
	return 0;
}

static void stream_close(void *priv)
{
	struct stream_recording *r = priv;
	rec_target_stop(r->session);
	r->session = NULL;
}

/* The headers first, as a STATUS chunk, so the host can name and check what follows. */
static void stream_drain(void *priv, struct chan_stream_sink *sink)
{
	struct stream_recording *r = priv;
	if (r->headers_sent)
		return;
	r->headers_sent = true;
	struct rec_file_header wire[2];
	memcpy(wire, r->header, sizeof(wire));
	rec_header_to_le(wire, 2);
	chan_stream_send(sink, CHAN_CHUNK_STATUS, 2, 0, wire, sizeof(wire));
}

/* A big-endian machine's records to the wire's order, as each chunk leaves. */
static void stream_to_wire(void *priv, uint8_t *records, uint32_t bytes)
{
	(void)priv;
	rec_records_to_le(records, bytes);
}

static void stream_release(void *priv)
{
	kfree(priv);
}

CHAN_STREAM_SOURCE_WIRE(record_source, "record", "MODULE or POINT", stream_open, stream_close,
			stream_drain, stream_release, stream_to_wire);

/* --- Recordings kept in the kernel: the recorder thread ---------------------- */

struct kernel_recording {
	struct recording *rec;
	struct rec_session *session;
	struct tbuf_set *bufs;
	struct thread *thread;
	volatile bool stopping;
	struct rec_data percpu[2][MAX_CPUS];	/* each CPU's records, in its order */
	uint64_t drops[2];			/* buffer drops (not by stream) and store drops */
	int error;				/* the first store error */
};

static struct mutex active_lock = MUTEX_INIT(active_lock, "record-active");
static struct kernel_recording *active;	/* active_lock */

/* Move what the last switch took into each CPU's lists. */
static void take(struct kernel_recording *k)
{
	tbuf_switch(k->bufs);
	for (unsigned cpu = 0; cpu < k->bufs->ncpus; cpu++) {
		uint32_t bytes;
		uint64_t records, drops;
		const uint8_t *p = tbuf_taken(k->bufs, cpu, &bytes, &records, &drops);
		/* A buffer drop loses a record of either stream: count it against both. */
		k->drops[0] += drops;
		k->drops[1] += drops;
		for (uint32_t off = 0; off + sizeof(struct rec_head) <= bytes;) {
			const struct rec_head *h = (const void *)(p + off);
			unsigned s = rec_type_stream(h->type) == REC_STREAM_LOG ? 1 : 0;
			int err = rec_data_append(&k->percpu[s][cpu], h, h->size);
			if (err) {
				k->drops[s]++;
				if (!k->error)
					k->error = err;
			}
			off += h->size;
		}
	}
}

static void recorder_thread(void *arg)
{
	struct kernel_recording *k = arg;
	while (!READ_ONCE(k->stopping)) {
		thread_sleep_ticks(ms_to_ticks(RECORDER_SWITCH_MS));
		take(k);
	}
}

int record_kernel_start(const char *module, char *why, size_t whylen)
{
	mutex_lock(&active_lock);
	if (active) {
		mutex_unlock(&active_lock);
		snprintf(why, whylen, "rec%u is recording; `record stop` first", active->rec->id);
		return -EBUSY;
	}
	struct kernel_recording *k = kzalloc(sizeof(*k));
	char origin[REC_ORIGIN_MAX];
	snprintf(origin, sizeof(origin), "recorded live from %s", module);
	k->bufs = k ? tbuf_create(RECORDER_BUFSIZE) : NULL;
	k->rec = k && k->bufs ? rec_store_create(origin) : NULL;
	if (!k || !k->rec) {
		if (k && k->bufs)
			tbuf_destroy(k->bufs);
		kfree(k);
		mutex_unlock(&active_lock);
		snprintf(why, whylen, "no memory for a recording");
		return -ENOMEM;
	}
	int err = rec_target_start(module, k->bufs, k->rec->header, &k->session, why, whylen);
	k->thread = err ? NULL : thread_create("recorder", recorder_thread, k, -1);
	if (!k->thread) {
		if (!err) {
			rec_target_stop(k->session);
			snprintf(why, whylen, "cannot start the recorder thread");
			err = -ENOMEM;
		}
		tbuf_destroy(k->bufs);
		rec_store_put(k->rec);
		rec_store_delete(k->rec->id);
		kfree(k);
		mutex_unlock(&active_lock);
		return err;
	}
	active = k;
	mutex_unlock(&active_lock);
	return 0;
}

int record_kernel_stop(struct recording **out, char *why, size_t whylen)
{
	mutex_lock(&active_lock);
	struct kernel_recording *k = active;
	if (!k) {
		mutex_unlock(&active_lock);
		snprintf(why, whylen, "nothing is being recorded (`record start MODULE` first)");
		return -ENOENT;
	}
	active = NULL;
	mutex_unlock(&active_lock);
	rec_target_stop(k->session);
	WRITE_ONCE(k->stopping, true);
	thread_join(k->thread);
	take(k);	/* what the grafts wrote since the thread's last switch */
	struct recording *r = k->rec;
	for (unsigned s = 0; s < 2; s++) {
		uint64_t lost = rec_data_merge(&r->stream[s], k->percpu[s], k->bufs->ncpus);
		if (lost && !k->error)
			k->error = -ENOMEM;
		r->header[s].drops = k->drops[s] + lost;
	}
	tbuf_destroy(k->bufs);
	if (k->error)
		snprintf(why, whylen, "the store ran out of room (%llu of %llu bytes): records were "
			 "dropped", (unsigned long long)rec_store_bytes(),
			 (unsigned long long)rec_store_limit());
	else
		why[0] = '\0';
	rec_store_complete(r);
	kfree(k);
	*out = r;	/* still one user: the caller puts it */
	return 0;
}

unsigned record_kernel_active(void)
{
	mutex_lock(&active_lock);
	unsigned id = active ? active->rec->id : 0;
	mutex_unlock(&active_lock);
	return id;
}
