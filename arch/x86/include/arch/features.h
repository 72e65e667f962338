/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The machine features of the x86_64 port (scion/features.h): all of them.
 */
#ifndef ARCH_FEATURES_H
#define ARCH_FEATURES_H

#define ARCH_FEATURES (FEATURE_PROBES | FEATURE_PROCESSES | FEATURE_SANDBOX | \
		       FEATURE_DEVICE_IRQS | FEATURE_CHANNEL | FEATURE_PAGE_PERMISSIONS | \
		       FEATURE_MMIO_DEVICES)

/* Why a feature is absent: never asked on x86, which has them all. */
static inline const char *arch_feature_absent_reason(unsigned feature)
{
	(void)feature;
	return "x86_64 has every feature";
}

#endif
