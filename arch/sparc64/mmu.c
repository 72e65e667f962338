// SPDX-License-Identifier: BSD-2-Clause
/*
 * The kernel's mapping on sun4u: virtual KERNEL_VIRT .. +4 MB is
 * physical KERNEL_PHYS .. +4 MB (where QEMU loaded the image, OpenBIOS
 * having mapped it at 0x40000000), context 0, by one 4 MB TTE.
 *
 * Decision: the TTE is LOCKED into both TLBs at boot, and the fast MMU
 * miss handlers (trap_entry.S) compute the same TTE on the fly for any
 * miss inside the window. The lock is needed, not just convenient: the
 * trap table itself lives in that window, and an instruction TLB miss on
 * the miss handler's own page could never be served (each attempt traps
 * again, one TL deeper, up to MAXTL). With the locked entry a kernel
 * miss cannot happen; the computed refill stays as the rule the handler
 * follows (and serves the window if a future TLB flush drops the lock).
 * Every other address is unmapped: a miss there is a fault (trap.c).
 * Known simplification: OpenBIOS's 8 KB entries for the same pages stay
 * in the TLBs beside the 4 MB one; they translate identically.
 */
#include "sparc64_internal.h"

#define TTE_LOCKED	0x40ul

static uint64_t kernel_tte(void)
{
	return (uint64_t)KERNEL_TTE_HIGH << 32 | KERNEL_TTE_LOW;
}

/*
 * mmu_lock_kernel - lock the kernel's 4 MB TTE into the I- and D-TLB.
 * Steps, for each TLB:
 *  1. the tag: the window's address, context 0, into TAG_ACCESS;
 *  2. membar #Sync (an MMU register write completes before the next);
 *  3. the TTE (with L, locked) through the data-in register;
 *  4. flush (the instruction side sees the new entry).
 * Caller: sparc64_trap_init, interrupts masked, before %tba changes.
 */
void mmu_lock_kernel(void)
{
	uint64_t tag = KERNEL_VIRT, tte = kernel_tte() | TTE_LOCKED;

	__asm__ __volatile__("stxa %0, [%1] %2\n\t"
			     "membar #Sync\n\t"
			     "stxa %3, [%%g0] %4\n\t"
			     "membar #Sync\n\t"
			     "flush %5"
			     : : "r"(tag), "r"((uint64_t)MMU_TAG_ACCESS), "i"(ASI_DMMU), "r"(tte),
			       "i"(ASI_DTLB_DATA_IN), "r"(KERNEL_VIRT)
			     : "memory");
	__asm__ __volatile__("stxa %0, [%1] %2\n\t"
			     "membar #Sync\n\t"
			     "stxa %3, [%%g0] %4\n\t"
			     "membar #Sync\n\t"
			     "flush %5"
			     : : "r"(tag), "r"((uint64_t)MMU_TAG_ACCESS), "i"(ASI_IMMU), "r"(tte),
			       "i"(ASI_ITLB_DATA_IN), "r"(KERNEL_VIRT)
			     : "memory");
	early_printf("mmu: kernel 0x%x..0x%x -> phys 0x%x, one locked 4 MB TTE (0x%016lx) "
		     "in both TLBs\n", KERNEL_VIRT, KERNEL_VIRT + (1u << KERNEL_MAP_SHIFT),
		     KERNEL_PHYS, (unsigned long)tte);
}
