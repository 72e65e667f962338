/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The control channel (kernel/channel/): how the host command `scion`
 * drives a running kernel. Wire format: scion/chan_proto.h.
 */
#ifndef SCION_CHANNEL_H
#define SCION_CHANNEL_H

#include <scion/compiler.h>

struct tbuf_set;

/*
 * channel_init - start the channel when the machine has the device
 * (otherwise nothing happens). Caller's context: the init thread, once,
 * after interrupts are set up; may sleep.
 */
void channel_init(void);

/*
 * channel_event - post one line for the host ("graft: 'x' aborted ...");
 * it goes out as an EVENT frame and stays in `channel events` until 64
 * newer ones replace it. Longer lines are cut, control bytes blanked.
 * Caller's context: any (interrupts masked, spinlocks held, probe
 *   context excepted: it formats text); never sleeps.
 */
void channel_event(const char *fmt, ...) __printf(1, 2);

/*
 * Stream sources: producers of bulk data the host collects with the
 * STREAM_OPEN / STREAM_CLOSE ops. The channel gives each open stream a
 * per-CPU buffer set (scion/tbuf.h) of the size the host asked for;
 * the source writes records into it from any context, and the
 * channel's output thread switches the buffers every switch interval
 * and sends what they hold, with their drop counts, as DATA frames.
 * Sources come from a linker table (CHAN_STREAM_SOURCE).
 */
struct chan_stream_sink;

struct chan_stream_source {
	const char *name;		/* what STREAM_OPEN names */
	const char *usage;		/* its arguments, for error messages */
	/*
	 * open - start writing records into bufs.
	 * Arguments: bufs, the stream's buffers; args, the source's
	 *   arguments (text, maybe empty); *priv, the source's state for
	 *   close: on entry NULL from STREAM_OPEN, or what the kernel
	 *   subsystem that called channel_stream_start passed;
	 *   why/whylen, room for a one-line reason on failure.
	 * Return value: 0, or -errno with why filled in.
	 * Caller's context: the channel thread, may sleep.
	 */
	int (*open)(struct tbuf_set *bufs, const char *args, void **priv, char *why, size_t whylen);
	/*
	 * close - stop writing; when it returns no CPU writes bufs any more.
	 * Caller's context: the channel thread, may sleep.
	 */
	void (*close)(void *priv);
	/*
	 * drain - optional: send the source's own chunks (chan_stream_send)
	 *   after each switch of the buffers has been sent, and once more
	 *   after close, before release.
	 * Caller's context: the output or the channel thread, the stream's
	 *   drain lock held; may sleep.
	 */
	void (*drain)(void *priv, struct chan_stream_sink *sink);
	/* release - optional: free priv, after the last drain. Thread, may sleep. */
	void (*release)(void *priv);
	/*
	 * to_wire - optional, called on a big-endian machine only: turn one
	 *   CPU's records (bytes long, as tbuf_reserve placed them) to the
	 *   wire's little-endian order, in place, just before they are
	 *   sent. A source whose records hold multi-byte integers needs it:
	 *   its writers store native records, and the wire is little-endian
	 *   (scion/chan_wire.h).
	 * Caller's context: the output or the channel thread, the stream's
	 *   drain lock held; the records are the consumer's until the next
	 *   switch (nobody else reads them).
	 */
	void (*to_wire)(void *priv, uint8_t *records, uint32_t bytes);
};

#define CHAN_STREAM_SOURCE(var, name_, usage_, open_, close_) \
	static const struct chan_stream_source var LINKER_TABLE_ENTRY(stream_sources) = { \
		.name = (name_), .usage = (usage_), .open = (open_), .close = (close_) }
#define CHAN_STREAM_SOURCE_FULL(var, name_, usage_, open_, close_, drain_, release_) \
	static const struct chan_stream_source var LINKER_TABLE_ENTRY(stream_sources) = { \
		.name = (name_), .usage = (usage_), .open = (open_), .close = (close_), \
		.drain = (drain_), .release = (release_) }
/* A source whose records hold multi-byte integers: with its to_wire (above). */
#define CHAN_STREAM_SOURCE_WIRE(var, name_, usage_, open_, close_, drain_, release_, to_wire_) \
	static const struct chan_stream_source var LINKER_TABLE_ENTRY(stream_sources) = { \
		.name = (name_), .usage = (usage_), .open = (open_), .close = (close_), \
		.drain = (drain_), .release = (release_), .to_wire = (to_wire_) }

/*
 * chan_stream_send - one DATA chunk on the sink's stream, from a
 *   source's drain: cpu_field (a CPU, or CHAN_CHUNK_AGG | cpu,
 *   CHAN_CHUNK_STATUS), the chunk header's record and drop counts, the
 *   data (at most CHANNEL_CHUNK_MAX bytes).
 * Caller's context: the source's drain.
 */
#define CHANNEL_CHUNK_MAX 131072
void chan_stream_send(struct chan_stream_sink *sink, uint32_t cpu_field, uint32_t records,
		      uint64_t drops, const void *data, size_t bytes);

/*
 * channel_stream_start - open a stream for a kernel subsystem that has
 *   already taken its request apart (TRACE_START): as STREAM_OPEN with
 *   src, bufsize, switch_ms and args, src->open getting priv in *priv.
 * Return value: 0 with *id, or -errno with why filled in (src->open's
 *   reason, or the stream's).
 * Caller's context: the channel thread, may sleep.
 */
int channel_stream_start(const struct chan_stream_source *src, void *priv, uint32_t bufsize,
			 uint32_t switch_ms, const char *args, uint32_t *id, char *why,
			 size_t whylen);

/*
 * channel_hold / channel_release - Overview: keep the channel's own
 *   threads off the CPUs while a measurement runs (the "bench" stream
 *   source, `channel held CMD`). While the channel is held the channel
 *   thread sleeps until the host sends a byte (not every
 *   CHAN_IDLE_RESET_MS) and the output thread until the release: no
 *   event goes out and no stream is drained (their buffers keep filling
 *   and count what does not fit), so a benchmark counts none of their
 *   instructions. channel_hold returns once both threads are asleep, or
 *   after HOLD_WAIT_MS (kernel/channel/hold.c) should one be busy with a
 *   long request; channel_release wakes them, and what waited goes out.
 * Arguments: none.
 * Return value (hold): true when the caller now holds the channel;
 *   false when another thread does (one holder at a time) or there is
 *   no channel; only a true hold is released.
 * Caller's context: thread, may sleep; not the output thread (the
 *   channel thread may: it then runs the measurement itself).
 */
bool channel_hold(void);
void channel_release(void);

/*
 * channel_respond / channel_error - answer request seq: a RESPONSE
 *   (status, then body), or an ERROR (-errno, one line).
 * Caller's context: the channel thread (ops run there), may sleep.
 */
void channel_respond(uint32_t seq, int status, const void *body, size_t len);
void channel_error(uint32_t seq, int err, const char *fmt, ...) __printf(3, 4);

#endif
