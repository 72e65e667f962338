/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The control channel's shared state (kernel/channel/): the transport
 * chosen at boot (scion/chan_transport.h), the receive ring filled by
 * its interrupt, the channel thread's parser and
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
#include <scion/chan_reply.h>
#include <scion/chan_wire.h>
#include <scion/chan_transport.h>
#include "frame.h"

#define CHANNEL_RX_RING 4096	/* a power of two */
#define CHANNEL_EVENT_TEXT CHAN_EVENT_TEXT_MAX	/* bytes of an event's text, NUL included */
#define CHANNEL_EVENT_LINE (CHANNEL_EVENT_TEXT + 48)	/* "N MS TEXT" */
#define CHANNEL_STREAMS 4	/* open at once */

struct channel_counters {
	uint64_t rx_bytes, tx_bytes;
	uint64_t frames_sent, errors_sent;
	uint64_t requests, requests_failed;	/* accepted REQUESTs; those answered with an error */
	uint64_t hellos, version_mismatches;
	uint64_t rx_stalls;			/* times the ring filled and input was held back */
};

struct channel {
	bool present;				/* set once */
	const struct chan_transport *transport;	/* set once: the byte pipe to the host */
	struct waitq rx_wq;			/* lock guards the ring; the thread sleeps here */
	uint8_t ring[CHANNEL_RX_RING];		/* rx_wq.lock */
	uint32_t ring_head, ring_tail;		/* rx_wq.lock: free-running */
	bool input_held;			/* rx_wq.lock: the device holds input back */
	struct mutex tx_lock;			/* serializes whole frames */
	struct chan_parser parser;		/* thread */
	bool handshake_done;			/* thread: a HELLO with this build's version came */
	struct thread *thread;			/* set once: the channel thread */
	bool held;				/* hold.c's holder writes it (WRITE_ONCE); the
						   threads read it under their queue's lock */
	bool rx_parked;				/* rx_wq.lock: the thread sleeps, held */
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
 * List replies (query.c; the form is scion/chan_reply.h's): begin takes
 * the request apart (more_body: text may follow the start, as PROBE_LIST's
 * spec), answering a malformed one with an ERROR (then it returns -errno), add hands out a zeroed record for each item in key
 * order (NULL for one before the request's start, or past the page:
 * skip it), finish sends the answer (head and records in the wire's
 * byte order: scion/chan_wire.h).
 * Caller's context: the channel thread, may sleep.
 */
struct chan_list {
	uint32_t seq;
	uint64_t start;
	const struct chan_wire_layout *record;	/* the records' layout (their size, byte order) */
	size_t record_bytes, room;		/* room: records one page holds */
	struct chan_list_head head;
	uint8_t *page;				/* the head, then the records */
};
int chan_list_begin(struct chan_list *l, uint32_t seq, const uint8_t *body, uint32_t len,
		    const struct chan_wire_layout *record, const char *what, bool more_body);
void *chan_list_add(struct chan_list *l, uint64_t key);
int chan_list_finish(struct chan_list *l);

/* The ops of query.c, answered in structured records (scion/chan_reply.h). */
int channel_op_status(uint32_t seq, const uint8_t *body, uint32_t len);
int channel_op_stats(uint32_t seq, const uint8_t *body, uint32_t len);
int channel_op_probe_list(uint32_t seq, const uint8_t *body, uint32_t len);
int channel_op_graft_list(uint32_t seq, const uint8_t *body, uint32_t len);
/* coverage_ops.c: COVERAGE_START, COVERAGE_STOP, COVERAGE_BLOCKS (scion/coverage.h). */
int coverage_start_request(uint32_t seq, const uint8_t *body, uint32_t len);
int coverage_stop_request(uint32_t seq, const uint8_t *body, uint32_t len);
int coverage_blocks_request(uint32_t seq, const uint8_t *body, uint32_t len);

/* codeadapt_ops.c: CODEADAPT_LOAD, CODEADAPT_LIST, CODEADAPT_REMOVE (scion/codeadapt.h). */
int codeadapt_load_request(uint32_t seq, const uint8_t *body, uint32_t len);
int codeadapt_list_request(uint32_t seq, const uint8_t *body, uint32_t len);
int codeadapt_remove_request(uint32_t seq, const uint8_t *body, uint32_t len);
int codeadapt_outline_request(uint32_t seq, const uint8_t *body, uint32_t len);
int channel_op_metrics(uint32_t seq, const uint8_t *body, uint32_t len);
int channel_op_metric_add(uint32_t seq, const uint8_t *body, uint32_t len);
int channel_op_metric_remove(uint32_t seq, const uint8_t *body, uint32_t len);
int channel_op_adapt_decisions(uint32_t seq, const uint8_t *body, uint32_t len);
int channel_op_adapt_rows(uint32_t seq, const uint8_t *body, uint32_t len);

/* The channel's counters, read unlocked (a snapshot in motion). */
void channel_get_stats(struct chan_channel_stats *s);

/*
 * Events (event.c): channel_event_take copies the oldest unsent event's
 * wire text into buf (CHANNEL_EVENT_LINE bytes) and returns its length,
 * 0 when none waits; channel_events_print is `channel events`.
 * Caller's context: thread (take: the output thread).
 */
size_t channel_event_take(char *buf);
bool channel_event_pending(void);
int channel_events_print(void);
int channel_events_request(uint32_t seq, const uint8_t *body, uint32_t len);	/* the EVENTS op */

/*
 * Holding the channel (hold.c, scion/channel.h). While channel.held,
 * each thread sleeps with no timeout and notes that it does under its
 * own queue's lock (channel.rx_parked; the output thread's, read by
 * channel_output_parked), so the holder, reading the note under the
 * same lock, knows the thread is asleep and not just about to be.
 * channel_output_kick wakes the output thread, held or not (any context
 * but with no spinlock held).
 */
bool channel_output_parked(void);
void channel_output_kick(void);

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
