/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The control channel's shared state (kernel/channel/): the receive
 * ring filled by the device's interrupt, the channel thread's parser and
 * session, and the counters `channel` and the STATS op report.
 *
 * Lock order: rx_wq.lock (a leaf spinlock, taken in the interrupt) ;
 * tx_lock (a mutex: one frame is written whole before the next).
 * Fields marked "thread" belong to the channel thread alone.
 */
#ifndef CHANNEL_INTERNAL_H
#define CHANNEL_INTERNAL_H

#include <scion/compiler.h>
#include <scion/wait.h>
#include <scion/mutex.h>
#include <scion/channel.h>
#include "frame.h"

#define CHANNEL_RX_RING 4096	/* a power of two */
#define CHANNEL_EVENT_TEXT 160	/* bytes of an event's text, NUL included */
#define CHANNEL_EVENT_LINE (CHANNEL_EVENT_TEXT + 48)	/* "N MS TEXT" */
#define CHANNEL_STREAMS 4	/* open at once */
#define CHANNEL_STREAM_MAX_BUF 131072	/* bytes per CPU buffer: one DATA frame */
#define CHANNEL_SWITCH_MIN_MS 10
#define CHANNEL_SWITCH_MAX_MS 60000

struct channel_counters {
	uint64_t rx_bytes, tx_bytes;
	uint64_t frames_sent, errors_sent;
	uint64_t requests, requests_failed;	/* accepted REQUESTs; those answered with an error */
	uint64_t hellos, version_mismatches;
	uint64_t rx_stalls;			/* times the ring filled and input was held back */
};

struct channel {
	bool present;				/* set once */
	struct waitq rx_wq;			/* lock guards the ring; the thread sleeps here */
	uint8_t ring[CHANNEL_RX_RING];		/* rx_wq.lock */
	uint32_t ring_head, ring_tail;		/* rx_wq.lock: free-running */
	bool input_held;			/* rx_wq.lock: the device holds input back */
	struct mutex tx_lock;			/* serializes whole frames */
	struct chan_parser parser;		/* thread */
	bool handshake_done;			/* thread: a HELLO with this build's version came */
	struct channel_counters counters;	/* rx_*: rx_wq.lock; tx_bytes, frames_sent,
						   errors_sent: tx_lock; the rest: thread */
};
extern struct channel channel;

/*
 * channel_send - write one frame: header, then the payload given as two
 * pieces (either may be empty), then its CRC.
 * Caller's context: thread; takes tx_lock; may sleep.
 */
void channel_send(uint8_t type, uint32_t seq, const void *a, size_t alen, const void *b,
		  size_t blen);

/*
 * channel_handle_request - run one accepted REQUEST (ops.c) and answer it.
 * Caller's context: the channel thread; may sleep.
 */
void channel_handle_request(uint32_t seq, const uint8_t *payload, uint32_t length);

/*
 * Events (event.c): channel_event_take copies the oldest unsent event's
 * wire text into buf (CHANNEL_EVENT_LINE bytes) and returns its length,
 * 0 when none waits; channel_events_print is `channel events`.
 * Caller's context: thread (take: the output thread).
 */
size_t channel_event_take(char *buf);
bool channel_event_pending(void);
int channel_events_print(void);

/*
 * Streams and the output thread (stream.c). The ops run in the channel
 * thread and answer the request themselves; channel_streams_close_all
 * ends the previous session's streams when a HELLO starts a new one.
 * channel_wake_output: any context but with no spinlock held.
 */
int channel_output_start(void);
void channel_wake_output(void);
int channel_stream_open(uint32_t seq, const uint8_t *body, uint32_t len);
int channel_stream_close(uint32_t seq, const uint8_t *body, uint32_t len);
void channel_streams_close_all(void);
void channel_streams_print(void);

#endif
