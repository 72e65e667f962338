// SPDX-License-Identifier: BSD-2-Clause
/*
 * The `disk` shell command: the disks with their size and counters, and
 * `disk read SECTOR [COUNT]`, which reads sectors of the first disk and
 * shows the start of each with whether it holds the test pattern of
 * tools/mkdisk.py. Errors are one line.
 */
#include <scion/blkdev.h>
#include <scion/blk_pattern.h>
#include <scion/shell.h>
#include <scion/printk.h>
#include <scion/errno.h>
#include <scion/string.h>
#include <scion/mm.h>

#define DISK_READ_MAX_COUNT  64
#define DUMP_BYTES           64
#define DUMP_BYTES_PER_LINE  16
#define PRINTABLE_FIRST      0x20
#define PRINTABLE_LAST       0x7e
#define MIB_SHIFT            20
#define NIBBLE_SHIFT         4
#define NIBBLE_MASK          0xfu
#define HEX_COLUMN_WIDTH     3	/* two digits and a space */

static void print_disk(const struct blkdev *d)
{
	struct blkdev_stats s;

	blkdev_get_stats(d, &s);
	printk("%-4s %-10s %llu sectors (%llu MiB)%s\n", blkdev_name(d), blkdev_model(d),
	       (unsigned long long)blkdev_sectors(d),
	       (unsigned long long)((blkdev_sectors(d) << BLK_SECTOR_SHIFT) >> MIB_SHIFT),
	       blkdev_read_only(d) ? ", read-only" : "");
	printk("     reads %llu (%llu sectors), writes %llu (%llu sectors), interrupts %llu, "
	       "errors %llu\n", (unsigned long long)s.reads, (unsigned long long)s.sectors_read,
	       (unsigned long long)s.writes, (unsigned long long)s.sectors_written,
	       (unsigned long long)s.interrupts, (unsigned long long)s.errors);
}

static void dump_sector(const struct blkdev *d, uint64_t sector, const uint8_t *p)
{
	unsigned bad;

	if (blk_pattern_check(sector, p, &bad))
		printk("%s sector %llu: pattern ok\n", blkdev_name(d), (unsigned long long)sector);
	else
		printk("%s sector %llu: pattern differs at byte %u\n", blkdev_name(d),
		       (unsigned long long)sector, bad);
	for (unsigned off = 0; off < DUMP_BYTES; off += DUMP_BYTES_PER_LINE) {
		char hex[DUMP_BYTES_PER_LINE * HEX_COLUMN_WIDTH + 1], text[DUMP_BYTES_PER_LINE + 1];
		static const char digits[] = "0123456789abcdef";
		for (unsigned i = 0; i < DUMP_BYTES_PER_LINE; i++) {
			uint8_t b = p[off + i];
			char *column = &hex[HEX_COLUMN_WIDTH * i];
			column[0] = digits[b >> NIBBLE_SHIFT];
			column[1] = digits[b & NIBBLE_MASK];
			column[2] = ' ';
			text[i] = b >= PRINTABLE_FIRST && b <= PRINTABLE_LAST ? (char)b : '.';
		}
		hex[sizeof(hex) - 2] = '\0';	/* no space after the last byte */
		text[DUMP_BYTES_PER_LINE] = '\0';
		printk("  %04x: %s %s\n", off, hex, text);
	}
}

static bool parse_number(const char *what, const char *s, uint64_t *out)
{
	if (parse_u64(s, out, false) == 0)
		return true;
	printk("disk: '%s' is not a %s\n", s, what);
	return false;
}

static int disk_read(struct blkdev *d, int argc, char **argv)
{
	uint64_t sector, count = 1;

	if (!parse_number("sector number", argv[2], &sector))
		return -EINVAL;
	if (argc == 4 && !parse_number("sector count", argv[3], &count))
		return -EINVAL;
	if (count == 0 || count > DISK_READ_MAX_COUNT) {
		printk("disk: count %llu: read 1 to %u sectors at a time\n",
		       (unsigned long long)count, DISK_READ_MAX_COUNT);
		return -EINVAL;
	}
	uint64_t sectors = blkdev_sectors(d);
	if (sector >= sectors) {
		printk("disk: sector %llu is beyond the end of %s (%llu sectors)\n",
		       (unsigned long long)sector, blkdev_name(d), (unsigned long long)sectors);
		return -EINVAL;
	}
	if (count > sectors - sector) {
		printk("disk: sectors %llu..%llu run past the end of %s (%llu sectors)\n",
		       (unsigned long long)sector, (unsigned long long)(sector + count - 1),
		       blkdev_name(d), (unsigned long long)sectors);
		return -EINVAL;
	}
	uint8_t *buf = kmalloc(count * BLK_SECTOR_SIZE);
	if (!buf) {
		printk("disk: no memory for %llu sectors\n", (unsigned long long)count);
		return -ENOMEM;
	}
	int err = blkdev_read(d, sector, (uint32_t)count, buf);
	if (err) {
		printk("disk: reading %llu sector%s at %llu from %s failed: %s\n",
		       (unsigned long long)count, count == 1 ? "" : "s", (unsigned long long)sector,
		       blkdev_name(d), errno_name(err));
	} else {
		for (uint64_t i = 0; i < count; i++)
			dump_sector(d, sector + i, buf + i * BLK_SECTOR_SIZE);
	}
	kfree(buf);
	return err;
}

static int cmd_disk(int argc, char **argv)
{
	struct blkdev *first = blkdev_next(NULL);
	bool read = argc >= 2 && !strcmp(argv[1], "read");

	if (!((argc == 1) || (read && (argc == 3 || argc == 4)))) {
		printk("disk: usage: disk [read SECTOR [COUNT]]\n");
		return -EINVAL;
	}
	if (!first) {
		printk("disk: no disk (boot QEMU with a virtio-blk drive; make run attaches one)\n");
		return -ENODEV;
	}
	if (read)
		return disk_read(first, argc, argv);
	for (struct blkdev *d = first; d; d = blkdev_next(d))
		print_disk(d);
	return 0;
}
SHELL_COMMAND(disk, "[read SECTOR [COUNT]]", "list disks, or read sectors of the first disk",
	      cmd_disk);
