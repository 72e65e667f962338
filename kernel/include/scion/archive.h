/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The program archive: a read-only file tree made at boot from every boot
 * module whose name ends in ".cpio" (a cpio newc archive: `make run
 * PROGRAMS=...`, `scion run --programs FILE`), what user processes exec
 * and read. kernel/fs/archive.c builds it; kernel/lib/cpio.c parses the
 * archives (scion/cpio.h: what it accepts, skips and refuses). A refused
 * archive adds nothing and says why in one line at boot.
 *
 * Paths are normalized absolute paths: "/", "/hello", "/etc/motd" (no
 * trailing '/', no "." or ".." component, no doubled '/'); callers
 * normalize first. Directories that an archive implies without an entry
 * ("a/b" with no "a") exist, with mode S_IFDIR | 0755 and mtime 0; "/"
 * always exists. When two archives hold the same path the first module
 * wins (a directory in both is one directory). Inode numbers are the
 * tree's own: 1 for "/", then in path order, unique across archives.
 *
 * The tree is built once by archive_init, before anything reads it, and
 * never changes: lookups take no lock and may run in any context.
 */
#ifndef SCION_ARCHIVE_H
#define SCION_ARCHIVE_H

#include <scion/compiler.h>

struct archive_file {
	const char *path;	/* normalized absolute path: "/", "/hello", "/etc/motd" */
	const void *data;	/* file contents (kernel direct map), NULL for a directory */
	size_t size;
	uint32_t mode;		/* Linux st_mode bits from the cpio header (S_IFREG/S_IFDIR | perms) */
	uint32_t ino;
	uint64_t mtime;		/* seconds since 1970 */
};

#define ARCHIVE_S_IFMT  0170000
#define ARCHIVE_S_IFDIR 0040000
#define ARCHIVE_S_IFREG 0100000

static inline bool archive_is_dir(const struct archive_file *f)
{
	return (f->mode & ARCHIVE_S_IFMT) == ARCHIVE_S_IFDIR;
}

/*
 * archive_lookup - the file or directory at a normalized absolute path.
 * Return value: the entry, or NULL when there is none ("/" always exists).
 */
const struct archive_file *archive_lookup(const char *abs_path);

/*
 * archive_child - the next entry directly in a directory, in path order.
 * Arguments: dir_abs_path, a normalized absolute path; cursor, 0 to
 *   start, then left as this function sets it.
 * Return value: the entry, or NULL at the end (or when dir_abs_path is
 *   not a directory of the tree).
 */
const struct archive_file *archive_child(const char *dir_abs_path, size_t *cursor);

/* The entry whose inode number is ino, or NULL. */
const struct archive_file *archive_by_ino(uint64_t ino);

/* The number of entries of the tree, "/" included (1 with no archive). */
unsigned archive_count(void);

/* The number of .cpio boot modules the tree was built from (refused ones not counted). */
unsigned archive_modules_loaded(void);

/*
 * archive_init - build the tree from the .cpio boot modules, one line
 *   each on the console (what it holds, or why it was refused).
 * Caller's context: the init thread, once, after mm; kmalloc available.
 */
void archive_init(void);

#endif
