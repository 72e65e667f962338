/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Control channel frames (kernel/channel/frame.c): CRC-32, encoding a
 * header, and the receiver's byte-by-byte parser that follows the rules
 * in scion/chan_proto.h. Portable C with no kernel dependencies: the
 * host unit tests and the libFuzzer target build the same file.
 */
#ifndef CHANNEL_FRAME_H
#define CHANNEL_FRAME_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <scion/chan_proto.h>

/* CRC-32 (zlib's) of n bytes, continuing from crc (0 to start). */
uint32_t chan_crc32(uint32_t crc, const void *data, size_t n);

/* Fill a 16-byte header for a frame of type with seq and length payload bytes. */
void chan_header_encode(uint8_t out[CHAN_HEADER_BYTES], uint8_t type, uint32_t seq,
			uint32_t length);

/* "bad header CRC", ... for enum chan_reject (scion/chan_proto.h): messages and counters. */
const char *chan_reject_name(enum chan_reject r);

enum chan_parse_state { CHAN_SYNC, CHAN_MAGIC, CHAN_HEADER, CHAN_PAYLOAD };

struct chan_parser {
	enum chan_parse_state state;
	uint8_t header[CHAN_HEADER_BYTES];
	uint32_t have;			/* bytes of the header, or of payload + CRC */
	uint8_t type;
	uint32_t seq, length;
	uint8_t *payload;		/* caller's buffer of CHAN_MAX_PAYLOAD + CHAN_CRC_BYTES */
	uint64_t accepted, rejected, garbage_bytes;
	uint64_t rejects[CHAN_REJECT_KINDS];
};

/* A frame the parser accepted or rejected. */
struct chan_event {
	bool frame;			/* true: a frame was accepted */
	enum chan_reject reject;	/* else why one was rejected */
	bool seq_known;			/* the header was sound: seq is the sender's */
	uint8_t type;
	uint32_t seq, length;
	const uint8_t *payload;		/* in the parser's buffer until the next byte */
};

/* Start p with buffer (CHAN_MAX_PAYLOAD + CHAN_CRC_BYTES bytes). */
void chan_parser_init(struct chan_parser *p, uint8_t *buffer);

/*
 * chan_parse_byte - feed one byte.
 * Return value: true when a frame was accepted or rejected with this
 *   byte (ev says which), false when more bytes are needed.
 */
bool chan_parse_byte(struct chan_parser *p, uint8_t byte, struct chan_event *ev);

/*
 * chan_parse_idle - no byte came for CHAN_IDLE_RESET_MS: a partial frame
 * is dropped. Return value: true (ev: truncated) when one was.
 */
bool chan_parse_idle(struct chan_parser *p, struct chan_event *ev);


#endif
