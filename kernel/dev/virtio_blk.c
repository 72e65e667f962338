// SPDX-License-Identifier: BSD-2-Clause
/*
 * The virtio block driver: virtio-blk PCI functions (modern 1af4:1042, or
 * transitional 1af4:1001 driven through the modern interface they also
 * carry) become disks vda, vdb, ... of the block layer (scion/blkdev.h).
 *
 * A request is one descriptor chain: a 16-byte header the device reads
 * (type and sector), the data buffer as one descriptor per physically
 * contiguous piece, and a status byte the device writes. Headers and
 * status bytes live in the queue's slot array (driver memory in the
 * direct map), one slot per request in flight.
 *
 * Queues: with VIRTIO_BLK_F_MQ, one per CPU up to what the device and
 * its MSI-X table offer; a request goes to the queue of the CPU that
 * submits it, and queue i interrupts CPU i mod ncpus on a vector of its
 * own (MSI-X entry i). Configuration-change interrupts are not used.
 *
 * Polled completion: on a machine without device interrupts
 * (FEATURE_DEVICE_IRQS absent, vp.polled) a thread per disk, "vdX-poll",
 * runs the same completion path as the interrupt: it sleeps while no
 * request is outstanding (a submit wakes it) and otherwise polls the used
 * rings, yielding the CPU between rounds, so a request completes as soon
 * as the device has written it, not at the next tick.
 *
 * Locking: each queue's lock guards its virtqueue, slots and free-slot
 * stack; it is a leaf lock taken with interrupts masked (submit from any
 * context, completion from the queue's interrupt). Completions are
 * gathered under the lock and finished after it is dropped (block-layer
 * accounting, done callbacks, one wake-up per interrupt), so a done
 * callback may submit again. A device that fails set-up keeps its
 * memory and vectors (they are never released; the vector handlers stay
 * harmless since its queues are never enabled).
 */
#include <scion/blkdev.h>
#include <scion/cpu.h>
#include <scion/errno.h>
#include <scion/format.h>
#include <scion/mm.h>
#include <scion/printk.h>
#include <scion/sched.h>
#include <scion/spinlock.h>
#include <scion/thread.h>
#include <scion/wait.h>
#include <arch/irq.h>
#include <arch/mmu.h>
#include "blkdev_driver.h"
#include "virtio.h"

/* Device features and configuration (virtio 1.0, 5.2). */
#define VIRTIO_BLK_F_SEG_MAX     2
#define VIRTIO_BLK_F_RO          5
#define VIRTIO_BLK_F_MQ          12
#define VBLK_CFG_CAPACITY        0	/* le64, in 512-byte sectors */
#define VBLK_CFG_SEG_MAX         12	/* le32 */
#define VBLK_CFG_NUM_QUEUES      34	/* le16 */

#define VIRTIO_BLK_T_IN          0
#define VIRTIO_BLK_T_OUT         1
#define VIRTIO_BLK_S_OK          0
#define VIRTIO_BLK_S_IOERR       1
#define VIRTIO_BLK_S_UNSUPP      2
#define VBLK_STATUS_PENDING      0xff	/* until the device writes the status */

#define VBLK_MAX_SECTORS         256	/* per request: 128 KiB */
#define VBLK_MAX_DATA_SEGMENTS   (VBLK_MAX_SECTORS * BLK_SECTOR_SIZE / PAGE_SIZE + 1)
#define VBLK_EXTRA_SEGMENTS      2	/* header and status */
#define VBLK_MAX_QUEUES          MAX_CPUS
#define VBLK_IRQ_NAME_MAX        16
#define MIB_SHIFT                20
#define KIB_SHIFT                10
#define VBLK_NO_VECTOR           (-1)	/* polled queues have no interrupt vector */

/* Little-endian fields (scion/byteorder.h). */
struct vblk_header {
	uint32_t type;
	uint32_t reserved;
	uint64_t sector;
} __packed;

struct vblk_slot {
	struct vblk_header header;		/* device reads */
	uint8_t status;				/* device writes */
} __aligned(32);			/* a slot never straddles a page */

struct vblk;

struct vblk_queue {
	struct spinlock lock;
	struct virtqueue vq;			/* lock */
	struct vblk_slot *slots;		/* set once; entries: lock */
	uint16_t free_slots[VQ_MAX_SIZE];	/* lock: stack of free slot indices */
	unsigned nfree_slots;			/* lock */
	bool broken_reported;			/* lock */
	volatile uint16_t *notify;		/* set once */
	uint16_t index;				/* set once */
	unsigned cpu;				/* set once: CPU its interrupt goes to */
	int vector;				/* set once */
	struct vblk *disk;			/* set once */
	char irq_name[VBLK_IRQ_NAME_MAX];	/* set once */
};

struct vblk {
	struct blkdev blk;
	struct virtio_pci vp;			/* set once */
	unsigned nqueues;			/* set once */
	unsigned max_data_segments;		/* set once */
	unsigned outstanding;			/* atomic: submitted, not yet completed */
	struct waitq poll_wq;			/* polled: the poller sleeps on it */
	char poller_name[VBLK_IRQ_NAME_MAX];	/* set once */
	struct vblk_queue queues[VBLK_MAX_QUEUES];
};

/* Split the buffer into physically contiguous pieces; their number or -EINVAL. */
static int map_buffer(void *buf, size_t bytes, bool device_writes, struct vq_segment *segs,
		      unsigned max_segs)
{
	uintptr_t va = (uintptr_t)buf;
	unsigned n = 0;

	while (bytes) {
		size_t piece = MIN(bytes, PAGE_SIZE - (va & (PAGE_SIZE - 1)));
		uint64_t pa = arch_translate(va, NULL);
		if (pa == UINT64_MAX)
			return -EINVAL;
		if (n && segs[n - 1].phys + segs[n - 1].len == pa) {
			segs[n - 1].len += (uint32_t)piece;
		} else {
			if (n == max_segs)
				return -EINVAL;
			segs[n++] = (struct vq_segment){ pa, (uint32_t)piece, device_writes };
		}
		va += piece;
		bytes -= piece;
	}
	return (int)n;
}

static int vblk_submit(struct blkdev *bd, struct blk_request *r)
{
	struct vblk *v = container_of(bd, struct vblk, blk);
	struct vq_segment segs[VBLK_MAX_DATA_SEGMENTS + VBLK_EXTRA_SEGMENTS];
	int n = map_buffer(r->buf, (size_t)r->count << BLK_SECTOR_SHIFT, !r->write, &segs[1],
			   v->max_data_segments);
	if (n < 0)
		return n;

	/* The submitting CPU's queue; a stale index only costs locality. */
	struct vblk_queue *q = &v->queues[this_cpu_index() % v->nqueues];
	irqflags_t f = spin_lock_irqsave(&q->lock);
	if (q->vq.broken) {
		spin_unlock_irqrestore(&q->lock, f);
		return -EIO;
	}
	if (!q->nfree_slots || vq_num_free(&q->vq) < (unsigned)n + VBLK_EXTRA_SEGMENTS) {
		spin_unlock_irqrestore(&q->lock, f);
		return -EAGAIN;
	}
	uint16_t slot = q->free_slots[--q->nfree_slots];
	struct vblk_slot *s = &q->slots[slot];
	s->header = (struct vblk_header){
		.type = cpu_to_le32(r->write ? VIRTIO_BLK_T_OUT : VIRTIO_BLK_T_IN),
		.sector = cpu_to_le64(r->sector),
	};
	s->status = VBLK_STATUS_PENDING;
	segs[0] = (struct vq_segment){ virt_to_phys(&s->header), sizeof(s->header), false };
	segs[n + 1] = (struct vq_segment){ virt_to_phys(&s->status), sizeof(s->status), true };
	r->driver_slot = slot;
	if (vq_add(&q->vq, segs, (unsigned)n + VBLK_EXTRA_SEGMENTS, r) < 0) {
		q->free_slots[q->nfree_slots++] = slot;
		spin_unlock_irqrestore(&q->lock, f);
		return -EAGAIN;
	}
	__atomic_fetch_add(&v->outstanding, 1, __ATOMIC_RELEASE);
	if (vq_kick_needed(&q->vq))
		virtio_pci_notify(q->notify, q->index);
	spin_unlock_irqrestore(&q->lock, f);
	if (v->vp.polled)
		waitq_wake_all(&v->poll_wq);	/* after the count, so the poller sees it */
	return 0;
}

static int status_to_errno(uint8_t status)
{
	switch (status) {
	case VIRTIO_BLK_S_OK:
		return 0;
	case VIRTIO_BLK_S_UNSUPP:
		return -ENOTSUP;
	case VIRTIO_BLK_S_IOERR:
	default:
		return -EIO;
	}
}

/* Finish every request q's device has returned (interrupt or poller). */
static void vblk_complete_used(struct vblk_queue *q)
{
	struct blkdev *bd = &q->disk->blk;
	struct blk_request *batch = NULL, **tail = &batch, *r;
	bool report_broken = false;
	unsigned completed = 0;

	irqflags_t f = spin_lock_irqsave(&q->lock);
	while ((r = vq_pop_used(&q->vq, NULL))) {
		completed++;
		r->status = status_to_errno(READ_ONCE(q->slots[r->driver_slot].status));
		q->free_slots[q->nfree_slots++] = (uint16_t)r->driver_slot;
		r->completed_next = NULL;
		*tail = r;
		tail = &r->completed_next;
	}
	if (q->vq.broken && !q->broken_reported)
		report_broken = q->broken_reported = true;
	spin_unlock_irqrestore(&q->lock, f);
	if (!completed && !report_broken)
		return;
	__atomic_fetch_sub(&q->disk->outstanding, completed, __ATOMIC_RELEASE);

	while (batch) {
		r = batch;
		batch = r->completed_next;	/* r may be gone once completed */
		blkdev_complete(bd, r);
	}
	blkdev_wake(bd);
	if (report_broken)
		printk("%s: queue %u returned a request not in flight; queue stopped\n",
		       bd->name, q->index);
}

static void vblk_interrupt(void *arg)
{
	struct vblk_queue *q = arg;

	blkdev_note_interrupt(&q->disk->blk);
	vblk_complete_used(q);
}

static bool vblk_has_outstanding(struct vblk *v)
{
	return __atomic_load_n(&v->outstanding, __ATOMIC_ACQUIRE) != 0;
}

/* The polled disk's completion thread (see the top of the file). */
static void vblk_poller(void *arg)
{
	struct vblk *v = arg;

	for (;;) {
		wait_event(&v->poll_wq, vblk_has_outstanding(v));
		for (unsigned i = 0; i < v->nqueues; i++)
			vblk_complete_used(&v->queues[i]);
		thread_yield();
	}
}

static const struct blkdev_ops vblk_ops = {
	.submit = vblk_submit,
};

static uint16_t round_down_pow2(uint16_t n)
{
	uint16_t p = 1;

	if (!n)
		return 0;
	while ((uint16_t)(p << 1) && (uint16_t)(p << 1) <= n)
		p = (uint16_t)(p << 1);
	return p;
}

static unsigned order_for(size_t bytes)
{
	unsigned order = 0;

	while ((PAGE_SIZE << order) < bytes)
		order++;
	return order;
}

static int setup_queue(struct vblk *v, uint16_t index)
{
	struct vblk_queue *q = &v->queues[index];
	uint16_t size = round_down_pow2(MIN(virtio_pci_queue_max_size(&v->vp, index),
					    (uint16_t)VQ_MAX_SIZE));
	if (size <= VBLK_EXTRA_SEGMENTS)
		return -ENODEV;
	uint64_t ring = pmm_alloc(order_for(vq_memory_bytes(size)));
	if (ring == PHYS_NONE)
		return -ENOMEM;
	q->slots = kzalloc(size * sizeof(*q->slots));
	if (!q->slots) {
		pmm_free(ring, order_for(vq_memory_bytes(size)));
		return -ENOMEM;
	}
	vq_init(&q->vq, size, phys_to_virt(ring));
	spin_init(&q->lock, "vblk-queue");
	for (uint16_t s = 0; s < size; s++)
		q->free_slots[s] = (uint16_t)(size - 1 - s);
	q->nfree_slots = size;
	q->index = index;
	q->disk = v;
	q->cpu = index % cpu_count();
	snprintf(q->irq_name, sizeof(q->irq_name), "%s-q%u", v->blk.name, index);

	if (v->vp.polled) {
		q->vector = VBLK_NO_VECTOR;
		return virtio_pci_enable_queue(&v->vp, index, &q->vq, ring, index, &q->notify);
	}
	q->vector = arch_irq_alloc_vector(vblk_interrupt, q, q->irq_name);
	if (q->vector < 0)
		return q->vector;
	int err = virtio_pci_route_vector(&v->vp, index, (unsigned)q->vector, q->cpu);
	if (err)
		return err;
	return virtio_pci_enable_queue(&v->vp, index, &q->vq, ring, index, &q->notify);
}

static unsigned queues_to_use(struct vblk *v)
{
	unsigned n = 1;

	if (v->vp.features & (1ull << VIRTIO_BLK_F_MQ))
		n = virtio_pci_config_read16(&v->vp, VBLK_CFG_NUM_QUEUES);
	n = MIN(n, (unsigned)virtio_pci_num_queues(&v->vp));
	if (!v->vp.polled)
		n = MIN(n, v->vp.msix.entries);
	n = MIN(n, cpu_count());
	return MIN(n, (unsigned)VBLK_MAX_QUEUES);
}

static void print_disk(struct vblk *v)
{
	uint64_t bytes = v->blk.sectors << BLK_SECTOR_SHIFT;
	const struct vblk_queue *first = &v->queues[0], *last = &v->queues[v->nqueues - 1];
	char size[24], vectors[64];

	if (bytes >> MIB_SHIFT)
		snprintf(size, sizeof(size), "%llu MiB", (unsigned long long)(bytes >> MIB_SHIFT));
	else
		snprintf(size, sizeof(size), "%llu KiB", (unsigned long long)(bytes >> KIB_SHIFT));
	if (v->vp.polled)
		snprintf(vectors, sizeof(vectors), "%u queue%s of %u, polled (no device interrupts)",
			 v->nqueues, v->nqueues == 1 ? "" : "s", first->vq.size);
	else if (v->nqueues == 1)
		snprintf(vectors, sizeof(vectors), "1 queue of %u, MSI-X vector 0x%x on cpu %u",
			 first->vq.size, first->vector, first->cpu);
	else
		snprintf(vectors, sizeof(vectors), "%u queues of %u, MSI-X vectors 0x%x-0x%x on cpus %u-%u",
			 v->nqueues, first->vq.size, first->vector, last->vector, first->cpu,
			 last->cpu);
	printk("%s: virtio-blk, %llu sectors (%s)%s; pci %02x:%02x.%x, %s\n", v->blk.name,
	       (unsigned long long)v->blk.sectors, size, v->blk.read_only ? ", read-only" : "",
	       v->vp.pci->bus, v->vp.pci->dev, v->vp.pci->fn, vectors);
}

/* Bring up one device; 0, or an error after which the device is not used. */
static int probe(struct vblk *v, struct pci_dev *pci, const char **what)
{
	int err;

	*what = "mapping its virtio capabilities and MSI-X table";
	if ((err = virtio_pci_init(&v->vp, pci)))
		return err;
	*what = "negotiating features";
	uint64_t wanted = 1ull << VIRTIO_BLK_F_SEG_MAX | 1ull << VIRTIO_BLK_F_RO |
			  1ull << VIRTIO_BLK_F_MQ;
	if ((err = virtio_pci_negotiate(&v->vp, wanted)))
		return err;
	v->blk.model = "virtio-blk";
	v->blk.sectors = virtio_pci_config_read64(&v->vp, VBLK_CFG_CAPACITY);
	v->blk.max_sectors = VBLK_MAX_SECTORS;
	v->blk.read_only = v->vp.features & (1ull << VIRTIO_BLK_F_RO);
	v->blk.ops = &vblk_ops;
	v->max_data_segments = VBLK_MAX_DATA_SEGMENTS;
	if (v->vp.features & (1ull << VIRTIO_BLK_F_SEG_MAX)) {
		uint32_t seg_max = virtio_pci_config_read32(&v->vp, VBLK_CFG_SEG_MAX);
		if (seg_max)
			v->max_data_segments = MIN(v->max_data_segments, seg_max);
	}
	*what = "naming the disk";
	if ((err = blkdev_register(&v->blk, "vd")))
		return err;
	*what = "setting up its queues";
	v->nqueues = queues_to_use(v);
	if (!v->nqueues)
		return -ENODEV;
	for (unsigned i = 0; i < v->nqueues; i++) {
		if ((err = setup_queue(v, (uint16_t)i)))
			return err;
		v->max_data_segments = MIN(v->max_data_segments,
					   v->queues[i].vq.size - (unsigned)VBLK_EXTRA_SEGMENTS);
	}
	if (v->vp.polled) {
		*what = "starting its poller";
		waitq_init(&v->poll_wq, "vblk-poll");
		snprintf(v->poller_name, sizeof(v->poller_name), "%s-poll", v->blk.name);
		if ((err = thread_spawn(v->poller_name, vblk_poller, v, -1)))
			return err;
	}
	virtio_pci_driver_ok(&v->vp);
	return 0;
}

static void probe_device(struct pci_dev *pci)
{
	if (pci->claimed)
		return;
	struct vblk *v = kzalloc(sizeof(*v));
	if (!v) {
		printk("virtio-blk %02x:%02x.%x: out of memory; not used\n", pci->bus, pci->dev,
		       pci->fn);
		return;
	}
	pci->claimed = "virtio-blk";
	const char *what = "";
	int err = probe(v, pci, &what);
	if (err) {
		virtio_pci_fail(&v->vp);
		printk("virtio-blk %02x:%02x.%x: %s failed (%s); not used\n", pci->bus, pci->dev,
		       pci->fn, what, errno_name(err));
		return;
	}
	print_disk(v);
	blkdev_publish(&v->blk);
}

void virtio_blk_probe_all(void)
{
	static const uint16_t ids[] = { VIRTIO_PCI_MODERN_BASE + VIRTIO_TYPE_BLOCK,
					VIRTIO_PCI_TRANSITIONAL_BLK };

	for (unsigned i = 0; i < ARRAY_SIZE(ids); i++)
		for (struct pci_dev *d = pci_find(VIRTIO_PCI_VENDOR, ids[i], NULL); d;
		     d = pci_find(VIRTIO_PCI_VENDOR, ids[i], d))
			probe_device(d);
}
