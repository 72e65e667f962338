/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The adaptation loop's decisions as data (kernel/adapt/decisions.c),
 * for the control channel's ADAPT_DECISIONS and ADAPT_ROWS ops
 * (kernel/channel/query.c): a copy of the ring of the last
 * CHAN_ADAPT_DECISIONS decisions, in the wire's structures
 * (scion/chan_reply.h, the one source of their layout).
 * Lock: the ring's own spinlock, taken inside; call with none held.
 */
#ifndef SCION_ADAPT_H
#define SCION_ADAPT_H

#include <stddef.h>
#include <scion/chan_reply.h>

struct adapt_decision_copy {
	struct chan_adapt_decision d;
	struct chan_adapt_row row[CHAN_ADAPT_ROWS_MAX];
};

/*
 * adapt_decisions_copy - the decisions kept, oldest first, into out
 *   (room for CHAN_ADAPT_DECISIONS); their count. Caller's context: thread.
 */
size_t adapt_decisions_copy(struct adapt_decision_copy *out);

#endif
