// SPDX-License-Identifier: BSD-2-Clause
/* Host tests of parsing multiboot1/2 boot information (arch/x86/boot/multiboot.c). */
#include <string.h>
#include "host_test.h"
#include <scion/boot.h>
#include <scion/errno.h>
#include <arch/mmu.h>

#define MB2_MAGIC 0x36d76289u
#define MB1_MAGIC 0x2badb002u
#define ARENA_SIZE (64 * 1024)

static struct boot_info bi;

/* A multiboot2 information block under construction, in a private buffer. */
struct mb2 {
	uint8_t buf[16384];
	uint32_t len;
};

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static void mb2_start(struct mb2 *m)
{
	memset(m, 0, sizeof(*m));
	m->len = 8;
}

/* Append a tag; returns its offset in the block. Tags start 8-aligned. */
static uint32_t mb2_tag(struct mb2 *m, uint32_t type, const void *body, uint32_t body_len)
{
	uint32_t off = m->len;
	put32(m->buf + off, type);
	put32(m->buf + off + 4, 8 + body_len);
	if (body_len)
		memcpy(m->buf + off + 8, body, body_len);
	m->len = (off + 8 + body_len + 7) & ~7u;
	return off;
}

static uint32_t mb2_string_tag(struct mb2 *m, uint32_t type, const char *s)
{
	return mb2_tag(m, type, s, (uint32_t)strlen(s) + 1);
}

/* An mmap tag with n entries of entry_size bytes (24 used). */
static uint32_t mb2_mmap(struct mb2 *m, uint32_t entry_size, const struct boot_mem_region *r,
			 unsigned n)
{
	uint8_t body[8 + 128 * 32] = { 0 };
	put32(body, entry_size);
	for (unsigned i = 0; i < n; i++) {
		uint8_t *e = body + 8 + i * entry_size;
		put64(e, r[i].base);
		put64(e + 8, r[i].length);
		put32(e + 16, r[i].type);
	}
	return mb2_tag(m, 6, body, 8 + n * entry_size);
}

/*
 * Finish the block (total_size = its length) and copy it to the very end
 * of a fresh arena, so that ASan catches any read past total_size.
 */
static uint64_t mb2_place(struct mb2 *m, bool with_end_tag)
{
	if (with_end_tag)
		mb2_tag(m, 0, NULL, 0);
	put32(m->buf, m->len);
	host_arena_reset(ARENA_SIZE);
	uint64_t phys = ARENA_SIZE - m->len;
	memcpy(phys_to_virt(phys), m->buf, m->len);
	return phys;
}

static int parse(uint32_t magic, uint64_t phys)
{
	memset(&bi, 0, sizeof(bi));
	return boot_parse_loader_info(&bi, magic, phys);
}

static bool region_is(unsigned i, uint64_t base, uint64_t length, uint32_t type)
{
	return i < bi.nmem && bi.mem[i].base == base && bi.mem[i].length == length &&
	       bi.mem[i].type == type;
}

static const struct boot_mem_region qemu_map[] = {
	{ 0, 0x9fc00, BOOT_MEM_AVAILABLE },
	{ 0xf0000, 0x10000, BOOT_MEM_RESERVED },
	{ 0x100000, 0x7ee0000, BOOT_MEM_AVAILABLE },
	{ 0xfffc0000, 0x40000, 7 },
};

HOST_TEST(multiboot2_full_info)
{
	static struct mb2 m;
	uint8_t module[8 + 16];
	uint8_t rsdp[36];

	mb2_start(&m);
	mb2_string_tag(&m, 1, "smp=2 panic=exit");
	mb2_string_tag(&m, 2, "GRUB 2.06");
	put32(module, 0x200000);
	put32(module + 4, 0x280000);
	memcpy(module + 8, "initrd args", 12);
	mb2_tag(&m, 3, module, 8 + 12);
	mb2_mmap(&m, 24, qemu_map, 4);
	for (int i = 0; i < 36; i++)
		rsdp[i] = (uint8_t)(0x40 + i);
	mb2_tag(&m, 15, rsdp, 36);
	mb2_tag(&m, 21, "unknown tag body", 16);
	uint64_t phys = mb2_place(&m, true);

	CHECK(t, parse(MB2_MAGIC, phys) == 0, "parse failed");
	CHECK(t, !strcmp(bi.protocol, "multiboot2"), "protocol '%s'", bi.protocol);
	CHECK(t, !strcmp(bi.cmdline, "smp=2 panic=exit") && !bi.cmdline_truncated, "cmdline '%s'",
	      bi.cmdline);
	CHECK(t, !strcmp(bi.loader_name, "GRUB 2.06"), "loader '%s'", bi.loader_name);
	CHECK(t, bi.nmodules == 1 && bi.modules[0].phys_start == 0x200000 &&
		 bi.modules[0].phys_end == 0x280000, "module range");
	CHECK(t, !strcmp(bi.modules[0].cmdline, "initrd args"), "module cmdline '%s'",
	      bi.modules[0].cmdline);
	CHECK(t, bi.nmem == 4 && bi.mem_dropped == 0, "nmem %u", bi.nmem);
	for (unsigned i = 0; i < 4; i++)
		CHECK(t, region_is(i, qemu_map[i].base, qemu_map[i].length, qemu_map[i].type),
		      "region %u", i);
	CHECK(t, bi.have_rsdp && !memcmp(bi.rsdp, rsdp, 36), "RSDP copied");
}

HOST_TEST(multiboot2_acpi_prefers_the_new_rsdp)
{
	static struct mb2 m;
	uint8_t old_rsdp[20], new_rsdp[36];
	memset(old_rsdp, 0x11, sizeof(old_rsdp));
	memset(new_rsdp, 0x22, sizeof(new_rsdp));

	mb2_start(&m);
	mb2_tag(&m, 14, old_rsdp, 20);
	mb2_tag(&m, 15, new_rsdp, 36);
	CHECK(t, parse(MB2_MAGIC, mb2_place(&m, true)) == 0 && bi.rsdp[0] == 0x22 &&
		 bi.rsdp[35] == 0x22, "old then new: new wins");

	mb2_start(&m);
	mb2_tag(&m, 15, new_rsdp, 36);
	mb2_tag(&m, 14, old_rsdp, 20);
	CHECK(t, parse(MB2_MAGIC, mb2_place(&m, true)) == 0 && bi.rsdp[0] == 0x22 &&
		 bi.rsdp[35] == 0x22, "new then old: new kept");

	mb2_start(&m);
	mb2_tag(&m, 14, old_rsdp, 20);
	CHECK(t, parse(MB2_MAGIC, mb2_place(&m, true)) == 0 && bi.have_rsdp && bi.rsdp[19] == 0x11 &&
		 bi.rsdp[20] == 0, "old only: 20 bytes, rest zero");

	mb2_start(&m);
	mb2_tag(&m, 14, old_rsdp, 12);
	CHECK(t, parse(MB2_MAGIC, mb2_place(&m, true)) == 0 && !bi.have_rsdp, "short RSDP ignored");
}

HOST_TEST(multiboot2_limits)
{
	static struct mb2 m;
	char cmdline[700];

	/* 511 characters fit exactly; 512 are cut to 511 and flagged. */
	memset(cmdline, 'c', sizeof(cmdline));
	cmdline[BOOT_CMDLINE_MAX - 1] = '\0';
	mb2_start(&m);
	mb2_string_tag(&m, 1, cmdline);
	CHECK(t, parse(MB2_MAGIC, mb2_place(&m, true)) == 0 && !bi.cmdline_truncated &&
		 strlen(bi.cmdline) == BOOT_CMDLINE_MAX - 1, "511 characters fit");

	cmdline[BOOT_CMDLINE_MAX - 1] = 'c';
	cmdline[sizeof(cmdline) - 1] = '\0';
	mb2_start(&m);
	mb2_string_tag(&m, 1, cmdline);
	CHECK(t, parse(MB2_MAGIC, mb2_place(&m, true)) == 0 && bi.cmdline_truncated &&
		 strlen(bi.cmdline) == BOOT_CMDLINE_MAX - 1, "699 characters cut to 511");

	/* A string with no NUL inside its tag stops at the tag. */
	mb2_start(&m);
	mb2_tag(&m, 2, "abcdefghijk", 5);
	CHECK(t, parse(MB2_MAGIC, mb2_place(&m, true)) == 0 && !strcmp(bi.loader_name, "abcde"),
	      "unterminated loader name '%s'", bi.loader_name);

	/* 70 regions, plus ones that are empty or wrap, which are not regions at all. */
	static struct boot_mem_region many[72];
	for (unsigned i = 0; i < 70; i++)
		many[i] = (struct boot_mem_region){ i * 0x10000ull, 0x8000, BOOT_MEM_AVAILABLE };
	many[70] = (struct boot_mem_region){ 0x5000, 0, BOOT_MEM_AVAILABLE };
	many[71] = (struct boot_mem_region){ UINT64_MAX - 10, 100, BOOT_MEM_AVAILABLE };
	mb2_start(&m);
	mb2_mmap(&m, 24, &many[70], 2);
	mb2_mmap(&m, 24, many, 70);
	CHECK(t, parse(MB2_MAGIC, mb2_place(&m, true)) == 0, "parse");
	CHECK(t, bi.nmem == BOOT_MAX_MEM_REGIONS && bi.mem_dropped == 6, "nmem %u dropped %u", bi.nmem,
	      bi.mem_dropped);
	CHECK(t, region_is(63, 63 * 0x10000ull, 0x8000, 1), "the 64th region kept");

	/* Entries larger than the 24 bytes used are stepped over by entry_size. */
	mb2_start(&m);
	mb2_mmap(&m, 32, qemu_map, 4);
	CHECK(t, parse(MB2_MAGIC, mb2_place(&m, true)) == 0 && bi.nmem == 4 &&
		 region_is(3, qemu_map[3].base, qemu_map[3].length, qemu_map[3].type),
	      "32-byte entries");

	/* BOOT_MAX_MODULES + 4 modules: the table's worth kept, 4 counted. */
	uint8_t module[8 + 4];
	mb2_start(&m);
	for (uint32_t i = 0; i < BOOT_MAX_MODULES + 4; i++) {
		put32(module, i << 20);
		put32(module + 4, (i << 20) + 0x1000);
		memcpy(module + 8, "mod", 4);
		mb2_tag(&m, 3, module, sizeof(module));
	}
	CHECK(t, parse(MB2_MAGIC, mb2_place(&m, true)) == 0 && bi.nmodules == BOOT_MAX_MODULES &&
		 bi.modules_dropped == 4, "modules %u dropped %u", bi.nmodules, bi.modules_dropped);
}

HOST_TEST(multiboot2_malformed_refused)
{
	static struct mb2 m;

	host_arena_reset(ARENA_SIZE);
	CHECK(t, parse(0x12345678, 0x1000) == -EINVAL && !strcmp(bi.protocol, "unknown"),
	      "unknown magic");

	mb2_start(&m);
	uint64_t phys = mb2_place(&m, true);
	CHECK(t, parse(MB2_MAGIC, phys) == 0, "the smallest valid block (16 bytes)");
	put32(phys_to_virt(phys), 8);
	CHECK(t, parse(MB2_MAGIC, phys) == -EINVAL, "total_size 8");
	put32(phys_to_virt(phys), 0);
	CHECK(t, parse(MB2_MAGIC, phys) == -EINVAL, "total_size 0");
	put32(phys_to_virt(phys), 2u << 20);
	CHECK(t, parse(MB2_MAGIC, phys) == -EINVAL, "total_size 2 MiB");
	put32(phys_to_virt(phys), UINT32_MAX);
	CHECK(t, parse(MB2_MAGIC, phys) == -EINVAL, "total_size 4 GiB");

	mb2_start(&m);
	uint32_t tag = mb2_string_tag(&m, 1, "quiet");
	put32(m.buf + tag + 4, 200);
	CHECK(t, parse(MB2_MAGIC, mb2_place(&m, true)) == -EINVAL, "a tag running past the end");

	mb2_start(&m);
	tag = mb2_string_tag(&m, 1, "quiet");
	put32(m.buf + tag + 4, 4);
	CHECK(t, parse(MB2_MAGIC, mb2_place(&m, true)) == -EINVAL, "a tag smaller than its header");

	mb2_start(&m);
	mb2_string_tag(&m, 1, "quiet");
	CHECK(t, parse(MB2_MAGIC, mb2_place(&m, false)) == -EINVAL, "no end tag");
	CHECK(t, !strcmp(bi.cmdline, "quiet"), "tags before the problem were still read");

	mb2_start(&m);
	mb2_string_tag(&m, 1, "quiet");
	m.len += 4;	/* room for half a tag header */
	CHECK(t, parse(MB2_MAGIC, mb2_place(&m, false)) == -EINVAL, "half a tag at the end");

	mb2_start(&m);
	mb2_mmap(&m, 16, qemu_map, 2);
	CHECK(t, parse(MB2_MAGIC, mb2_place(&m, true)) == -EINVAL, "mmap entry_size 16");

	mb2_start(&m);
	mb2_tag(&m, 6, "\x18\0\0\0", 4);
	CHECK(t, parse(MB2_MAGIC, mb2_place(&m, true)) == -EINVAL, "mmap tag without its header");

	mb2_start(&m);
	mb2_tag(&m, 3, "\0\0\x10\0", 4);
	CHECK(t, parse(MB2_MAGIC, mb2_place(&m, true)) == -EINVAL, "module tag without its range");
}

/* entry_size near 2^32 must not wrap the entry loop into reading past the tag. */
HOST_TEST(multiboot2_huge_mmap_entry_size)
{
	static struct mb2 m;
	static const uint32_t sizes[] = { 0xfffffff8u, 0xffffffe8u, 0x80000000u, 0x10000u };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		mb2_start(&m);
		uint32_t tag = mb2_mmap(&m, 24, qemu_map, 1);
		put32(m.buf + tag + 8, sizes[i]);
		int rc = parse(MB2_MAGIC, mb2_place(&m, true));
		CHECK(t, bi.nmem == 0, "entry_size 0x%x: %u regions from a tag holding none", sizes[i],
		      bi.nmem);
		CHECK(t, rc == 0 || rc == -EINVAL, "entry_size 0x%x: rc %d", sizes[i], rc);
	}
}

/* Multiboot1: the information structure at phys 0x1000, strings and tables after it. */
enum {
	MB1_INFO = 0x1000, MB1_CMDLINE = 0x2000, MB1_LOADER = 0x3000, MB1_MODS = 0x3100,
	MB1_MODSTR = 0x3200, MB1_MMAP = 0x4000,
};

static uint8_t *at(uint64_t phys)
{
	return phys_to_virt(phys);
}

/* A fresh arena with an info structure holding only flags (spec offsets). */
static void mb1_start(uint32_t flags)
{
	host_arena_reset(ARENA_SIZE);
	memset(at(MB1_INFO), 0, 128);
	put32(at(MB1_INFO), flags);
}

static void mb1_cmdline(const char *s)
{
	put32(at(MB1_INFO) + 16, MB1_CMDLINE);
	strcpy((char *)at(MB1_CMDLINE), s);
}

static const char *mb1_cmdline_result(const char *s)
{
	mb1_start(1u << 2);
	mb1_cmdline(s);
	int rc = parse(MB1_MAGIC, MB1_INFO);
	return rc == 0 ? bi.cmdline : "(parse failed)";
}

HOST_TEST(multiboot1_cmdline_drops_kernel_name)
{
	CHECK(t, !strcmp(mb1_cmdline_result("/boot/kernel32.elf smp=2 quiet"), "smp=2 quiet"),
	      "kernel name dropped: '%s'", bi.cmdline);
	CHECK(t, !strcmp(bi.protocol, "multiboot1"), "protocol '%s'", bi.protocol);
	CHECK(t, !strcmp(mb1_cmdline_result("kernel   panic=exit"), "panic=exit"),
	      "several spaces: '%s'", bi.cmdline);
	CHECK(t, !strcmp(mb1_cmdline_result("kernel"), ""), "name only: '%s'", bi.cmdline);
	CHECK(t, !strcmp(mb1_cmdline_result(""), ""), "empty: '%s'", bi.cmdline);
	CHECK(t, !strcmp(mb1_cmdline_result("smp=2 quiet"), "smp=2 quiet"),
	      "first word with '=' kept: '%s'", bi.cmdline);
	CHECK(t, !strcmp(mb1_cmdline_result("quiet smp=2"), "smp=2"),
	      "a first word without '=' is taken for the name: '%s'", bi.cmdline);
	CHECK(t, !strcmp(mb1_cmdline_result("smp=4"), "smp=4"), "one option: '%s'", bi.cmdline);
}

HOST_TEST(multiboot1_cmdline_truncation)
{
	static char line[1200];

	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	line[6] = ' ';	/* "xxxxxx xxxx...": a name and one long word */
	mb1_cmdline_result(line);
	CHECK(t, bi.cmdline_truncated && strlen(bi.cmdline) == BOOT_CMDLINE_MAX - 1,
	      "long line cut to %zu, flagged %d", strlen(bi.cmdline), bi.cmdline_truncated);

	/* A 300-byte kernel name then 600 bytes of options: after the name, still cut. */
	memset(line, 'o', 900);
	line[300] = ' ';
	line[900] = '\0';
	mb1_cmdline_result(line);
	CHECK(t, bi.cmdline_truncated, "options cut after a long kernel name not flagged (kept %zu)",
	      strlen(bi.cmdline));

	memset(line, 'a', 511);
	memcpy(line, "k ", 2);
	line[513] = '\0';
	memset(line + 2, 'a', 511);
	CHECK(t, strlen(mb1_cmdline_result(line)) == 511 && !bi.cmdline_truncated,
	      "511 bytes after the name fit");
}

static void mb1_mmap_entry(uint32_t off, uint32_t size, uint64_t base, uint64_t len, uint32_t type)
{
	put32(at(MB1_MMAP + off), size);
	put64(at(MB1_MMAP + off + 4), base);
	put64(at(MB1_MMAP + off + 12), len);
	put32(at(MB1_MMAP + off + 20), type);
}

HOST_TEST(multiboot1_modules_mmap_and_loader)
{
	mb1_start((1u << 3) | (1u << 6) | (1u << 9));
	put32(at(MB1_INFO) + 20, 2);		/* mods_count */
	put32(at(MB1_INFO) + 24, MB1_MODS);
	put32(at(MB1_MODS), 0x100000);
	put32(at(MB1_MODS) + 4, 0x180000);
	put32(at(MB1_MODS) + 8, MB1_MODSTR);
	strcpy((char *)at(MB1_MODSTR), "initrd.img root=ram");
	put32(at(MB1_MODS) + 16, 0x180000);
	put32(at(MB1_MODS) + 20, 0x190000);
	put32(at(MB1_MODS) + 24, 0);		/* no string */
	mb1_mmap_entry(0, 20, 0, 0x9fc00, 1);
	mb1_mmap_entry(24, 28, 0x100000, 0x7ee0000, 1);	/* 8 bytes of padding after it */
	mb1_mmap_entry(56, 20, 0xfffc0000, 0x40000, 2);
	put32(at(MB1_INFO) + 44, 80);		/* mmap_length */
	put32(at(MB1_INFO) + 48, MB1_MMAP);
	put32(at(MB1_INFO) + 64, MB1_LOADER);
	strcpy((char *)at(MB1_LOADER), "qemu");

	CHECK(t, parse(MB1_MAGIC, MB1_INFO) == 0, "parse");
	CHECK(t, !strcmp(bi.loader_name, "qemu"), "loader '%s'", bi.loader_name);
	CHECK(t, bi.nmodules == 2, "modules %u", bi.nmodules);
	CHECK(t, bi.modules[0].phys_start == 0x100000 && bi.modules[0].phys_end == 0x180000 &&
		 !strcmp(bi.modules[0].cmdline, "initrd.img root=ram"), "module 0");
	CHECK(t, bi.modules[1].phys_start == 0x180000 && !strcmp(bi.modules[1].cmdline, ""),
	      "module 1 without a string");
	CHECK(t, bi.nmem == 3, "nmem %u", bi.nmem);
	CHECK(t, region_is(0, 0, 0x9fc00, 1) && region_is(1, 0x100000, 0x7ee0000, 1) &&
		 region_is(2, 0xfffc0000, 0x40000, 2), "regions");
	CHECK(t, bi.cmdline[0] == '\0', "no cmdline flag, no cmdline");
}

HOST_TEST(multiboot1_without_mmap_uses_mem_fields)
{
	mb1_start(1u << 0);
	put32(at(MB1_INFO) + 4, 639);		/* KiB below 1 MiB */
	put32(at(MB1_INFO) + 8, 130048);	/* KiB above 1 MiB */
	CHECK(t, parse(MB1_MAGIC, MB1_INFO) == 0, "parse");
	CHECK(t, bi.nmem == 2 && region_is(0, 0, 639 * 1024, 1) &&
		 region_is(1, 1 << 20, 130048ull * 1024, 1), "two regions from mem_lower/upper");
}

HOST_TEST(multiboot1_malformed_refused)
{
	mb1_start(1u << 3);
	put32(at(MB1_INFO) + 20, 100000);
	put32(at(MB1_INFO) + 24, MB1_MODS);
	CHECK(t, parse(MB1_MAGIC, MB1_INFO) == -EINVAL, "mods_count 100000");

	mb1_start(1u << 6);
	mb1_mmap_entry(0, 12, 0, 0x1000, 1);
	put32(at(MB1_INFO) + 44, 24);
	put32(at(MB1_INFO) + 48, MB1_MMAP);
	CHECK(t, parse(MB1_MAGIC, MB1_INFO) == -EINVAL, "mmap entry size 12");

	mb1_start(1u << 6);
	put32(at(MB1_INFO) + 44, 4u << 20);
	put32(at(MB1_INFO) + 48, MB1_MMAP);
	CHECK(t, parse(MB1_MAGIC, MB1_INFO) == -EINVAL, "mmap_length 4 MiB");

	/* An entry size that wraps the offset must not loop forever or run past mmap_length. */
	static const uint32_t sizes[] = { 0xfffffffcu, 0xfffffff0u, 0x7fffffffu };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		mb1_start(1u << 6);
		mb1_mmap_entry(0, 20, 0x100000, 0x100000, 1);
		mb1_mmap_entry(24, sizes[i], 0x200000, 0x100000, 1);
		mb1_mmap_entry(48, 20, 0x300000, 0x100000, 1);
		put32(at(MB1_INFO) + 44, 72);
		put32(at(MB1_INFO) + 48, MB1_MMAP);
		CHECK(t, parse(MB1_MAGIC, MB1_INFO) == -EINVAL, "entry size 0x%x", sizes[i]);
		CHECK(t, bi.nmem <= 2 && bi.mem_dropped == 0, "entry size 0x%x: %u regions, %u dropped",
		      sizes[i], bi.nmem, bi.mem_dropped);
	}
}
