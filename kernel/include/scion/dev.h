/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Devices found at boot (kernel/dev/): the PCI bus, then the drivers'
 * probes. Each disk found prints one line; a machine without devices
 * prints nothing more and is not an error.
 */
#ifndef SCION_DEV_H
#define SCION_DEV_H

/*
 * dev_init - enumerate PCI and probe every driver.
 * Caller's context: the init thread, once, after every CPU is online
 * (drivers aim interrupts at them) and before anything uses a device.
 */
void dev_init(void);

#endif
