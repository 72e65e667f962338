// SPDX-License-Identifier: BSD-2-Clause
/*
 * A port's graft relocations (arch/<arch>/elf_reloc.c) on the host, one
 * per input line, for tests/reloc/check_relocs.py, which compares them
 * with GNU ld's. Built once per port: -Iarch/<arch>/include picks the
 * port's arch/elf.h.
 *
 * Input lines, numbers in hex:  TYPE PLACE SYMBOL ADDEND FIELD
 *   (ADDEND as a two's complement 64-bit value, FIELD the field's bytes
 *   before the relocation, as many as the type writes)
 * Output lines:  ok VALUE FIELD  |  refused VALUE WHY  |  unsupported
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arch/elf.h>

int main(void)
{
	char line[512];
	while (fgets(line, sizeof(line), stdin)) {
		unsigned type;
		uint64_t place, symbol, addend, value = 0;
		char hex[64];
		if (sscanf(line, "%x %" SCNx64 " %" SCNx64 " %" SCNx64 " %63s", &type, &place, &symbol,
			   &addend, hex) != 5) {
			fprintf(stderr, "reloc_driver: bad line: %s", line);
			return 2;
		}
		unsigned width;
		if (!arch_elf_reloc_supported(type, &width) || strlen(hex) != 2 * width ||
		    width > 8) {
			printf("unsupported\n");
			continue;
		}
		uint8_t field[8];
		for (unsigned i = 0; i < width; i++)
			sscanf(hex + 2 * i, "%2hhx", &field[i]);
		const char *why = "";
		if (arch_elf_reloc_apply(type, field, place, symbol, (int64_t)addend, &value, &why)) {
			printf("refused %" PRIx64 " %s\n", value, why);
			continue;
		}
		printf("ok %" PRIx64 " ", value);
		for (unsigned i = 0; i < width; i++)
			printf("%02x", field[i]);
		printf("\n");
	}
	return 0;
}
