// SPDX-License-Identifier: BSD-2-Clause
/*
 * The "bench" stream source (scion/chan_proto.h): the host's way to run
 * the in-kernel benchmarks and get their figures as records, never as
 * the shell's text. STREAM_OPEN "bench BUFSIZE SWITCH_MS [SELECTOR]"
 * checks the selector and starts a thread, then answers at once (the
 * channel thread never runs a benchmark, which takes minutes). The
 * thread holds the channel (channel_hold: the channel's own threads stay
 * asleep, so no instruction of theirs is counted in a figure), runs the
 * benchmarks (bench_run), writing one struct chan_bench_record per
 * figure into the stream's per-CPU buffers, and releases the channel;
 * the output thread then sends the records and, from this source's
 * drain, one status chunk (struct chan_bench_status) that tells the host
 * the run is over. The host closes the stream.
 *
 * A stream closed before the run ends (the host went away) stops the
 * run after the benchmark in progress; from the close on, nothing is
 * written into the stream's buffers. The state is shared by the stream
 * and the thread and freed by whichever lets go of it last.
 *
 * Lock order: bs->lock is a leaf (interrupts masked: a record is written
 * between tbuf_reserve and the unlock).
 */
#include <scion/bench.h>
#include <scion/channel.h>
#include <scion/chan_proto.h>
#include <scion/chan_wire.h>
#include <scion/ktest.h>
#include <scion/tbuf.h>
#include <scion/thread.h>
#include <scion/sched.h>
#include <scion/spinlock.h>
#include <scion/mm.h>
#include <scion/format.h>
#include <scion/string.h>
#include <scion/errno.h>

#define SELECTOR_MAX 128
#define BENCH_CPU    0		/* the boot CPU */

struct bench_stream {
	struct bench_client client;		/* set once: bench_run reports here */
	struct spinlock lock;
	struct tbuf_set *bufs;			/* lock: NULL once the stream closed */
	bool cancelled;				/* lock: the stream closed; run no more */
	unsigned owners;			/* lock: the stream and the thread */
	uint32_t seq;				/* lock: items reported */
	struct chan_bench_status status;	/* lock: final once finished is set */
	bool finished;				/* lock: the run is over */
	bool status_sent;			/* the stream's drain lock */
	char selector[SELECTOR_MAX];		/* set once */
};

static void let_go(struct bench_stream *bs)
{
	irqflags_t f = spin_lock_irqsave(&bs->lock);
	bool last = --bs->owners == 0;
	spin_unlock_irqrestore(&bs->lock, f);
	if (last)
		kfree(bs);
}

static void report(struct bench_client *c, enum chan_bench_kind kind, const char *name,
		   uint64_t value, const char *unit)
{
	struct bench_stream *bs = container_of(c, struct bench_stream, client);
	irqflags_t f = spin_lock_irqsave(&bs->lock);
	uint32_t seq = ++bs->seq;
	struct chan_bench_record *r = bs->bufs ? tbuf_reserve(bs->bufs, sizeof(*r)) : NULL;
	if (r) {	/* tbuf_reserve's room is not zeroed: every byte is written */
		memset(r, 0, sizeof(*r));
		r->value = value;
		r->seq = seq;
		r->kind = (uint16_t)kind;
		r->size = sizeof(*r);
		strlcpy(r->name, name, sizeof(r->name));
		strlcpy(r->unit, unit, sizeof(r->unit));
	}
	spin_unlock_irqrestore(&bs->lock, f);
}

static bool stopped(struct bench_client *c)
{
	struct bench_stream *bs = container_of(c, struct bench_stream, client);
	return READ_ONCE(bs->cancelled);
}

/*
 * The run's thread. It starts on BENCH_CPU and then may run anywhere, as
 * the shell's thread does: the benchmarks were written for the shell,
 * whose thread the console's interrupt wakes on the boot CPU (a
 * cross-call to all CPUs from another CPU costs more, say).
 */
static void bench_thread(void *arg)
{
	struct bench_stream *bs = arg;
	thread_set_affinity(thread_current(), -1);
	bool held = channel_hold();
	int ran = bench_run(bs->selector, &bs->client);
	irqflags_t f = spin_lock_irqsave(&bs->lock);
	bs->status = (struct chan_bench_status){ .ran = ran > 0 ? (uint32_t)ran : 0,
						 .records = bs->seq, .status = ran < 0 ? ran : 0 };
	bs->finished = true;		/* after every record: the drain's cue */
	spin_unlock_irqrestore(&bs->lock, f);
	if (held)
		channel_release();
	let_go(bs);
}

static int bench_open(struct tbuf_set *bufs, const char *args, void **priv, char *why,
		      size_t whylen)
{
	const char *selector = *args ? args : "*";

	if (strlen(selector) >= SELECTOR_MAX || strchr(selector, ' ')) {
		snprintf(why, whylen, "give one selector of benchmarks (pattern[,pattern,!pattern]) "
			 "of at most %u bytes", SELECTOR_MAX - 1);
		return -EINVAL;
	}
	if (!LINKER_TABLE_COUNT(benches)) {
		snprintf(why, whylen, "%s", KTEST_NONE_HERE);
		return -ENOENT;
	}
	if (!bench_count(selector)) {
		snprintf(why, whylen, "no benchmark matches '%s' (`bench` runs them all)", selector);
		return -ENOENT;
	}
	if (bench_claim()) {
		snprintf(why, whylen, "another run is in progress (a bench stream's, or the shell's "
			 "`bench`); one at a time");
		return -EBUSY;
	}
	struct bench_stream *bs = kzalloc(sizeof(*bs));
	if (!bs) {
		bench_unclaim();
		snprintf(why, whylen, "no memory for the run");
		return -ENOMEM;
	}
	bs->client = (struct bench_client){ .report = report, .stopped = stopped };
	bs->lock = (struct spinlock)SPINLOCK_INIT("bench-stream");
	bs->bufs = bufs;
	bs->owners = 2;
	strlcpy(bs->selector, selector, sizeof(bs->selector));
	/* Started on the boot CPU, where the shell's `bench` runs (see bench_thread). */
	if (thread_spawn("bench", bench_thread, bs, BENCH_CPU)) {
		bench_unclaim();
		kfree(bs);
		snprintf(why, whylen, "cannot start the benchmark thread");
		return -ENOMEM;
	}
	*priv = bs;
	return 0;
}

/* After close no record is written: the buffers go with the stream. */
static void bench_close(void *priv)
{
	struct bench_stream *bs = priv;
	irqflags_t f = spin_lock_irqsave(&bs->lock);
	bs->bufs = NULL;
	bs->cancelled = true;
	spin_unlock_irqrestore(&bs->lock, f);
}

/*
 * After each switch has been sent: once the run is over, its status. At
 * the close of a run cut short, a status that says so.
 */
static void bench_drain(void *priv, struct chan_stream_sink *sink)
{
	struct bench_stream *bs = priv;
	if (bs->status_sent)
		return;
	irqflags_t f = spin_lock_irqsave(&bs->lock);
	bool over = bs->finished || bs->cancelled;
	struct chan_bench_status st = bs->finished ? bs->status :
		(struct chan_bench_status){ .records = bs->seq, .status = -EINTR };
	spin_unlock_irqrestore(&bs->lock, f);
	if (!over)
		return;		/* still running */
	chan_wire_to_le(CHAN_WIRE(chan_bench_status), &st, 1);
	chan_stream_send(sink, CHAN_CHUNK_STATUS, 0, 0, &st, sizeof(st));
	bs->status_sent = true;
}

static void bench_release(void *priv)
{
	let_go(priv);
}

/* A big-endian machine's records to the wire's order: all of one size (report()). */
static void bench_to_wire(void *priv, uint8_t *records, uint32_t bytes)
{
	(void)priv;
	_Static_assert(sizeof(struct chan_bench_record) % TBUF_ALIGN == 0,
		       "bench records must lie back to back in the buffers");
	chan_wire_to_le(CHAN_WIRE(chan_bench_record), records,
			bytes / sizeof(struct chan_bench_record));
}

CHAN_STREAM_SOURCE_WIRE(bench_source, "bench", "[SELECTOR]", bench_open, bench_close,
			bench_drain, bench_release, bench_to_wire);
