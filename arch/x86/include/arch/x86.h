/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * x86_64 instructions and registers as inline functions. This header is
 * for arch/x86 and the interface headers under arch/ only; portable code
 * uses the interface headers (arch/cpu.h and the others).
 */
#ifndef ARCH_X86_H
#define ARCH_X86_H

#include <stdint.h>

#define RFLAGS_RESERVED (1ull << 1)	/* always set */
#define RFLAGS_IF      (1ull << 9)

#define CR0_WP         (1ull << 16)
#define CR0_PG         (1ull << 31)
#define CR4_PAE        (1ull << 5)
#define CR4_PGE        (1ull << 7)

#define MSR_EFER       0xc0000080
#define EFER_LME       (1ull << 8)
#define EFER_NXE       (1ull << 11)
#define MSR_FS_BASE    0xc0000100
#define MSR_GS_BASE    0xc0000101
#define MSR_KERNEL_GS_BASE 0xc0000102
#define MSR_APIC_BASE  0x1b

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ __volatile__("outb %0, %1" :: "a"(v), "Nd"(port));
}

static inline void outw(uint16_t port, uint16_t v)
{
	__asm__ __volatile__("outw %0, %1" :: "a"(v), "Nd"(port));
}

static inline void outl(uint16_t port, uint32_t v)
{
	__asm__ __volatile__("outl %0, %1" :: "a"(v), "Nd"(port));
}

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;
	__asm__ __volatile__("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline uint16_t inw(uint16_t port)
{
	uint16_t v;
	__asm__ __volatile__("inw %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline uint32_t inl(uint16_t port)
{
	uint32_t v;
	__asm__ __volatile__("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ __volatile__("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ __volatile__("wrmsr" :: "c"(msr), "a"((uint32_t)v),
			     "d"((uint32_t)(v >> 32)));
}

/*
 * The halves as 64-bit outputs: in 64-bit mode rdtsc zero-extends each
 * into its full register, so no instruction masks the low half again.
 */
static inline uint64_t rdtsc(void)
{
	uint64_t lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return hi << 32 | lo;
}

static inline void cpuid(uint32_t leaf, uint32_t sub, uint32_t *a, uint32_t *b,
			 uint32_t *c, uint32_t *d)
{
	__asm__ __volatile__("cpuid"
			     : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d)
			     : "a"(leaf), "c"(sub));
}

#define DEFINE_CR_ACCESS(n) \
static inline uint64_t read_cr##n(void) \
{ \
	uint64_t v; \
	__asm__ __volatile__("mov %%cr" #n ", %0" : "=r"(v)); \
	return v; \
} \
static inline void write_cr##n(uint64_t v) \
{ \
	__asm__ __volatile__("mov %0, %%cr" #n :: "r"(v) : "memory"); \
}
DEFINE_CR_ACCESS(0)
DEFINE_CR_ACCESS(2)
DEFINE_CR_ACCESS(3)
DEFINE_CR_ACCESS(4)
#undef DEFINE_CR_ACCESS

static inline void invlpg(uintptr_t va)
{
	__asm__ __volatile__("invlpg (%0)" :: "r"(va) : "memory");
}

static inline uint64_t read_rflags(void)
{
	uint64_t f;
	__asm__ __volatile__("pushfq; popq %0" : "=r"(f) :: "memory");
	return f;
}

/* cpuid is the architecturally serializing instruction usable at CPL0 everywhere. */
static inline void serialize_cpu(void)
{
	uint32_t a, b, c, d;
	cpuid(0, 0, &a, &b, &c, &d);
}

#endif
