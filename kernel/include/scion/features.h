/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Machine features a port may lack, for the parts of the portable core
 * (and the in-kernel tests: KTEST_NEEDS in scion/ktest.h) that depend on
 * them. Each port says which it has (arch/features.h: ARCH_FEATURES) and,
 * for each it lacks, one line why (arch_feature_absent_reason). A test
 * that needs a missing feature is reported `SKIPPED (reason)`, never run.
 */
#ifndef SCION_FEATURES_H
#define SCION_FEATURES_H

#include <stdbool.h>

enum machine_feature {
	FEATURE_PROBES = 1u << 0,	/* code patching: probes, splices, springboards */
	FEATURE_PROCESSES = 1u << 1,	/* user processes (the Linux ABI) */
	FEATURE_SANDBOX = 1u << 2,	/* sandboxed grafts (SFI) */
	FEATURE_DEVICE_IRQS = 1u << 3,	/* device interrupts (virtio, MSI) */
	FEATURE_CHANNEL = 1u << 4,	/* the host control channel */
	FEATURE_PAGE_PERMISSIONS = 1u << 5,	/* read-only text, no-execute data */
	FEATURE_MMIO_DEVICES = 1u << 6,	/* device registers mapped in the MMIO window */
	FEATURE_COUNT = 7,
};

#include <arch/features.h>

/* The features of needs this machine lacks (0: it has them all). */
static inline unsigned machine_lacks(unsigned needs)
{
	return needs & ~(unsigned)ARCH_FEATURES;
}

/* The reason for the first feature of needs the machine lacks, or NULL. */
static inline const char *machine_lacks_reason(unsigned needs)
{
	unsigned missing = machine_lacks(needs);
	for (unsigned i = 0; i < FEATURE_COUNT; i++)
		if (missing & (1u << i))
			return arch_feature_absent_reason(1u << i);
	return (const char *)0;
}

#endif
