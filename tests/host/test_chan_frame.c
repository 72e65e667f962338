// SPDX-License-Identifier: BSD-2-Clause
/*
 * Host tests of the control channel's frame parser (kernel/channel/frame.c):
 * the CRC against known values, a good frame accepted whole, each kind of
 * bad frame rejected once with its reason and the frame after it still
 * accepted (resynchronisation), garbage counted, a frame split byte by
 * byte, and the idle reset of a partial frame.
 */
#include <stdlib.h>
#include <string.h>
#include "host_test.h"
#include "channel/frame.h"

#define BIG 64

static size_t make_frame(uint8_t *out, uint8_t type, uint32_t seq, const void *payload,
			 uint32_t len)
{
	chan_header_encode(out, type, seq, len);
	memcpy(out + CHAN_HEADER_BYTES, payload, len);
	uint32_t crc = chan_crc32(0, payload, len);
	for (int i = 0; i < 4; i++)
		out[CHAN_HEADER_BYTES + len + i] = (uint8_t)(crc >> (8 * i));
	return CHAN_HEADER_BYTES + len + CHAN_CRC_BYTES;
}

struct run {
	unsigned frames, rejects;
	enum chan_reject last_reject;
	uint32_t last_seq;
	uint8_t last_payload[BIG];
};

static void feed(struct chan_parser *p, const uint8_t *data, size_t n, struct run *r)
{
	struct chan_event ev;
	for (size_t i = 0; i < n; i++) {
		if (!chan_parse_byte(p, data[i], &ev))
			continue;
		if (ev.frame) {
			r->frames++;
			r->last_seq = ev.seq;
			memcpy(r->last_payload, ev.payload, ev.length < BIG ? ev.length : BIG);
		} else {
			r->rejects++;
			r->last_reject = ev.reject;
		}
	}
}

static uint8_t *parser_buffer(void)
{
	return malloc(CHAN_MAX_PAYLOAD + CHAN_CRC_BYTES);
}

HOST_TEST(chan_crc32_known_values)
{
	CHECK(t, chan_crc32(0, "123456789", 9) == 0xcbf43926u, "crc32(123456789) = %08x",
	      chan_crc32(0, "123456789", 9));
	CHECK(t, chan_crc32(0, "", 0) == 0, "crc32 of nothing");
	CHECK(t, chan_crc32(chan_crc32(0, "1234", 4), "56789", 5) == 0xcbf43926u, "continued crc");
}

HOST_TEST(chan_good_frame_and_byte_by_byte)
{
	uint8_t *buf = parser_buffer(), frame[BIG];
	struct chan_parser p;
	struct run r = { 0 };
	size_t n = make_frame(frame, CHAN_REQUEST, 7, "hello", 5);

	chan_parser_init(&p, buf);
	for (size_t i = 0; i < n; i++)
		feed(&p, frame + i, 1, &r);
	CHECK(t, r.frames == 1 && r.rejects == 0 && r.last_seq == 7 &&
		 !memcmp(r.last_payload, "hello", 5), "frames %u rejects %u seq %u", r.frames,
	      r.rejects, r.last_seq);
	n = make_frame(frame, CHAN_HELLO, 8, "", 0);
	feed(&p, frame, n, &r);
	CHECK(t, r.frames == 2 && p.accepted == 2, "an empty HELLO was not accepted");
	free(buf);
}

/* Each corruption is rejected once with its reason, and the good frame after it accepted. */
HOST_TEST(chan_bad_frames_rejected_then_resync)
{
	static const struct {
		const char *what;
		size_t offset;		/* byte to change, in a 5-byte-payload frame */
		uint8_t value;		/* XORed in */
		enum chan_reject want;
	} cases[] = {
		{ "header CRC", 13, 0x01, CHAN_REJECT_BAD_HEADER_CRC },
		{ "seq bit (header CRC)", 5, 0x80, CHAN_REJECT_BAD_HEADER_CRC },
		{ "payload bit", 17, 0x04, CHAN_REJECT_BAD_PAYLOAD_CRC },
		{ "payload CRC", 22, 0xff, CHAN_REJECT_BAD_PAYLOAD_CRC },
	};
	uint8_t *buf = parser_buffer(), bad[BIG], good[BIG];

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct chan_parser p;
		struct run r = { 0 };
		chan_parser_init(&p, buf);
		size_t nb = make_frame(bad, CHAN_REQUEST, 1, "abcde", 5);
		bad[cases[c].offset] ^= cases[c].value;
		size_t ng = make_frame(good, CHAN_REQUEST, 2, "fghij", 5);
		feed(&p, bad, nb, &r);
		feed(&p, good, ng, &r);
		CHECK(t, r.rejects == 1 && r.last_reject == cases[c].want && r.frames == 1 &&
			 r.last_seq == 2, "%s: %u rejects (last %s), %u frames", cases[c].what,
		      r.rejects, chan_reject_name(r.last_reject), r.frames);
	}
	free(buf);
}

/* Headers whose CRC is right but whose fields are not. */
HOST_TEST(chan_bad_version_oversized_unknown_type)
{
	uint8_t *buf = parser_buffer(), frame[BIG];
	struct chan_parser p;
	struct run r = { 0 };

	chan_parser_init(&p, buf);
	size_t n = make_frame(frame, CHAN_REQUEST, 1, "x", 1);
	frame[2] = 9;	/* version, then re-sign the header */
	uint32_t crc = chan_crc32(0, frame, 12);
	memcpy(frame + 12, &crc, 4);
	feed(&p, frame, CHAN_HEADER_BYTES, &r);
	CHECK(t, r.rejects == 1 && r.last_reject == CHAN_REJECT_BAD_VERSION, "version: %s",
	      chan_reject_name(r.last_reject));
	feed(&p, frame + CHAN_HEADER_BYTES, n - CHAN_HEADER_BYTES, &r);	/* its tail: garbage */

	chan_header_encode(frame, CHAN_REQUEST, 1, CHAN_MAX_PAYLOAD + 1);
	feed(&p, frame, CHAN_HEADER_BYTES, &r);
	CHECK(t, r.rejects == 2 && r.last_reject == CHAN_REJECT_OVERSIZED, "oversized: %s",
	      chan_reject_name(r.last_reject));

	n = make_frame(frame, CHAN_RESPONSE, 3, "yy", 2);	/* the host may not send responses */
	feed(&p, frame, n, &r);
	CHECK(t, r.rejects == 3 && r.last_reject == CHAN_REJECT_UNKNOWN_TYPE, "type: %s",
	      chan_reject_name(r.last_reject));
	CHECK(t, p.rejects[CHAN_REJECT_BAD_VERSION] == 1 && p.rejects[CHAN_REJECT_OVERSIZED] == 1 &&
		 p.rejects[CHAN_REJECT_UNKNOWN_TYPE] == 1 && p.rejected == 3, "per-reason counts");
	free(buf);
}

HOST_TEST(chan_garbage_counted_and_idle_reset)
{
	uint8_t *buf = parser_buffer(), frame[BIG];
	struct chan_parser p;
	struct run r = { 0 };
	struct chan_event ev;

	chan_parser_init(&p, buf);
	static const uint8_t garbage[] = { 1, 2, CHAN_MAGIC0, CHAN_MAGIC0, 3 };
	feed(&p, garbage, sizeof(garbage), &r);
	CHECK(t, p.garbage_bytes == 5 && r.rejects == 0, "garbage %llu", (unsigned long long)p.garbage_bytes);
	size_t n = make_frame(frame, CHAN_REQUEST, 4, "abc", 3);
	feed(&p, frame, n - 2, &r);	/* cut short */
	CHECK(t, chan_parse_idle(&p, &ev) && ev.reject == CHAN_REJECT_TRUNCATED && ev.seq == 4,
	      "a partial frame was not dropped as truncated");
	CHECK(t, !chan_parse_idle(&p, &ev), "idle in SYNC rejected something");
	feed(&p, frame, n, &r);
	CHECK(t, r.frames == 1 && r.last_seq == 4, "the whole frame after the reset was not accepted");
	free(buf);
}
