// SPDX-License-Identifier: BSD-2-Clause
/*
 * libFuzzer target: an arbitrary multiboot2 information block through
 * boot_parse_loader_info. The block is the whole of "physical memory", so
 * ASan catches any read outside what total_size allows.
 */
#include <string.h>
#include "fuzz.h"
#include <scion/boot.h>
#include <scion/errno.h>

#define MB2_MAGIC 0x36d76289u
#define MB2_INFO_MAX (1u << 20)

extern uintptr_t host_phys_base;
extern size_t host_phys_size;

static bool terminated(const char *s, size_t size)
{
	return strnlen(s, size) < size;
}

/*
 * Input: one mode byte, then the block. Mode bit 0 clear: total_size is
 * forced to the block's length, so that the parser walks exactly the
 * bytes given. Set: the block's own total_size is kept and, when it
 * claims more than was given (up to the limit the parser accepts), the
 * rest reads as zeros.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 + 4)
		return 0;
	bool keep_total = data[0] & 1;
	data++;
	size--;

	uint32_t total;
	memcpy(&total, data, 4);
	size_t mem_size = size;
	if (keep_total && total > size && total <= MB2_INFO_MAX)
		mem_size = total;
	uint8_t *mem = calloc(1, mem_size);
	if (!mem)
		return 0;
	memcpy(mem, data, size);
	if (!keep_total) {
		total = (uint32_t)size;
		memcpy(mem, &total, 4);
	}
	host_phys_base = (uintptr_t)mem;
	host_phys_size = mem_size;

	static struct boot_info bi;
	memset(&bi, 0, sizeof(bi));
	int rc = boot_parse_loader_info(&bi, MB2_MAGIC, 0);
	FUZZ_ASSERT(rc == 0 || rc == -EINVAL, "rc %d", rc);
	FUZZ_ASSERT(!strcmp(bi.protocol, "multiboot2"), "protocol");
	FUZZ_ASSERT(bi.nmem <= BOOT_MAX_MEM_REGIONS, "nmem %u", bi.nmem);
	FUZZ_ASSERT(bi.nmodules <= BOOT_MAX_MODULES, "nmodules %u", bi.nmodules);
	FUZZ_ASSERT(terminated(bi.cmdline, sizeof(bi.cmdline)), "cmdline not terminated");
	FUZZ_ASSERT(terminated(bi.loader_name, sizeof(bi.loader_name)), "loader name");
	for (unsigned i = 0; i < bi.nmem; i++) {
		FUZZ_ASSERT(bi.mem[i].length != 0, "empty region %u", i);
		FUZZ_ASSERT(bi.mem[i].base + bi.mem[i].length > bi.mem[i].base, "region %u wraps", i);
	}
	for (unsigned i = 0; i < bi.nmodules; i++) {
		FUZZ_ASSERT(bi.modules[i].phys_start <= bi.modules[i].phys_end, "module %u backwards", i);
		FUZZ_ASSERT(terminated(bi.modules[i].cmdline, sizeof(bi.modules[i].cmdline)),
			    "module %u cmdline", i);
	}
	FUZZ_ASSERT(!bi.cmdline_truncated || strlen(bi.cmdline) == BOOT_CMDLINE_MAX - 1,
		    "truncated cmdline of %zu bytes", strlen(bi.cmdline));
	free(mem);
	host_phys_base = 0;
	host_phys_size = 0;
	return 0;
}
