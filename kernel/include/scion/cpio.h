/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Reading a cpio archive in the "newc" format (magic "070701", what
 * `cpio -o -H newc` writes, the format of Linux's initramfs): the program
 * archive a boot module carries (kernel/fs/archive.c). The archive comes
 * from outside the kernel, so the parser (kernel/lib/cpio.c) is a border:
 * portable C over the bytes as given, nothing read outside them, nothing
 * allocated, every field checked; the first bad field refuses the whole
 * archive with one line naming the entry's offset and the field.
 *
 * An entry is a 110-byte header of 13 fields of exactly 8 hex digits,
 * the name (namesize bytes with its NUL), NULs up to a multiple of 4,
 * the data (filesize bytes), NULs up to a multiple of 4 (offsets counted
 * from the archive's first byte). The entry named "TRAILER!!!" ends the
 * archive; only NULs may follow it (cpio pads to 512 bytes).
 *
 * Refused (-EINVAL, msg "cpio: offset N: ..."):
 *   - magic other than "070701" ("070707", the portable ASCII format, and
 *     "070702", newc with checksums, are named as such);
 *   - a field that is not 8 hex digits; a check field other than 0;
 *   - namesize 0 or 1 (no name), above CPIO_NAME_MAX + 1, a name without
 *     its NUL at namesize - 1 or with one before it, bytes below 0x20 or
 *     0x7f and above in a name;
 *   - the name, its padding, the data or its padding past the end; no
 *     TRAILER!!! entry; a trailer with data; bytes other than NUL after it;
 *   - absolute names ("/x"), names with an empty component ("a//b", "a/"),
 *     a "." or ".." component ("a/./b", "../x"); a leading "./" is
 *     dropped ("./etc/motd" is "etc/motd", "." the root);
 *   - a mode with unknown bits or no known file type; a directory with
 *     data; a regular file with nlink above 1 (cpio stores hard-linked
 *     data once, in the last link);
 *   - more than CPIO_MAX_ENTRIES entries (skipped ones included): the
 *     name checks below compare each entry with those before it;
 *   - more than one entry of a name, and an entry under a name that is
 *     not a directory ("a" a file and "a/b") (both checked only when the
 *     caller keeps the entries: a counting pass cannot see earlier names).
 * Skipped and counted (cpio_summary.skipped, the first one's name kept):
 *   symbolic links, character and block devices, FIFOs and sockets. The
 *   archive holds programs and their data; Scion has no use for the rest,
 *   and refusing an archive for a stray link helps nobody.
 */
#ifndef SCION_CPIO_H
#define SCION_CPIO_H

#include <scion/compiler.h>

#define CPIO_HEADER_SIZE 110
#define CPIO_NAME_MAX 255		/* bytes of a name, its NUL not counted */
#define CPIO_TRAILER "TRAILER!!!"
#define CPIO_MAX_ENTRIES 4096		/* before the trailer, skipped ones included */

/* Linux's st_mode file types (octal), as cpio stores them. */
#define CPIO_S_IFMT   0170000
#define CPIO_S_IFSOCK 0140000
#define CPIO_S_IFLNK  0120000
#define CPIO_S_IFREG  0100000
#define CPIO_S_IFBLK  0060000
#define CPIO_S_IFDIR  0040000
#define CPIO_S_IFCHR  0020000
#define CPIO_S_IFIFO  0010000

/* One kept entry: a regular file or a directory. */
struct cpio_entry {
	const char *name;	/* inside the archive, not NUL-terminated: name_len bytes,
				 * normalized ("etc/motd"; "" for the root, ".") */
	size_t name_len;
	const uint8_t *data;	/* inside the archive; NULL for a directory */
	size_t size;
	uint32_t mode;		/* type and permission bits */
	uint32_t ino, uid, gid, nlink;
	uint64_t mtime;
	size_t offset;		/* of its header, for messages */
};

struct cpio_summary {
	size_t entries;		/* kept: files and directories */
	size_t skipped;		/* links, devices, FIFOs, sockets */
	char first_skipped[CPIO_NAME_MAX + 1];	/* the first skipped entry's name */
	uint32_t first_skipped_mode;
	size_t end;		/* offset just after the trailer's padding */
};

/*
 * cpio_parse - check a newc archive and list its files and directories.
 * Arguments: archive/size, the archive's bytes (any alignment);
 *   entries/max_entries, room for the kept entries in archive order, or
 *   NULL to count them (then duplicate names and entries under a file
 *   are not checked: do a second pass with the room the first counted);
 *   sum, filled on success (may be NULL); msg/msglen, room for the line
 *   that names the first failing check (may be NULL/0).
 * Return value: the number of kept entries; -EINVAL with msg "cpio: ..."
 *   for a bad archive; -E2BIG when it keeps more than max_entries.
 * Caller's context: any; reads only archive[0..size), allocates nothing.
 */
long cpio_parse(const void *archive, size_t size, struct cpio_entry *entries, size_t max_entries,
		struct cpio_summary *sum, char *msg, size_t msglen);

/* A file type's name for messages: "symbolic link", "directory", ... */
const char *cpio_type_name(uint32_t mode);

#endif
