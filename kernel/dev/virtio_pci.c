// SPDX-License-Identifier: BSD-2-Clause
/*
 * The virtio 1.0 "modern" PCI transport (kernel/dev/virtio.h).
 *
 * A modern device describes its register blocks with vendor-specific PCI
 * capabilities (cfg_type common, notify, ISR, device, PCI-cfg access),
 * each naming a BAR, an offset and a length; this file maps the first of
 * each kind it needs, then runs the status handshake of virtio 1.0
 * section 3.1: reset, ACKNOWLEDGE, DRIVER, feature negotiation,
 * FEATURES_OK (read back), queue set-up, DRIVER_OK.
 *
 * Interrupts are MSI-X only: each queue names a table entry, which this
 * file points at a kernel vector and CPU. A machine without device
 * interrupts (FEATURE_DEVICE_IRQS absent: sparc64, whose QEMU devices
 * carry no MSI-X) gets a polled transport instead (vp->polled): no MSI-X
 * table, every queue on VIRTIO_MSI_NO_VECTOR, the driver polls the used
 * rings. The ISR register (for INTx) is
 * not used, so it is not mapped. The legacy I/O-port interface (all a
 * legacy device has, one half of a transitional one) is not used.
 *
 * The registers belong to the driver that called virtio_pci_init; after
 * set-up they are only read (device configuration) and the notify
 * registers written, each a single access, so no lock is needed here.
 */
#include <scion/errno.h>
#include <scion/features.h>
#include <scion/printk.h>
#include <arch/pci.h>
#include <arch/cpu.h>
#include <arch/irq.h>
#include "virtio.h"

/* virtio_pci_cap, in configuration space after the generic cap id/next. */
#define VCAP_CFG_TYPE          3
#define VCAP_BAR               4
#define VCAP_OFFSET            8
#define VCAP_LENGTH            12
#define VCAP_NOTIFY_MULTIPLIER 16	/* virtio_pci_notify_cap only */

#define VIRTIO_PCI_CAP_COMMON  1
#define VIRTIO_PCI_CAP_NOTIFY  2
#define VIRTIO_PCI_CAP_ISR     3
#define VIRTIO_PCI_CAP_DEVICE  4

/* struct virtio_pci_common_cfg. */
#define COMMON_DEVICE_FEATURE_SELECT 0
#define COMMON_DEVICE_FEATURE        4
#define COMMON_DRIVER_FEATURE_SELECT 8
#define COMMON_DRIVER_FEATURE        12
#define COMMON_MSIX_CONFIG           16
#define COMMON_NUM_QUEUES            18
#define COMMON_DEVICE_STATUS         20
#define COMMON_CONFIG_GENERATION     21
#define COMMON_QUEUE_SELECT          22
#define COMMON_QUEUE_SIZE            24
#define COMMON_QUEUE_MSIX_VECTOR     26
#define COMMON_QUEUE_ENABLE          28
#define COMMON_QUEUE_NOTIFY_OFF      30
#define COMMON_QUEUE_DESC            32
#define COMMON_QUEUE_DRIVER          40
#define COMMON_QUEUE_DEVICE          48
#define COMMON_LENGTH                56

#define FEATURE_WORD_BITS      32
#define FEATURE_WORDS          2	/* 64 feature bits, selected 32 at a time */
#define RESET_POLL_LIMIT       1000000	/* reads of the status before giving up */
#define CONFIG_READ_RETRIES    16

static uint8_t common_read8(struct virtio_pci *vp, unsigned off)
{
	return *(volatile uint8_t *)(vp->common + off);
}

static uint16_t common_read16(struct virtio_pci *vp, unsigned off)
{
	return *(volatile uint16_t *)(vp->common + off);
}

static uint32_t common_read32(struct virtio_pci *vp, unsigned off)
{
	return *(volatile uint32_t *)(vp->common + off);
}

static void common_write8(struct virtio_pci *vp, unsigned off, uint8_t v)
{
	*(volatile uint8_t *)(vp->common + off) = v;
}

static void common_write16(struct virtio_pci *vp, unsigned off, uint16_t v)
{
	*(volatile uint16_t *)(vp->common + off) = v;
}

static void common_write32(struct virtio_pci *vp, unsigned off, uint32_t v)
{
	*(volatile uint32_t *)(vp->common + off) = v;
}

/* 64-bit registers as two 32-bit writes, low half first (virtio 1.0, 4.1.3.1). */
static void common_write64(struct virtio_pci *vp, unsigned off, uint64_t v)
{
	common_write32(vp, off, (uint32_t)v);
	common_write32(vp, off + sizeof(uint32_t), (uint32_t)(v >> 32));
}

static void set_status(struct virtio_pci *vp, uint8_t bits)
{
	common_write8(vp, COMMON_DEVICE_STATUS, common_read8(vp, COMMON_DEVICE_STATUS) | bits);
}

struct found_caps {
	unsigned offset[VIRTIO_PCI_CAP_DEVICE + 1];	/* config offset of the first of each type */
};

static void note_virtio_cap(const struct pci_dev *d, unsigned offset, uint8_t id, void *arg)
{
	struct found_caps *found = arg;
	if (id != PCI_CAP_VENDOR)
		return;
	uint8_t type = pci_read8(d, offset + VCAP_CFG_TYPE);
	if (type <= VIRTIO_PCI_CAP_DEVICE && !found->offset[type])
		found->offset[type] = offset;
}

/* Map the region a virtio capability describes; *length receives its length. */
static volatile uint8_t *map_cap(struct pci_dev *d, unsigned cap, uint64_t min_length,
				 uint64_t *length)
{
	uint8_t bar = pci_read8(d, cap + VCAP_BAR);
	uint32_t offset = pci_read32(d, cap + VCAP_OFFSET);
	uint32_t len = pci_read32(d, cap + VCAP_LENGTH);
	if (len < min_length)
		return NULL;
	if (length)
		*length = len;
	return pci_map_bar(d, bar, offset, len);
}

int virtio_pci_init(struct virtio_pci *vp, struct pci_dev *pci)
{
	struct found_caps found = { 0 };

	vp->pci = pci;
	pci_foreach_capability(pci, note_virtio_cap, &found);
	unsigned common = found.offset[VIRTIO_PCI_CAP_COMMON];
	unsigned notify = found.offset[VIRTIO_PCI_CAP_NOTIFY];
	unsigned device = found.offset[VIRTIO_PCI_CAP_DEVICE];
	if (!common || !notify || !device)
		return -ENODEV;
	if (!arch_pci_dma_direct())
		return -ENOTSUP;	/* ring addresses would need IOMMU mappings */
	vp->polled = machine_lacks(FEATURE_DEVICE_IRQS) != 0;
	pci_enable(pci, PCI_COMMAND_MEMORY | PCI_COMMAND_BUS_MASTER);
	vp->common = map_cap(pci, common, COMMON_LENGTH, NULL);
	vp->notify_base = map_cap(pci, notify, sizeof(uint16_t), &vp->notify_length);
	vp->notify_multiplier = pci_read32(pci, notify + VCAP_NOTIFY_MULTIPLIER);
	vp->device_cfg = map_cap(pci, device, 1, &vp->device_cfg_length);
	if (!vp->common || !vp->notify_base || !vp->device_cfg)
		return -ENOMEM;
	if (!vp->polled) {
		int err = pci_msix_init(pci, &vp->msix);
		if (err)
			return err;
	}

	common_write8(vp, COMMON_DEVICE_STATUS, 0);
	for (unsigned i = 0; common_read8(vp, COMMON_DEVICE_STATUS) != 0; i++) {
		if (i == RESET_POLL_LIMIT)
			return -EIO;
		cpu_relax();
	}
	set_status(vp, VIRTIO_STATUS_ACKNOWLEDGE);
	set_status(vp, VIRTIO_STATUS_DRIVER);
	return 0;
}

int virtio_pci_negotiate(struct virtio_pci *vp, uint64_t wanted)
{
	uint64_t offered = 0;

	for (uint32_t word = 0; word < FEATURE_WORDS; word++) {
		common_write32(vp, COMMON_DEVICE_FEATURE_SELECT, word);
		offered |= (uint64_t)common_read32(vp, COMMON_DEVICE_FEATURE) << (word * FEATURE_WORD_BITS);
	}
	if (!(offered & (1ull << VIRTIO_F_VERSION_1)))
		return -ENOTSUP;
	uint64_t accepted = (offered & wanted) | (1ull << VIRTIO_F_VERSION_1);
	for (uint32_t word = 0; word < FEATURE_WORDS; word++) {
		common_write32(vp, COMMON_DRIVER_FEATURE_SELECT, word);
		common_write32(vp, COMMON_DRIVER_FEATURE, (uint32_t)(accepted >> (word * FEATURE_WORD_BITS)));
	}
	set_status(vp, VIRTIO_STATUS_FEATURES_OK);
	if (!(common_read8(vp, COMMON_DEVICE_STATUS) & VIRTIO_STATUS_FEATURES_OK))
		return -ENOTSUP;
	vp->features = accepted;
	return 0;
}

uint16_t virtio_pci_num_queues(struct virtio_pci *vp)
{
	return common_read16(vp, COMMON_NUM_QUEUES);
}

uint16_t virtio_pci_queue_max_size(struct virtio_pci *vp, uint16_t index)
{
	common_write16(vp, COMMON_QUEUE_SELECT, index);
	return common_read16(vp, COMMON_QUEUE_SIZE);
}

int virtio_pci_route_vector(struct virtio_pci *vp, unsigned entry, unsigned vector,
			    unsigned cpu_index)
{
	uint64_t addr;
	uint32_t data;
	int err = arch_msi_message(vector, cpu_index, &addr, &data);
	if (err)
		return err;
	return pci_msix_set_entry(&vp->msix, entry, addr, data);
}

int virtio_pci_enable_queue(struct virtio_pci *vp, uint16_t index, const struct virtqueue *vq,
			    uint64_t ring_phys, unsigned msix_entry, volatile uint16_t **notify)
{
	common_write16(vp, COMMON_QUEUE_SELECT, index);
	common_write16(vp, COMMON_QUEUE_SIZE, vq->size);
	uint16_t vector = vp->polled ? VIRTIO_MSI_NO_VECTOR : (uint16_t)msix_entry;
	common_write16(vp, COMMON_QUEUE_MSIX_VECTOR, vector);
	if (common_read16(vp, COMMON_QUEUE_MSIX_VECTOR) != vector)
		return -EIO;
	uint64_t notify_offset = (uint64_t)common_read16(vp, COMMON_QUEUE_NOTIFY_OFF) *
				 vp->notify_multiplier;
	if (notify_offset + sizeof(uint16_t) > vp->notify_length)
		return -EIO;
	common_write64(vp, COMMON_QUEUE_DESC, ring_phys);
	common_write64(vp, COMMON_QUEUE_DRIVER, ring_phys + vq_avail_offset(vq->size));
	common_write64(vp, COMMON_QUEUE_DEVICE, ring_phys + vq_used_offset(vq->size));
	common_write16(vp, COMMON_QUEUE_ENABLE, 1);
	*notify = (volatile uint16_t *)(vp->notify_base + notify_offset);
	return 0;
}

void virtio_pci_driver_ok(struct virtio_pci *vp)
{
	/* No configuration-change interrupts: the drivers here do not use them. */
	common_write16(vp, COMMON_MSIX_CONFIG, VIRTIO_MSI_NO_VECTOR);
	if (!vp->polled)
		pci_msix_unmask_function(vp->pci, &vp->msix);
	set_status(vp, VIRTIO_STATUS_DRIVER_OK);
}

void virtio_pci_fail(struct virtio_pci *vp)
{
	if (vp->common)
		set_status(vp, VIRTIO_STATUS_FAILED);
}

/* Run read until the configuration generation is the same before and after. */
#define CONFIG_CONSISTENT_READ(vp, type, read) ({ \
	type value_ = 0; \
	for (unsigned try_ = 0; try_ < CONFIG_READ_RETRIES; try_++) { \
		uint8_t gen_ = common_read8((vp), COMMON_CONFIG_GENERATION); \
		value_ = (read); \
		if (common_read8((vp), COMMON_CONFIG_GENERATION) == gen_) \
			break; \
	} \
	value_; \
})

uint16_t virtio_pci_config_read16(struct virtio_pci *vp, unsigned offset)
{
	if (offset + sizeof(uint16_t) > vp->device_cfg_length)
		return 0;
	return CONFIG_CONSISTENT_READ(vp, uint16_t,
				      *(volatile uint16_t *)(vp->device_cfg + offset));
}

uint32_t virtio_pci_config_read32(struct virtio_pci *vp, unsigned offset)
{
	if (offset + sizeof(uint32_t) > vp->device_cfg_length)
		return 0;
	return CONFIG_CONSISTENT_READ(vp, uint32_t,
				      *(volatile uint32_t *)(vp->device_cfg + offset));
}

uint64_t virtio_pci_config_read64(struct virtio_pci *vp, unsigned offset)
{
	if (offset + sizeof(uint64_t) > vp->device_cfg_length)
		return 0;
	volatile uint32_t *p = (volatile uint32_t *)(vp->device_cfg + offset);
	return CONFIG_CONSISTENT_READ(vp, uint64_t, p[0] | (uint64_t)p[1] << 32);
}
