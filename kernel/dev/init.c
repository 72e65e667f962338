// SPDX-License-Identifier: BSD-2-Clause
/*
 * Device discovery at boot (scion/dev.h): PCI enumeration, then the
 * drivers (disks, then the control channel's virtio-console), one after
 * another on the init thread (driver probes assume they never run
 * concurrently).
 */
#include <scion/dev.h>
#include <scion/pci.h>
#include "virtio.h"

void dev_init(void)
{
	pci_init();
	virtio_blk_probe_all();
	virtio_console_probe_all();
}
