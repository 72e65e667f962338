// SPDX-License-Identifier: BSD-2-Clause
/*
 * The sparc64 machine's bring-up, from _start (boot/entry.S) to the
 * portable kernel_main (kernel/core/main.c):
 *  1. the console (the UART; polled) and the boot CPU's struct cpu
 *     (cpu_init_boot: this_cpu() works from here on);
 *  2. from OpenBIOS, the last things asked of the firmware: the boot
 *     arguments (QEMU's -append) and the RAM regions (/memory), into
 *     boot_info; the direct map's extent;
 *  3. the kernel's own trap table (window traps, MMU misses, faults);
 *  4. the pvpanic device (a panic's exit status);
 *  5. with `selftest=all|panic|spill32|tl2`, the machine layer's
 *     self-checks (selftest.c), which end the machine; else kernel_main,
 *     which applies every boot option (and reports the unknown ones),
 *     and calls back arch_mm_init, arch_irq_init and arch_print_machine.
 * The self-checks' own options are read early (step 5 comes before
 * kernel_main): `selftest` and `panic`, silently, from the same table.
 */
#include <scion/boot.h>
#include <scion/bootopt.h>
#include <scion/cpu.h>
#include <scion/errno.h>
#include <scion/string.h>
#include <scion/version.h>
#include <arch/init.h>
#include <arch/rtc.h>
#include <scion/calendar.h>
#include <arch/timer.h>

#include "sparc64_internal.h"

__init __noreturn void arch_boot_main(void *cif);
void kernel_main(void);

/* `selftest=WHICH`: which self-checks to run instead of the kernel. */
static char selftest_which[16];

static int parse_selftest(const char *value)
{
	if (strcmp(value, "all") && strcmp(value, "panic") && strcmp(value, "spill32") &&
	    strcmp(value, "tl2"))
		return -EINVAL;
	strlcpy(selftest_which, value, sizeof(selftest_which));
	return 0;
}
BOOT_OPTION(selftest, "all|panic|spill32|tl2", "run the machine layer's self-checks",
	    parse_selftest);

static void ignore_report(const char *msg)
{
	(void)msg;
}

/* The options the self-checks need before kernel_main: `selftest` and `panic`. */
static void early_options(void)
{
	struct boot_option early[2];
	size_t n = 0;

	LINKER_TABLE_FOREACH(struct boot_option, boot_options, o)
		if (n < 2 && (!strcmp(o->name, "selftest") || !strcmp(o->name, "panic")))
			early[n++] = *o;
	bootopt_apply(boot_info.cmdline, early, n, ignore_report);
}

/* 128 MB, QEMU's default for sun4u, if the firmware does not say. */
#define DEFAULT_RAM (128ull << 20)

static void memory_map(void *cif)
{
	uint64_t regions[8][2];
	int n = ofw_memory(cif, regions, 8);
	uint64_t top = 0;

	if (n <= 0) {
		regions[0][0] = 0;
		regions[0][1] = DEFAULT_RAM;
		n = 1;
		early_printf("boot: no /memory regions from OpenBIOS; assuming %llu MiB\n",
			     (unsigned long long)(DEFAULT_RAM >> 20));
	}
	for (int i = 0; i < n && boot_info.nmem < BOOT_MAX_MEM_REGIONS; i++) {
		boot_info.mem[boot_info.nmem++] = (struct boot_mem_region){
			regions[i][0], regions[i][1], BOOT_MEM_AVAILABLE };
		if (regions[i][0] + regions[i][1] > top)
			top = regions[i][0] + regions[i][1];
	}
	sparc64_mm_set_ram_top(top);
	early_printf("boot: %u RAM region%s from OpenBIOS, top 0x%llx\n", boot_info.nmem,
		     boot_info.nmem == 1 ? "" : "s", (unsigned long long)top);
}

__init __noreturn void arch_boot_main(void *cif)
{
	boot_info.entry_cycles = rd_tick();
	serial_init();
	cpu_init_boot();
	early_printf("\nScion %s (%s): sparc64 on sun4u, entered from OpenBIOS\n", scion_version,
		     scion_build_info);
	strlcpy(boot_info.protocol, "openfirmware", sizeof(boot_info.protocol));
	strlcpy(boot_info.loader_name, "OpenBIOS", sizeof(boot_info.loader_name));
	ofw_bootargs(cif, boot_info.cmdline, sizeof(boot_info.cmdline));
	memory_map(cif);
	early_options();
	sparc64_trap_init();
	power_init();
	if (selftest_which[0]) {
		timer_init();
		wrpr_pstate(PSTATE_KERNEL | PSTATE_IE);
		selftest_run(selftest_which);
	}
	kernel_main();
	panic("kernel_main returned");
}

void arch_mm_init(void)
{
	sparc64_mm_arch_init();
}

/* The only interrupt source is the %tick_cmpr timer; the core's clock starts it. */
void arch_irq_init(void)
{
	sparc64_timer_core_clock();
}

void arch_print_machine(void)
{
	char when[32];

	calendar_format((int64_t)arch_rtc_seconds(), when, sizeof(when));
	printk("machine: sun4u under OpenBIOS, 1 CPU, %%tick at %llu MHz, console on the "
	       "EBus UART (polled input), power-off via the power register, M48T59 clock %s\n",
	       (unsigned long long)(arch_cycles_per_second() / 1000000), when);
}
