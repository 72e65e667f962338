// SPDX-License-Identifier: BSD-2-Clause
/*
 * libFuzzer target: an arbitrary file through the graft ELF loader
 * (kernel/graft/elf_load.c), seeded with the fixture graft. The input
 * is the whole file, in a buffer of exactly its size, so ASan catches
 * any read past it; each region the loader asks for is mapped with an
 * inaccessible page on either side (below 2 GiB, so relocations of a
 * -mcmodel=kernel object can succeed), so any write outside a region
 * faults. The loader must succeed with a consistent image or fail with
 * a known errno and one printable line.
 */
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include "fuzz.h"
#include "graft/elf_load.h"
#include <scion/errno.h>

#define PAGE 4096
#define ERR_MAX 256

struct fuzz_mem {
	void *mapping[GRAFT_REGIONS];
	size_t mapping_size[GRAFT_REGIONS];
	size_t size[GRAFT_REGIONS];
};

static void *fuzz_alloc(void *ctx, enum graft_region region, size_t size)
{
	struct fuzz_mem *mem = ctx;

	FUZZ_ASSERT((unsigned)region < GRAFT_REGIONS, "region %d", (int)region);
	FUZZ_ASSERT(!mem->mapping[region], "region %d allocated twice", (int)region);
	FUZZ_ASSERT(size && size % PAGE == 0 && size <= GRAFT_IMAGE_MAX, "region size %zu", size);
	uint8_t *map = mmap(NULL, size + 2 * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT,
			    -1, 0);
	if (map == MAP_FAILED)
		return NULL;
	if (mprotect(map + PAGE, size, PROT_READ | PROT_WRITE)) {
		munmap(map, size + 2 * PAGE);
		return NULL;
	}
	mem->mapping[region] = map;
	mem->mapping_size[region] = size + 2 * PAGE;
	mem->size[region] = size;
	return map + PAGE;
}

/* Exports: a handful of names at fixed addresses below 2 GiB. */
static uint64_t fuzz_resolve(void *ctx, const char *name)
{
	static const char *const exported[] = {
		"fixture_export_add", "fixture_export_counter", "graft_log", "graft_abort", "ext",
	};

	(void)ctx;
	for (size_t i = 0; i < sizeof(exported) / sizeof(exported[0]); i++)
		if (!strcmp(name, exported[i]))
			return 0x10000000u + i * PAGE;
	return 0;
}

static const struct graft_load_ops fuzz_ops = { .alloc = fuzz_alloc, .resolve = fuzz_resolve };

static bool inside(const struct graft_image *img, enum graft_region r, uint64_t addr, size_t len)
{
	uint64_t base = (uintptr_t)img->region[r];
	return img->region[r] && addr >= base && addr - base <= img->region_size[r] &&
	       len <= img->region_size[r] - (addr - base);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_mem mem = { 0 };
	struct graft_image img;
	char err[ERR_MAX];

	memset(err, 'x', sizeof(err));
	int rc = graft_elf_load(data, size, &fuzz_ops, &mem, &img, err, sizeof(err));
	size_t len = strnlen(err, sizeof(err));
	FUZZ_ASSERT(len < sizeof(err), "error line not terminated");
	for (size_t i = 0; i < len; i++)
		FUZZ_ASSERT(err[i] >= 0x20 && err[i] <= 0x7e, "byte 0x%02x in the error line",
			    (unsigned char)err[i]);
	if (rc == 0) {
		FUZZ_ASSERT(len == 0, "success with an error line: %s", err);
		FUZZ_ASSERT(inside(&img, GRAFT_REGION_TEXT, img.entry, 1), "entry outside text");
		FUZZ_ASSERT(inside(&img, GRAFT_REGION_RODATA, (uintptr_t)img.manifest, sizeof(*img.manifest)) ||
			    inside(&img, GRAFT_REGION_DATA, (uintptr_t)img.manifest, sizeof(*img.manifest)) ||
			    inside(&img, GRAFT_REGION_TEXT, (uintptr_t)img.manifest, sizeof(*img.manifest)),
			    "manifest outside the regions");
		FUZZ_ASSERT(img.manifest->entry == img.entry, "entry differs from the manifest's");
		FUZZ_ASSERT(strnlen(img.manifest->name, GRAFT_NAME_MAX) < GRAFT_NAME_MAX, "name");
	} else {
		FUZZ_ASSERT(rc == -ENOEXEC || rc == -ENOENT || rc == -EFBIG || rc == -ERANGE || rc == -ENOMEM,
			    "rc %d", rc);
		FUZZ_ASSERT(len > 0, "rc %d without an error line", rc);
	}
	for (unsigned r = 0; r < GRAFT_REGIONS; r++) {
		FUZZ_ASSERT(img.region[r] == (mem.mapping[r] ? (uint8_t *)mem.mapping[r] + PAGE : NULL),
			    "region %u not reported", r);
		if (mem.mapping[r])
			munmap(mem.mapping[r], mem.mapping_size[r]);
	}
	return 0;
}
