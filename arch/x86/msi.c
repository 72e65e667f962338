// SPDX-License-Identifier: BSD-2-Clause
/*
 * Message-signalled interrupts on x86 (arch/irq.h): device vectors handed
 * out from VEC_DEVICE_FIRST .. VEC_DEVICE_LAST, and the MSI address/data
 * pair that makes a device's memory write arrive at a local APIC as a
 * fixed, edge-triggered interrupt.
 *
 * The handler table is trap.c's: a vector is free when arch_irq_attach_vector
 * accepts it, so allocation needs no state (and no lock) of its own.
 * Vectors are not released (trap.c has no detach).
 */
#include <scion/cpu.h>
#include <scion/errno.h>
#include <arch/irq.h>
#include "vectors.h"
#include "x86_internal.h"

/* The MSI address window of the local APICs (Intel SDM vol. 3, 11.11.1). */
#define MSI_ADDRESS_BASE        0xfee00000u
#define MSI_ADDRESS_DEST_SHIFT  12	/* destination APIC id, bits 19:12 */
#define MSI_MAX_DEST_APIC_ID    0xffu	/* xAPIC physical destinations */
/* Data register: vector in bits 7:0, delivery mode 000 (fixed), edge trigger. */
#define MSI_DATA_VECTOR_MASK    0xffu
#define MSI_DATA_FIXED_EDGE     0x0u

int arch_irq_alloc_vector(irq_handler_t fn, void *arg, const char *name)
{
	for (unsigned v = VEC_DEVICE_FIRST; v <= VEC_DEVICE_LAST; v++)
		if (arch_irq_attach_vector(v, fn, arg, name) == 0)
			return (int)v;
	return -ENOSPC;
}

int arch_msi_message(unsigned vector, unsigned cpu_index, uint64_t *addr, uint32_t *data)
{
	if (vector < VEC_DEVICE_FIRST || vector > VEC_DEVICE_LAST)
		return -EINVAL;
	if (cpu_index >= cpu_count() || !cpu_by_index(cpu_index)->online)
		return -EINVAL;
	uint32_t apic_id = cpu_by_index(cpu_index)->arch.apic_id;
	if (apic_id > MSI_MAX_DEST_APIC_ID)
		return -EINVAL;
	*addr = MSI_ADDRESS_BASE | (uint64_t)apic_id << MSI_ADDRESS_DEST_SHIFT;
	*data = MSI_DATA_FIXED_EDGE | (vector & MSI_DATA_VECTOR_MASK);
	return 0;
}
