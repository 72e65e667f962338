// SPDX-License-Identifier: BSD-2-Clause
/*
 * The optimum of a recorded block cache trace (bcache_optimal.h): the
 * next-request table built from the trace, Belady's MIN over it, and the
 * oracle read-ahead that plans what the trace requests next. Portable:
 * memory comes from the environment's sim_alloc (kernel: kzalloc; host:
 * calloc), so the kernel's `sim run` and the host's scion-sim build this
 * same file and decide alike.
 */
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>
#include "bcache_optimal.h"
#include "sched_replay.h"	/* sim_alloc, sim_free */

/* Positions are 32-bit in the table: a trace longer than this is refused. */
#define ORACLE_MAX_REQUESTS ((uint64_t)UINT32_MAX - 1)

void sim_oracle_free(struct sim_oracle *o)
{
	void *arrays[] = { o->seq, o->block, o->write, o->next, o->id, o->distinct, o->upcoming,
			   o->buffer_block, o->buffer_id };
	for (size_t k = 0; k < ARRAY_SIZE(arrays); k++)
		sim_free(arrays[k]);
	memset(o, 0, sizeof(*o));
}

/*
 * Sort order[0..n) by block[order[k]], keeping positions in order
 * within a block (stable): a bottom-up merge sort through tmp, so
 * O(n log n) and no recursion on a kernel stack.
 */
static void sort_positions_by_block(uint32_t *order, uint32_t *tmp, uint64_t n,
				    const uint64_t *block)
{
	uint32_t *from = order, *to = tmp;

	for (uint64_t width = 1; width < n; width *= 2) {
		for (uint64_t lo = 0; lo < n; lo += 2 * width) {
			uint64_t mid = lo + width < n ? lo + width : n;
			uint64_t hi = lo + 2 * width < n ? lo + 2 * width : n;
			uint64_t a = lo, b = mid, k = lo;
			while (a < mid && b < hi)
				to[k++] = block[from[b]] < block[from[a]] ? from[b++] : from[a++];
			while (a < mid)
				to[k++] = from[a++];
			while (b < hi)
				to[k++] = from[b++];
		}
		uint32_t *swap = from;
		from = to;
		to = swap;
	}
	if (from != order)
		memcpy(order, from, n * sizeof(*order));
}

static int too_large(struct sim_oracle *o, uint64_t requests, int err, char *why, size_t whylen)
{
	sim_oracle_free(o);
	snprintf(why, whylen, "%llu requests are too many for the optimum's next-request table "
		 "(%s: about %llu KiB, in arrays of up to %llu KiB)", (unsigned long long)requests,
		 err == -E2BIG ? "positions beyond 32 bits" : "no memory for it",
		 (unsigned long long)(requests * 33 / 1024 + 1),
		 (unsigned long long)(requests * 8 / 1024 + 1));
	return err;
}

/* Read the trace's requests into o->seq and o->block, checked as the replay checks them. */
static int read_requests(struct sim_oracle *o, const struct rec_file_header *th,
			 struct sim_reader trace, uint64_t requests, char *why, size_t whylen)
{
	uint64_t last_seq = 0;

	for (const struct rec_head *h; (h = trace.next(trace.ctx));) {
		if (sim_check_request(h, o->n + 1, last_seq, th, why, whylen))
			return -EINVAL;
		if (o->n == requests) {
			snprintf(why, whylen, "the trace holds more than the %llu requests its header "
				 "counts", (unsigned long long)requests);
			return -EINVAL;
		}
		const struct rec_bcache_request *r = (const void *)h;
		last_seq = r->seq;
		o->seq[o->n] = r->seq;
		o->write[o->n] = (r->flags & BCACHE_REQ_WRITE) != 0;
		o->block[o->n++] = r->block;
	}
	return 0;
}

int sim_oracle_build(struct sim_oracle *o, const struct rec_file_header *th,
		     struct sim_reader trace, uint64_t requests, char *why, size_t whylen)
{
	memset(o, 0, sizeof(*o));
	if (requests > ORACLE_MAX_REQUESTS)
		return too_large(o, requests, -E2BIG, why, whylen);
	size_t n1 = requests ? requests : 1;
	o->seq = sim_alloc(n1 * sizeof(*o->seq));
	o->block = sim_alloc(n1 * sizeof(*o->block));
	o->write = sim_alloc(n1 * sizeof(*o->write));
	o->next = sim_alloc(n1 * sizeof(*o->next));
	o->id = sim_alloc(n1 * sizeof(*o->id));
	uint32_t *order = sim_alloc(n1 * sizeof(*order)), *tmp = sim_alloc(n1 * sizeof(*tmp));
	if (!o->seq || !o->block || !o->write || !o->next || !o->id || !order || !tmp) {
		sim_free(order);
		sim_free(tmp);
		return too_large(o, requests, -ENOMEM, why, whylen);
	}
	int err = read_requests(o, th, trace, requests, why, whylen);
	if (err) {
		sim_free(order);
		sim_free(tmp);
		sim_oracle_free(o);
		return err;
	}

	/* Sorted by block, each block's requests are consecutive and in order:
	 * a request's next one is its successor in that order. */
	for (uint64_t p = 0; p < o->n; p++)
		order[p] = (uint32_t)p;
	sort_positions_by_block(order, tmp, o->n, o->block);
	for (uint64_t k = 0; k < o->n; k++) {
		bool first = k == 0 || o->block[order[k]] != o->block[order[k - 1]];
		bool last = k + 1 == o->n || o->block[order[k + 1]] != o->block[order[k]];
		o->ndistinct += first;
		o->next[order[k]] = last ? SIM_ORACLE_NEVER : order[k + 1];
	}
	o->distinct = sim_alloc((o->ndistinct ? o->ndistinct : 1) * sizeof(*o->distinct));
	o->upcoming = sim_alloc((o->ndistinct ? o->ndistinct : 1) * sizeof(*o->upcoming));
	o->nbuffers = (unsigned)th->config[REC_BCACHE_CONFIG_BUFFERS];
	o->buffer_block = sim_alloc(o->nbuffers * sizeof(*o->buffer_block));
	o->buffer_id = sim_alloc(o->nbuffers * sizeof(*o->buffer_id));
	if (!o->distinct || !o->upcoming || !o->buffer_block || !o->buffer_id) {
		sim_free(order);
		sim_free(tmp);
		return too_large(o, requests, -ENOMEM, why, whylen);
	}
	for (uint64_t k = 0, d = 0; k < o->n; k++) {
		if (k && o->block[order[k]] != o->block[order[k - 1]])
			d++;
		o->id[order[k]] = (uint32_t)d;
		o->distinct[d] = o->block[order[k]];
	}
	sim_free(order);
	sim_free(tmp);
	for (unsigned i = 0; i < o->nbuffers; i++)
		o->buffer_block[i] = BCACHE_NO_BLOCK;	/* no occupied buffer holds it */
	sim_oracle_rewind(o);
	return 0;
}

void sim_oracle_rewind(struct sim_oracle *o)
{
	/* Before any request, each block's next request is its first: the
	 * first in position order of its requests, which no next[] names. */
	for (uint64_t d = 0; d < o->ndistinct; d++)
		o->upcoming[d] = SIM_ORACLE_NEVER;
	for (uint64_t p = o->n; p-- > 0;)
		o->upcoming[o->id[p]] = (uint32_t)p;
	o->done = 0;
}

/* Advance to c's current request (c->requests is its sequence number). */
static void sync_to(struct sim_oracle *o, const struct bcache_cache *c)
{
	while (o->done < o->n && o->seq[o->done] <= c->requests) {
		o->upcoming[o->id[o->done]] = o->next[o->done];
		o->done++;
	}
}

/* The index in distinct[] of block, or NEVER when the trace never requests it. */
static uint32_t distinct_index(const struct sim_oracle *o, uint64_t block)
{
	uint64_t lo = 0, hi = o->ndistinct;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (o->distinct[mid] < block)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < o->ndistinct && o->distinct[lo] == block ? (uint32_t)lo : SIM_ORACLE_NEVER;
}

/* The position of the next request of buffer i's block after the current one, or NEVER. */
static uint32_t buffer_next_request(struct sim_oracle *o, const struct bcache_cache *c,
				    unsigned i)
{
	if (o->buffer_block[i] != c->buffer[i].block) {
		o->buffer_block[i] = c->buffer[i].block;
		o->buffer_id[i] = distinct_index(o, c->buffer[i].block);
	}
	return o->buffer_id[i] == SIM_ORACLE_NEVER ? SIM_ORACLE_NEVER
						   : o->upcoming[o->buffer_id[i]];
}

int sim_optimal_evict(struct sim_oracle *o, struct bcache_cache *c)
{
	int best = BCACHE_NO_BUFFER;
	uint32_t best_next = 0;

	sync_to(o, c);
	for (unsigned i = 0; i < c->nbuffers && i < o->nbuffers; i++) {
		if (!cache_evictable(c, i))
			continue;
		uint32_t next = buffer_next_request(o, c, i);
		if (best == BCACHE_NO_BUFFER || next > best_next) {	/* '>': the lowest index wins ties */
			best = (int)i;
			best_next = next;
		}
	}
	return best;
}

/*
 * The next requests of the blocks MIN would evict for the next prefetches,
 * farthest first (at most BCACHE_PREFETCH_MAX of them, the most a plan
 * can need): the k-th prefetch that finds no free buffer evicts the k-th.
 */
static unsigned victims_next(struct sim_oracle *o, const struct bcache_cache *c,
			     uint32_t farthest[BCACHE_PREFETCH_MAX])
{
	unsigned count = 0;

	for (unsigned i = 0; i < c->nbuffers && i < o->nbuffers; i++) {
		if (!cache_evictable(c, i))
			continue;
		uint32_t next = buffer_next_request(o, c, i);
		unsigned k = count < BCACHE_PREFETCH_MAX ? count++ : BCACHE_PREFETCH_MAX;
		if (k == BCACHE_PREFETCH_MAX && next <= farthest[k - 1])
			continue;
		if (k == BCACHE_PREFETCH_MAX)
			k--;
		for (; k > 0 && farthest[k - 1] < next; k--)	/* insertion, descending */
			farthest[k] = farthest[k - 1];
		farthest[k] = next;
	}
	return count;
}

static bool planned(const struct bcache_cache *c, uint64_t block)
{
	for (unsigned k = 0; k < c->nplan; k++)
		if (c->plan[k] == block)
			return true;
	return false;
}

void sim_oracle_readahead(struct sim_oracle *o, struct bcache_cache *c)
{
	uint32_t farthest[BCACHE_PREFETCH_MAX];
	unsigned victims = 0;
	bool victims_known = false;

	sync_to(o, c);
	if (!o->done)
		return;
	unsigned free_buffers = c->nbuffers - c->occupied;
	uint64_t end = o->done + c->nbuffers + BCACHE_PREFETCH_MAX;
	/* Up to the next read: the policy runs again after it, and knows more then. */
	for (uint64_t q = o->done; q < o->n && q < end && c->nplan < BCACHE_PREFETCH_MAX; q++) {
		uint64_t block = o->block[q];
		if (cache_lookup(c, block) == BCACHE_NO_BUFFER && !planned(c, block)) {
			/* Do no harm: the buffer it takes must hold a block needed later than q.
			 * Every cached block is needed after the next request (q == done, when
			 * its own block is not cached), so only later ones need the victims. */
			unsigned k = c->nplan;
			if (k >= free_buffers && q > o->done && !victims_known) {
				victims = victims_next(o, c, farthest);
				victims_known = true;
			}
			if (k >= free_buffers && q > o->done &&
			    (k - free_buffers >= victims || farthest[k - free_buffers] <= q))
				break;
			if (bcache_prefetch(block))
				break;
		}
		if (!o->write[q])
			break;
	}
}
