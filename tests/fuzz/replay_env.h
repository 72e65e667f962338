/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Shared by the replay fuzz targets (replay_env.c): records read in
 * place from a byte buffer with the replays' own walker (sim_walk).
 */
#ifndef FUZZ_REPLAY_ENV_H
#define FUZZ_REPLAY_ENV_H

#include "insitu/bcache_replay.h"

struct fuzz_walk {
	const uint8_t *data;
	size_t size, offset;
	const char *bad;		/* why the walk stopped short, or NULL */
};

/* A struct sim_reader's next over a struct fuzz_walk. */
const struct rec_head *fuzz_walk_next(void *ctx);

#endif
