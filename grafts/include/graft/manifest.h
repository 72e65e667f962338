/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The graft manifest: what a graft object says about itself, in its own
 * ELF section. Shared by graft sources (GRAFT_METHOD in graft.h fills
 * it in) and by the kernel's loader (kernel/graft/elf_load.c), which
 * finds it, checks it, and reads the graft's entry point from it.
 *
 * Invariants the loader enforces: exactly one section named
 * GRAFT_MANIFEST_SECTION, exactly sizeof(struct graft_manifest) bytes,
 * 8-byte aligned; magic and abi equal the values below; reserved is 0;
 * every string is NUL-terminated inside its array, name is non-empty
 * [a-z0-9_-]+; entry, after relocation, lies inside the graft's text.
 * Plain C with fixed-width fields only, so the layout is the same for
 * every compiler that builds grafts or the kernel.
 */
#ifndef GRAFT_MANIFEST_H
#define GRAFT_MANIFEST_H

#include <stdint.h>

#define GRAFT_MANIFEST_SECTION ".graft.manifest"
#define GRAFT_MANIFEST_MAGIC 0x54465247u	/* "GRFT" in a little-endian word */
#define GRAFT_ABI_VERSION 1			/* bump on any incompatible API change */
#define GRAFT_NAME_MAX 32
#define GRAFT_POINT_MAX 48
#define GRAFT_SIGNATURE_MAX 96

struct graft_manifest {
	uint32_t magic;				/* GRAFT_MANIFEST_MAGIC */
	uint32_t abi;				/* GRAFT_ABI_VERSION the graft was built for */
	uint32_t version;			/* the graft's own version */
	uint32_t reserved;			/* 0 */
	char name[GRAFT_NAME_MAX];		/* NUL-terminated, [a-z0-9_-]+ */
	char point[GRAFT_POINT_MAX];		/* dotted graft point name, e.g. "bcache.evict" */
	char signature[GRAFT_SIGNATURE_MAX];	/* e.g. "int (void)"; compared with the point's */
	uint64_t entry;				/* the graft function: an R_X86_64_64 relocation */
};

_Static_assert(sizeof(struct graft_manifest) == 200, "graft manifest layout changed");
_Static_assert(_Alignof(struct graft_manifest) == 8, "graft manifest alignment changed");

#endif
