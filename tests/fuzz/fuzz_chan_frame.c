// SPDX-License-Identifier: BSD-2-Clause
/*
 * libFuzzer target: the control channel's frame parser on arbitrary
 * bytes. Every event is either an accepted frame with a sound header
 * and a payload within bounds, or a reject with a known reason; the
 * counters add up; and a good frame after the input (and an idle reset)
 * is always accepted: the parser resynchronises whatever came before.
 */
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"
#include "channel/frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t *buffer;
	struct chan_parser p;
	struct chan_event ev;
	uint64_t frames = 0, rejects = 0;

	if (!buffer)
		buffer = malloc(CHAN_MAX_PAYLOAD + CHAN_CRC_BYTES);
	chan_parser_init(&p, buffer);
	for (size_t i = 0; i < size; i++) {
		if (!chan_parse_byte(&p, data[i], &ev))
			continue;
		if (ev.frame) {
			frames++;
			FUZZ_ASSERT(ev.length <= CHAN_MAX_PAYLOAD &&
				    (ev.type == CHAN_HELLO || ev.type == CHAN_REQUEST),
				    "accepted a frame of type %u, length %u", ev.type, ev.length);
		} else {
			rejects++;
			FUZZ_ASSERT(ev.reject > CHAN_REJECT_NONE && ev.reject < CHAN_REJECT_KINDS,
				    "reject reason %d", ev.reject);
		}
	}
	if (chan_parse_idle(&p, &ev))
		rejects++;
	FUZZ_ASSERT(p.accepted == frames && p.rejected == rejects, "counters %llu/%llu vs %llu/%llu",
		    (unsigned long long)p.accepted, (unsigned long long)p.rejected,
		    (unsigned long long)frames, (unsigned long long)rejects);
	uint8_t good[CHAN_HEADER_BYTES + 2 + CHAN_CRC_BYTES];
	chan_header_encode(good, CHAN_REQUEST, 99, 2);
	good[CHAN_HEADER_BYTES] = 'o';
	good[CHAN_HEADER_BYTES + 1] = 'k';
	uint32_t crc = chan_crc32(0, "ok", 2);
	for (int i = 0; i < 4; i++)
		good[CHAN_HEADER_BYTES + 2 + i] = (uint8_t)(crc >> (8 * i));
	bool accepted = false;
	for (size_t i = 0; i < sizeof(good); i++)
		if (chan_parse_byte(&p, good[i], &ev) && ev.frame && ev.seq == 99)
			accepted = true;
	FUZZ_ASSERT(accepted, "a good frame after %zu fuzz bytes was not accepted", size);
	return 0;
}
