/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Virtio 1.0 for the drivers in kernel/dev (private to this folder):
 *   - the split virtqueue (virtqueue.c): ring memory layout and the
 *     driver's side of the descriptor table, available and used rings;
 *   - the "modern" PCI transport (virtio_pci.c): vendor capabilities,
 *     feature negotiation, the status handshake, queue set-up and MSI-X.
 *
 * Everything shared with the device is little-endian: ring fields and
 * request headers in RAM go through scion/byteorder.h (no-ops on a
 * little-endian CPU such as x86; byte swaps on big-endian sparc64).
 * Registers are read through mappings the machine makes little-endian
 * (pci_map_bar, MAP_NOCACHE), so they need no conversion. A struct virtqueue has no lock of its own: its
 * owner (a driver queue) guards every field marked "owner's lock".
 * virtqueue.c depends on nothing but memory, so the host unit tests
 * build it (tests/host/test_virtqueue.c).
 */
#ifndef KERNEL_DEV_VIRTIO_H
#define KERNEL_DEV_VIRTIO_H

#include <scion/byteorder.h>
#include <scion/compiler.h>
#include <scion/pci.h>

/* PCI identity of virtio devices. */
#define VIRTIO_PCI_VENDOR            0x1af4
#define VIRTIO_PCI_MODERN_BASE       0x1040	/* device id = base + virtio device type */
#define VIRTIO_PCI_TRANSITIONAL_BLK  0x1001
#define VIRTIO_TYPE_NET              1
#define VIRTIO_TYPE_BLOCK            2
#define VIRTIO_TYPE_CONSOLE          3
#define VIRTIO_TYPE_RNG              4
#define VIRTIO_TYPE_BALLOON          5
#define VIRTIO_TYPE_SCSI             8
#define VIRTIO_TYPE_9P               9
#define VIRTIO_TYPE_GPU              16
#define VIRTIO_TYPE_INPUT            18
#define VIRTIO_TYPE_VSOCK            19

/* Feature bits common to all devices. */
#define VIRTIO_F_VERSION_1           32

/* ---- split virtqueue ---- */

#define VQ_MAX_SIZE            256	/* the largest queue a driver here sets up */
#define VQ_DESC_F_NEXT         1	/* the chain goes on in desc.next */
#define VQ_DESC_F_WRITE        2	/* device writes this buffer */
#define VQ_USED_F_NO_NOTIFY    1	/* device: do not kick me */
#define VQ_AVAIL_F_NO_INTERRUPT 1	/* driver: no interrupt when you use a buffer */
#define VQ_DESC_ALIGN          16
#define VQ_AVAIL_ALIGN         2
#define VQ_USED_ALIGN          4

/* Every field of the rings is little-endian (scion/byteorder.h). */
struct vq_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	uint16_t next;
} __packed;

struct vq_avail {
	uint16_t flags;
	uint16_t idx;
	uint16_t ring[];	/* size entries, then used_event (unused here) */
} __packed;

struct vq_used_elem {
	uint32_t id;		/* head of the chain the device finished */
	uint32_t len;		/* bytes it wrote */
} __packed;

struct vq_used {
	uint16_t flags;
	uint16_t idx;
	struct vq_used_elem ring[];	/* size entries, then avail_event */
} __packed;

/* One buffer of a request: physical address, length, who writes it. */
struct vq_segment {
	uint64_t phys;
	uint32_t len;
	bool device_writes;
};

struct virtqueue {
	uint16_t size;			/* set once: a power of two up to VQ_MAX_SIZE */
	struct vq_desc *desc;		/* set once; entries: owner's lock */
	struct vq_avail *avail;		/* set once; driver writes, owner's lock */
	volatile struct vq_used *used;	/* set once; device writes */
	void *cookies[VQ_MAX_SIZE];	/* owner's lock: caller's pointer per chain head */
	uint16_t free_head;		/* owner's lock: first free descriptor */
	uint16_t num_free;		/* owner's lock */
	uint16_t avail_idx;		/* owner's lock: next avail.idx to publish */
	uint16_t last_used;		/* owner's lock: used entries consumed so far */
	bool broken;			/* owner's lock: the device returned a bad id */
};

/* Byte offsets of the rings in the memory vq_init takes, and its size. */
size_t vq_avail_offset(uint16_t size);
size_t vq_used_offset(uint16_t size);
size_t vq_memory_bytes(uint16_t size);

/*
 * vq_init - lay out a queue of size entries in ring (vq_memory_bytes(size)
 * bytes, VQ_DESC_ALIGN aligned; zeroed here) and chain every descriptor
 * on the free list.
 * Return value: 0, or -EINVAL for a size that is 0, above VQ_MAX_SIZE or
 *   not a power of two.
 * Caller's context: any; the queue is not yet shared with the device.
 */
int vq_init(struct virtqueue *vq, uint16_t size, void *ring);

/*
 * vq_add - chain segs[0 .. nsegs-1] (device-readable ones first) into
 * free descriptors and publish the chain in the available ring.
 * Arguments: cookie (not NULL) comes back from vq_pop_used.
 * Return value: the head descriptor index, -EINVAL for no segments, a
 *   NULL cookie or a readable segment after a writable one, -ENOSPC when
 *   fewer than nsegs descriptors are free.
 * Caller's context: owner's lock held.
 */
int vq_add(struct virtqueue *vq, const struct vq_segment *segs, unsigned nsegs, void *cookie);

/*
 * vq_kick_needed - after vq_add: whether the device asked to be notified.
 * Caller's context: owner's lock held.
 */
bool vq_kick_needed(struct virtqueue *vq);

/*
 * vq_pop_used - take the next chain the device finished and free its
 * descriptors.
 * Return value: its cookie (*len = bytes the device wrote), or NULL when
 *   nothing more is used, or when the device returned a head that is not
 *   in flight (then vq->broken is set and the queue is no longer read).
 * Caller's context: owner's lock held.
 */
void *vq_pop_used(struct virtqueue *vq, uint32_t *len);

/*
 * vq_want_interrupts - ask the device for an interrupt per used buffer
 * (want, the default) or for none (VQ_AVAIL_F_NO_INTERRUPT: a hint the
 * device may ignore), then order the flag before the caller's next look
 * at the used ring, so that one used buffer before the change is seen
 * there and one after it interrupts.
 * Caller's context: owner's lock held.
 */
void vq_want_interrupts(struct virtqueue *vq, bool want);

/* Free descriptors. Caller's context: owner's lock held. */
static inline unsigned vq_num_free(const struct virtqueue *vq)
{
	return vq->num_free;
}

/* ---- modern PCI transport ---- */

/* Device status bits. */
#define VIRTIO_STATUS_ACKNOWLEDGE  1
#define VIRTIO_STATUS_DRIVER       2
#define VIRTIO_STATUS_DRIVER_OK    4
#define VIRTIO_STATUS_FEATURES_OK  8
#define VIRTIO_STATUS_FAILED       128

#define VIRTIO_MSI_NO_VECTOR       0xffff

struct virtio_pci {
	struct pci_dev *pci;			/* set once */
	volatile uint8_t *common;		/* set once: common configuration */
	volatile uint8_t *notify_base;		/* set once */
	uint64_t notify_length;			/* set once */
	uint32_t notify_multiplier;		/* set once */
	volatile uint8_t *device_cfg;		/* set once: device-specific configuration */
	uint64_t device_cfg_length;		/* set once */
	struct pci_msix msix;			/* set once; unused when polled */
	bool polled;				/* set once: no device interrupts, the
						   driver polls its used rings */
	uint64_t features;			/* set once: negotiated */
};

/*
 * virtio_pci_init - map the virtio capabilities of pci, enable its memory
 * decoding, bus mastering and MSI-X (function masked; none and vp->polled
 * set on a machine without FEATURE_DEVICE_IRQS), reset the device and
 * acknowledge it (ACKNOWLEDGE | DRIVER).
 * Return value: 0; -ENODEV when a required capability (common, notify,
 *   device configuration, MSI-X) is missing; -ENOTSUP when device DMA
 *   would go through an IOMMU (arch_pci_dma_direct); -ENOMEM when a
 *   mapping fails; -EIO when the device does not reset.
 * Caller's context: thread, no spinlocks held; the device is unclaimed.
 */
int virtio_pci_init(struct virtio_pci *vp, struct pci_dev *pci);

/*
 * virtio_pci_negotiate - accept the features of wanted the device offers,
 * plus VIRTIO_F_VERSION_1 (required), and set FEATURES_OK.
 * Return value: 0 (vp->features holds the result), -ENOTSUP when the
 *   device lacks VERSION_1 or refuses the set.
 * Caller's context: after virtio_pci_init, before queues are set up.
 */
int virtio_pci_negotiate(struct virtio_pci *vp, uint64_t wanted);

/* Number of queues the device has. */
uint16_t virtio_pci_num_queues(struct virtio_pci *vp);

/* Largest size of queue index (0: the queue does not exist). */
uint16_t virtio_pci_queue_max_size(struct virtio_pci *vp, uint16_t index);

/*
 * virtio_pci_route_vector - point MSI-X table entry at vector on CPU
 * cpu_index (arch_msi_message). Return value: 0 or -EINVAL.
 */
int virtio_pci_route_vector(struct virtio_pci *vp, unsigned entry, unsigned vector,
			    unsigned cpu_index);

/*
 * virtio_pci_enable_queue - give the device queue index: vq's ring
 * addresses (ring_phys is the physical address of the memory given to
 * vq_init), its size and MSI-X entry, and enable it.
 * (polled: no vector, msix_entry is ignored).
 * Return value: 0 with *notify set to the queue's notification register,
 *   -EIO when the device refuses the MSI-X entry or its notify offset lies
 *   outside the notify region.
 * Caller's context: before virtio_pci_driver_ok.
 */
int virtio_pci_enable_queue(struct virtio_pci *vp, uint16_t index, const struct virtqueue *vq,
			    uint64_t ring_phys, unsigned msix_entry, volatile uint16_t **notify);

/* Set DRIVER_OK (the device is live) or FAILED (give up on it). */
void virtio_pci_driver_ok(struct virtio_pci *vp);
void virtio_pci_fail(struct virtio_pci *vp);

/* Device-specific configuration, read consistently (config generation). */
uint32_t virtio_pci_config_read32(struct virtio_pci *vp, unsigned offset);
uint64_t virtio_pci_config_read64(struct virtio_pci *vp, unsigned offset);
uint16_t virtio_pci_config_read16(struct virtio_pci *vp, unsigned offset);

/*
 * virtio_blk_probe_all - bring up every virtio-blk PCI function as a disk
 * (virtio_blk.c), printing one line per disk or per failure.
 * Caller's context: the boot thread, after pci_init, all CPUs online.
 */
void virtio_blk_probe_all(void);

/*
 * virtio_console_probe_all - take the first virtio-console PCI function
 * as the control channel's transport (virtio_console.c), printing one
 * line for it or per failure; virtio_console_transport
 * (scion/chan_transport.h) hands it to the channel.
 * Caller's context: the boot thread, after pci_init.
 */
void virtio_console_probe_all(void);

/* Tell the device queue has new buffers. Any context. */
static inline void virtio_pci_notify(volatile uint16_t *notify, uint16_t queue)
{
	*notify = queue;
}

#endif
