// SPDX-License-Identifier: BSD-2-Clause
/* Shell commands about the machine and the kernel's own state. */
#include <scion/shell.h>
#include <scion/vfs.h>
#include <scion/printk.h>
#include <scion/cpu.h>
#include <scion/sched.h>
#include <scion/graft.h>
#include <scion/mm.h>
#include <arch/mmu.h>
#include <scion/boot.h>
#include <scion/bootopt.h>
#include <scion/clock.h>
#include <scion/console.h>
#include <scion/errno.h>
#include <scion/format.h>
#include <scion/version.h>
#include <arch/power.h>
#include <arch/timer.h>

static bool no_arguments(int argc, char **argv)
{
	if (argc == 1)
		return true;
	printk("%s: takes no arguments\n", argv[0]);
	return false;
}

static int cmd_cpus(int argc, char **argv)
{
	if (!no_arguments(argc, argv))
		return -EINVAL;
	unsigned n = cpu_count();
	uint64_t hz = arch_cycles_per_second();
	printk("%u CPU%s online, cycle counter %llu.%03llu MHz\n", n, n == 1 ? "" : "s",
	       (unsigned long long)(hz / 1000000), (unsigned long long)(hz / 1000 % 1000));
	printk("  cpu  hw-id  ticks      idle%%  interrupts  xcalls    current\n");
	for (unsigned i = 0; i < n; i++) {
		struct cpu *c = cpu_by_index(i);
		uint64_t ticks = READ_ONCE(c->ticks), idle = READ_ONCE(c->idle_ticks);
		struct thread *cur = READ_ONCE(c->current);
		printk("  %-4u %-6u %-10llu %-6llu %-11llu %-9llu %s\n", i, arch_cpu_hw_id(&c->arch),
		       (unsigned long long)ticks,
		       (unsigned long long)(ticks ? idle * 100 / ticks : 100),
		       (unsigned long long)READ_ONCE(c->interrupts),
		       (unsigned long long)READ_ONCE(c->xcalls), cur ? cur->name : "-");
	}
	return 0;
}
SHELL_COMMAND(cpus, "", "list the CPUs and what they are doing", cmd_cpus);

static void print_thread(struct thread *t, void *arg)
{
	(void)arg;
	char affinity[8];
	if (t->se.affinity < 0)
		snprintf(affinity, sizeof(affinity), "any");
	else
		snprintf(affinity, sizeof(affinity), "%d", t->se.affinity);
	printk("  %-5llu %-23s %-9s %-4u %-8s %-9llu %llu\n", (unsigned long long)t->tid, t->name,
	       t->is_idle ? "idle" : thread_state_name(t->state), t->cpu ? t->cpu->index : 0,
	       affinity, (unsigned long long)t->se.ticks_run, (unsigned long long)t->se.switches_in);
}

static int cmd_threads(int argc, char **argv)
{
	if (!no_arguments(argc, argv))
		return -EINVAL;
	printk("  tid   name                    state     cpu  affinity ticks     switches\n");
	thread_foreach(print_thread, NULL);
	printk("scheduling policy: round robin%s\n",
	       graft_point_grafted("sched.pick_next") || graft_point_grafted("sched.tick") ?
	       ", with grafts at its points (`graft list`)" : "");
	return 0;
}
SHELL_COMMAND(threads, "", "list the threads", cmd_threads);

static const char *mem_type_name(uint32_t type)
{
	switch (type) {
	case BOOT_MEM_AVAILABLE: return "available";
	case BOOT_MEM_RESERVED: return "reserved";
	case BOOT_MEM_ACPI_RECLAIMABLE: return "ACPI data";
	case BOOT_MEM_ACPI_NVS: return "ACPI NVS";
	case BOOT_MEM_BAD: return "bad";
	}
	return "other";
}

static int cmd_mem(int argc, char **argv)
{
	if (!no_arguments(argc, argv))
		return -EINVAL;
	struct pmm_stats ps;
	struct kmalloc_stats ks;
	pmm_get_stats(&ps);
	kmalloc_get_stats(&ks);
	printk("physical: %llu KiB managed, %llu KiB free\n",
	       (unsigned long long)(ps.managed_pages * PAGE_SIZE >> 10),
	       (unsigned long long)(ps.free_pages * PAGE_SIZE >> 10));
	printk("kernel page tables: %zu KiB (kept for good)\n",
	       arch_kernel_table_pages() * (size_t)PAGE_SIZE >> 10);
	printk("  free blocks by order:");
	for (unsigned o = 0; o <= PMM_MAX_ORDER; o++)
		printk(" %llu", (unsigned long long)ps.free_blocks[o]);
	printk("\nheap: %llu bytes in use, %llu allocations, %llu frees, %llu slab pages, "
	       "%llu large pages\n", (unsigned long long)ks.bytes_in_use,
	       (unsigned long long)ks.allocs, (unsigned long long)ks.frees,
	       (unsigned long long)ks.slab_pages, (unsigned long long)ks.large_pages);
	printk("memory map (%s):\n", boot_info.protocol);
	for (unsigned i = 0; i < boot_info.nmem; i++) {
		const struct boot_mem_region *r = &boot_info.mem[i];
		printk("  0x%012llx-0x%012llx %s\n", (unsigned long long)r->base,
		       (unsigned long long)(r->base + r->length - 1), mem_type_name(r->type));
	}
	return 0;
}
SHELL_COMMAND(mem, "", "physical memory, heap and the boot memory map", cmd_mem);

static int cmd_poweroff(int argc, char **argv)
{
	if (!no_arguments(argc, argv))
		return -EINVAL;
	/* The file systems' data and metadata reach their disks first (an unmount's sync). */
	int err = vfs_sync_all();
	if (err)
		printk("poweroff: sync: %s (written data may be lost)\n", errno_name(err));
	printk("powering off\n");
	arch_poweroff();
	return -EIO;
}
SHELL_COMMAND(poweroff, "", "turn the machine off (QEMU exits with status 0)", cmd_poweroff);

static int cmd_bootopts(int argc, char **argv)
{
	if (!no_arguments(argc, argv))
		return -EINVAL;
	printk("command line: '%s'\n", boot_info.cmdline);
	LINKER_TABLE_FOREACH(struct boot_option, boot_options, o)
		printk("  %s=%-20s %s\n", o->name, o->values, o->help);
	return 0;
}
SHELL_COMMAND(bootopts, "", "the boot command line and the options it may set", cmd_bootopts);

static int cmd_version(int argc, char **argv)
{
	if (!no_arguments(argc, argv))
		return -EINVAL;
	printk("Scion %s (%s)\n", scion_version, scion_build_info);
	return 0;
}
SHELL_COMMAND(version, "", "the kernel's version and build", cmd_version);

static int cmd_console(int argc, char **argv)
{
	if (!no_arguments(argc, argv))
		return -EINVAL;
	printk("console input bytes dropped (queue full): %llu\n",
	       (unsigned long long)console_input_dropped());
	return 0;
}
SHELL_COMMAND(console, "", "console input statistics", cmd_console);
