// SPDX-License-Identifier: BSD-2-Clause
/*
 * The sparc64 machine's bring-up, from _start (boot/entry.S) on:
 *  1. the console (the UART; polled);
 *  2. the boot arguments from OpenBIOS (QEMU's -append), the last thing
 *     asked of the firmware, applied by the portable boot option parser
 *     (kernel/core/bootopt.c);
 *  3. the kernel's own trap table (window traps, MMU misses, faults);
 *  4. the boot CPU's struct cpu, the pvpanic device (a panic's exit
 *     status), the tick timer;
 *  5. interrupts on; then the self-checks when the boot arguments say
 *     `selftest=all|panic|spill32|tl2`, else the console (no shell on
 *     sparc64 yet: it echoes lines and knows `poweroff`).
 * kernel_main (kernel/core/main.c) does not run here yet: arch.mk says
 * which of the portable core's sources the port builds so far.
 */
#include <scion/bootopt.h>
#include <scion/errno.h>
#include <scion/string.h>
#include <scion/version.h>

#include "sparc64_internal.h"

__noreturn void sparc64_boot_main(void *cif);

static char bootargs[256];

/* `selftest=WHICH` (the only boot option the port has yet): which self-checks to run. */
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

static void report_boot_option(const char *msg)
{
	early_printf("%s\n", msg);
}

/* No shell yet: read lines, echo them, power off on `poweroff`. */
static __noreturn void console_loop(void)
{
	char line[128];
	size_t n = 0;

	early_printf("console: no shell on sparc64 yet; lines are echoed, `poweroff` ends\nsparc64> ");
	for (;;) {
		int c = serial_getc_poll();
		if (c < 0)
			continue;
		if (c == '\r' || c == '\n') {
			line[n] = '\0';
			early_printf("\n");
			if (!strcmp(line, "poweroff"))
				power_off();
			if (n)
				early_printf("echo: %s\n", line);
			early_printf("sparc64> ");
			n = 0;
		} else if ((c == 8 || c == 127) && n) {
			n--;
			early_printf("\b \b");
		} else if (c >= ' ' && c < 127 && n + 1 < sizeof(line)) {
			line[n++] = (char)c;
			serial_putc((char)c);
		}
	}
}

__noreturn void sparc64_boot_main(void *cif)
{
	serial_init();
	early_printf("\nScion %s (%s): sparc64 on sun4u, entered from OpenBIOS\n", scion_version,
		     scion_build_info);
	ofw_bootargs(cif, bootargs, sizeof(bootargs));
	early_printf("boot: arguments '%s'\n", bootargs);
	bootopt_apply(bootargs, __start_table_boot_options, LINKER_TABLE_COUNT(boot_options),
		      report_boot_option);
	sparc64_trap_init();
	sparc64_cpu_bringup();
	power_init();
	timer_init();
	wrpr_pstate(PSTATE_KERNEL | PSTATE_IE);
	if (selftest_which[0])
		selftest_run(selftest_which);
	console_loop();
}
