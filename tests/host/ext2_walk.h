/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Everything the ext2 reader (kernel/ext2/) can reach in an image held
 * in memory, walked through its API as the VFS would: open, then from
 * the root every directory (to depth EXT2_WALK_DEPTH), every file read
 * in odd-sized pieces (up to EXT2_WALK_FILE_MAX bytes), every link's
 * target. The image's device read aborts the walk as an escape when the
 * reader asks for bytes outside the image. Shared by the host tests and
 * the fuzz target.
 */
#ifndef EXT2_WALK_H
#define EXT2_WALK_H

#include <stddef.h>
#include <stdint.h>

#define EXT2_WALK_DEPTH 12
#define EXT2_WALK_ENTRIES 20000
#define EXT2_WALK_FILE_MAX (8u << 20)

struct ext2_walk {
	unsigned files, dirs, links, errors, entries;
	uint64_t bytes;
	uint64_t digest;	/* FNV-1a 64 over what was read, in walk order */
	int open_error;		/* ext2_open's result */
	char msg[160];		/* ext2_open's line */
	unsigned escapes;	/* device reads outside the image */
	char first_error[120];
};

/* Walk img (size bytes); *w says what was found. */
void ext2_walk_image(const uint8_t *img, size_t size, struct ext2_walk *w);

#endif
