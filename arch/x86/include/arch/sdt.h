/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Static probe sites on x86-64 (see scion/sdt.h): a 5-byte no-op,
 * nopl 0x0(%rax,%rax,1), the size of the jmp rel32 that replaces it when
 * the probe is enabled, and an entry {site, name} in table.sdt_sites.
 * Arguments are forced into the first argument registers of the SysV ABI
 * (rdi, rsi, rdx, rcx, r8, r9), where trap_frame_arg() finds them; they are
 * evaluated into temporaries first, so computing one cannot clobber
 * another's register.
 */
#ifndef ARCH_SDT_H
#define ARCH_SDT_H

#include <stdint.h>

/* Bytes of the no-op at a site ({disp8} keeps the assembler from shortening it). */
#define ARCH_SDT_SITE_LEN 5

#define ARCH_SDT_ASM(name)							\
	"990: %{disp8%} nopl 0x0(%%rax,%%rax,1)\n\t"					\
	".pushsection .rodata.sdt_names, \"a\"\n"				\
	"991: .asciz \"" name "\"\n\t"						\
	".popsection\n\t"							\
	".pushsection table.sdt_sites, \"a\"\n\t"				\
	".balign 8\n\t"								\
	".quad 990b, 991b\n\t"							\
	".popsection"

/* name: the site's name as a string literal ("thread__switch", "monitor:redflag"). */
#define ARCH_SDT_PROBE0(name) __asm__ volatile(ARCH_SDT_ASM(name) ::)

#define ARCH_SDT_PROBE1(name, a0) do {						\
	uint64_t sdt_v0 = (uint64_t)(a0);					\
	register uint64_t sdt_r0 __asm__("rdi") = sdt_v0;			\
	__asm__ volatile(ARCH_SDT_ASM(name) :: "r"(sdt_r0));			\
} while (0)

#define ARCH_SDT_PROBE2(name, a0, a1) do {					\
	uint64_t sdt_v0 = (uint64_t)(a0), sdt_v1 = (uint64_t)(a1);		\
	register uint64_t sdt_r0 __asm__("rdi") = sdt_v0;			\
	register uint64_t sdt_r1 __asm__("rsi") = sdt_v1;			\
	__asm__ volatile(ARCH_SDT_ASM(name) :: "r"(sdt_r0), "r"(sdt_r1));	\
} while (0)

#define ARCH_SDT_PROBE3(name, a0, a1, a2) do {					\
	uint64_t sdt_v0 = (uint64_t)(a0), sdt_v1 = (uint64_t)(a1);		\
	uint64_t sdt_v2 = (uint64_t)(a2);					\
	register uint64_t sdt_r0 __asm__("rdi") = sdt_v0;			\
	register uint64_t sdt_r1 __asm__("rsi") = sdt_v1;			\
	register uint64_t sdt_r2 __asm__("rdx") = sdt_v2;			\
	__asm__ volatile(ARCH_SDT_ASM(name) ::					\
			 "r"(sdt_r0), "r"(sdt_r1), "r"(sdt_r2));		\
} while (0)

#define ARCH_SDT_PROBE5(name, a0, a1, a2, a3, a4) do {				\
	uint64_t sdt_v0 = (uint64_t)(a0), sdt_v1 = (uint64_t)(a1);		\
	uint64_t sdt_v2 = (uint64_t)(a2), sdt_v3 = (uint64_t)(a3);		\
	uint64_t sdt_v4 = (uint64_t)(a4);					\
	register uint64_t sdt_r0 __asm__("rdi") = sdt_v0;			\
	register uint64_t sdt_r1 __asm__("rsi") = sdt_v1;			\
	register uint64_t sdt_r2 __asm__("rdx") = sdt_v2;			\
	register uint64_t sdt_r3 __asm__("rcx") = sdt_v3;			\
	register uint64_t sdt_r4 __asm__("r8") = sdt_v4;			\
	__asm__ volatile(ARCH_SDT_ASM(name) :: "r"(sdt_r0), "r"(sdt_r1),	\
			 "r"(sdt_r2), "r"(sdt_r3), "r"(sdt_r4));		\
} while (0)

#define ARCH_SDT_PROBE6(name, a0, a1, a2, a3, a4, a5) do {			\
	uint64_t sdt_v0 = (uint64_t)(a0), sdt_v1 = (uint64_t)(a1);		\
	uint64_t sdt_v2 = (uint64_t)(a2), sdt_v3 = (uint64_t)(a3);		\
	uint64_t sdt_v4 = (uint64_t)(a4), sdt_v5 = (uint64_t)(a5);		\
	register uint64_t sdt_r0 __asm__("rdi") = sdt_v0;			\
	register uint64_t sdt_r1 __asm__("rsi") = sdt_v1;			\
	register uint64_t sdt_r2 __asm__("rdx") = sdt_v2;			\
	register uint64_t sdt_r3 __asm__("rcx") = sdt_v3;			\
	register uint64_t sdt_r4 __asm__("r8") = sdt_v4;			\
	register uint64_t sdt_r5 __asm__("r9") = sdt_v5;			\
	__asm__ volatile(ARCH_SDT_ASM(name) :: "r"(sdt_r0), "r"(sdt_r1),	\
			 "r"(sdt_r2), "r"(sdt_r3), "r"(sdt_r4), "r"(sdt_r5));	\
} while (0)

#endif
