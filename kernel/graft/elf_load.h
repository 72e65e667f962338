/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The graft ELF loader: links one relocatable ELF64 x86-64 object (a
 * .graft file) into memory its caller provides, resolving undefined
 * symbols only through the caller's table of exported graft API
 * functions. Pure code with no kernel services (the memory comes from
 * ops->alloc), so the same files build into the kernel, the host unit
 * tests and a libFuzzer target.
 *
 * The file is untrusted: whatever its bytes, the loader reads nothing
 * outside file[0..size), writes nothing outside the regions it was
 * given, and either returns a complete image or refuses with one line
 * that names the problem.
 */
#ifndef KERNEL_GRAFT_ELF_LOAD_H
#define KERNEL_GRAFT_ELF_LOAD_H

#include <stddef.h>
#include <stdint.h>
#include <graft/manifest.h>

#define GRAFT_IMAGE_MAX		(1024 * 1024)	/* bytes of all regions together */
#define GRAFT_ELF_MAX_SECTIONS	256		/* e_shnum limit */
#define GRAFT_REGION_ALIGN	4096		/* region sizes are multiples of this */
#define GRAFT_SFI_NOTE		".note.scion.sfi"	/* the sandboxing step's mark */

/*
 * Where an allocated (SHF_ALLOC) section goes: executable sections to
 * TEXT, writable ones (.data, .bss) to DATA, the rest to RODATA.
 */
enum graft_region {
	GRAFT_REGION_TEXT,
	GRAFT_REGION_RODATA,
	GRAFT_REGION_DATA,
	GRAFT_REGIONS
};

struct graft_load_ops {
	/*
	 * Memory for one region: size bytes (a multiple of GRAFT_REGION_ALIGN,
	 * > 0), aligned to GRAFT_REGION_ALIGN, zeroed, writable while
	 * loading, at the address returned, which is the region's final
	 * run-time address (relocations are computed against it; with
	 * -mcmodel=kernel code, within 2 GiB of what it refers to). NULL
	 * when out of memory. Called at most once per region, only for
	 * regions with contents; the caller releases what it returned.
	 */
	void *(*alloc)(void *ctx, enum graft_region region, size_t size);
	/*
	 * The address of the exported graft-API symbol name, or 0 when name
	 * is not exported. Must give the same answer for the same name
	 * throughout one load.
	 */
	uint64_t (*resolve)(void *ctx, const char *name);
};

struct graft_image {
	void *region[GRAFT_REGIONS];		/* NULL: no such region */
	size_t region_size[GRAFT_REGIONS];	/* as passed to alloc */
	const struct graft_manifest *manifest;	/* inside a loaded region */
	uint64_t entry;				/* relocated manifest->entry, inside TEXT */
	size_t nrelocs;				/* relocations applied */
	size_t nundefined;			/* undefined symbols resolved */
	bool sfi_note;				/* it has a .note.scion.sfi section: built
						   by the sandboxing step (grafts/grafts.mk) */
};

/*
 * graft_elf_load - Overview: check and link a graft object. The loader
 *   validates the whole file (header, section table, names, symbols,
 *   relocation records) and sizes the regions before allocating any
 *   memory; then it copies the sections into their regions, applies the
 *   relocations, and checks the manifest as loaded.
 * Arguments: file/size, the object (read only, never written); ops and
 *   ctx, the caller's memory and symbol resolution; out, filled on
 *   success and, on failure, still naming every region already
 *   allocated (region[r] non-NULL) so the caller can release them; err
 *   and errlen, a buffer for one line naming the problem (err may be
 *   NULL when errlen is 0).
 * Return value: 0, or a negative errno: -ENOEXEC for a malformed or
 *   unsupported object, -ENOENT for an undefined symbol that is not
 *   exported (or an undefined weak one), -EFBIG when the graft or its
 *   section table is too big, -ERANGE when a relocation's result does
 *   not fit its field at the addresses given, -ENOMEM when ops->alloc
 *   fails, -EINVAL for bad arguments. err then holds the reason, e.g.
 *   "undefined symbol 'panic' is not exported to grafts".
 * Caller's context: any where ops may be called; uses about 3 KiB of
 *   stack. The regions stay writable: after a successful load the
 *   caller verifies the code (the SFI step) and only then maps TEXT
 *   executable and RODATA read-only.
 */
int graft_elf_load(const void *file, size_t size, const struct graft_load_ops *ops, void *ctx,
		   struct graft_image *out, char *err, size_t errlen);

#endif
