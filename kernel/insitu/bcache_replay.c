// SPDX-License-Identifier: BSD-2-Clause
/*
 * The trace replay (bcache_replay.h): checks each request record, runs it
 * through the simulation instance exactly as bcache_read runs a demand
 * read through the live one (cache_demand, then cache_read_ahead), or as
 * bcache_write_bytes runs a demand write (cache_demand, then the block
 * dirtied, and written back at once when the write was synchronous), and
 * writes the log record with the model's latency. Portable: no kernel
 * services, so the host's sim/ builds this same file.
 */
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>
#include "bcache_replay.h"

const struct rec_head *sim_walk(const uint8_t *data, size_t size, size_t *offset,
				const char **why)
{
	size_t off = *offset;

	*why = NULL;
	if (off >= size)
		return NULL;
	const struct rec_head *h = (const void *)(data + off);
	if (size - off < sizeof(*h) + 8)
		*why = "a record head is cut short";
	else if (h->size < sizeof(*h) + 8 || h->size % 8)
		*why = "a record has an impossible size";
	else if (h->size > size - off)
		*why = "the last record is cut short";
	if (*why)
		return NULL;
	*offset = off + h->size;
	return h;
}

int sim_start_io(struct bcache_cache *c, int i)
{
	c->buffer[i].state = BUFFER_VALID;	/* a modelled read completes at once */
	return 0;
}

const char *sim_check_format(const struct rec_file_header *h, enum rec_stream stream,
			     char *why, size_t whylen)
{
	if (memcmp(h->magic, REC_MAGIC, sizeof(h->magic)))
		snprintf(why, whylen, "not a Scion recording (no %s magic)", REC_MAGIC);
	else if (h->version != REC_VERSION || h->header_bytes != sizeof(*h))
		snprintf(why, whylen, "recording format version %u (%u-byte header); this reads "
			 "version %u", h->version, h->header_bytes, REC_VERSION);
	else if (h->stream != stream)
		snprintf(why, whylen, "not a %s: its header says stream %u",
			 stream == REC_STREAM_TRACE ? "trace" : "log", h->stream);
	else
		return NULL;
	return why;
}

const char *sim_check_header(const struct rec_file_header *h, enum rec_stream stream,
			     char *why, size_t whylen)
{
	const char *kind = stream == REC_STREAM_TRACE ? "trace" : "log";

	if (sim_check_format(h, stream, why, whylen))
		return why;
	if (strncmp(h->module, "bcache", sizeof(h->module)))
		snprintf(why, whylen, "a %s of module '%.*s', not bcache", kind,
			 (int)sizeof(h->module), h->module);
	else if (h->config[REC_BCACHE_CONFIG_BUFFERS] < 1 ||
		 h->config[REC_BCACHE_CONFIG_BUFFERS] > BCACHE_MAX_BUFFERS ||
		 h->config[REC_BCACHE_CONFIG_BLOCKS] < 1)
		snprintf(why, whylen, "bad configuration in the %s header: %llu buffers (1..%u), "
			 "%llu blocks", kind,
			 (unsigned long long)h->config[REC_BCACHE_CONFIG_BUFFERS], BCACHE_MAX_BUFFERS,
			 (unsigned long long)h->config[REC_BCACHE_CONFIG_BLOCKS]);
	else
		return NULL;
	return why;
}

const char *sim_check_request(const struct rec_head *h, uint64_t index, uint64_t last_seq,
			      const struct rec_file_header *th, char *why, size_t whylen)
{
	const struct rec_bcache_request *r = (const void *)h;

	if (h->type != REC_BCACHE_REQUEST || h->size != sizeof(*r))
		snprintf(why, whylen, "record %llu is not a bcache request (type %u, %u bytes)",
			 (unsigned long long)index, h->type, h->size);
	else if (r->seq <= last_seq)
		snprintf(why, whylen, "record %llu: sequence number %llu after %llu (out of order)",
			 (unsigned long long)index, (unsigned long long)r->seq,
			 (unsigned long long)last_seq);
	else if (r->flags & ~(uint32_t)BCACHE_REQ_FLAGS ||
		 (r->flags && !(r->flags & BCACHE_REQ_WRITE)))
		snprintf(why, whylen, "record %llu: flags 0x%x are not a read's or a write's",
			 (unsigned long long)index, r->flags);
	else if (r->block >= th->config[REC_BCACHE_CONFIG_BLOCKS])
		snprintf(why, whylen, "record %llu: block %llu is beyond the disk (%llu blocks)",
			 (unsigned long long)index, (unsigned long long)r->block,
			 (unsigned long long)th->config[REC_BCACHE_CONFIG_BLOCKS]);
	else
		return NULL;
	return why;
}

void sim_encode_result(const struct bcache_result *res, uint32_t cpu,
		       struct rec_bcache_result *out)
{
	uint32_t n = res->nprefetch <= BCACHE_PREFETCH_MAX ? res->nprefetch : BCACHE_PREFETCH_MAX;

	*out = (struct rec_bcache_result){
		.head = { .size = (uint16_t)REC_BCACHE_RESULT_BYTES(n), .type = REC_BCACHE_RESULT,
			  .cpu = cpu },
		.outcome = (uint8_t)res->outcome, .nprefetch = (uint8_t)n, .seq = res->seq,
		.flags = (uint16_t)res->flags,
		.disk_reads = res->disk_reads,
		.block = res->block, .victim = res->victim, .latency_ns = res->latency_ns,
	};
	for (uint32_t k = 0; k < n; k++)
		out->prefetch[k] = (struct rec_bcache_prefetch){
			.block = res->prefetch[k].block, .victim = res->prefetch[k].victim,
			.fate = res->prefetch[k].fate,
		};
}

void sim_summary_add(struct sim_summary *sum, const struct rec_bcache_result *r)
{
	sum->requests++;
	if (r->outcome == BCACHE_OUTCOME_MISS)
		sum->misses++;
	else if (r->outcome == BCACHE_OUTCOME_HIT || r->outcome == BCACHE_OUTCOME_WAIT)
		sum->hits++;
	sum->evictions += r->victim != BCACHE_NO_BLOCK;
	sum->disk_reads += r->disk_reads;
	for (unsigned k = 0; k < r->nprefetch; k++) {
		sum->evictions += r->prefetch[k].victim != BCACHE_NO_BLOCK;
		if (r->prefetch[k].fate == BCACHE_PREFETCH_STARTED) {
			sum->prefetches++;
			sum->disk_reads++;
		}
	}
	sum->est_ns += r->latency_ns;
}

int sim_replay_one(struct bcache_cache *c, const struct rec_bcache_request *r,
		   const struct sim_model *model, sim_emit_fn *emit, void *ectx,
		   struct sim_summary *sum)
{
	/*
	 * Every field but prefetch[]: entries past nprefetch are never read,
	 * and clearing the whole array was a sixth of a host replay's loop.
	 */
	struct bcache_result res;
	res.seq = r->seq;
	res.block = r->block;
	res.victim = BCACHE_NO_BLOCK;
	res.start_ns = res.latency_ns = 0;
	res.outcome = res.nprefetch = res.disk_reads = 0;
	res.flags = r->flags;
	uint64_t used_before = c->stats.prefetch_used;
	int i;

	c->requests = r->seq;
	int got = cache_demand(c, r->block, r->flags, &res, &i);
	if (got < 0)		/* cannot happen: no I/O of an instance stays in flight */
		return got;
	if (r->flags & BCACHE_REQ_WRITE) {
		/* A write: the block is dirty, and on the disk at once when synchronous. */
		cache_mark_dirty(c, i);
		if (r->flags & BCACHE_REQ_SYNC)
			cache_write_back(c, i);
	} else {
		cache_read_ahead(c, r->block, got != BCACHE_OUTCOME_MISS, &res);
	}
	res.latency_ns = got == BCACHE_OUTCOME_MISS && res.disk_reads ? model->miss_ns
								      : model->hit_ns;

	uint64_t out[REC_BCACHE_RESULT_BYTES(BCACHE_PREFETCH_MAX) / 8];
	struct rec_bcache_result *log = (struct rec_bcache_result *)out;
	sim_encode_result(&res, 0, log);
	sim_summary_add(sum, log);
	sum->prefetch_used += c->stats.prefetch_used - used_before;
	sum->overlapped += r->in_flight != 0;
	return emit(ectx, &log->head);
}

int sim_replay(struct bcache_cache *c, const struct rec_file_header *th, struct sim_reader trace,
	       const struct sim_model *model, sim_emit_fn *emit, void *ectx,
	       struct sim_summary *sum, char *why, size_t whylen)
{
	uint64_t index = 0, last_seq = 0;

	for (const struct rec_head *h; (h = trace.next(trace.ctx));) {
		if (sim_check_request(h, ++index, last_seq, th, why, whylen))
			return -EINVAL;
		const struct rec_bcache_request *r = (const void *)h;
		last_seq = r->seq;
		int err = sim_replay_one(c, r, model, emit, ectx, sum);
		if (err) {
			snprintf(why, whylen, "record %llu: the log could not be written (%s)",
				 (unsigned long long)index, errno_name(err));
			return err;
		}
	}
	return 0;
}

bool sim_model_calibrate(struct sim_reader log, struct sim_model *model)
{
	uint64_t hit_sum = 0, hits = 0, miss_sum = 0, misses = 0;

	for (const struct rec_head *h; (h = log.next(log.ctx));) {
		const struct rec_bcache_result *r = (const void *)h;
		if (h->type != REC_BCACHE_RESULT || h->size < sizeof(*r))
			continue;
		if (r->outcome == BCACHE_OUTCOME_MISS) {
			miss_sum += r->latency_ns;
			misses++;
		} else if (r->outcome == BCACHE_OUTCOME_HIT || r->outcome == BCACHE_OUTCOME_WAIT) {
			hit_sum += r->latency_ns;
			hits++;
		}
	}
	model->hit_ns = hits ? hit_sum / hits : 0;
	model->miss_ns = misses ? miss_sum / misses : 0;
	return hits && misses;
}

/* A hit that waited for its block's read in flight is a hit all the same. */
static unsigned decided_outcome(unsigned outcome)
{
	return outcome == BCACHE_OUTCOME_WAIT ? BCACHE_OUTCOME_HIT : outcome;
}

bool sim_same_decision(const struct rec_bcache_result *a, const struct rec_bcache_result *b)
{
	if (a->seq != b->seq || a->block != b->block || a->flags != b->flags ||
	    decided_outcome(a->outcome) != decided_outcome(b->outcome) ||
	    a->victim != b->victim || a->nprefetch != b->nprefetch)
		return false;
	for (unsigned k = 0; k < a->nprefetch; k++)
		if (a->prefetch[k].block != b->prefetch[k].block ||
		    a->prefetch[k].victim != b->prefetch[k].victim ||
		    a->prefetch[k].fate != b->prefetch[k].fate)
			return false;
	return true;
}

void sim_format_header(char *buf, size_t n)
{
	snprintf(buf, n, "%-38s %7s %7s %9s %10s %10s %15s %11s  %s", "policy", "hits", "misses",
		 "evictions", "prefetches", "disk-reads", "time(ms)", "agree", "log");
}

void sim_format_row(char *buf, size_t n, const char *label, const struct sim_summary *s,
		    uint64_t requests, bool agree_known, const char *log)
{
	char agree[48] = "-";
	if (agree_known)
		snprintf(agree, sizeof(agree), "%llu/%llu", (unsigned long long)s->agree,
			 (unsigned long long)requests);
	snprintf(buf, n, "%-38s %7llu %7llu %9llu %10llu %10llu %11llu.%03llu %11s  %s", label,
		 (unsigned long long)s->hits, (unsigned long long)s->misses,
		 (unsigned long long)s->evictions, (unsigned long long)s->prefetches,
		 (unsigned long long)s->disk_reads, (unsigned long long)(s->est_ns / 1000000),
		 (unsigned long long)(s->est_ns / 1000 % 1000), agree, log);
}

bool sim_gap_refs(const char *const labels[], unsigned nrows, int ref[2])
{
	const char *optimal = "evict=" SIM_OPTIMAL_EVICT_NAME " readahead="
			      SIM_OPTIMAL_READAHEAD_NAME;
	const char *min_prefix = "evict=" SIM_OPTIMAL_EVICT_NAME " ";
	ref[0] = ref[1] = -1;
	for (unsigned k = 0; k < nrows; k++) {
		if (!strcmp(labels[k], optimal) && ref[0] < 0)
			ref[0] = (int)k;
		else if (!strncmp(labels[k], min_prefix, strlen(min_prefix)) && ref[1] < 0)
			ref[1] = (int)k;
	}
	return ref[0] >= 0 || ref[1] >= 0;
}

/* Hits per thousand requests (rounded down, the same in the kernel and on the host). */
static int64_t hit_permille(const struct sim_summary *s)
{
	return s->requests ? (int64_t)(s->hits * 1000 / s->requests) : 0;
}

void sim_format_gap_header(char *buf, size_t n, const char *const labels[], const int ref[2])
{
	int len = snprintf(buf, n, "gap to optimal (hit ratio, percentage points):");
	static const char *const names[2] = { "optimal", "optimal-evict" };
	for (unsigned k = 0; k < 2 && len >= 0 && (size_t)len < n; k++)
		if (ref[k] >= 0)
			len += snprintf(buf + len, n - (size_t)len, " %s is %s;", names[k],
					labels[ref[k]]);
	if (len >= 0 && (size_t)len < n)
		snprintf(buf + len, n - (size_t)len, "\n%-38s %9s%s%s", "policy", "hit-ratio",
			 ref[0] >= 0 ? "  to-optimal" : "", ref[1] >= 0 ? "  to-optimal-evict" : "");
}

void sim_format_gap_row(char *buf, size_t n, const char *label, const struct sim_summary *s,
			const struct sim_summary *const rows, const int ref[2])
{
	int64_t mine = hit_permille(s);
	int len = snprintf(buf, n, "%-38s %7lld.%lld%%", label, (long long)(mine / 10),
			   (long long)(mine % 10));
	static const int widths[2] = { 12, 18 };
	for (unsigned k = 0; k < 2 && len >= 0 && (size_t)len < n; k++) {
		if (ref[k] < 0)
			continue;
		int64_t gap = mine - hit_permille(&rows[ref[k]]);
		uint64_t mag = (uint64_t)(gap < 0 ? -gap : gap);
		char cell[32];
		snprintf(cell, sizeof(cell), "%s%llu.%llu", gap < 0 ? "-" : gap > 0 ? "+" : "",
			 (unsigned long long)(mag / 10), (unsigned long long)(mag % 10));
		len += snprintf(buf + len, n - (size_t)len, "%*s", widths[k], cell);
	}
}
