// SPDX-License-Identifier: BSD-2-Clause
/*
 * Host tests of the split virtqueue (kernel/dev/virtqueue.c): the memory
 * layout virtio 1.0 prescribes, descriptor chains as a device would walk
 * them, the free list under exhaustion and out-of-order completion,
 * 16-bit index wrap-around, notification and interrupt suppression, and a
 * device that returns a head that is not in flight. The "device" here is
 * the test, reading the available ring and writing the used ring.
 */
#include <stdlib.h>
#include <string.h>
#include "host_test.h"
#include <scion/errno.h>
#include "dev/virtio.h"

#define SMALL_QUEUE 4
#define WRAP_ROUNDS 70000	/* more than 65536 uses of the 16-bit indices */

struct fake_device {
	struct virtqueue *vq;
	uint16_t next_avail;	/* next avail entry the device reads */
	uint16_t used_idx;	/* used.idx the device has published */
};

static void *ring_memory(uint16_t size)
{
	void *p = aligned_alloc(VQ_DESC_ALIGN, ALIGN_UP(vq_memory_bytes(size), VQ_DESC_ALIGN));
	memset(p, 0xee, vq_memory_bytes(size));
	return p;
}

/* The device takes the next published chain; returns its head, or -1 when none. */
static int device_take(struct fake_device *dev, struct vq_segment *segs, unsigned *nsegs)
{
	struct virtqueue *vq = dev->vq;
	if (dev->next_avail == vq->avail->idx)
		return -1;
	uint16_t head = vq->avail->ring[dev->next_avail % vq->size];
	dev->next_avail++;
	unsigned n = 0;
	for (uint16_t i = head;; i = vq->desc[i].next) {
		segs[n++] = (struct vq_segment){ vq->desc[i].addr, vq->desc[i].len,
						 (vq->desc[i].flags & VQ_DESC_F_WRITE) != 0 };
		if (!(vq->desc[i].flags & VQ_DESC_F_NEXT) || n == vq->size)
			break;
	}
	*nsegs = n;
	return head;
}

static void device_complete(struct fake_device *dev, uint32_t head, uint32_t len)
{
	volatile struct vq_used *used = dev->vq->used;
	used->ring[dev->used_idx % dev->vq->size].id = head;
	used->ring[dev->used_idx % dev->vq->size].len = len;
	dev->used_idx++;
	used->idx = dev->used_idx;
}

HOST_TEST(virtqueue_layout)
{
	/* virtio 1.0 2.4: desc 16*size, avail 6+2*size, used (4-aligned) 6+8*size. */
	CHECK(t, vq_avail_offset(256) == 4096, "avail at %zu", vq_avail_offset(256));
	CHECK(t, vq_used_offset(256) == 4616, "used at %zu", vq_used_offset(256));
	CHECK(t, vq_memory_bytes(256) == 4616 + 6 + 8 * 256, "size %zu", vq_memory_bytes(256));
	CHECK(t, vq_used_offset(SMALL_QUEUE) % VQ_USED_ALIGN == 0, "used misaligned");

	struct virtqueue vq;
	void *ring = ring_memory(VQ_MAX_SIZE);
	CHECK(t, vq_init(&vq, 0, ring) == -EINVAL, "size 0 accepted");
	CHECK(t, vq_init(&vq, 3, ring) == -EINVAL, "size 3 accepted");
	CHECK(t, vq_init(&vq, VQ_MAX_SIZE * 2, ring) == -EINVAL, "size above the maximum accepted");
	REQUIRE(t, vq_init(&vq, VQ_MAX_SIZE, ring) == 0, "size %u refused", VQ_MAX_SIZE);
	CHECK(t, vq_num_free(&vq) == VQ_MAX_SIZE, "free %u", vq_num_free(&vq));
	CHECK(t, vq.avail->idx == 0 && vq.used->idx == 0 && vq.avail->flags == 0,
	      "rings not zeroed");
	free(ring);
}

HOST_TEST(virtqueue_chains_as_the_device_sees_them)
{
	struct virtqueue vq;
	void *ring = ring_memory(16);
	REQUIRE(t, vq_init(&vq, 16, ring) == 0, "init");
	struct fake_device dev = { .vq = &vq };
	int cookie_a, cookie_b;

	struct vq_segment req[3] = {
		{ 0x1000, 16, false }, { 0x20000, 4096, true }, { 0x1010, 1, true },
	};
	int head_a = vq_add(&vq, req, 3, &cookie_a);
	REQUIRE(t, head_a >= 0, "add: %d", head_a);
	CHECK(t, vq_num_free(&vq) == 13, "free after a 3-chain: %u", vq_num_free(&vq));
	CHECK(t, vq.avail->idx == 1, "avail.idx %u", vq.avail->idx);
	int head_b = vq_add(&vq, req, 1, &cookie_b);
	REQUIRE(t, head_b >= 0 && head_b != head_a, "second add: %d", head_b);

	struct vq_segment seen[16];
	unsigned n;
	CHECK(t, device_take(&dev, seen, &n) == head_a && n == 3, "device saw %u segments", n);
	for (unsigned i = 0; i < 3; i++)
		CHECK(t, seen[i].phys == req[i].phys && seen[i].len == req[i].len &&
		      seen[i].device_writes == req[i].device_writes, "segment %u differs", i);
	CHECK(t, device_take(&dev, seen, &n) == head_b && n == 1, "second chain");

	/* Completed out of order: b first. */
	uint32_t len = 0;
	CHECK(t, vq_pop_used(&vq, &len) == NULL, "used before the device wrote any");
	device_complete(&dev, (uint32_t)head_b, 7);
	device_complete(&dev, (uint32_t)head_a, 4097);
	CHECK(t, vq_pop_used(&vq, &len) == &cookie_b && len == 7, "first used is b (len %u)", len);
	CHECK(t, vq_pop_used(&vq, &len) == &cookie_a && len == 4097, "second used is a");
	CHECK(t, vq_pop_used(&vq, &len) == NULL, "nothing more used");
	CHECK(t, vq_num_free(&vq) == 16, "free after both: %u", vq_num_free(&vq));
	free(ring);
}

HOST_TEST(virtqueue_refusals_and_exhaustion)
{
	struct virtqueue vq;
	void *ring = ring_memory(SMALL_QUEUE);
	REQUIRE(t, vq_init(&vq, SMALL_QUEUE, ring) == 0, "init");
	int c;
	struct vq_segment bad_order[2] = { { 0x1000, 8, true }, { 0x2000, 8, false } };
	struct vq_segment three[3] = { { 1, 1, false }, { 2, 1, false }, { 3, 1, true } };

	CHECK(t, vq_add(&vq, three, 0, &c) == -EINVAL, "no segments accepted");
	CHECK(t, vq_add(&vq, three, 1, NULL) == -EINVAL, "NULL cookie accepted");
	CHECK(t, vq_add(&vq, bad_order, 2, &c) == -EINVAL, "readable after writable accepted");
	CHECK(t, vq.avail->idx == 0 && vq_num_free(&vq) == SMALL_QUEUE, "a refusal changed the queue");
	CHECK(t, vq_add(&vq, three, 3, &c) >= 0, "3 of 4 descriptors");
	CHECK(t, vq_add(&vq, three, 2, &c) == -ENOSPC, "2 more with 1 free accepted");
	CHECK(t, vq_add(&vq, three, 1, &c) >= 0, "the last descriptor");
	CHECK(t, vq_add(&vq, three, 1, &c) == -ENOSPC, "a full queue accepted more");
	CHECK(t, vq.avail->idx == 2, "avail.idx %u after two chains", vq.avail->idx);
	free(ring);
}

HOST_TEST(virtqueue_index_wraparound)
{
	struct virtqueue vq;
	void *ring = ring_memory(SMALL_QUEUE);
	REQUIRE(t, vq_init(&vq, SMALL_QUEUE, ring) == 0, "init");
	struct fake_device dev = { .vq = &vq };
	uintptr_t cookies[SMALL_QUEUE];
	struct vq_segment seg[2] = { { 0x1000, 16, false }, { 0x2000, 1, true } }, seen[SMALL_QUEUE];
	unsigned n;

	for (unsigned round = 0; round < WRAP_ROUNDS; round++) {
		/* Two chains of two in flight, completed in reverse order. */
		int h0 = vq_add(&vq, seg, 2, &cookies[0]);
		int h1 = vq_add(&vq, seg, 2, &cookies[1]);
		REQUIRE(t, h0 >= 0 && h1 >= 0, "round %u: add failed (%d, %d)", round, h0, h1);
		REQUIRE(t, device_take(&dev, seen, &n) == h0 && n == 2, "round %u: device", round);
		REQUIRE(t, device_take(&dev, seen, &n) == h1 && n == 2, "round %u: device", round);
		device_complete(&dev, (uint32_t)h1, 1);
		device_complete(&dev, (uint32_t)h0, 1);
		REQUIRE(t, vq_pop_used(&vq, NULL) == &cookies[1], "round %u: first pop", round);
		REQUIRE(t, vq_pop_used(&vq, NULL) == &cookies[0], "round %u: second pop", round);
		REQUIRE(t, vq_num_free(&vq) == SMALL_QUEUE, "round %u: %u free", round,
			vq_num_free(&vq));
	}
	CHECK(t, vq.avail->idx == (uint16_t)(2 * WRAP_ROUNDS), "avail.idx %u", vq.avail->idx);
	free(ring);
}

HOST_TEST(virtqueue_notify_suppression_and_bad_device)
{
	struct virtqueue vq;
	void *ring = ring_memory(SMALL_QUEUE);
	REQUIRE(t, vq_init(&vq, SMALL_QUEUE, ring) == 0, "init");
	struct fake_device dev = { .vq = &vq };
	struct vq_segment seg = { 0x1000, 16, false };
	int c;

	REQUIRE(t, vq_add(&vq, &seg, 1, &c) >= 0, "add");
	CHECK(t, vq_kick_needed(&vq), "no kick without NO_NOTIFY");
	vq.used->flags = VQ_USED_F_NO_NOTIFY;
	CHECK(t, !vq_kick_needed(&vq), "kick despite NO_NOTIFY");
	CHECK(t, vq.avail->flags == 0, "interrupts not wanted after init: flags %u",
	      vq.avail->flags);
	vq_want_interrupts(&vq, false);
	CHECK(t, vq.avail->flags == VQ_AVAIL_F_NO_INTERRUPT, "flags %u", vq.avail->flags);
	vq_want_interrupts(&vq, true);
	CHECK(t, vq.avail->flags == 0, "flags %u after wanting interrupts", vq.avail->flags);

	/* A head that is in range but not in flight breaks the queue for good. */
	device_complete(&dev, 3, 0);
	CHECK(t, vq_pop_used(&vq, NULL) == NULL && vq.broken, "bogus head accepted");
	device_complete(&dev, 0, 0);
	CHECK(t, vq_pop_used(&vq, NULL) == NULL, "a broken queue still returned a cookie");

	REQUIRE(t, vq_init(&vq, SMALL_QUEUE, ring) == 0, "re-init");
	dev = (struct fake_device){ .vq = &vq };
	device_complete(&dev, SMALL_QUEUE + 10, 0);
	CHECK(t, vq_pop_used(&vq, NULL) == NULL && vq.broken, "out-of-range head accepted");
	free(ring);
}
