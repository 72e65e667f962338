/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Statically defined probe sites on sparc64: each site is one `nop`
 * recorded with its name in the table.sdt_sites linker table (address,
 * name), the arguments placed in %o0..%o5 where a probe would read them.
 * No probe ever enables one yet (no splicer on sparc64: issue 25); the
 * nop costs one instruction. Same contract as arch/x86/include/arch/sdt.h.
 */
#ifndef ARCH_SDT_H
#define ARCH_SDT_H

#include <stdint.h>

#define ARCH_SDT_SITE_LEN 4

#define ARCH_SDT_ASM(name)							\
	"990: nop\n\t"								\
	".pushsection .rodata.sdt_names, \"a\"\n"				\
	"991: .asciz \"" name "\"\n\t"						\
	".popsection\n\t"							\
	".pushsection table.sdt_sites, \"a\"\n\t"				\
	".balign 8\n\t"								\
	".xword 990b, 991b\n\t"							\
	".popsection"

#define ARCH_SDT_PROBE0(name) __asm__ volatile(ARCH_SDT_ASM(name) ::)
#define ARCH_SDT_PROBE1(name, a0) do {						\
	register uint64_t sdt_r0 __asm__("o0") = (uint64_t)(a0);		\
	__asm__ volatile(ARCH_SDT_ASM(name) :: "r"(sdt_r0));			\
} while (0)
#define ARCH_SDT_PROBE2(name, a0, a1) do {					\
	uint64_t sdt_v0 = (uint64_t)(a0), sdt_v1 = (uint64_t)(a1);		\
	register uint64_t sdt_r0 __asm__("o0") = sdt_v0;			\
	register uint64_t sdt_r1 __asm__("o1") = sdt_v1;			\
	__asm__ volatile(ARCH_SDT_ASM(name) :: "r"(sdt_r0), "r"(sdt_r1));	\
} while (0)
#define ARCH_SDT_PROBE3(name, a0, a1, a2) do {					\
	uint64_t sdt_v0 = (uint64_t)(a0), sdt_v1 = (uint64_t)(a1);		\
	uint64_t sdt_v2 = (uint64_t)(a2);					\
	register uint64_t sdt_r0 __asm__("o0") = sdt_v0;			\
	register uint64_t sdt_r1 __asm__("o1") = sdt_v1;			\
	register uint64_t sdt_r2 __asm__("o2") = sdt_v2;			\
	__asm__ volatile(ARCH_SDT_ASM(name) ::					\
			 "r"(sdt_r0), "r"(sdt_r1), "r"(sdt_r2));		\
} while (0)
#define ARCH_SDT_PROBE5(name, a0, a1, a2, a3, a4) do {				\
	uint64_t sdt_v0 = (uint64_t)(a0), sdt_v1 = (uint64_t)(a1);		\
	uint64_t sdt_v2 = (uint64_t)(a2), sdt_v3 = (uint64_t)(a3);		\
	uint64_t sdt_v4 = (uint64_t)(a4);					\
	register uint64_t sdt_r0 __asm__("o0") = sdt_v0;			\
	register uint64_t sdt_r1 __asm__("o1") = sdt_v1;			\
	register uint64_t sdt_r2 __asm__("o2") = sdt_v2;			\
	register uint64_t sdt_r3 __asm__("o3") = sdt_v3;			\
	register uint64_t sdt_r4 __asm__("o4") = sdt_v4;			\
	__asm__ volatile(ARCH_SDT_ASM(name) :: "r"(sdt_r0), "r"(sdt_r1),	\
			 "r"(sdt_r2), "r"(sdt_r3), "r"(sdt_r4));		\
} while (0)
#define ARCH_SDT_PROBE6(name, a0, a1, a2, a3, a4, a5) do {			\
	uint64_t sdt_v0 = (uint64_t)(a0), sdt_v1 = (uint64_t)(a1);		\
	uint64_t sdt_v2 = (uint64_t)(a2), sdt_v3 = (uint64_t)(a3);		\
	uint64_t sdt_v4 = (uint64_t)(a4), sdt_v5 = (uint64_t)(a5);		\
	register uint64_t sdt_r0 __asm__("o0") = sdt_v0;			\
	register uint64_t sdt_r1 __asm__("o1") = sdt_v1;			\
	register uint64_t sdt_r2 __asm__("o2") = sdt_v2;			\
	register uint64_t sdt_r3 __asm__("o3") = sdt_v3;			\
	register uint64_t sdt_r4 __asm__("o4") = sdt_v4;			\
	register uint64_t sdt_r5 __asm__("o5") = sdt_v5;			\
	__asm__ volatile(ARCH_SDT_ASM(name) :: "r"(sdt_r0), "r"(sdt_r1),	\
			 "r"(sdt_r2), "r"(sdt_r3), "r"(sdt_r4), "r"(sdt_r5));	\
} while (0)

#endif
