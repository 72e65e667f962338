/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The arch interface for the executing CPU: interrupt masking, idling,
 * spinning, barriers and the cycle counter.
 */
#ifndef ARCH_CPU_H
#define ARCH_CPU_H

#include <arch/x86.h>
#include <stdbool.h>
#include <stddef.h>

typedef uint64_t irqflags_t;

/* Mask interrupts on this CPU and return the previous state. */
static inline irqflags_t arch_irq_save(void)
{
	irqflags_t f = read_rflags();
	__asm__ __volatile__("cli" ::: "memory");
	return f;
}

static inline void arch_irq_restore(irqflags_t f)
{
	if (f & RFLAGS_IF)
		__asm__ __volatile__("sti" ::: "memory");
}

/* Whether flags (from arch_irq_save) had interrupts enabled. */
static inline bool arch_irq_flags_enabled(irqflags_t f)
{
	return (f & RFLAGS_IF) != 0;
}

static inline void arch_irq_enable(void)
{
	__asm__ __volatile__("sti" ::: "memory");
}

static inline void arch_irq_disable(void)
{
	__asm__ __volatile__("cli" ::: "memory");
}

static inline bool arch_irqs_enabled(void)
{
	return (read_rflags() & RFLAGS_IF) != 0;
}

/*
 * Enable interrupts and wait for one, atomically: sti's one-instruction
 * shadow means no interrupt can slip in between sti and hlt.
 */
static inline void arch_idle(void)
{
	__asm__ __volatile__("sti; hlt" ::: "memory");
}

/* Halt with interrupts masked, forever (NMIs excepted). */
static inline __attribute__((noreturn)) void arch_halt_forever(void)
{
	for (;;)
		__asm__ __volatile__("cli; hlt" ::: "memory");
}

/*
 * Spin-wait hint. Besides saving power on hardware, pause makes a vCPU
 * under QEMU's single-threaded TCG yield to the next vCPU, so spin loops
 * must call it.
 */
/* A breakpoint trap here (DTrace's breakpoint()): the trap handler reports it. */
static inline void arch_debug_trap(void)
{
	__asm__ __volatile__("int3" ::: "memory");
}

static inline void cpu_relax(void)
{
	__asm__ __volatile__("pause" ::: "memory");
}

/* Full barrier between this CPU's memory accesses. */
static inline void smp_mb(void)
{
	__asm__ __volatile__("mfence" ::: "memory");
}

/* Cycle counter: the TSC (under QEMU -icount shift=0 it counts instructions). */
static inline uint64_t arch_cycles(void)
{
	return rdtsc();
}

/* Make this CPU discard prefetched and cached instructions. */
static inline void arch_sync_core(void)
{
	serialize_cpu();
}

/*
 * Make code just stored as data at [start, start + len) what this CPU
 * fetches (a loaded graft's text): x86 keeps its instruction caches
 * coherent with stores, so serializing is enough.
 */
static inline void arch_sync_code_range(uintptr_t start, size_t len)
{
	(void)start;
	(void)len;
	serialize_cpu();
}

#endif
