/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Building the program archive's tree (archive.c) from archives in
 * memory: what archive_init (archive_boot.c) does with the boot modules,
 * and what the host unit tests do with archives of their own.
 */
#ifndef FS_ARCHIVE_INTERNAL_H
#define FS_ARCHIVE_INTERNAL_H

#include <scion/compiler.h>

#define ARCHIVE_MAX_MODULES 48	/* BOOT_MAX_MODULES */

struct archive_module {
	const char *name;	/* for messages: "programs.cpio" */
	const void *bytes;
	size_t size;
};

/*
 * archive_build - replace the tree (freeing the old one) by the tree of
 *   modules[0..n), the first winning where two hold one path; one line
 *   on the console per module (what it holds, or why it was refused).
 * Return value: the number of modules accepted.
 * Caller's context: thread, kmalloc available, no reader of the tree
 *   running (at boot: before anything looks; in tests: alone).
 */
unsigned archive_build(const struct archive_module *modules, unsigned n);

#endif
