// SPDX-License-Identifier: BSD-2-Clause
/*
 * The driver's side of a virtio 1.0 split virtqueue (kernel/dev/virtio.h):
 * a descriptor table, the available ring the driver fills and the used
 * ring the device fills, laid out in one block of memory:
 *
 *   desc[size] (16 bytes each) | avail: flags, idx, ring[size], used_event
 *   | padding to 4 | used: flags, idx, ring[size] (8 bytes each), avail_event
 *
 * Free descriptors form a list threaded through desc[].next, headed by
 * free_head. A chain handed to the device stays off that list until the
 * device returns its head in the used ring; ring indices are free-running
 * 16-bit counters (used modulo size), so they wrap without special cases.
 *
 * Ordering: descriptors and the avail ring entry are written before the
 * avail index that publishes them, and the used index is read before the
 * used entries it covers (virtio_mb()). Ring fields are little-endian in
 * memory, converted at each access (scion/byteorder.h). No lock here: the owner's lock
 * guards every call.
 */
#include <scion/errno.h>
#include <scion/string.h>
#include <arch/cpu.h>
#include "virtio.h"

/* Order memory accesses between the driver and the device. */
static inline void virtio_mb(void)
{
	smp_mb();
}

size_t vq_avail_offset(uint16_t size)
{
	return (size_t)size * sizeof(struct vq_desc);
}

size_t vq_used_offset(uint16_t size)
{
	/* avail: flags, idx, ring[size], used_event */
	size_t avail_bytes = sizeof(struct vq_avail) + sizeof(uint16_t) * ((size_t)size + 1);
	return ALIGN_UP(vq_avail_offset(size) + avail_bytes, (size_t)VQ_USED_ALIGN);
}

size_t vq_memory_bytes(uint16_t size)
{
	/* used: flags, idx, ring[size], avail_event */
	return vq_used_offset(size) + sizeof(struct vq_used) +
	       sizeof(struct vq_used_elem) * size + sizeof(uint16_t);
}

int vq_init(struct virtqueue *vq, uint16_t size, void *ring)
{
	if (size == 0 || size > VQ_MAX_SIZE || (size & (size - 1)))
		return -EINVAL;
	memset(ring, 0, vq_memory_bytes(size));
	memset(vq, 0, sizeof(*vq));
	vq->size = size;
	vq->desc = ring;
	vq->avail = (struct vq_avail *)((char *)ring + vq_avail_offset(size));
	vq->used = (volatile struct vq_used *)((char *)ring + vq_used_offset(size));
	for (uint16_t i = 0; i < size; i++)
		vq->desc[i].next = cpu_to_le16((uint16_t)(i + 1));
	vq->free_head = 0;
	vq->num_free = size;
	return 0;
}

int vq_add(struct virtqueue *vq, const struct vq_segment *segs, unsigned nsegs, void *cookie)
{
	if (nsegs == 0 || !cookie)
		return -EINVAL;
	for (unsigned i = 1; i < nsegs; i++)
		if (segs[i - 1].device_writes && !segs[i].device_writes)
			return -EINVAL;
	if (nsegs > vq->num_free)
		return -ENOSPC;

	uint16_t head = vq->free_head, i = head, last = head;
	for (unsigned s = 0; s < nsegs; s++) {
		struct vq_desc *d = &vq->desc[i];
		d->addr = cpu_to_le64(segs[s].phys);
		d->len = cpu_to_le32(segs[s].len);
		d->flags = cpu_to_le16((uint16_t)((segs[s].device_writes ? VQ_DESC_F_WRITE : 0) |
						  (s + 1 < nsegs ? VQ_DESC_F_NEXT : 0)));
		last = i;
		i = le16_to_cpu(d->next);
	}
	vq->free_head = le16_to_cpu(vq->desc[last].next);
	vq->num_free = (uint16_t)(vq->num_free - nsegs);
	vq->cookies[head] = cookie;

	vq->avail->ring[vq->avail_idx % vq->size] = cpu_to_le16(head);
	virtio_mb();
	vq->avail_idx++;
	WRITE_ONCE(vq->avail->idx, cpu_to_le16(vq->avail_idx));
	return head;
}

bool vq_kick_needed(struct virtqueue *vq)
{
	virtio_mb();	/* the published index before the device's flags */
	return !(le16_to_cpu(READ_ONCE(vq->used->flags)) & VQ_USED_F_NO_NOTIFY);
}

void vq_want_interrupts(struct virtqueue *vq, bool want)
{
	WRITE_ONCE(vq->avail->flags, cpu_to_le16(want ? 0 : VQ_AVAIL_F_NO_INTERRUPT));
	virtio_mb();	/* the flag before the used index the caller reads next */
}

/* Return the chain starting at head to the free list. */
static void free_chain(struct virtqueue *vq, uint16_t head)
{
	uint16_t i = head, n = 1;

	while ((le16_to_cpu(vq->desc[i].flags) & VQ_DESC_F_NEXT) && n < vq->size) {
		i = le16_to_cpu(vq->desc[i].next);
		n++;
	}
	vq->desc[i].next = cpu_to_le16(vq->free_head);
	vq->free_head = head;
	vq->num_free = (uint16_t)(vq->num_free + n);
}

void *vq_pop_used(struct virtqueue *vq, uint32_t *len)
{
	if (vq->broken || vq->last_used == le16_to_cpu(READ_ONCE(vq->used->idx)))
		return NULL;
	virtio_mb();	/* the index before the entry it covers */
	volatile struct vq_used_elem *e = &vq->used->ring[vq->last_used % vq->size];
	uint32_t id = le32_to_cpu(e->id);
	if (id >= vq->size || !vq->cookies[id]) {
		vq->broken = true;
		return NULL;
	}
	if (len)
		*len = le32_to_cpu(e->len);
	vq->last_used++;
	void *cookie = vq->cookies[id];
	vq->cookies[id] = NULL;
	free_chain(vq, (uint16_t)id);
	return cookie;
}
