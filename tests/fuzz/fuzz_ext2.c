// SPDX-License-Identifier: BSD-2-Clause
/*
 * libFuzzer target: disk images through the ext2 reader (kernel/ext2/),
 * what the kernel mounts from vda. The image sits in a buffer of exactly
 * its size; tests/host/ext2_walk.c opens it and walks everything it can
 * reach (directories, files, links, bounded). A request for bytes
 * outside the image is an escape: the reader checks every block number
 * against the file system's size, and that size against the disk's.
 */
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"
#include "../host/ext2_walk.h"

void *kmalloc(size_t size);
void *kzalloc(size_t size);
void kfree(void *p);

void *kzalloc(size_t size)
{
	return calloc(1, size);
}

void *kmalloc(size_t size)
{
	return malloc(size);
}

void kfree(void *p)
{
	free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *img = malloc(size ? size : 1);
	memcpy(img, data, size);
	struct ext2_walk w;
	ext2_walk_image(img, size, &w);
	FUZZ_ASSERT(w.escapes == 0, "%u reads outside the image", w.escapes);
	FUZZ_ASSERT(w.open_error <= 0 && strlen(w.msg) < sizeof(w.msg), "open %d", w.open_error);
	free(img);
	return 0;
}
