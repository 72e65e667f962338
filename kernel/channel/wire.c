// SPDX-License-Identifier: BSD-2-Clause
/*
 * The channel's one byte-order routine (scion/chan_wire.h): every
 * multi-byte integer member a generated descriptor lists has its bytes
 * reversed, record after record. Byte by byte, so it works on records
 * at any alignment (a frame's payload packs them after a 4-byte header).
 */
#include <scion/chan_wire.h>

static void reverse(uint8_t *p, unsigned n)
{
	for (unsigned i = 0; i < n / 2; i++) {
		uint8_t t = p[i];
		p[i] = p[n - 1 - i];
		p[n - 1 - i] = t;
	}
}

void chan_wire_swap(const struct chan_wire_layout *layout, void *records, size_t n)
{
	uint8_t *record = records;

	for (size_t r = 0; r < n; r++, record += layout->size)
		for (uint32_t f = 0; f < layout->nfields; f++) {
			const struct chan_wire_field *field = &layout->fields[f];
			for (unsigned k = 0; k < field->count; k++)
				reverse(record + field->offset + k * field->size, field->size);
		}
}
