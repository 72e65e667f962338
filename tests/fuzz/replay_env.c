// SPDX-License-Identifier: BSD-2-Clause
/*
 * What the replay fuzz targets share (replay_env.h): the transaction
 * services the graft APIs expect (scion/txn.h) for policies that run
 * outside any transaction (they log no undo records, and an abort is a
 * broken invariant: a policy made a mistake a graft would be aborted
 * for), and a reader of records in a byte buffer.
 */
#include <scion/txn.h>
#include "fuzz.h"
#include "replay_env.h"

const struct rec_head *fuzz_walk_next(void *ctx)
{
	struct fuzz_walk *w = ctx;
	return sim_walk(w->data, w->size, &w->offset, &w->bad);
}

void txn_log_undo(void (*undo)(uint64_t a, uint64_t b), uint64_t a, uint64_t b)
{
	(void)undo;
	(void)a;
	(void)b;
}

void txn_abort_self(const char *reason, ...)
{
	FUZZ_ASSERT(0, "a policy aborted: %s", reason);
}

unsigned graft_nesting(void)
{
	return 0;
}
