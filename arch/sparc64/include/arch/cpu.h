/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The arch interface for the executing CPU on sparc64 (UltraSPARC):
 * interrupt masking (PSTATE.IE), idling, spinning, barriers and the cycle
 * counter (%tick). Same contract as arch/x86/include/arch/cpu.h.
 * UltraSPARC has no instruction that waits for an interrupt: arch_idle
 * enables interrupts and returns, and the caller's idle loop spins.
 */
#ifndef ARCH_CPU_H
#define ARCH_CPU_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

typedef uint64_t irqflags_t;	/* PSTATE */

#define ARCH_PSTATE_IE 0x002ul

static inline irqflags_t arch_read_pstate(void)
{
	irqflags_t f;
	__asm__ __volatile__("rdpr %%pstate, %0" : "=r"(f));
	return f;
}

/* Mask interrupts on this CPU and return the previous state. */
static inline irqflags_t arch_irq_save(void)
{
	irqflags_t f = arch_read_pstate();
	/* wrpr writes rs1 XOR rs2: clear IE by value, never toggle it. */
	__asm__ __volatile__("wrpr %0, 0, %%pstate" : : "r"(f & ~ARCH_PSTATE_IE) : "memory");
	return f;
}

static inline void arch_irq_restore(irqflags_t f)
{
	if (f & ARCH_PSTATE_IE)
		__asm__ __volatile__("wrpr %0, 0, %%pstate"
				     : : "r"(arch_read_pstate() | ARCH_PSTATE_IE) : "memory");
}

/* Whether flags (from arch_irq_save) had interrupts enabled. */
static inline bool arch_irq_flags_enabled(irqflags_t f)
{
	return (f & ARCH_PSTATE_IE) != 0;
}

static inline void arch_irq_enable(void)
{
	__asm__ __volatile__("wrpr %0, 0, %%pstate"
			     : : "r"(arch_read_pstate() | ARCH_PSTATE_IE) : "memory");
}

static inline void arch_irq_disable(void)
{
	__asm__ __volatile__("wrpr %0, 0, %%pstate"
			     : : "r"(arch_read_pstate() & ~ARCH_PSTATE_IE) : "memory");
}

static inline bool arch_irqs_enabled(void)
{
	return (arch_read_pstate() & ARCH_PSTATE_IE) != 0;
}

/* Enable interrupts; no wait-for-interrupt instruction exists: return. */
static inline void arch_idle(void)
{
	arch_irq_enable();
}

/* Spin with interrupts masked, forever. */
static inline __attribute__((noreturn)) void arch_halt_forever(void)
{
	arch_irq_disable();
	for (;;)
		__asm__ __volatile__("" ::: "memory");
}

/* Spin-wait hint: none on UltraSPARC; a compiler barrier keeps the loop honest. */
/* A breakpoint trap here (DTrace's breakpoint()): software trap 1. */
static inline void arch_debug_trap(void)
{
	__asm__ __volatile__("ta 1" ::: "memory");
}

static inline void cpu_relax(void)
{
	__asm__ __volatile__("" ::: "memory");
}

/* Full barrier between this CPU's memory accesses. */
static inline void smp_mb(void)
{
	__asm__ __volatile__("membar #StoreLoad | #StoreStore | #LoadStore | #LoadLoad"
			     ::: "memory");
}

/* Cycle counter: %tick (bit 63, NPT, is not part of the count). */
static inline uint64_t arch_cycles(void)
{
	uint64_t v;
	__asm__ __volatile__("rd %%tick, %0" : "=r"(v));
	return v & ~(1ul << 63);
}

/* Make this CPU discard prefetched instructions (flush synchronizes the pipeline). */
static inline void arch_sync_core(void)
{
	__asm__ __volatile__("flush %%g0\n\tmembar #Sync" ::: "memory");
}

/*
 * Make code just stored as data at [start, start + len) what this CPU
 * fetches (a loaded graft's text). SPARC V9 guarantees that only after a
 * flush of each doubleword written (UltraSPARC I/II do not keep the
 * I-cache coherent with stores); start must be mapped.
 */
#define ARCH_FLUSH_GRANULE 8u
static inline void arch_sync_code_range(uintptr_t start, size_t len)
{
	uintptr_t end = start + len;
	for (uintptr_t a = start & ~(uintptr_t)(ARCH_FLUSH_GRANULE - 1); a < end; a += ARCH_FLUSH_GRANULE)
		__asm__ __volatile__("flush %0" :: "r"(a) : "memory");
	__asm__ __volatile__("membar #Sync" ::: "memory");
}

#endif
