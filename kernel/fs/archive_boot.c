// SPDX-License-Identifier: BSD-2-Clause
/*
 * The program archive at boot: every boot module whose name ends in
 * ".cpio" (boot_module_is_program_archive), read where the boot loader
 * put it (mm keeps modules) through the direct map, in the order given,
 * becomes the tree of scion/archive.h (archive.c builds it).
 */
#include <scion/archive.h>
#include <scion/boot.h>
#include <arch/mmu.h>
#include "archive_internal.h"

_Static_assert(ARCHIVE_MAX_MODULES >= BOOT_MAX_MODULES, "room for every boot module");

void archive_init(void)
{
	static struct archive_module mods[ARCHIVE_MAX_MODULES];
	static char names[ARCHIVE_MAX_MODULES][sizeof(boot_info.modules[0].cmdline)];
	unsigned n = 0;

	for (unsigned i = 0; i < boot_info.nmodules && n < ARCHIVE_MAX_MODULES; i++) {
		const struct boot_module *m = &boot_info.modules[i];
		if (!boot_module_is_program_archive(m))
			continue;
		boot_module_name(m, names[n], sizeof(names[n]));
		mods[n] = (struct archive_module){ .name = names[n],
			.bytes = phys_to_virt(m->phys_start), .size = m->phys_end - m->phys_start };
		n++;
	}
	if (n)
		archive_build(mods, n);
}
