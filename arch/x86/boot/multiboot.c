// SPDX-License-Identifier: BSD-2-Clause
/*
 * Multiboot1 and multiboot2 boot information into struct boot_info.
 *
 * GRUB enters through multiboot2; QEMU's -kernel through multiboot1,
 * whose command line starts with the kernel's file name (dropped here).
 * The loader's structures are untrusted input: every length is checked
 * against its container and anything malformed is refused, never
 * followed.
 */
#include <scion/boot.h>
#include <scion/errno.h>
#include <scion/string.h>
#include <arch/mmu.h>

#define MB2_BOOTLOADER_MAGIC 0x36d76289u
#define MB1_BOOTLOADER_MAGIC 0x2badb002u
#define MB2_INFO_MAX         (1u << 20)

enum {
	MB2_TAG_END = 0,
	MB2_TAG_CMDLINE = 1,
	MB2_TAG_LOADER_NAME = 2,
	MB2_TAG_MODULE = 3,
	MB2_TAG_MMAP = 6,
	MB2_TAG_ACPI_OLD = 14,
	MB2_TAG_ACPI_NEW = 15,
};

enum {
	MB1_FLAG_CMDLINE = 1u << 2,
	MB1_FLAG_MODS = 1u << 3,
	MB1_FLAG_MMAP = 1u << 6,
	MB1_FLAG_LOADER_NAME = 1u << 9,
};

struct mb2_tag {
	uint32_t type;
	uint32_t size;
} __packed;

struct mb2_mmap_entry {
	uint64_t base;
	uint64_t length;
	uint32_t type;
	uint32_t reserved;
} __packed;

struct mb1_info {
	uint32_t flags;
	uint32_t mem_lower, mem_upper;
	uint32_t boot_device;
	uint32_t cmdline;
	uint32_t mods_count, mods_addr;
	uint32_t syms[4];
	uint32_t mmap_length, mmap_addr;
	uint32_t drives_length, drives_addr;
	uint32_t config_table;
	uint32_t boot_loader_name;
} __packed;

struct mb1_module {
	uint32_t start, end, string, reserved;
} __packed;

struct mb1_mmap_entry {
	uint32_t size;
	uint64_t base;
	uint64_t length;
	uint32_t type;
} __packed;

/* Copy a NUL-terminated string of at most max bytes; report truncation. */
static bool copy_bounded(char *dst, size_t dstsize, const char *src, size_t max)
{
	size_t n = strnlen(src, max);
	bool truncated = n >= dstsize;

	if (truncated)
		n = dstsize - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
	return truncated;
}

static void add_region(struct boot_info *bi, uint64_t base, uint64_t length, uint32_t type)
{
	if (length == 0 || base + length < base)
		return;
	if (bi->nmem == BOOT_MAX_MEM_REGIONS) {
		bi->mem_dropped++;
		return;
	}
	bi->mem[bi->nmem++] = (struct boot_mem_region){ base, length, type };
}

static void add_module(struct boot_info *bi, uint64_t start, uint64_t end, const char *cmdline,
		       size_t cmdline_max)
{
	if (end < start)
		return;
	if (bi->nmodules == BOOT_MAX_MODULES) {
		bi->modules_dropped++;
		return;
	}
	struct boot_module *m = &bi->modules[bi->nmodules++];
	m->phys_start = start;
	m->phys_end = end;
	copy_bounded(m->cmdline, sizeof(m->cmdline), cmdline, cmdline_max);
}

static int parse_mb2(struct boot_info *bi, const uint8_t *info)
{
	uint32_t total = *(const uint32_t *)info;

	strlcpy(bi->protocol, "multiboot2", sizeof(bi->protocol));
	if (total < 16 || total > MB2_INFO_MAX)
		return -EINVAL;
	for (uint32_t off = 8; off + sizeof(struct mb2_tag) <= total;) {
		const struct mb2_tag *tag = (const void *)(info + off);
		const uint8_t *body = (const uint8_t *)(tag + 1);

		if (tag->size < sizeof(*tag) || tag->size > total - off)
			return -EINVAL;
		uint32_t body_len = tag->size - (uint32_t)sizeof(*tag);
		switch (tag->type) {
		case MB2_TAG_END:
			return 0;
		case MB2_TAG_CMDLINE:
			bi->cmdline_truncated = copy_bounded(bi->cmdline, sizeof(bi->cmdline),
							     (const char *)body, body_len);
			break;
		case MB2_TAG_LOADER_NAME:
			copy_bounded(bi->loader_name, sizeof(bi->loader_name), (const char *)body,
				     body_len);
			break;
		case MB2_TAG_MODULE:
			if (body_len < 8)
				return -EINVAL;
			add_module(bi, ((const uint32_t *)body)[0], ((const uint32_t *)body)[1],
				   (const char *)body + 8, body_len - 8);
			break;
		case MB2_TAG_MMAP: {
			if (body_len < 8)
				return -EINVAL;
			uint32_t entry_size = ((const uint32_t *)body)[0];
			if (entry_size < sizeof(struct mb2_mmap_entry))
				return -EINVAL;
			/* Compared as entry_size <= room left: e + entry_size could wrap. */
			for (uint32_t e = 8; entry_size <= body_len - e; e += entry_size) {
				const struct mb2_mmap_entry *me = (const void *)(body + e);
				add_region(bi, me->base, me->length, me->type);
			}
			break;
		}
		case MB2_TAG_ACPI_OLD:
		case MB2_TAG_ACPI_NEW:
			if (body_len >= 20 && !(bi->have_rsdp && tag->type == MB2_TAG_ACPI_OLD)) {
				size_t n = MIN(body_len, sizeof(bi->rsdp));
				memset(bi->rsdp, 0, sizeof(bi->rsdp));
				memcpy(bi->rsdp, body, n);
				bi->have_rsdp = true;
			}
			break;
		default:
			break;
		}
		off = ALIGN_UP(off + tag->size, 8u);
	}
	return -EINVAL;	/* no end tag */
}

/* Skip the file name QEMU puts first in a multiboot1 command line. */
static const char *skip_kernel_name(const char *cmdline)
{
	const char *space = strchr(cmdline, ' ');
	const char *eq = strchr(cmdline, '=');

	if (eq && (!space || eq < space))
		return cmdline;
	if (!space)
		return cmdline + strlen(cmdline);
	while (*space == ' ')
		space++;
	return space;
}

static int parse_mb1(struct boot_info *bi, const struct mb1_info *info)
{
	strlcpy(bi->protocol, "multiboot1", sizeof(bi->protocol));
	if (info->flags & MB1_FLAG_CMDLINE) {
		char tmp[BOOT_CMDLINE_MAX + 256];
		/* A line cut here stays cut, even when what follows the name fits. */
		bool cut = copy_bounded(tmp, sizeof(tmp), phys_to_virt(info->cmdline), sizeof(tmp));
		bi->cmdline_truncated = copy_bounded(bi->cmdline, sizeof(bi->cmdline),
						     skip_kernel_name(tmp), sizeof(tmp)) || cut;
	}
	if (info->flags & MB1_FLAG_LOADER_NAME)
		copy_bounded(bi->loader_name, sizeof(bi->loader_name),
			     phys_to_virt(info->boot_loader_name), sizeof(bi->loader_name));
	if (info->flags & MB1_FLAG_MODS) {
		const struct mb1_module *mods = phys_to_virt(info->mods_addr);
		if (info->mods_count > 256)
			return -EINVAL;
		for (uint32_t i = 0; i < info->mods_count; i++)
			add_module(bi, mods[i].start, mods[i].end,
				   mods[i].string ? phys_to_virt(mods[i].string) : "", 96);
	}
	if (info->flags & MB1_FLAG_MMAP) {
		if (info->mmap_length > MB2_INFO_MAX)
			return -EINVAL;
		const uint8_t *p = phys_to_virt(info->mmap_addr);
		for (uint32_t off = 0; off + sizeof(struct mb1_mmap_entry) <= info->mmap_length;) {
			const struct mb1_mmap_entry *e = (const void *)(p + off);
			/* size excludes its own 4 bytes; one that overruns the map would wrap off. */
			if (e->size < sizeof(*e) - 4 || e->size > info->mmap_length - off - 4)
				return -EINVAL;
			add_region(bi, e->base, e->length, e->type);
			off += e->size + 4;
		}
	} else {
		add_region(bi, 0, (uint64_t)info->mem_lower << 10, BOOT_MEM_AVAILABLE);
		add_region(bi, 1 << 20, (uint64_t)info->mem_upper << 10, BOOT_MEM_AVAILABLE);
	}
	return 0;
}

int boot_parse_loader_info(struct boot_info *bi, uint32_t magic, uint64_t info_phys)
{
	if (magic == MB2_BOOTLOADER_MAGIC)
		return parse_mb2(bi, phys_to_virt(info_phys));
	if (magic == MB1_BOOTLOADER_MAGIC)
		return parse_mb1(bi, phys_to_virt(info_phys));
	strlcpy(bi->protocol, "unknown", sizeof(bi->protocol));
	return -EINVAL;
}
