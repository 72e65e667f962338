/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * SPARC V9 / UltraSPARC (sun4u) constants shared by the port's assembly
 * and C: the stack bias and frame layout, PSTATE bits, the trap types
 * the kernel handles, the ASIs of the MMU and of physical bypass, and the
 * kernel's one mapping (KERNEL_VIRT -> KERNEL_PHYS, one 4 MB page).
 * Included from .S files too: only #defines outside the C section.
 * Invariant: KERNEL_VIRT and KERNEL_PHYS match kernel.ld, which asserts it.
 */
#ifndef SPARC64_H
#define SPARC64_H

/* V9 ABI: %sp and %fp point 2047 bytes below the frame (odd = 64-bit). */
#define STACK_BIAS		2047
/* The save area of a frame: 16 registers (%l0-%l7, %i0-%i7), 8 bytes each. */
#define FRAME_L0		0
#define FRAME_I0		64
#define FRAME_I6		(64 + 6 * 8)	/* the caller's %sp, i.e. this frame's %fp */
#define FRAME_I7		(64 + 7 * 8)	/* the address of the call instruction */
/* The smallest frame: save area, hidden parameter, 6 argument words. */
#define MIN_FRAME		176

/* struct trap_frame offsets (arch/trap.h; trap.c checks them): trap_entry.S and
 * the probe patches' frame call (patch/insert.c) build frames. */
#define TF_TSTATE	0
#define TF_TPC		8
#define TF_TNPC		16
#define TF_TT		24
#define TF_TL		32
#define TF_FAULT	40
#define TF_Y		48
#define TF_G		56
#define TF_SP		120
#define TF_OUTER_TT	128
#define TF_OUTER_TPC	136
#define TF_O		144
#define TF_SIZE		208

/* PSTATE bits. */
#define PSTATE_AG		0x001	/* alternate globals */
#define PSTATE_IE		0x002	/* interrupts enabled */
#define PSTATE_PRIV		0x004
#define PSTATE_PEF		0x010
#define PSTATE_MG		0x400	/* MMU globals */
#define PSTATE_IG		0x800	/* interrupt globals */
#define PSTATE_KERNEL		PSTATE_PRIV

/* TSTATE fields. */
#define TSTATE_PSTATE_SHIFT	8
#define TSTATE_CWP_MASK		0x1f

/* Trap types the kernel names (V9 and UltraSPARC). */
#define TT_IAE			0x008	/* instruction_access_exception */
#define TT_ILLEGAL		0x010
#define TT_PRIV_OPC		0x011
#define TT_CLEAN_WINDOW		0x024
#define TT_DIV_ZERO		0x028
#define TT_DAE			0x030	/* data_access_exception */
#define TT_ALIGN		0x034	/* mem_address_not_aligned */
#define TT_IRQ_BASE		0x040	/* interrupt_level_n = 0x40 + n */
#define TT_IRQ_TICK		0x04e	/* level 14: %tick_cmpr */
#define TT_IVEC			0x060	/* interrupt_vector (device mondo) */
#define TT_IMMU_MISS		0x064	/* fast_instruction_access_MMU_miss */
#define TT_DMMU_MISS		0x068	/* fast_data_access_MMU_miss */
#define TT_DMMU_PROT		0x06c	/* fast_data_access_protection */
#define TT_SPILL_0		0x080
#define TT_FILL_0		0x0c0
#define TT_TRAP_INSN		0x100	/* Tcc: 0x100 + software trap number */

/* ASIs. */
#define ASI_PHYS_USE_EC		0x14	/* physical, cacheable */
#define ASI_PHYS_BYPASS_EC_E	0x15	/* physical, non-cacheable (devices) */
#define ASI_PHYS_BYPASS_EC_E_L	0x1d	/* the same, little-endian */
#define ASI_IMMU		0x50
#define ASI_ITLB_DATA_IN	0x54
#define ASI_DMMU		0x58
#define ASI_DTLB_DATA_IN	0x5c
#define ASI_DMMU_DEMAP		0x5f
#define MMU_SFSR		0x18	/* within ASI_IMMU / ASI_DMMU */
#define MMU_SFAR		0x20	/* ASI_DMMU only */
#define MMU_TAG_ACCESS		0x30
#define TAG_CONTEXT_MASK	0x1fff

/*
 * The kernel's mapping: virtual KERNEL_VIRT .. +4 MB is physical
 * KERNEL_PHYS .. +4 MB, context 0, through one 4 MB TTE that the MMU
 * miss handlers compute on every miss (no locked entry): valid, 4 MB,
 * cacheable (CP, CV), privileged, writable (text too: probes patch it).
 */
#define KERNEL_VIRT		0x40000000
#define KERNEL_PHYS		0x00400000
#define KERNEL_MAP_SHIFT	22			/* 4 MB */
#define KERNEL_TTE_HIGH		0xe0000000		/* V | size 4 MB, bits 63..32 */
#define KERNEL_TTE_LOW		(KERNEL_PHYS | 0x36)	/* PA | CP | CV | P | W */

/*
 * The windows the MMU miss handlers serve besides the image (arch/mmu.h):
 * the direct map of RAM (4 MB TTEs, up to sparc64_ram_top) and the kmap
 * window of 8 KB TTEs (sparc64_kmap_ttes[KMAP_PAGES]). Kept equal to
 * arch/mmu.h's DIRECT_MAP_BASE, KMAP_BASE_ADDR and KMAP_LIMIT_ADDR (mmu.c checks).
 */
#define SPARC64_DIRECT_MAP	0xfffff80000000000
#define SPARC64_KMAP_BASE	0x80000000
#define KMAP_PAGES		47234			/* 368 MB of 8 KB pages, 2 text alias pages, 1 MB of far patches */

/* The trap table: 512 entries of 32 bytes for TL = 0, as many for TL > 0. */
#define TRAP_ENTRY_SIZE		32
#define TRAP_TABLE_TL1		0x4000

#ifndef __ASSEMBLER__
#include <stdint.h>

/* %tick's counter: bit 63 is NPT (OpenBIOS sets it), not part of the count. */
static inline uint64_t rd_tick(void)
{
	uint64_t v;
	__asm__ __volatile__("rd %%tick, %0" : "=r"(v));
	return v & ~(1ul << 63);
}

static inline uint64_t rdpr_pstate(void)
{
	uint64_t v;
	__asm__ __volatile__("rdpr %%pstate, %0" : "=r"(v));
	return v;
}

static inline void wrpr_pstate(uint64_t v)
{
	__asm__ __volatile__("wrpr %0, 0, %%pstate" : : "r"(v) : "memory");
}

/* Physical-address device access (ASI 0x15: big-endian, uncached). */
static inline uint8_t phys_in8(uint64_t pa)
{
	uint8_t v;
	__asm__ __volatile__("lduba [%1] 0x15, %0" : "=r"(v) : "r"(pa) : "memory");
	return v;
}

static inline void phys_out8(uint64_t pa, uint8_t v)
{
	__asm__ __volatile__("stba %0, [%1] 0x15" : : "r"(v), "r"(pa) : "memory");
}

static inline void phys_out32(uint64_t pa, uint32_t v)
{
	__asm__ __volatile__("stwa %0, [%1] 0x15" : : "r"(v), "r"(pa) : "memory");
}

static inline uint64_t phys_in64(uint64_t pa)
{
	uint64_t v;
	__asm__ __volatile__("ldxa [%1] 0x15, %0" : "=r"(v) : "r"(pa) : "memory");
	return v;
}

/* Little-endian physical access (ASI 0x1d): PCI configuration and BARs. */
static inline uint32_t phys_in32_le(uint64_t pa)
{
	uint32_t v;
	__asm__ __volatile__("lduwa [%1] 0x1d, %0" : "=r"(v) : "r"(pa) : "memory");
	return v;
}

static inline void phys_out32_le(uint64_t pa, uint32_t v)
{
	__asm__ __volatile__("stwa %0, [%1] 0x1d" : : "r"(v), "r"(pa) : "memory");
}

static inline uint16_t phys_in16_le(uint64_t pa)
{
	uint16_t v;
	__asm__ __volatile__("lduha [%1] 0x1d, %0" : "=r"(v) : "r"(pa) : "memory");
	return v;
}

static inline void phys_out16_le(uint64_t pa, uint16_t v)
{
	__asm__ __volatile__("stha %0, [%1] 0x1d" : : "r"(v), "r"(pa) : "memory");
}
#endif /* !__ASSEMBLER__ */

#endif
