/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the boot loader told the kernel, in a loader-independent form.
 * Filled once by the boot code (boot/<arch>/) before kernel_main; read
 * only afterwards, so it needs no lock.
 */
#ifndef SCION_BOOT_H
#define SCION_BOOT_H

#include <scion/compiler.h>

enum boot_mem_type {
	BOOT_MEM_AVAILABLE = 1,
	BOOT_MEM_RESERVED = 2,
	BOOT_MEM_ACPI_RECLAIMABLE = 3,
	BOOT_MEM_ACPI_NVS = 4,
	BOOT_MEM_BAD = 5,
};

struct boot_mem_region {
	uint64_t base;
	uint64_t length;
	uint32_t type;		/* enum boot_mem_type; others kept as given */
};

struct boot_module {
	uint64_t phys_start;
	uint64_t phys_end;	/* exclusive */
	char cmdline[96];
};

#define BOOT_MAX_MEM_REGIONS 64
#define BOOT_MAX_MODULES     48
#define BOOT_CMDLINE_MAX     512

struct boot_info {
	char protocol[16];		/* "multiboot2", "multiboot1" */
	char loader_name[64];
	char cmdline[BOOT_CMDLINE_MAX];
	bool cmdline_truncated;
	struct boot_mem_region mem[BOOT_MAX_MEM_REGIONS];
	unsigned nmem;
	unsigned mem_dropped;		/* regions beyond BOOT_MAX_MEM_REGIONS */
	struct boot_module modules[BOOT_MAX_MODULES];
	unsigned nmodules;
	unsigned modules_dropped;
	uint8_t rsdp[36];		/* copy of the ACPI RSDP, if found */
	bool have_rsdp;
	uint64_t entry_cycles;		/* cycle counter at the first instruction */
};

extern struct boot_info boot_info;

/*
 * Boot phases: boot_phase_done("mm") stamps the cycle counter at the end
 * of a phase; `bench` reports each phase's length (boot.PHASE figures).
 */
#define BOOT_MAX_PHASES 12

struct boot_phase {
	const char *name;
	uint64_t cycles;
};

void boot_phase_done(const char *name);

/*
 * boot_module_name - a module's file name: its command line's first
 *   word without directories ("build/grafts/clock.graft trusted" ->
 *   "clock.graft"), copied into buf (truncated to size - 1).
 * Caller's context: any.
 */
void boot_module_name(const struct boot_module *m, char *buf, size_t size);

/*
 * boot_module_is_profile_config - whether module m is a profile
 *   configuration for the monitor (its file name ends in ".cfg"), which
 *   kernel/monitor/ loads, rather than a graft, which kernel/graft/ does.
 * Caller's context: any.
 */
bool boot_module_is_profile_config(const struct boot_module *m);

/*
 * boot_module_is_program_archive - whether module m is a program archive
 *   (its file name ends in ".cpio": a cpio newc archive of the programs
 *   user processes run), which kernel/fs/archive.c loads.
 * Caller's context: any.
 */
bool boot_module_is_program_archive(const struct boot_module *m);

/*
 * boot_module_is_anonymous_trace - whether module m is a D program for
 *   anonymous tracing (its file name ends in ".anon": dtc's output for
 *   it), which kernel/trace/anon.c enables at boot.
 * Caller's context: any.
 */
bool boot_module_is_anonymous_trace(const struct boot_module *m);
/* The recorded phases, in order; returns their number. */
unsigned boot_phases(const struct boot_phase **phases);

/*
 * Parse the boot loader's information into *bi.
 * Return value: 0, or -EINVAL when magic is not a protocol this kernel
 *   knows or the information is malformed (bi->protocol then says why).
 * Caller's context: early boot, one CPU, the loader's memory still mapped.
 */
int boot_parse_loader_info(struct boot_info *bi, uint32_t magic, uint64_t info_phys);

#endif
