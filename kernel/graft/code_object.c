// SPDX-License-Identifier: BSD-2-Clause
/*
 * Trusted code objects that are not grafts: an ELF relocatable the host
 * built from the kernel's own source (a function's clone for a code
 * adaptation, scion/codeadapt.h), linked by the graft loader into the
 * graft area and run unconfined, as a trusted graft is. Its manifest's
 * point names the kernel function it stands for; nothing registers it.
 * Its undefined symbols resolve to the kernel's global functions (the
 * host gives data and everything else as absolute symbols).
 */
#include <scion/graft.h>
#include <scion/symtab.h>
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>
#include <arch/mmu.h>
#include <arch/cpu.h>
#include "graft_internal.h"
#include "elf_load.h"

_Static_assert(GRAFT_CODE_REGIONS == GRAFT_REGIONS, "struct graft_code's regions");

static void *code_alloc(void *opaque, enum graft_region region, size_t size)
{
	struct graft_code *c = opaque;
	uintptr_t va = graft_mem_alloc(size);
	if (!va)
		return NULL;
	c->region[region] = va;
	c->region_size[region] = size;
	return (void *)va;
}

static uint64_t code_resolve(void *opaque, const char *name)
{
	(void)opaque;
	const struct ksym *s = symtab_lookup_name(&kernel_symtab, name);
	return s && (s->flags & SYM_GLOBAL) && !(s->flags & SYM_INIT) ? s->addr : 0;
}

static const struct graft_load_ops code_ops = { .alloc = code_alloc, .resolve = code_resolve };

void graft_code_free(struct graft_code *c)
{
	for (unsigned r = 0; r < GRAFT_REGIONS; r++) {
		if (c->region[r])
			graft_mem_free(c->region[r], c->region_size[r]);
		c->region[r] = 0;
	}
}

int graft_code_load(const void *image, size_t size, struct graft_code *c, char *err,
		    size_t errlen)
{
	struct graft_image im;

	*c = (struct graft_code){ 0 };
	int rc = graft_elf_load(image, size, &code_ops, c, &im, err, errlen);
	if (!rc && im.sfi_note) {
		snprintf(err, errlen, "built by the sandboxing step (%s): not kernel code",
			 GRAFT_SFI_NOTE);
		rc = -ENOEXEC;
	}
	if (rc) {
		graft_code_free(c);
		return rc;
	}
	strlcpy(c->name, im.manifest->name, sizeof(c->name));
	strlcpy(c->point, im.manifest->point, sizeof(c->point));
	c->entry = im.entry;
	c->text = c->region[GRAFT_REGION_TEXT];
	c->text_size = c->region_size[GRAFT_REGION_TEXT];
	graft_mem_protect(c->text, c->text_size, MAP_EXEC);
	/* The text was written as data: instruction fetch must see it, not what the pages held. */
	arch_sync_code_range(c->text, c->text_size);
	graft_mem_protect(c->region[GRAFT_REGION_RODATA], c->region_size[GRAFT_REGION_RODATA], 0);
	return 0;
}
