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
struct chan_stream_source {
	const char *name;		/* what STREAM_OPEN names */
	const char *usage;		/* its arguments, for error messages */
	/*
	 * open - start writing records into bufs.
	 * Arguments: bufs, the stream's buffers; args, the source's
	 *   arguments (text, maybe empty); *priv, the source's state for
	 *   close; why/whylen, room for a one-line reason on failure.
	 * Return value: 0, or -errno with why filled in.
	 * Caller's context: the channel thread, may sleep.
	 */
	int (*open)(struct tbuf_set *bufs, const char *args, void **priv, char *why, size_t whylen);
	/*
	 * close - stop writing; when it returns no CPU writes bufs any more.
	 * Caller's context: the channel thread, may sleep.
	 */
	void (*close)(void *priv);
};

#define CHAN_STREAM_SOURCE(var, name_, usage_, open_, close_) \
	static const struct chan_stream_source var LINKER_TABLE_ENTRY(stream_sources) = { \
		.name = (name_), .usage = (usage_), .open = (open_), .close = (close_) }

#endif
