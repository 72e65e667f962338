// SPDX-License-Identifier: BSD-2-Clause
/*
 * The block cache as a recordable module (scion/record.h): its trace is
 * the demand reads and writes (bcache.request, whose flags say which),
 * its log what became of each
 * (bcache.result), in the records of scion/recfmt.h. The two recording
 * grafts run at those event points, cache lock held, and only write
 * into the session's per-CPU buffers.
 */
#include <scion/record.h>
#include <scion/graft.h>
#include <scion/thread.h>
#include <scion/proc.h>
#include <scion/cpu.h>
#include <scion/clock.h>
#include <scion/string.h>
#include <scion/format.h>
#include <arch/cpu.h>
#include "bcache_internal.h"
#include "../insitu/bcache_replay.h"

static struct tbuf_set *recording_bufs;	/* set by the session around its grafts */

/*
 * The recording grafts are direct (no transaction) and run where their
 * event points fire: cache lock held, interrupts masked (the points'
 * contract), so nothing comes between a record's reservation and its
 * writing, and the current thread cannot change under them.
 */
static void record_request(uint64_t seq, uint64_t block, uint64_t in_flight, uint64_t flags)
{
	struct thread *t = this_cpu()->current;
	struct tbuf_set *bufs = READ_ONCE(recording_bufs);
	struct rec_bcache_request *r = bufs ? tbuf_reserve(bufs, sizeof(*r)) : NULL;
	if (r)
		*r = (struct rec_bcache_request){
			.head = { .size = sizeof(*r), .type = REC_BCACHE_REQUEST,
				  .cpu = this_cpu_index() },
			.seq = seq, .time_ns = clock_ns(), .tid = t ? t->tid : 0,
			.pid = t ? (uint32_t)proc_pid(t->proc) : 0,
			.block = block, .in_flight = (uint32_t)in_flight, .flags = (uint32_t)flags,
		};
}

static void record_result(const struct bcache_result *res)
{
	struct tbuf_set *bufs = READ_ONCE(recording_bufs);
	uint32_t n = res->nprefetch <= BCACHE_PREFETCH_MAX ? res->nprefetch : BCACHE_PREFETCH_MAX;
	struct rec_bcache_result *r = bufs ? tbuf_reserve(bufs, REC_BCACHE_RESULT_BYTES(n)) : NULL;
	if (r)
		sim_encode_result(res, this_cpu_index(), r);
}

void bcache_policy_names(char *buf, size_t n)
{
	char evict[GRAFT_NAME_MAX] = "lru", readahead[GRAFT_NAME_MAX] = "sequential";
	graft_point_installed_name("bcache.evict", evict, sizeof(evict));
	graft_point_installed_name("bcache.readahead", readahead, sizeof(readahead));
	snprintf(buf, n, "evict=%s readahead=%s", evict, readahead);
}

static void describe(struct rec_file_header *h)
{
	bcache_policy_names(h->policy, sizeof(h->policy));
	h->config[REC_BCACHE_CONFIG_BUFFERS] = READ_ONCE(bcache.cache.nbuffers);
	h->config[REC_BCACHE_CONFIG_BLOCKS] = bcache.cache.blocks;
}

REC_MODULE(bcache_module, .name = "bcache", .input_point = "bcache.request",
	   .output_point = "bcache.result", .trace_what = "requests", .log_what = "results",
	   .input_graft = record_request, .output_graft = record_result, .bufs = &recording_bufs,
	   .available = bcache_available, .describe = describe);
