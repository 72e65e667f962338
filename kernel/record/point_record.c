// SPDX-License-Identifier: BSD-2-Clause
/*
 * Recording any graft point on its own (`record start bcache.evict`):
 * a recorder (graft_point_recorder) on the point reports every
 * invocation, grafted or not, as a call record (its arguments) in the
 * trace and a done record (result and outcome) in the log. No
 * simulation replays these (a module's recording does that); they show
 * what a point was asked and answered, and by whom.
 *
 * One point at a time. The recorder's functions read the buffers
 * pointer with interrupts masked, and stopping clears it and then runs
 * a cross-call round, so after rec_point_stop no CPU writes the buffers
 * (a dispatcher that read the recorder earlier finds the pointer NULL).
 *
 * Lock order: point_lock -> graft point locks.
 */
#include <scion/record.h>
#include <scion/graft.h>
#include <scion/thread.h>
#include <scion/clock.h>
#include <scion/cpu.h>
#include <scion/mutex.h>
#include <scion/xcall.h>
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>
#include <arch/cpu.h>

static struct mutex point_lock = MUTEX_INIT(point_lock, "record-point");
static const struct graft_point *recorded;	/* point_lock */
static struct tbuf_set *point_bufs;		/* point_lock to change; read irqs masked */
static uint64_t point_seq;			/* atomic */

static uint64_t record_call(const struct graft_point *p, const uint64_t args[6])
{
	uint64_t seq = __atomic_add_fetch(&point_seq, 1, __ATOMIC_RELAXED);
	irqflags_t f = arch_irq_save();
	struct tbuf_set *bufs = READ_ONCE(point_bufs);
	struct rec_point_call *r = bufs ? tbuf_reserve(bufs, sizeof(*r)) : NULL;
	if (r) {
		struct thread *t = thread_current();
		*r = (struct rec_point_call){
			.head = { .size = sizeof(*r), .type = REC_POINT_CALL, .cpu = this_cpu_index() },
			.seq = seq, .time_ns = clock_ns(), .tid = t ? t->tid : 0,
		};
		memcpy(r->args, args, sizeof(r->args));
	}
	arch_irq_restore(f);
	(void)p;
	return seq;
}

static void record_done(const struct graft_point *p, uint64_t seq, uint64_t result,
			enum graft_outcome outcome)
{
	irqflags_t f = arch_irq_save();
	struct tbuf_set *bufs = READ_ONCE(point_bufs);
	struct rec_point_done *r = bufs ? tbuf_reserve(bufs, sizeof(*r)) : NULL;
	if (r)
		*r = (struct rec_point_done){
			.head = { .size = sizeof(*r), .type = REC_POINT_DONE, .cpu = this_cpu_index() },
			.seq = seq, .time_ns = clock_ns(), .result = result, .outcome = outcome,
		};
	arch_irq_restore(f);
	(void)p;
}

static const struct graft_point_recorder recorder = { .call = record_call, .done = record_done };

void rec_point_header(struct rec_file_header *h, const char *point, enum rec_stream s)
{
	char graft[GRAFT_NAME_MAX] = "default";

	memset(h, 0, sizeof(*h));
	memcpy(h->magic, REC_MAGIC, sizeof(h->magic));
	h->version = REC_VERSION;
	h->stream = (uint16_t)s;
	h->header_bytes = sizeof(*h);
	strlcpy(h->module, REC_POINT_MODULE, sizeof(h->module));
	graft_point_installed_name(point, graft, sizeof(graft));
	snprintf(h->policy, sizeof(h->policy), "point=%s graft=%s", point, graft);
}

static void nothing(void *arg)
{
	(void)arg;
}

int rec_point_start(const char *name, struct tbuf_set *bufs, char *why, size_t whylen)
{
	const struct graft_point *p = graft_point_find(name);
	if (!p) {
		snprintf(why, whylen, "'%s' is neither a recordable module (`record modules`) nor a "
			 "graft point (`graft points`)", name);
		return -ENOENT;
	}
	mutex_lock(&point_lock);
	if (recorded) {
		snprintf(why, whylen, "%s is being recorded already: one point at a time",
			 recorded->name);
		mutex_unlock(&point_lock);
		return -EBUSY;
	}
	WRITE_ONCE(point_seq, 0);
	WRITE_ONCE(point_bufs, bufs);
	if (graft_point_set_recorder(p, &recorder)) {
		WRITE_ONCE(point_bufs, NULL);
		snprintf(why, whylen, "%s has another recorder", p->name);
		mutex_unlock(&point_lock);
		return -EBUSY;
	}
	recorded = p;
	mutex_unlock(&point_lock);
	return 0;
}

void rec_point_stop(void)
{
	mutex_lock(&point_lock);
	if (recorded) {
		graft_point_set_recorder(recorded, NULL);
		WRITE_ONCE(point_bufs, NULL);
		/* A grace period: every CPU leaves any masked region that read the old pointer. */
		xcall_all(nothing, NULL);
		recorded = NULL;
	}
	mutex_unlock(&point_lock);
}
