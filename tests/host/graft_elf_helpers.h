/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Shared by the host tests of the graft ELF loader (test_graft_elf*.c):
 * the loader's memory and symbol callbacks for a host process, the
 * embedded fixture object (tests/host/fixtures/graft_fixture.c built as
 * a graft), and small readers and writers of ELF fields used to find
 * and corrupt parts of a copy of it. The readers trust their input:
 * they are used on the good fixture only.
 *
 * Memory: each region is its own mapping with an inaccessible page on
 * either side, so a write outside a region faults; the file is copied
 * into a heap buffer of exactly its size, so ASan catches any read
 * past its end. Regions are mapped below 2 GiB (MAP_32BIT) unless
 * high is set, so -mcmodel=kernel relocations fit.
 */
#ifndef GRAFT_ELF_HELPERS_H
#define GRAFT_ELF_HELPERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <scion/elf64.h>
#include "graft/elf_load.h"
#include <arch/elf.h>

/* Where the test resolver says the fixture's two exports live (below 2 GiB). */
#define FIXTURE_EXPORT_ADD	0x10000000ull
#define FIXTURE_EXPORT_COUNTER	0x10001000ull
#define SYNTH_EXPORT_EXT	0x10002000ull

extern const unsigned char graft_fixture[];
extern const size_t graft_fixture_size;

struct graft_test_mem {
	/* set by the test before loading */
	bool high;				/* map regions above 4 GiB */
	bool fail[GRAFT_REGIONS];		/* alloc returns NULL for these */
	const char *hidden;			/* a name the resolver refuses */
	uint64_t ext_address;			/* "ext" resolves here; 0: SYNTH_EXPORT_EXT */
	/* filled by the callbacks */
	unsigned allocs[GRAFT_REGIONS];
	size_t sizes[GRAFT_REGIONS];
	bool bad_size;				/* alloc saw a size not a positive page multiple */
	void *mapping[GRAFT_REGIONS];
	size_t mapping_size[GRAFT_REGIONS];
	unsigned resolves;
};

/*
 * graft_test_load - load size bytes of file (copied first) with the test
 * callbacks; the image's regions stay mapped until graft_test_release.
 * Also checks the loader's error line: NUL-terminated, one line of
 * printable text, non-empty exactly when the load failed. *line_ok is
 * false otherwise.
 */
int graft_test_load(struct graft_test_mem *mem, const void *file, size_t size,
		    struct graft_image *img, char *err, size_t errlen, bool *line_ok);

/* Unmap every region the last load allocated and reset the counters. */
void graft_test_release(struct graft_test_mem *mem);

/* A writable copy of the fixture (free with free()). */
uint8_t *fixture_copy(size_t *size);

/* Little-endian fields at an offset of a file. */
void put16(uint8_t *f, size_t off, uint16_t v);
void put32(uint8_t *f, size_t off, uint32_t v);
void put64(uint8_t *f, size_t off, uint64_t v);
uint64_t get64(const uint8_t *f, size_t off);

/* The file header, a section header and where it is in the file. */
struct elf64_header elf_header_of(const uint8_t *f);
struct elf64_section section_of(const uint8_t *f, unsigned index);
size_t section_header_offset(const uint8_t *f, unsigned index);
const char *section_name_of(const uint8_t *f, unsigned index);
/* Index of the section called name, or 0. */
unsigned section_index(const uint8_t *f, const char *name);

/* Index of the symbol called name in the (only) symbol table, or 0; its record's offset. */
unsigned symbol_index(const uint8_t *f, const char *name);
size_t symbol_offset(const uint8_t *f, unsigned index);
struct elf64_symbol symbol_of(const uint8_t *f, unsigned index);

/* Offset of record j of the RELA section called name. */
size_t rela_offset(const uint8_t *f, const char *name, unsigned j);

/*
 * The run-time address the loader gives section index of a loaded
 * image, recomputed independently: allocated sections laid out in
 * section order, per region, at their alignment.
 */
uint64_t expected_section_address(const uint8_t *f, const struct graft_image *img, unsigned index);
/* Likewise for a symbol defined in a section. */
uint64_t expected_symbol_address(const uint8_t *f, const struct graft_image *img, const char *name);

#endif
