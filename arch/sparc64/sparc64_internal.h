/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the sparc64 port's files call in one another: the early console,
 * the boot-time firmware calls, the trap frame and trap setup, the tick
 * timer, power-off and panic, the window-walking backtrace and the boot
 * self-checks. Not part of the arch contract (arch/sparc64/include/arch/).
 */
#ifndef SPARC64_INTERNAL_H
#define SPARC64_INTERNAL_H

#include <scion/compiler.h>
#include <stdarg.h>

#include "sparc64.h"

/* serial.c: the on-board 16550 UART, polled, through ASI 0x15. */
void serial_init(void);
void serial_putc(char c);
int serial_getc_poll(void);	/* a received byte, or -1 */
void early_printf(const char *fmt, ...) __printf(1, 2);
void early_vprintf(const char *fmt, va_list ap);

/* boot/ofw.c: the boot arguments from /chosen (before trap_init only). */
int ofw_bootargs(void *cif, char *buf, size_t size);

/*
 * The trap frame trap_entry.S builds on the kernel stack for every trap
 * that reaches C (offsets are TF_* in trap_entry.S: keep them in step).
 */
struct trap_frame {
	uint64_t tstate, tpc, tnpc, tt;		/* 0, 8, 16, 24 */
	uint64_t tl;				/* 32: TL at the trap */
	uint64_t fault_addr;			/* 40: SFAR / tag access / 0 */
	uint64_t y;				/* 48 */
	uint64_t g[8];				/* 56: %g0 (unused) .. %g7 */
	uint64_t sp;				/* 120: the interrupted %sp (biased) */
	uint64_t outer_tt, outer_tpc;		/* 128, 136: TL 1's, when tl > 1 */
};

/* mmu.c */
void mmu_lock_kernel(void);

/* power.c */
void power_init(void);

/* trap.c */
void sparc64_trap_init(void);
void trap_handler(struct trap_frame *tf);	/* from trap_entry.S, at TL 0 */
/*
 * A recoverable fault: when a fault's TPC is `pc`, trap.c prints the
 * report, calls the hook with the frame, and resumes at `resume`.
 */
void trap_set_fixup(uint64_t pc, uint64_t resume, void (*hook)(const struct trap_frame *tf));
extern char trap_table[];

/* stack_walk.c: flush the windows, then walk %fp + 2047. */
void backtrace_print(uint64_t pc, uint64_t sp);
/* The symbolized name (function+0xoff) of the first frame, for checks. */
const char *backtrace_symbolize(uint64_t pc, char *buf, size_t size);

/* timer.c: %tick / %tick_cmpr at TIMER_HZ, interrupt level 14. */
#define TIMER_HZ 100
void timer_init(void);
void timer_interrupt(void);
uint64_t timer_ticks(void);
uint64_t tick_freq(void);

/* power.c */
__noreturn void power_off(void);
__noreturn void panic(const char *fmt, ...) __printf(1, 2);

/* pci.c: configuration space behind the sabre host bridge. */
uint32_t pci_cfg_read32(unsigned bus, unsigned dev, unsigned fn, unsigned reg);
void pci_cfg_write32(unsigned bus, unsigned dev, unsigned fn, unsigned reg, uint32_t v);
uint16_t pci_cfg_read16(unsigned bus, unsigned dev, unsigned fn, unsigned reg);
void pci_cfg_write16(unsigned bus, unsigned dev, unsigned fn, unsigned reg, uint16_t v);
#define PCI_MEM_BASE 0x1ff00000000ull	/* PCI memory space, physical */

/* smp.c: the boot CPU's struct cpu, until kernel/smp/cpu.c is built. */
void sparc64_cpu_bringup(void);

/* selftest.c: the boot self-checks (boot argument `selftest`). */
void selftest_run(const char *which);

#endif
