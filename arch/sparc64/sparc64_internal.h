/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the sparc64 port's files call in one another: the early console,
 * the boot-time firmware calls, the trap setup, the tick timer and the
 * console's input poll, the mappings' set-up, power-off (panic is the
 * core's, kernel/core/printk.c), the window-walking backtrace of the trap
 * report and the boot self-checks. Not part of the arch contract
 * (arch/sparc64/include/arch/).
 */
#ifndef SPARC64_INTERNAL_H
#define SPARC64_INTERNAL_H

#include <scion/compiler.h>
#include <scion/printk.h>
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

/* The trap frame trap_entry.S builds: struct trap_frame in <arch/trap.h>. */
#include <arch/trap.h>

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
void sparc64_backtrace_print(uint64_t pc, uint64_t sp);
/* switch.S: every caller's register window written to its save area. */
void sparc64_flush_windows(void);
/* The symbolized name (function+0xoff) of the first frame, for checks. */
const char *backtrace_symbolize(uint64_t pc, char *buf, size_t size);

/* timer.c: %tick / %tick_cmpr at TIMER_HZ, interrupt level 14. */
#define TIMER_HZ 100
void timer_init(void);
void timer_interrupt(void);
uint64_t timer_ticks(void);
uint64_t tick_freq(void);
void sparc64_timer_core_clock(void);
bool sparc64_timer_core(void);	/* whether the core's clock runs */
/* serial.c: received bytes to the core's console (console_input_byte), from the tick. */
void sparc64_console_poll(void);
/* channel.c: the control channel's receiver drained, from the tick (no device interrupts yet). */
void sparc64_channel_poll(void);
/* phys_probe.S: the byte at physical pa (ASI 0x15), or -1 when the access faults. */
int sparc64_phys_probe8(uint64_t pa);

/* power.c */
__noreturn void power_off(void);

/* pci.c: configuration space behind the sabre host bridge. */
uint32_t pci_cfg_read32(unsigned bus, unsigned dev, unsigned fn, unsigned reg);
void pci_cfg_write32(unsigned bus, unsigned dev, unsigned fn, unsigned reg, uint32_t v);
uint16_t pci_cfg_read16(unsigned bus, unsigned dev, unsigned fn, unsigned reg);
void pci_cfg_write16(unsigned bus, unsigned dev, unsigned fn, unsigned reg, uint16_t v);
#define PCI_MEM_BASE 0x1ff00000000ull	/* PCI memory space, physical */

/* mmu.c */
void sparc64_mm_set_ram_top(uint64_t top);
void sparc64_mm_arch_init(void);

/* boot/ofw.c: the RAM regions of /memory's `reg` (before trap_init only). */
int ofw_memory(void *cif, uint64_t (*regions)[2], int max);

/* selftest.c: the boot self-checks (boot argument `selftest`). */
void selftest_run(const char *which);

#endif
