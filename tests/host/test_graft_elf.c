// SPDX-License-Identifier: BSD-2-Clause
/*
 * Host tests of the graft ELF loader (kernel/graft/elf_load.c) on a real
 * graft object, the fixture built from tests/host/fixtures/ with the
 * graft flags: it loads and links correctly; every truncation, thousands
 * of deterministic mutations and the corrupted .graft files that
 * tools/mkcorrupt_grafts.py writes are refused with one line, never a
 * crash (ASan and UBSan watch the reads, guard pages the writes).
 * Targeted corruptions of single fields are in test_graft_elf_corrupt.c,
 * relocation arithmetic on hand-built objects in test_graft_elf_reloc.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "host_test.h"
#include "graft_elf_helpers.h"
#include <scion/errno.h>

#define ERR_MAX 256
#define MUTATION_ROUNDS 20000
#define MUTATIONS_PER_ROUND_MAX 4

static bool address_in(uint64_t addr, const struct graft_image *img, enum graft_region r)
{
	uint64_t base = (uintptr_t)img->region[r];
	return img->region[r] && addr >= base && addr - base < img->region_size[r];
}

static uint64_t read64(uint64_t addr)
{
	uint64_t v;
	memcpy(&v, (const void *)(uintptr_t)addr, sizeof(v));
	return v;
}

/* Relocations the loader should apply: every record of a RELA section whose target is loaded. */
static size_t count_relocations(const uint8_t *f)
{
	size_t n = 0;

	for (unsigned i = 1; i < elf_header_of(f).shnum; i++) {
		struct elf64_section sh = section_of(f, i);
		if (sh.type == SHT_RELA && (section_of(f, sh.info).flags & SHF_ALLOC))
			n += sh.size / sizeof(struct elf64_rela);
	}
	return n;
}

static bool text_contains(const struct graft_image *img, uint32_t word)
{
	const uint8_t *text = img->region[GRAFT_REGION_TEXT];

	for (size_t i = 0; i + sizeof(word) <= img->region_size[GRAFT_REGION_TEXT]; i++)
		if (!memcmp(text + i, &word, sizeof(word)))
			return true;
	return false;
}

/* True if text holds a call rel32 (e8) to target. */
static bool calls(const struct graft_image *img, uint64_t target)
{
	const uint8_t *text = img->region[GRAFT_REGION_TEXT];

	for (size_t i = 0; i + 5 <= img->region_size[GRAFT_REGION_TEXT]; i++) {
		int32_t rel;
		memcpy(&rel, text + i + 1, sizeof(rel));
		if (text[i] == 0xe8 && (uintptr_t)text + i + 5 + (int64_t)rel == target)
			return true;
	}
	return false;
}

HOST_TEST(graft_elf_fixture_loads)
{
	struct graft_test_mem mem = { 0 };
	struct graft_image img;
	char err[ERR_MAX];
	bool line_ok;
	const uint8_t *f = graft_fixture;

	int rc = graft_test_load(&mem, f, graft_fixture_size, &img, err, sizeof(err), &line_ok);
	REQUIRE(t, rc == 0, "the fixture is refused: %d %s", rc, err);
	CHECK(t, line_ok, "a success leaves the error buffer empty");
	for (unsigned r = 0; r < GRAFT_REGIONS; r++) {
		CHECK(t, mem.allocs[r] == 1 && img.region[r] && img.region_size[r] == mem.sizes[r],
		      "region %u: %u allocations", r, mem.allocs[r]);
	}
	CHECK(t, !mem.bad_size, "region sizes are positive page multiples");

	const struct graft_manifest *m = img.manifest;
	REQUIRE(t, m && address_in((uintptr_t)m, &img, GRAFT_REGION_RODATA), "manifest in rodata");
	CHECK(t, m->magic == GRAFT_MANIFEST_MAGIC && m->abi == GRAFT_ABI_VERSION && m->version == 3,
	      "manifest header");
	CHECK(t, !strcmp(m->name, "fixture") && !strcmp(m->point, "test.fixture") &&
	      !strcmp(m->signature, "int (void)"), "manifest strings");
	CHECK(t, img.entry == m->entry && img.entry == expected_symbol_address(f, &img, "fixture_entry"),
	      "entry 0x%llx is fixture_entry", (unsigned long long)img.entry);
	CHECK(t, img.nrelocs == count_relocations(f), "%zu relocations applied, %zu in the file",
	      img.nrelocs, count_relocations(f));
	CHECK(t, img.nundefined == 2, "%zu undefined symbols resolved", img.nundefined);

	/* R_X86_64_64 in .rodata: the function pointer table. */
	uint64_t ops = expected_symbol_address(f, &img, "fixture_ops");
	CHECK(t, read64(ops) == expected_symbol_address(f, &img, "fixture_twice") &&
	      read64(ops + 8) == expected_symbol_address(f, &img, "fixture_thrice"),
	      "fixture_ops points at fixture_twice and fixture_thrice");
	/* R_X86_64_64 in .data: to .rodata, .bss and an export. */
	const char *greeting = (const char *)(uintptr_t)read64(
		expected_symbol_address(f, &img, "fixture_greeting_ptr"));
	CHECK(t, address_in((uintptr_t)greeting, &img, GRAFT_REGION_RODATA) &&
	      !strcmp(greeting, "hello from a graft"), "greeting pointer");
	uint64_t calls_ptr = read64(expected_symbol_address(f, &img, "fixture_calls_ptr"));
	CHECK(t, calls_ptr == expected_symbol_address(f, &img, "fixture_calls") &&
	      address_in(calls_ptr, &img, GRAFT_REGION_DATA) && *(int *)(uintptr_t)calls_ptr == 0,
	      ".bss pointer");
	CHECK(t, read64(expected_symbol_address(f, &img, "fixture_export_ptr")) == FIXTURE_EXPORT_COUNTER,
	      "pointer to an exported variable");
	CHECK(t, *(int *)(uintptr_t)expected_symbol_address(f, &img, "fixture_total") == 42,
	      "initialised data copied");
	/* R_X86_64_PLT32 and R_X86_64_32S in .text. */
	CHECK(t, calls(&img, FIXTURE_EXPORT_ADD), "no call to fixture_export_add in the text");
	CHECK(t, calls(&img, expected_symbol_address(f, &img, "fixture_lookup")), "no call to fixture_lookup");
	uint32_t table = (uint32_t)expected_symbol_address(f, &img, "fixture_table");
	CHECK(t, text_contains(&img, table), "fixture_table's address is not in the text (R_X86_64_32S)");
	graft_test_release(&mem);
}

/* The file cut at every length: each refused with one line. */
HOST_TEST(graft_elf_every_truncation_refused)
{
	struct graft_test_mem mem = { 0 };
	struct graft_image img;
	char err[ERR_MAX];
	bool line_ok;

	for (size_t len = 0; len < graft_fixture_size; len++) {
		int rc = graft_test_load(&mem, graft_fixture, len, &img, err, sizeof(err), &line_ok);
		CHECK(t, rc == -ENOEXEC && line_ok, "truncated to %zu bytes: rc %d, '%s'", len, rc, err);
		CHECK(t, !img.region[0] && !img.region[1] && !img.region[2],
		      "truncated to %zu bytes: memory allocated before the checks", len);
		graft_test_release(&mem);
	}
	CHECK(t, graft_test_load(&mem, graft_fixture, 63, &img, err, sizeof(err), &line_ok) == -ENOEXEC &&
	      strstr(err, "shorter than an ELF header"), "63 bytes: %s", err);
	CHECK(t, graft_test_load(&mem, graft_fixture, 64, &img, err, sizeof(err), &line_ok) == -ENOEXEC &&
	      strstr(err, "section header table"), "64 bytes: %s", err);
}

static uint64_t next_random(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/* An offset inside the structures (headers, tables, relocations), or anywhere. */
static size_t mutation_offset(const uint8_t *f, size_t size, uint64_t *rng)
{
	if (next_random(rng) % 4 == 0)
		return next_random(rng) % size;
	unsigned shnum = elf_header_of(f).shnum;
	unsigned pick = next_random(rng) % (shnum + 2);
	if (pick == shnum)
		return next_random(rng) % sizeof(struct elf64_header);
	if (pick == shnum + 1)
		return section_header_offset(f, 0) + next_random(rng) % (shnum * sizeof(struct elf64_section));
	struct elf64_section sh = section_of(f, pick);
	if (sh.type == SHT_NOBITS || !sh.size)
		return section_header_offset(f, pick) + next_random(rng) % sizeof(sh);
	return sh.offset + next_random(rng) % sh.size;
}

static void mutate(uint8_t *f, size_t size, size_t off, uint64_t *rng)
{
	static const uint64_t interesting[] = {
		0, 1, 0x7f, 0x80, 0xff, 0x100, 0xfff1, 0xfff2, 0xffff, 0x7fffffff, 0x80000000,
		0xffffffff, 0x100000000ull, 0x7fffffffffffffffull, 0xffffffffffffffffull,
	};
	unsigned kind = next_random(rng) % 4;

	if (kind == 0) {
		f[off] ^= (uint8_t)(1u << (next_random(rng) % 8));
	} else if (kind == 1) {
		f[off] = (uint8_t)next_random(rng);
	} else {
		uint64_t v = kind == 2 ? interesting[next_random(rng) % (sizeof(interesting) / 8)]
				       : size + next_random(rng) % 64 - 32;
		unsigned width = 1u << (next_random(rng) % 4);
		if (off + width <= size)
			memcpy(f + off, &v, width);
	}
}

/* Deterministic mutations: each load succeeds or fails with one line; none crashes. */
HOST_TEST(graft_elf_mutations_never_crash)
{
	struct graft_test_mem mem = { 0 };
	struct graft_image img;
	char err[ERR_MAX];
	bool line_ok;
	size_t size, refused = 0;
	uint8_t *f = fixture_copy(&size);
	uint64_t rng = 0x9e3779b97f4a7c15ull;

	for (unsigned round = 0; round < MUTATION_ROUNDS && !t->failed; round++) {
		memcpy(f, graft_fixture, size);
		unsigned n = 1 + next_random(&rng) % MUTATIONS_PER_ROUND_MAX;
		for (unsigned i = 0; i < n; i++)
			mutate(f, size, mutation_offset(graft_fixture, size, &rng), &rng);
		int rc = graft_test_load(&mem, f, size, &img, err, sizeof(err), &line_ok);
		CHECK(t, rc == 0 || rc == -ENOEXEC || rc == -ENOENT || rc == -EFBIG || rc == -ERANGE,
		      "round %u: rc %d", round, rc);
		CHECK(t, line_ok, "round %u: rc %d with error line '%.100s'", round, rc, err);
		for (unsigned r = 0; r < GRAFT_REGIONS; r++)
			CHECK(t, mem.allocs[r] <= 1, "round %u: region %u allocated twice", round, r);
		CHECK(t, !mem.bad_size, "round %u: a region size not a page multiple", round);
		if (rc == 0) {
			CHECK(t, address_in(img.entry, &img, GRAFT_REGION_TEXT), "round %u: entry", round);
			CHECK(t, address_in((uintptr_t)img.manifest, &img, GRAFT_REGION_RODATA) ||
			      address_in((uintptr_t)img.manifest, &img, GRAFT_REGION_DATA) ||
			      address_in((uintptr_t)img.manifest, &img, GRAFT_REGION_TEXT),
			      "round %u: manifest outside the regions", round);
		} else {
			refused++;
		}
		graft_test_release(&mem);
	}
	free(f);
	CHECK(t, refused > MUTATION_ROUNDS / 4 && refused < MUTATION_ROUNDS,
	      "%zu of %u mutants refused: the mutations miss the structures", refused, MUTATION_ROUNDS);
}

/* Every file tools/mkcorrupt_grafts.py wrote is refused with the message it expects. */
HOST_TEST(graft_elf_corrupt_files)
{
	char path[1024], line[512], err[ERR_MAX];
	struct graft_test_mem mem = { 0 };
	struct graft_image img;
	bool line_ok;
	unsigned files = 0;

	snprintf(path, sizeof(path), "%s/expected.txt", GRAFT_CORRUPT_DIR);
	FILE *list = fopen(path, "r");
	REQUIRE(t, list, "cannot open %s (made by tools/mkcorrupt_grafts.py)", path);
	while (fgets(line, sizeof(line), list)) {
		char *tab = strchr(line, '\t'), *nl = strchr(line, '\n');
		if (!tab || !nl)
			continue;
		*tab = *nl = '\0';
		const char *name = line, *expected = tab + 1;
		snprintf(path, sizeof(path), "%s/%s", GRAFT_CORRUPT_DIR, name);
		FILE *in = fopen(path, "rb");
		CHECK(t, in, "cannot open %s", path);
		if (!in)
			continue;
		static uint8_t buf[1 << 20];
		size_t len = fread(buf, 1, sizeof(buf), in);
		fclose(in);
		int rc = graft_test_load(&mem, buf, len, &img, err, sizeof(err), &line_ok);
		CHECK(t, rc < 0 && line_ok && strstr(err, expected), "%s: rc %d, '%s', expected '%s'", name,
		      rc, err, expected);
		graft_test_release(&mem);
		files++;
	}
	fclose(list);
	CHECK(t, files >= 10, "only %u corrupted files listed", files);
}

HOST_TEST(graft_elf_out_of_memory)
{
	struct graft_test_mem mem = { .fail = { [GRAFT_REGION_DATA] = true } };
	struct graft_image img;
	char err[ERR_MAX];
	bool line_ok;

	int rc = graft_test_load(&mem, graft_fixture, graft_fixture_size, &img, err, sizeof(err), &line_ok);
	CHECK(t, rc == -ENOMEM && line_ok && strstr(err, "out of memory for the graft's data"), "%d %s",
	      rc, err);
	CHECK(t, img.region[GRAFT_REGION_TEXT] && img.region[GRAFT_REGION_RODATA] &&
	      !img.region[GRAFT_REGION_DATA], "the regions allocated before the failure are reported");
	CHECK(t, img.manifest == NULL && img.entry == 0, "no manifest after a failure");
	graft_test_release(&mem);
}

/* Regions far from the exports: 32-bit fields overflow, named with their symbol. */
HOST_TEST(graft_elf_relocation_overflow)
{
	struct graft_test_mem mem = { .high = true };
	struct graft_image img;
	char err[ERR_MAX];
	bool line_ok;

	int rc = graft_test_load(&mem, graft_fixture, graft_fixture_size, &img, err, sizeof(err), &line_ok);
	CHECK(t, (uintptr_t)img.region[GRAFT_REGION_TEXT] > UINT32_MAX, "text mapped low");
	CHECK(t, rc == -ERANGE && line_ok && strstr(err, "does not fit in 32 bits") &&
	      strstr(err, "R_X86_64_32S to section symbol .rodata"), "%d %s", rc, err);
	graft_test_release(&mem);
}

HOST_TEST(graft_elf_bad_arguments)
{
	struct graft_image img;
	char err[ERR_MAX], small[12];
	static const struct graft_load_ops no_resolve = { .alloc = NULL, .resolve = NULL };
	struct graft_test_mem mem = { 0 };
	bool line_ok;

	CHECK(t, graft_elf_load(graft_fixture, graft_fixture_size, &no_resolve, NULL, &img, err,
				sizeof(err)) == -EINVAL && strstr(err, "missing"), "ops without callbacks");
	CHECK(t, graft_elf_load(NULL, 10, &no_resolve, NULL, &img, NULL, 0) == -EINVAL, "no error buffer");
	CHECK(t, graft_test_load(&mem, "\x7f" "ELF", 4, &img, small, sizeof(small), &line_ok) == -ENOEXEC &&
	      line_ok && strlen(small) == sizeof(small) - 1, "a short error buffer gets a truncated line");
	CHECK(t, graft_test_load(&mem, "", 0, &img, err, 1, &line_ok) == -ENOEXEC && err[0] == '\0',
	      "a one-byte error buffer");
}
