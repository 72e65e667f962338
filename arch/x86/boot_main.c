// SPDX-License-Identifier: BSD-2-Clause
/*
 * From the boot assembly to kernel_main on x86_64: the per-CPU base, the
 * console and the trap tables come first so that anything that goes
 * wrong afterwards is reported; then the loader's information and the
 * ACPI tables are read while the boot page tables still map them.
 */
#include <scion/boot.h>
#include <scion/cpu.h>
#include <scion/printk.h>
#include <scion/errno.h>
#include <arch/console.h>
#include <arch/init.h>
#include <arch/x86.h>
#include "x86_internal.h"

void kernel_main(void);

__init void arch_boot_main(uint32_t magic, uint32_t info_phys, uint64_t entry_cycles)
{
	cpu_init_boot();
	arch_console_init();
	idt_init();
	cpu_tables_load(cpu_by_index(0));
	boot_info.entry_cycles = entry_cycles;
	int err = boot_parse_loader_info(&boot_info, magic, info_phys);
	if (err) {
		printk("boot: cannot use the boot loader's information (protocol %s, magic 0x%x): %s\n",
		       boot_info.protocol, magic, errno_name(err));
		arch_halt_forever();
	}
	acpi_init();
	kernel_main();
}

__init void arch_mm_init(void)
{
	mmu_init();
}

__init void arch_irq_init(void)
{
	pic_disable();
	lapic_init_boot();
	lapic_init_cpu();
	cpu_by_index(0)->arch.apic_id = lapic_id();
	ioapic_init();
	trap_init_vectors();
	timer_calibrate();
}

void arch_print_machine(void)
{
	printk("machine: ACPI %s (OEM '%s'), %u CPU%s described, %u I/O APIC%s, power-off %s\n",
	       acpi.present ? "present" : "absent", acpi.oem_id, arch_cpus_present(),
	       arch_cpus_present() == 1 ? "" : "s", acpi.nioapics, acpi.nioapics == 1 ? "" : "s",
	       acpi.have_s5 && acpi.pm1a_cnt ? "via ACPI S5" : "unavailable");
}
