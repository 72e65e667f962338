// SPDX-License-Identifier: BSD-2-Clause
/*
 * Aggregation buffers: per CPU, a pair like the trace buffers. Probe
 * context folds values into the active buffer of its own CPU (a hash
 * table of entries laid out as the host reads them: struct dof_aggent,
 * key, values); the session's drain switches every CPU's pair by
 * cross-call, sends the inactive buffers and empties them. So each
 * snapshot holds what was aggregated since the previous one, and the
 * host merges (adds counts and sums, keeps min and max, adds buckets).
 *
 * Invariant: as for tbuf — the active buffer is touched only by its CPU
 * with interrupts masked; the inactive one only by the drain, between
 * switches. Entry links live beside the data (link[]), so the data
 * goes to the host as it is. Each buffer is one large buffer (vbuf.c):
 * its size is whatever the session's aggsize asks, as memory allows; its
 * entry index has room for as many entries as the smallest entry of the
 * session's aggregations lets fit.
 */
#include <scion/hash.h>
#include <scion/mm.h>
#include <scion/string.h>
#include <scion/xcall.h>
#include <arch/cpu.h>
#include "trace_internal.h"

#define AGG_BUCKETS 256		/* a power of two */
#define AGG_MIN_ENTRY 16	/* dof_aggent + one 8-byte value */

struct aggbuf {
	struct vbuf mem;		/* data, then offset[], next[], hash[] */
	uint8_t *data;
	uint32_t used;
	uint32_t nentries;
	uint32_t *offset;		/* entry i starts at data + offset[i] */
	uint32_t *next;			/* chain: entry index + 1, 0 ends */
	uint32_t *hash;
	uint32_t bucket[AGG_BUCKETS];	/* entry index + 1 */
};

/*
 * A memo of entries of the active buffer by a caller's tag for their key
 * (aggbuf_fold_known): direct-mapped, emptied at each switch. Entries
 * never move or leave the active buffer until then, so a remembered one
 * stays right.
 */
#define AGG_MEMO 64		/* a power of two */
struct agg_memo {
	uint64_t tag;			/* 0: empty */
	uint64_t agg_id;
	uint64_t *values;		/* the entry's, in the active buffer */
};

struct aggbuf_cpu {
	struct aggbuf *active, *inactive;
	uint32_t taken;			/* bytes of inactive the last switch took */
	struct agg_memo memo[AGG_MEMO];	/* own CPU, interrupts masked */
} __aligned(64);

struct aggbuf_set {
	uint32_t size;
	uint32_t max_entries;
	unsigned ncpus;
	struct aggbuf_cpu cpu[MAX_CPUS];
	struct aggbuf pool[];		/* 2 per CPU */
};

static void clear(struct aggbuf *b)
{
	b->used = 0;
	b->nentries = 0;
	memset(b->bucket, 0, sizeof(b->bucket));
}

/* Bytes of one buffer: the data and its entry index. */
static uint64_t buf_bytes(uint32_t size, uint32_t max_entries)
{
	return (uint64_t)size + 3ull * max_entries * sizeof(uint32_t);
}

static bool init_buf(struct aggbuf *b, uint32_t size, uint32_t max_entries)
{
	if (vbuf_alloc(&b->mem, buf_bytes(size, max_entries)))
		return false;
	b->data = b->mem.data;
	b->offset = (uint32_t *)(b->mem.data + size);
	b->next = b->offset + max_entries;
	b->hash = b->next + max_entries;
	clear(b);
	return true;
}

void aggbuf_destroy(struct aggbuf_set *a)
{
	if (!a)
		return;
	for (unsigned i = 0; i < 2 * a->ncpus; i++)
		vbuf_free(&a->pool[i].mem);
	kfree(a);
}

static uint32_t max_entries_of(uint32_t bytes, uint32_t min_entry)
{
	return bytes / (min_entry > AGG_MIN_ENTRY ? min_entry : AGG_MIN_ENTRY);
}

uint64_t aggbuf_bytes_needed(uint32_t bytes, uint32_t min_entry, unsigned ncpus)
{
	uint64_t one = buf_bytes(bytes, max_entries_of(bytes, min_entry));
	return 2ull * ncpus * ((one + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1));
}

struct aggbuf_set *aggbuf_create(uint32_t bytes, uint32_t min_entry)
{
	unsigned ncpus = cpu_count();
	struct aggbuf_set *a = kzalloc(sizeof(*a) + 2 * ncpus * sizeof(struct aggbuf));
	if (!a)
		return NULL;
	a->size = bytes;
	a->max_entries = max_entries_of(bytes, min_entry);
	a->ncpus = ncpus;
	for (unsigned i = 0; i < ncpus; i++) {
		a->cpu[i].active = &a->pool[2 * i];
		a->cpu[i].inactive = &a->pool[2 * i + 1];
	}
	for (unsigned i = 0; i < 2 * ncpus; i++) {
		if (!init_buf(&a->pool[i], bytes, a->max_entries)) {
			aggbuf_destroy(a);
			return NULL;
		}
	}
	return a;
}

/* The bucket a value falls in, for quantize. */
static unsigned quantize_bucket(int64_t v)
{
	if (v == 0)
		return DOF_QUANTIZE_ZERO;
	uint64_t mag = v > 0 ? (uint64_t)v : -(uint64_t)v;
	unsigned k = 64 - (unsigned)__builtin_clzll(mag);	/* 2^(k-1) <= mag < 2^k */
	if (k > DOF_QUANTIZE_ZERO)
		k = DOF_QUANTIZE_ZERO;	/* INT64_MIN: the lowest bucket */
	return v > 0 ? DOF_QUANTIZE_ZERO + k : DOF_QUANTIZE_ZERO - k;
}

/* Out of line, as the llquantize one, so that fold's common cases take no frame. */
static __noinline unsigned lquantize_bucket(const struct trace_agg *g, int64_t v)
{
	uint64_t levels = (uint64_t)(g->lq_high - g->lq_low) / (uint64_t)g->lq_step;
	if (v < g->lq_low)
		return 0;
	if (v >= g->lq_high)
		return (unsigned)levels + 1;
	return 1 + (unsigned)((uint64_t)(v - g->lq_low) / (uint64_t)g->lq_step);
}

static __noinline unsigned llquantize_bucket(const struct trace_agg *g, int64_t v)
{
	return dof_llquantize_bucket(DOF_LLQ_FACTOR(g->lq_step), (uint16_t)g->lq_low,
				     (uint16_t)g->lq_high, DOF_LLQ_NSTEPS(g->lq_step), v);
}

/* stddev's fold: out of line, for its 128-bit sum of squares needs a frame that the rest do not. */
static __noinline void fold_stddev(uint64_t *val, int64_t v)
{
	unsigned __int128 sq = (unsigned __int128)((__int128)v * v);
	unsigned __int128 sum = ((unsigned __int128)val[3] << 64 | val[2]) + sq;
	val[0]++;
	val[1] += (uint64_t)v;
	val[2] = (uint64_t)sum;
	val[3] = (uint64_t)(sum >> 64);
}

static void fold(const struct trace_agg *g, uint64_t *val, uint64_t value, uint64_t incr,
		 bool fresh)
{
	int64_t v = (int64_t)value;
	switch (g->func) {
	case DOF_AGG_COUNT: val[0]++; break;
	case DOF_AGG_SUM: val[0] += value; break;
	case DOF_AGG_MIN: if (fresh || v < (int64_t)val[0]) val[0] = value; break;
	case DOF_AGG_MAX: if (fresh || v > (int64_t)val[0]) val[0] = value; break;
	case DOF_AGG_AVG: val[0]++; val[1] += value; break;
	case DOF_AGG_STDDEV: fold_stddev(val, v); break;
	case DOF_AGG_QUANTIZE: val[quantize_bucket(v)] += incr; break;
	case DOF_AGG_LQUANTIZE: val[lquantize_bucket(g, v)] += incr; break;
	case DOF_AGG_LLQUANTIZE: val[llquantize_bucket(g, v)] += incr; break;
	}
}

static struct agg_memo *memo_slot(struct aggbuf_cpu *c, uint32_t agg_id, uint64_t tag)
{
	uint64_t h = (tag ^ ((uint64_t)agg_id << 40)) * 0x9e3779b97f4a7c15ull;
	return &c->memo[h >> (64 - 6)];
}
_Static_assert(AGG_MEMO == 1 << 6, "memo_slot takes 6 bits of the hash");

bool aggbuf_fold_known(struct aggbuf_set *a, uint32_t agg_id, const struct trace_agg *g,
		       uint64_t tag, uint64_t value, uint64_t incr)
{
	unsigned cpu = this_cpu_index();
	if (cpu >= a->ncpus)
		return false;
	struct aggbuf_cpu *c = &a->cpu[cpu];
	const struct agg_memo *m = memo_slot(c, agg_id, tag);
	if (m->tag != tag || m->agg_id != agg_id)
		return false;
	fold(g, m->values, value, incr, false);
	return true;
}

bool aggbuf_update(struct aggbuf_set *a, uint32_t agg_id, const struct trace_agg *g,
		   const uint8_t *key, uint32_t keylen, uint64_t value, uint64_t incr,
		   uint64_t tag)
{
	unsigned cpu = this_cpu_index();
	if (cpu >= a->ncpus)
		return false;
	struct aggbuf_cpu *c = &a->cpu[cpu];
	struct aggbuf *b = c->active;
	uint32_t h = hash_bytes(agg_id, key, keylen);
	uint32_t *head = &b->bucket[h & (AGG_BUCKETS - 1)];
	struct dof_aggent *e = NULL;
	uint32_t i;

	for (i = *head; i; i = b->next[i - 1]) {
		e = (struct dof_aggent *)(b->data + b->offset[i - 1]);
		if (b->hash[i - 1] == h && e->agg == agg_id && !memcmp(e + 1, key, keylen))
			break;
	}
	bool fresh = !i;
	if (fresh) {
		uint32_t need = (uint32_t)sizeof(struct dof_aggent) + g->keybytes + g->valbytes;
		if (b->nentries == a->max_entries || a->size - b->used < need)
			return false;
		e = (struct dof_aggent *)(b->data + b->used);
		e->agg = agg_id;
		e->keybytes = (uint16_t)g->keybytes;
		e->valbytes = (uint16_t)g->valbytes;
		memcpy(e + 1, key, keylen);
		memset((uint8_t *)(e + 1) + keylen, 0, g->keybytes - keylen);
		memset((uint8_t *)(e + 1) + g->keybytes, 0, g->valbytes);
		b->offset[b->nentries] = b->used;
		b->hash[b->nentries] = h;
		b->next[b->nentries] = *head;
		*head = ++b->nentries;
		b->used += need;
	}
	uint64_t *values = (uint64_t *)((uint8_t *)(e + 1) + g->keybytes);
	fold(g, values, value, incr, fresh);
	if (tag)
		*memo_slot(c, agg_id, tag) = (struct agg_memo){ tag, agg_id, values };
	return true;
}

static void switch_here(void *arg)
{
	struct aggbuf_set *a = arg;
	unsigned cpu = this_cpu_index();
	if (cpu >= a->ncpus)
		return;
	struct aggbuf_cpu *c = &a->cpu[cpu];
	struct aggbuf *filled = c->active;
	c->active = c->inactive;
	c->inactive = filled;
	c->taken = filled->used;
	memset(c->memo, 0, sizeof(c->memo));
}

void aggbuf_switch(struct aggbuf_set *a)
{
	for (unsigned i = 0; i < a->ncpus; i++)
		clear(a->cpu[i].inactive);
	xcall_all(switch_here, a);
}

const uint8_t *aggbuf_taken(struct aggbuf_set *a, unsigned cpu, uint32_t *bytes)
{
	*bytes = a->cpu[cpu].taken;
	return a->cpu[cpu].inactive->data;
}
