// SPDX-License-Identifier: BSD-2-Clause
/*
 * kernel_main: the portable start of the kernel, entered from the arch
 * boot code on the boot CPU with interrupts masked and the console,
 * trap tables and boot information ready.
 *
 * Order: boot options (they may change what follows), memory, the
 * symbol table check, interrupt controllers and timers, the scheduler;
 * then the boot context becomes CPU 0's idle thread, and the init thread
 * starts the other CPUs, finds the devices (their interrupts may go to
 * any CPU), then console input, and the shell or the tests.
 */
#include <scion/archive.h>
#include <scion/vfs.h>
#include <scion/boot.h>
#include <scion/bootopt.h>
#include <scion/printk.h>
#include <scion/mm.h>
#include <scion/symtab.h>
#include <scion/sched.h>
#include <scion/clock.h>
#include <scion/cpu.h>
#include <scion/shell.h>
#include <scion/ktest.h>
#include <scion/version.h>
#include <scion/textimage.h>
#include <scion/errno.h>
#include <scion/dev.h>
#include <scion/bcache.h>
#include <scion/dnlc.h>
#include <scion/channel.h>
#include <scion/graft.h>
#include <scion/monitor.h>
#include <scion/trace.h>
#include <arch/init.h>
#include <arch/smp.h>
#include <arch/console.h>
#include <arch/cpu.h>

struct boot_info boot_info;
static struct boot_phase phases[BOOT_MAX_PHASES];
static unsigned nphases;

void boot_phase_done(const char *name)
{
	if (nphases < BOOT_MAX_PHASES)
		phases[nphases++] = (struct boot_phase){ name, arch_cycles() };
}

unsigned boot_phases(const struct boot_phase **out)
{
	*out = phases;
	return nphases;
}

static void report_boot_option(const char *msg)
{
	printk("%s\n", msg);
}

static void init_main(void *arg)
{
	(void)arg;
	unsigned n = arch_smp_boot();
	boot_phase_done("smp");
	printk("smp: %u of %u CPU%s online\n", n, arch_cpus_present(),
	       arch_cpus_present() == 1 ? "" : "s");
	dev_init();
	bcache_init();
	dnlc_init();
	boot_phase_done("devices");
	arch_console_enable_input();
	graft_init();
	monitor_config_boot();
	trace_anon_boot();
	archive_init();
	vfs_init();
	channel_init();
	if (ktest_boot_requested())
		ktest_boot_run();
	if (thread_spawn("shell", shell_main, NULL, -1))
		panic("cannot start the shell thread");
}

void kernel_main(void)
{
	printk("\nScion %s booting (%s from '%s')\n", scion_version, boot_info.protocol,
	       boot_info.loader_name[0] ? boot_info.loader_name : "unknown loader");
	printk("command line: '%s'%s\n", boot_info.cmdline,
	       boot_info.cmdline_truncated ? " (truncated)" : "");
	if (boot_info.mem_dropped || boot_info.modules_dropped)
		printk("boot: %u memory regions and %u modules beyond the kernel's tables ignored\n",
		       boot_info.mem_dropped, boot_info.modules_dropped);
	bootopt_apply(boot_info.cmdline, __start_table_boot_options,
		      LINKER_TABLE_COUNT(boot_options), report_boot_option);

	boot_phase_done("early");
	mm_init();
	boot_phase_done("mm");
	if (text_image_init())
		printk("text: probes disabled: no trustworthy copy of the booted text\n");
	if (symtab_validate(&kernel_symtab))
		panic("the kernel symbol table is corrupt");
	printk("symbols: %u functions\n", kernel_symtab.count);
	arch_irq_init();
	boot_phase_done("interrupts_and_timers");
	sched_init();
	arch_print_machine();
	if (thread_spawn("init", init_main, NULL, -1))
		panic("cannot start the init thread");
	clock_start_cpu();
	sched_idle_loop();
}
