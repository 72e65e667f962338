// SPDX-License-Identifier: BSD-2-Clause
/*
 * Control channel frames: CRC-32, headers, and the receiver's parser.
 * The parser follows the rules written in scion/chan_proto.h state by
 * state, so the host's reference parser (host/scionhost/frame.py)
 * can predict its counts for any byte stream. It never allocates and
 * never reads beyond the caller's buffer: a length is checked against
 * CHAN_MAX_PAYLOAD before a payload byte is stored.
 */
#include "frame.h"

#define CRC32_POLYNOMIAL 0xedb88320u	/* reflected 0x04c11db7 */
#define BYTE_BITS        8

static uint32_t crc_table[256];
static bool crc_table_ready;

static void crc_table_fill(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < BYTE_BITS; k++)
			c = c & 1 ? CRC32_POLYNOMIAL ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
	crc_table_ready = true;
}

uint32_t chan_crc32(uint32_t crc, const void *data, size_t n)
{
	const uint8_t *p = data;

	if (!crc_table_ready)
		crc_table_fill();	/* idempotent: racing fillers write the same values */
	crc = ~crc;
	while (n--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> BYTE_BITS);
	return ~crc;
}

/* Where struct chan_frame_header's members are (the wire's byte order: chan_put_le). */
#define OFF_VERSION    offsetof(struct chan_frame_header, version)
#define OFF_TYPE       offsetof(struct chan_frame_header, type)
#define OFF_SEQ        offsetof(struct chan_frame_header, seq)
#define OFF_LENGTH     offsetof(struct chan_frame_header, length)
#define OFF_HEADER_CRC offsetof(struct chan_frame_header, crc)

void chan_header_encode(uint8_t out[CHAN_HEADER_BYTES], uint8_t type, uint32_t seq,
			uint32_t length)
{
	out[0] = CHAN_MAGIC0;
	out[1] = CHAN_MAGIC1;
	out[OFF_VERSION] = CHAN_VERSION;
	out[OFF_TYPE] = type;
	chan_put_le(out + OFF_SEQ, seq, 4);
	chan_put_le(out + OFF_LENGTH, length, 4);
	chan_put_le(out + OFF_HEADER_CRC, chan_crc32(0, out, OFF_HEADER_CRC), 4);
}

static const char *const reject_names[CHAN_REJECT_KINDS] = {
	[CHAN_REJECT_NONE] = "none",
	[CHAN_REJECT_BAD_HEADER_CRC] = "bad header CRC",
	[CHAN_REJECT_BAD_VERSION] = "bad version",
	[CHAN_REJECT_OVERSIZED] = "oversized",
	[CHAN_REJECT_BAD_PAYLOAD_CRC] = "bad payload CRC",
	[CHAN_REJECT_UNKNOWN_TYPE] = "unknown type",
	[CHAN_REJECT_TRUNCATED] = "truncated",
};

const char *chan_reject_name(enum chan_reject r)
{
	return r < CHAN_REJECT_KINDS ? reject_names[r] : "?";
}

void chan_parser_init(struct chan_parser *p, uint8_t *buffer)
{
	*p = (struct chan_parser){ .state = CHAN_SYNC, .payload = buffer };
}

static bool reject(struct chan_parser *p, enum chan_reject why, bool seq_known,
		   struct chan_event *ev)
{
	*ev = (struct chan_event){
		.reject = why, .seq_known = seq_known, .type = p->type,
		.seq = seq_known ? p->seq : 0, .length = p->length,
	};
	p->rejected++;
	p->rejects[why]++;
	p->state = CHAN_SYNC;
	p->have = 0;
	return true;
}

static bool header_complete(struct chan_parser *p, struct chan_event *ev)
{
	const uint8_t *h = p->header;

	p->type = h[OFF_TYPE];
	p->seq = (uint32_t)chan_get_le(h + OFF_SEQ, 4);
	p->length = (uint32_t)chan_get_le(h + OFF_LENGTH, 4);
	if (chan_crc32(0, h, OFF_HEADER_CRC) != (uint32_t)chan_get_le(h + OFF_HEADER_CRC, 4))
		return reject(p, CHAN_REJECT_BAD_HEADER_CRC, false, ev);
	if (h[OFF_VERSION] != CHAN_VERSION)
		return reject(p, CHAN_REJECT_BAD_VERSION, true, ev);
	if (p->length > CHAN_MAX_PAYLOAD)
		return reject(p, CHAN_REJECT_OVERSIZED, true, ev);
	p->state = CHAN_PAYLOAD;
	p->have = 0;
	return false;
}

static bool payload_complete(struct chan_parser *p, struct chan_event *ev)
{
	if (chan_crc32(0, p->payload, p->length) != (uint32_t)chan_get_le(p->payload + p->length, 4))
		return reject(p, CHAN_REJECT_BAD_PAYLOAD_CRC, true, ev);
	if (p->type != CHAN_HELLO && p->type != CHAN_REQUEST)
		return reject(p, CHAN_REJECT_UNKNOWN_TYPE, true, ev);
	*ev = (struct chan_event){
		.frame = true, .seq_known = true, .type = p->type, .seq = p->seq,
		.length = p->length, .payload = p->payload,
	};
	p->accepted++;
	p->state = CHAN_SYNC;
	p->have = 0;
	return true;
}

bool chan_parse_byte(struct chan_parser *p, uint8_t byte, struct chan_event *ev)
{
	switch (p->state) {
	case CHAN_SYNC:
		if (byte == CHAN_MAGIC0) {
			p->header[0] = byte;
			p->state = CHAN_MAGIC;
		} else {
			p->garbage_bytes++;
		}
		return false;
	case CHAN_MAGIC:
		if (byte == CHAN_MAGIC1) {
			p->header[1] = byte;
			p->have = 2;
			p->state = CHAN_HEADER;
		} else if (byte == CHAN_MAGIC0) {
			p->garbage_bytes++;
		} else {
			p->garbage_bytes += 2;
			p->state = CHAN_SYNC;
		}
		return false;
	case CHAN_HEADER:
		p->header[p->have++] = byte;
		return p->have == CHAN_HEADER_BYTES && header_complete(p, ev);
	case CHAN_PAYLOAD:
		p->payload[p->have++] = byte;
		return p->have == p->length + CHAN_CRC_BYTES && payload_complete(p, ev);
	}
	return false;
}

bool chan_parse_idle(struct chan_parser *p, struct chan_event *ev)
{
	if (p->state == CHAN_SYNC)
		return false;
	if (p->state == CHAN_MAGIC) {	/* one byte is no frame yet: garbage, not a reject */
		p->garbage_bytes++;
		p->state = CHAN_SYNC;
		return false;
	}
	return reject(p, CHAN_REJECT_TRUNCATED, p->state == CHAN_PAYLOAD, ev);
}
