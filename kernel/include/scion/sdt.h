/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Statically defined tracing: a named probe site compiled into the code.
 *
 *   SDT_PROBE2(thread__switch, prev->tid, next->tid);
 *
 * While disabled a site is one no-op instruction (the size of a jump, so
 * enabling it needs no analysis of the code around it) and its arguments
 * sit in registers; nothing else. Each site is recorded in a linker table;
 * the sdt provider names it sdt:kernel:<enclosing function>:<name>, with
 * a double underscore in name shown as '-' (thread__switch is
 * thread-switch), and all sites of one name in one function form one
 * probe. Enabling patches the no-op into a jump to a code patch that
 * calls the consumers; probe handlers read the arguments with
 * trap_frame_arg(hit->regs, n).
 *
 * Every probe's argument types are declared in scion/sdt_types.h; a
 * site whose arguments do not match them does not build, and D's
 * args[] of the probe has them.
 *
 * A subsystem that is a provider of its own names its sites with the
 * _P forms: SDT_PROBE5_P(monitor, redflag, ...) is the probe
 * monitor:kernel:<enclosing function>:redflag (`monitor:::redflag` in
 * D); the site's table entry is named "monitor:redflag".
 *
 * A gated site (SDT_GATED4_P, ...) is for a hot path whose arguments
 * cost loads the code would not otherwise do: DTrace's "zero cost while
 * disabled" taken further. The site's code tests a byte of its own
 * first, and evaluates its arguments and reaches the no-op only while
 * the byte is nonzero: the registry counts in it the enabled probes it
 * serves, adding one after a probe's sites are patched and taking it
 * away when its last consumer leaves (struct probe's gates). A gated
 * site in an inline function is a site, and a probe, in every function
 * it is inlined into, all behind the one byte. Disabled, such a site costs
 * the arch's test of the byte (arch_sdt_gate_open: a compare with memory
 * and a branch not taken, where the machine has one); enabled, the same
 * as any site.
 */
#ifndef SCION_SDT_H
#define SCION_SDT_H

#include <stdint.h>
#include <scion/compiler.h>
#include <scion/sdt_types.h>
#include <arch/sdt.h>

/*
 * A site: the arch's no-op (ARCH_SDT_NOP) and its {site, name, gate}
 * entry in table.sdt_sites; every asm below takes the gate's address (0:
 * none) as its operand sdt_gate. The arguments are evaluated into
 * temporaries first, so computing one cannot clobber another's register,
 * then bound to the arch's argument registers (ARCH_SDT_ARG_REGS), where
 * trap_frame_arg() finds them.
 */
#define SDT_ASM_(name)								\
	"990: " ARCH_SDT_NOP "\n\t"						\
	".pushsection .rodata.sdt_names, \"a\"\n"				\
	"991: .asciz \"" name "\"\n\t"						\
	".popsection\n\t"							\
	".pushsection table.sdt_sites, \"a\"\n\t"				\
	".balign 8\n\t"								\
	ARCH_SDT_XWORD " 990b, 991b, %c[sdt_gate]\n\t"				\
	".popsection"
#define SDT_GATE_OP_(gate) [sdt_gate] "i"(gate)

#define SDT_REG_(n, ...) SDT_REG_##n##_(__VA_ARGS__)
#define SDT_REG_0_(r0, ...) r0
#define SDT_REG_1_(r0, r1, ...) r1
#define SDT_REG_2_(r0, r1, r2, ...) r2
#define SDT_REG_3_(r0, r1, r2, r3, ...) r3
#define SDT_REG_4_(r0, r1, r2, r3, r4, ...) r4
#define SDT_REG_5_(r0, r1, r2, r3, r4, r5) r5
/* The register of argument n, as the asm constraint names it. */
#define SDT_ARG_REG_(n) SDT_REG_(n, ARCH_SDT_ARG_REGS)
#define SDT_BIND_(n, v) register uint64_t sdt_r##n __asm__(SDT_ARG_REG_(n)) = (v)

#define SDT_SITE0_(name, gate) __asm__ volatile(SDT_ASM_(name) :: SDT_GATE_OP_(gate))
#define SDT_SITE1_(name, gate, a0) do {						\
	uint64_t sdt_v0 = (uint64_t)(a0);					\
	SDT_BIND_(0, sdt_v0);							\
	__asm__ volatile(SDT_ASM_(name) :: "r"(sdt_r0),				\
			 SDT_GATE_OP_(gate));					\
} while (0)
#define SDT_SITE2_(name, gate, a0, a1) do {					\
	uint64_t sdt_v0 = (uint64_t)(a0), sdt_v1 = (uint64_t)(a1);		\
	SDT_BIND_(0, sdt_v0);							\
	SDT_BIND_(1, sdt_v1);							\
	__asm__ volatile(SDT_ASM_(name) :: "r"(sdt_r0), "r"(sdt_r1),		\
			 SDT_GATE_OP_(gate));					\
} while (0)
#define SDT_SITE3_(name, gate, a0, a1, a2) do {					\
	uint64_t sdt_v0 = (uint64_t)(a0), sdt_v1 = (uint64_t)(a1);		\
	uint64_t sdt_v2 = (uint64_t)(a2);					\
	SDT_BIND_(0, sdt_v0);							\
	SDT_BIND_(1, sdt_v1);							\
	SDT_BIND_(2, sdt_v2);							\
	__asm__ volatile(SDT_ASM_(name) :: "r"(sdt_r0), "r"(sdt_r1), "r"(sdt_r2), \
			 SDT_GATE_OP_(gate));					\
} while (0)
#define SDT_SITE4_(name, gate, a0, a1, a2, a3) do {				\
	uint64_t sdt_v0 = (uint64_t)(a0), sdt_v1 = (uint64_t)(a1);		\
	uint64_t sdt_v2 = (uint64_t)(a2), sdt_v3 = (uint64_t)(a3);		\
	SDT_BIND_(0, sdt_v0);							\
	SDT_BIND_(1, sdt_v1);							\
	SDT_BIND_(2, sdt_v2);							\
	SDT_BIND_(3, sdt_v3);							\
	__asm__ volatile(SDT_ASM_(name) :: "r"(sdt_r0), "r"(sdt_r1), "r"(sdt_r2), \
			 "r"(sdt_r3), SDT_GATE_OP_(gate));			\
} while (0)
#define SDT_SITE5_(name, gate, a0, a1, a2, a3, a4) do {				\
	uint64_t sdt_v0 = (uint64_t)(a0), sdt_v1 = (uint64_t)(a1);		\
	uint64_t sdt_v2 = (uint64_t)(a2), sdt_v3 = (uint64_t)(a3);		\
	uint64_t sdt_v4 = (uint64_t)(a4);					\
	SDT_BIND_(0, sdt_v0);							\
	SDT_BIND_(1, sdt_v1);							\
	SDT_BIND_(2, sdt_v2);							\
	SDT_BIND_(3, sdt_v3);							\
	SDT_BIND_(4, sdt_v4);							\
	__asm__ volatile(SDT_ASM_(name) :: "r"(sdt_r0), "r"(sdt_r1), "r"(sdt_r2), \
			 "r"(sdt_r3), "r"(sdt_r4), SDT_GATE_OP_(gate));		\
} while (0)
#define SDT_SITE6_(name, gate, a0, a1, a2, a3, a4, a5) do {			\
	uint64_t sdt_v0 = (uint64_t)(a0), sdt_v1 = (uint64_t)(a1);		\
	uint64_t sdt_v2 = (uint64_t)(a2), sdt_v3 = (uint64_t)(a3);		\
	uint64_t sdt_v4 = (uint64_t)(a4), sdt_v5 = (uint64_t)(a5);		\
	SDT_BIND_(0, sdt_v0);							\
	SDT_BIND_(1, sdt_v1);							\
	SDT_BIND_(2, sdt_v2);							\
	SDT_BIND_(3, sdt_v3);							\
	SDT_BIND_(4, sdt_v4);							\
	SDT_BIND_(5, sdt_v5);							\
	__asm__ volatile(SDT_ASM_(name) :: "r"(sdt_r0), "r"(sdt_r1), "r"(sdt_r2), \
			 "r"(sdt_r3), "r"(sdt_r4), "r"(sdt_r5), SDT_GATE_OP_(gate)); \
} while (0)

struct sdt_site {
	uint64_t addr;		/* the no-op */
	const char *name;	/* as written: thread__switch, or provider:name */
	uint8_t *gate;		/* a gated site's byte (nonzero: evaluate, reach the no-op;
				   shared by an inline function's copies); NULL for a
				   site always reached */
};

LINKER_TABLE_DECLARE(struct sdt_site, sdt_sites);

/*
 * sdt_site_at - whether addr is an sdt site's no-op (an entry of
 *   table.sdt_sites). The structural analysis counts the arguments'
 *   registers as read there (ARCH_SDT_SITE_READS, arch/analysis.h).
 * Caller's context: any; the first call allocates (the boot's analysis
 *   makes it, in a thread).
 */
bool sdt_site_at(uint64_t addr);

/*
 * The site's arguments checked against the probe's declared types
 * (scion/sdt_types.h): a call in sizeof, never evaluated, so it emits
 * no code and no reference to the discarded prototype.
 */
#define SDT_CHECK_(provider, name, ...) \
	((void)sizeof((SDT_TYPES_(provider, name)(__VA_ARGS__), 0)))

#define SDT_PROBE_(provider, name, n, ...) do {				\
	SDT_CHECK_(provider, name, __VA_ARGS__);				\
	SDT_SITE##n##_(#provider ":" #name, 0, ##__VA_ARGS__);			\
} while (0)
#define SDT_PROBE_SDT_(name, n, ...) do {					\
	SDT_CHECK_(sdt, name, __VA_ARGS__);					\
	SDT_SITE##n##_(#name, 0, ##__VA_ARGS__);				\
} while (0)
/* Gated (see the top): the byte lives in .data.sdt_gates, packed with the others. */
#define SDT_GATED_(site_name, provider, name, n, ...) do {			\
	static uint8_t sdt_gate_ __attribute__((section(".data.sdt_gates")));	\
	SDT_CHECK_(provider, name, __VA_ARGS__);				\
	if (__builtin_expect(arch_sdt_gate_open(&sdt_gate_), 0))		\
		SDT_SITE##n##_(site_name, &sdt_gate_, ##__VA_ARGS__);		\
} while (0)

#define SDT_PROBE0(name)                 SDT_PROBE_SDT_(name, 0)
#define SDT_PROBE1(name, a0)             SDT_PROBE_SDT_(name, 1, a0)
#define SDT_PROBE2(name, a0, a1)         SDT_PROBE_SDT_(name, 2, a0, a1)
#define SDT_PROBE3(name, a0, a1, a2)     SDT_PROBE_SDT_(name, 3, a0, a1, a2)
#define SDT_PROBE0_P(provider, name) SDT_PROBE_(provider, name, 0)
#define SDT_PROBE1_P(provider, name, a0) SDT_PROBE_(provider, name, 1, a0)
#define SDT_PROBE2_P(provider, name, a0, a1) SDT_PROBE_(provider, name, 2, a0, a1)
#define SDT_PROBE3_P(provider, name, a0, a1, a2) SDT_PROBE_(provider, name, 3, a0, a1, a2)
#define SDT_PROBE4_P(provider, name, a0, a1, a2, a3) \
	SDT_PROBE_(provider, name, 4, a0, a1, a2, a3)
#define SDT_PROBE5_P(provider, name, a0, a1, a2, a3, a4) \
	SDT_PROBE_(provider, name, 5, a0, a1, a2, a3, a4)
#define SDT_PROBE6_P(provider, name, a0, a1, a2, a3, a4, a5) \
	SDT_PROBE_(provider, name, 6, a0, a1, a2, a3, a4, a5)
/*
 * A gated site behind a gate of the caller's (SDT_GATE_DEFINE) that
 * several sites share: the byte counts the enabled probes of all of
 * them, so a path that tests it once may leave every one of its sites
 * out while it is shut (the scheduler's switch, kernel/sched/sched.c).
 */
#define SDT_GATE_DEFINE(gate) uint8_t gate __attribute__((section(".data.sdt_gates")))
#define SDT_SHARED_(gate, site_name, provider, name, n, ...) do {		\
	SDT_CHECK_(provider, name, __VA_ARGS__);				\
	if (__builtin_expect(arch_sdt_gate_open(&(gate)), 0))			\
		SDT_SITE##n##_(site_name, &(gate), ##__VA_ARGS__);		\
} while (0)

#define SDT_GATED2(name, a0, a1) SDT_GATED_(#name, sdt, name, 2, a0, a1)
#define SDT_GATED4_P(provider, name, a0, a1, a2, a3) \
	SDT_GATED_(#provider ":" #name, provider, name, 4, a0, a1, a2, a3)
#define SDT_SHARED2(gate, name, a0, a1) SDT_SHARED_(gate, #name, sdt, name, 2, a0, a1)
#define SDT_SHARED4_P(gate, provider, name, a0, a1, a2, a3) \
	SDT_SHARED_(gate, #provider ":" #name, provider, name, 4, a0, a1, a2, a3)

#endif
