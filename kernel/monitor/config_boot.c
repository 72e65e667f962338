// SPDX-License-Identifier: BSD-2-Clause
/*
 * Profile configurations given as boot modules (a module whose file
 * name ends in ".cfg": `scion run --profile-config FILE`, or a GRUB
 * `module2` line): each is loaded as `scion profile config load` would
 * load it, in the order given, and says so in one line on the console;
 * a refused one leaves the configuration before it in force. The
 * modules stay in memory the boot loader put them in (mm keeps them).
 */
#include <scion/boot.h>
#include <scion/monitor.h>
#include <scion/printk.h>
#include <arch/mmu.h>
#include "monitor_internal.h"

#define LINE_MAX_BYTES 256

void monitor_config_boot(void)
{
	char name[sizeof(boot_info.modules[0].cmdline)], line[LINE_MAX_BYTES];

	for (unsigned i = 0; i < boot_info.nmodules; i++) {
		const struct boot_module *m = &boot_info.modules[i];
		if (!boot_module_is_profile_config(m))
			continue;
		boot_module_name(m, name, sizeof(name));
		monitor_config_load(phys_to_virt(m->phys_start), m->phys_end - m->phys_start, line,
				    sizeof(line));
		printk("boot module %s: %s\n", name, line);
	}
}
