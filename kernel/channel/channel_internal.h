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
#include "frame.h"

#define CHANNEL_RX_RING 4096	/* a power of two */

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

/* A RESPONSE (status, then body) or an ERROR (-errno, one line). Thread. */
void channel_respond(uint32_t seq, int status, const void *body, size_t len);
void channel_error(uint32_t seq, int err, const char *fmt, ...) __printf(3, 4);

/*
 * channel_handle_request - run one accepted REQUEST (ops.c) and answer it.
 * Caller's context: the channel thread; may sleep.
 */
void channel_handle_request(uint32_t seq, const uint8_t *payload, uint32_t length);

#endif
