// SPDX-License-Identifier: BSD-2-Clause
/*
 * Recordings' byte order (scion/record.h): records are kept native in
 * the kernel (the recorder, the store and the simulations read them in
 * place) and little-endian on the wire and in the host's files
 * (scion/recfmt.h), so on a big-endian machine each record is turned
 * where it crosses: the "record" stream's chunks, REC_GET's bytes,
 * REC_PUT's. Which members to turn comes from the generated descriptors
 * (scion/chan_wire.h), chosen by the record's type; a type this file
 * does not know has its head and sequence number turned (every record
 * starts so), so a reader can still step over it. Nothing here runs on
 * a little-endian machine: every entry point returns at once there.
 * No state, no locks.
 */
#include <scion/record.h>
#include <scion/chan_wire.h>

/* Turn one record whose type and size (native) are given; the same reversal both ways. */
static void turn(struct rec_head *h, unsigned type, unsigned size)
{
	const struct chan_wire_layout *layout = CHAN_WIRE(rec_head);

	switch (type) {
	case REC_BCACHE_REQUEST:
		layout = CHAN_WIRE(rec_bcache_request);
		break;
	case REC_BCACHE_RESULT: {
		const struct rec_bcache_result *r = (const void *)h;
		if (size >= REC_BCACHE_RESULT_BYTES(r->nprefetch))	/* nprefetch: one byte */
			chan_wire_to_le(CHAN_WIRE(rec_bcache_prefetch), (void *)(r + 1),
					r->nprefetch);
		layout = CHAN_WIRE(rec_bcache_result);
		break;
	}
	case REC_SCHED_EVENT:	/* the state records at a recording's start are longer */
		layout = size >= sizeof(struct rec_sched_state) ? CHAN_WIRE(rec_sched_state)
								 : CHAN_WIRE(rec_sched_event);
		break;
	case REC_SCHED_PICK:
		layout = CHAN_WIRE(rec_sched_pick);
		break;
	case REC_POINT_CALL:
		layout = CHAN_WIRE(rec_point_call);
		break;
	case REC_POINT_DONE:
		layout = CHAN_WIRE(rec_point_done);
		break;
	default:
		layout = CHAN_WIRE(rec_common);
		break;
	}
	if (size < layout->size)	/* shorter than its type says: the head alone */
		layout = CHAN_WIRE(rec_head);
	chan_wire_to_le(layout, h, 1);
}

void rec_record_to_le(struct rec_head *h)
{
	if (CHAN_WIRE_SWAPS)
		turn(h, h->type, h->size);
}

void rec_record_from_le(struct rec_head *h)
{
	if (!CHAN_WIRE_SWAPS)
		return;
	struct rec_head head = *h;
	chan_wire_from_le(CHAN_WIRE(rec_head), &head, 1);
	turn(h, head.type, head.size);
}

void rec_records_to_le(uint8_t *records, size_t bytes)
{
	if (!CHAN_WIRE_SWAPS)
		return;
	for (size_t at = 0; at + sizeof(struct rec_head) <= bytes;) {
		struct rec_head *h = (struct rec_head *)(records + at);
		unsigned size = h->size;
		if (size < sizeof(*h) || size % 8 || size > bytes - at)
			return;		/* not a record the recorders wrote: leave the rest */
		rec_record_to_le(h);
		at += size;
	}
}

void rec_header_to_le(struct rec_file_header *h, unsigned n)
{
	chan_wire_to_le(CHAN_WIRE(rec_file_header), h, n);
}

void rec_header_from_le(struct rec_file_header *h, unsigned n)
{
	chan_wire_from_le(CHAN_WIRE(rec_file_header), h, n);
}
