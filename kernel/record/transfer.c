// SPDX-License-Identifier: BSD-2-Clause
/*
 * Moving recordings between the host and the kernel's store over the
 * control channel (the REC_PUT and REC_GET ops of scion/chan_proto.h):
 * `scion record upload DIR` sends trace.bin and log.bin so that `sim
 * run` can replay them in the kernel, `scion record download REC`
 * fetches a recording (a simulated log, say) as the same files.
 *
 * An upload is untrusted bytes: each stream must start with a header
 * of this format, each record must have a sane size, and at the end
 * the records must be as many as the header says. Records may straddle
 * requests; the partial one waits in the upload's carry buffer. Any
 * error answers one line and deletes the upload, so a half-sent
 * recording is never replayed as if complete. One upload at a time
 * (the channel thread runs ops one by one).
 *
 * The files' bytes are little-endian and the store's records native: an
 * upload's header and each whole record are turned as they arrive (a
 * record's size is read from a turned copy of its head before then), a
 * download's as they leave (rec_wire.c; nothing on a little-endian machine).
 */
#include <scion/record.h>
#include <scion/channel.h>
#include <scion/chan_proto.h>
#include <scion/chan_wire.h>
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>
#include <scion/bcache.h>

/* A REC_GET answer's bytes at most: a frame's payload less the status and the size. */
#define GET_MAX (CHAN_MAX_PAYLOAD - sizeof(struct chan_response_header) - \
		 sizeof(struct chan_rec_get_reply) - 64)

struct upload {
	struct recording *rec;		/* one user: the upload's */
	uint32_t header_got[2];		/* header bytes received per stream */
	uint8_t carry[REC_RECORD_MAX];	/* a record cut by a request boundary */
	uint32_t carry_bytes;
	unsigned carry_stream;
};

static struct upload up;		/* the channel thread's */

static void upload_discard(void)
{
	if (!up.rec)
		return;
	unsigned id = up.rec->id;
	rec_store_put(up.rec);
	rec_store_delete(id);
	memset(&up, 0, sizeof(up));
}

/* A record's size and type make sense for a recording: NULL, or why not. */
static const char *record_problem(const struct rec_head *h)
{
	if (h->size < sizeof(*h) + 8 || h->size % 8 || h->size > REC_RECORD_MAX)
		return "a record with a bad size";
	if (h->type == REC_BCACHE_REQUEST && h->size != sizeof(struct rec_bcache_request))
		return "a bcache request of the wrong size";
	if (h->type == REC_BCACHE_RESULT) {
		const struct rec_bcache_result *r = (const void *)h;
		if (h->size < sizeof(*r) || r->nprefetch > BCACHE_PREFETCH_MAX ||
		    h->size != REC_BCACHE_RESULT_BYTES(r->nprefetch))
			return "a bcache result of the wrong size";
	}
	if ((h->type == REC_SCHED_EVENT && h->size != sizeof(struct rec_sched_event) &&
	     h->size != sizeof(struct rec_sched_state)) ||
	    (h->type == REC_SCHED_PICK && h->size != sizeof(struct rec_sched_pick)))
		return "a sched record of the wrong size";
	return NULL;
}

/* Take len bytes of stream s: the header first, then records. */
static const char *put_bytes(unsigned s, const uint8_t *p, uint32_t len)
{
	struct recording *r = up.rec;

	if (up.carry_bytes && up.carry_stream != s)
		return "a record cut short before the next stream began";
	bool header_whole = up.header_got[s] == sizeof(r->header[s]);
	while (len && up.header_got[s] < sizeof(r->header[s])) {
		((uint8_t *)&r->header[s])[up.header_got[s]++] = *p++;
		len--;
	}
	if (!header_whole && up.header_got[s] == sizeof(r->header[s]))
		rec_header_from_le(&r->header[s], 1);	/* kept native from here */
	while (len) {
		up.carry_stream = s;
		if (up.carry_bytes < sizeof(struct rec_head)) {
			uint32_t take = sizeof(struct rec_head) - up.carry_bytes;
			take = take < len ? take : len;
			memcpy(up.carry + up.carry_bytes, p, take);
			up.carry_bytes += take;
			p += take;
			len -= take;
			continue;
		}
		/* The head as sent (little-endian) until the whole record is here. */
		struct rec_head head = *(const struct rec_head *)up.carry;
		chan_wire_from_le(CHAN_WIRE(rec_head), &head, 1);
		const struct rec_head *h = &head;
		if (h->size < sizeof(*h) + 8 || h->size % 8 || h->size > REC_RECORD_MAX)
			return "a record with a bad size";
		uint32_t take = h->size - up.carry_bytes;
		take = take < len ? take : len;
		memcpy(up.carry + up.carry_bytes, p, take);
		up.carry_bytes += take;
		p += take;
		len -= take;
		if (up.carry_bytes == h->size) {
			h = (const struct rec_head *)up.carry;
			rec_record_from_le((struct rec_head *)up.carry);
			const char *why = record_problem(h);
			if (why)
				return why;
			if (rec_data_append(&r->stream[s], h, h->size))
				return "the kernel's recording store is full";
			up.carry_bytes = 0;
		}
	}
	return NULL;
}

/* At the end: whole headers of this format and whole records, as many as promised. */
static const char *put_finish(char *why, size_t whylen)
{
	static const char *const names[2] = { "trace", "log" };
	struct recording *r = up.rec;

	if (up.carry_bytes)
		return "the last record is cut short";
	for (unsigned s = 0; s < 2; s++) {
		if (!up.header_got[s])
			continue;
		const struct rec_file_header *h = &r->header[s];
		if (up.header_got[s] < sizeof(*h) || memcmp(h->magic, REC_MAGIC, sizeof(h->magic)) ||
		    h->version != REC_VERSION || h->header_bytes != sizeof(*h) || h->stream != s + 1) {
			snprintf(why, whylen, "the %s does not start with a version %u %s header",
				 names[s], REC_VERSION, names[s]);
			return why;
		}
		if (h->records != r->stream[s].records) {
			snprintf(why, whylen, "the %s has %llu records, its header says %llu (truncated?)",
				 names[s], (unsigned long long)r->stream[s].records,
				 (unsigned long long)h->records);
			return why;
		}
	}
	if (!up.header_got[0] && !up.header_got[1])
		return "nothing was sent";
	if (!up.header_got[0])
		r->header[0] = r->header[1];	/* a log alone: describe the trace alike */
	if (!up.header_got[1]) {
		r->header[1] = r->header[0];
		r->header[1].stream = REC_STREAM_LOG;
		r->header[1].records = r->header[1].drops = 0;
	}
	r->header[0].stream = REC_STREAM_TRACE;
	return NULL;
}

int record_put_request(uint32_t seq, const uint8_t *body, uint32_t len)
{
	char why[160];
	struct chan_rec_put_request req;

	if (len < sizeof(req)) {
		channel_error(seq, -EINVAL, "REC_PUT of %u bytes: shorter than its %zu-byte struct "
			      "chan_rec_put_request", len, sizeof(req));
		return -EINVAL;
	}
	memcpy(&req, body, sizeof(req));
	chan_wire_from_le(CHAN_WIRE(chan_rec_put_request), &req, 1);
	uint32_t id = req.rec;
	unsigned stream = req.stream, flags = req.flags;
	if (stream != REC_STREAM_TRACE && stream != REC_STREAM_LOG) {
		channel_error(seq, -EINVAL, "REC_PUT: stream %u is neither trace (1) nor log (2)",
			      stream);
		return -EINVAL;
	}
	if (id == 0) {
		upload_discard();	/* an unfinished upload of a client that went away */
		up.rec = rec_store_create("uploaded from the host");
		if (!up.rec) {
			channel_error(seq, -ENOMEM, "REC_PUT: no memory for a recording");
			return -ENOMEM;
		}
	} else if (!up.rec || up.rec->id != id) {
		channel_error(seq, -ENOENT, "REC_PUT: rec%u is not an upload in progress", id);
		return -ENOENT;
	}
	const char *problem = put_bytes(stream - 1, body + sizeof(req), len - (uint32_t)sizeof(req));
	if (!problem && (flags & CHAN_REC_PUT_FINISH))
		problem = put_finish(why, sizeof(why));
	if (problem) {
		unsigned failed = up.rec->id;
		upload_discard();
		channel_error(seq, -EINVAL, "upload rec%u refused: %s", failed, problem);
		return -EINVAL;
	}
	struct chan_rec_put_reply reply = { .rec = up.rec->id };
	if (flags & CHAN_REC_PUT_FINISH) {
		rec_store_complete(up.rec);
		rec_store_put(up.rec);
		memset(&up, 0, sizeof(up));
	}
	chan_wire_to_le(CHAN_WIRE(chan_rec_put_reply), &reply, 1);
	channel_respond(seq, 0, &reply, sizeof(reply));
	return 0;
}

int record_get_request(uint32_t seq, const uint8_t *body, uint32_t len)
{
	static struct {
		struct chan_rec_get_reply head;
		uint8_t data[GET_MAX];
	} reply;
	struct chan_rec_get_request req;

	if (len != sizeof(req)) {
		channel_error(seq, -EINVAL, "REC_GET of %u bytes: give a struct chan_rec_get_request "
			      "(%zu bytes)", len, sizeof(req));
		return -EINVAL;
	}
	memcpy(&req, body, sizeof(req));
	chan_wire_from_le(CHAN_WIRE(chan_rec_get_request), &req, 1);
	unsigned id = req.rec, stream = req.stream;
	uint64_t offset = req.offset;
	if (stream != REC_STREAM_TRACE && stream != REC_STREAM_LOG) {
		channel_error(seq, -EINVAL, "REC_GET: stream %u is neither trace (1) nor log (2)",
			      stream);
		return -EINVAL;
	}
	struct recording *r = rec_store_get(id, false);
	if (!r) {
		channel_error(seq, -ENOENT, "no complete recording rec%u", id);
		return -ENOENT;
	}
	const struct rec_file_header *h = &r->header[stream - 1];
	const struct rec_data *d = &r->stream[stream - 1];
	uint32_t n = req.max < GET_MAX ? req.max : GET_MAX, done = 0;
	reply.head.size = sizeof(*h) + d->bytes;
	if (offset < sizeof(*h)) {
		struct rec_file_header wire = *h;
		rec_header_to_le(&wire, 1);
		done = (uint32_t)(sizeof(*h) - offset) < n ? (uint32_t)(sizeof(*h) - offset) : n;
		memcpy(reply.data, (const uint8_t *)&wire + offset, done);
	}
	if (done < n && offset + done >= sizeof(*h))
		done += (uint32_t)rec_data_read_le(d, offset + done - sizeof(*h), reply.data + done,
						   n - done);
	rec_store_put(r);
	chan_wire_to_le(CHAN_WIRE(chan_rec_get_reply), &reply.head, 1);
	channel_respond(seq, 0, &reply, sizeof(reply.head) + done);
	return 0;
}
