// SPDX-License-Identifier: BSD-2-Clause
/*
 * The virtio-console driver (virtio 1.0 "modern" virtio-serial over PCI,
 * 1af4:1043) as the control channel's transport (scion/chan_transport.h).
 * The first such device found becomes the channel; a machine without one
 * keeps the arch UART.
 *
 * Which port: QEMU's port 0 is a "virtconsole", which drops the guest's
 * output whenever the host socket would block (it never throttles a
 * console port), so bytes are lost as soon as the host reads slower than
 * the guest writes. A "virtserialport" is throttled instead: QEMU keeps
 * the guest's buffer until the socket takes it. Ports other than 0 need
 * VIRTIO_CONSOLE_F_MULTIPORT and its control queues, so when the device
 * offers MULTIPORT the channel is port VCON_CHANNEL_PORT
 * (qemu/machine.py: `-device virtserialport,nr=1`), opened with the
 * control messages DEVICE_READY, PORT_READY and PORT_OPEN; without it,
 * port 0 (lossy under back-pressure, see above). Control messages from
 * the device (port added, host opened or closed) are read and dropped:
 * the channel's framing already copes with a host that comes and goes.
 *
 * Receive: VCON_RX_BUFFERS page-sized buffers stay posted. A used buffer
 * is given to the channel (chan_rx_fn); when the channel has no room the
 * driver keeps the rest of that buffer (held_*), stops, and posts no
 * more buffers until resume_input: once the device has no buffer QEMU
 * stops reading the host's socket, so nothing is lost.
 *
 * Transmit: write copies into one of VCON_TX_BUFFERS buffers, and flush
 * (or a full buffer) sends it as one descriptor. A writer that finds no
 * free buffer (the host is slow, QEMU throttles the port) sleeps until
 * the transmit queue's interrupt returns one. That interrupt is asked
 * for only then (vq_want_interrupts): otherwise a writer takes back used
 * buffers itself, and the device, which returns most of them at once,
 * raises no interrupt per frame. The channel serializes writers (its
 * tx_lock), so the buffer being filled needs no lock.
 *
 * Interrupts: one MSI-X vector for every queue. Machines without device
 * interrupts (sparc64) do not use the device.
 *
 * Locking: vcon.lock (taken with interrupts masked) guards the queues,
 * the free transmit buffers and the receive state; the channel's receive
 * lock is taken inside it (by the rx function). Lock order:
 * tx_wait.lock -> vcon.lock -> the channel's rx_wq.lock.
 */
#include <scion/chan_transport.h>
#include <scion/errno.h>
#include <scion/format.h>
#include <scion/mm.h>
#include <scion/printk.h>
#include <scion/spinlock.h>
#include <scion/string.h>
#include <scion/wait.h>
#include <arch/irq.h>
#include <arch/mmu.h>
#include "virtio.h"

/* Device features and queues (virtio 1.0, 5.3). */
#define VIRTIO_CONSOLE_F_MULTIPORT   1
#define VCON_PORT0_RX_QUEUE          0
#define VCON_PORT0_TX_QUEUE          1
#define VCON_CONTROL_RX_QUEUE        2
#define VCON_CONTROL_TX_QUEUE        3
#define VCON_QUEUES_PER_PORT         2	/* port N > 0: receive 2N + 2, transmit 2N + 3 */
#define VCON_CHANNEL_PORT            1	/* with MULTIPORT: the first virtserialport */

/* Control message events (virtio 1.0, 5.3.6.2). */
#define VCON_DEVICE_READY            0
#define VCON_PORT_READY              3
#define VCON_PORT_OPEN               6
#define VCON_CONTROL_YES             1

#define VCON_RX_BUFFERS              16
#define VCON_RX_BUFFER_BYTES         4096
#define VCON_TX_BUFFERS              32
#define VCON_TX_BUFFER_BYTES         8192
#define VCON_CONTROL_RX_BUFFERS      8
#define VCON_CONTROL_BUFFER_BYTES    64	/* a control message and a short port name */
#define VCON_CONTROL_TX_MESSAGES     3	/* DEVICE_READY, PORT_READY, PORT_OPEN */
#define VCON_MSIX_ENTRY              0	/* every queue's */
#define VCON_DEVICE_NAME_MAX         64
#define VCON_TX_WAIT_TICKS           1	/* a lost interrupt costs a tick at most */

/* Little-endian (scion/byteorder.h). */
struct vcon_control {
	uint32_t id;
	uint16_t event;
	uint16_t value;
} __packed;

struct vcon_queue {
	struct virtqueue vq;			/* vcon.lock */
	volatile uint16_t *notify;		/* set once */
	uint16_t index;				/* set once */
};

struct vcon {
	struct virtio_pci vp;			/* set once */
	struct spinlock lock;
	struct vcon_queue rx, tx;		/* the channel port's */
	struct vcon_queue control_rx, control_tx;	/* MULTIPORT only */
	bool multiport;				/* set once */
	uint32_t port;				/* set once */
	int vector;				/* set once */
	uint8_t *rx_buffers;			/* set once: VCON_RX_BUFFERS of them */
	uint8_t *tx_buffers;			/* set once: VCON_TX_BUFFERS of them */
	uint8_t *control;			/* set once: control buffers, then messages */
	/* Receive: lock. */
	chan_rx_fn deliver;			/* set by start_input */
	bool input_stopped;
	uint8_t *held;				/* a used buffer not yet all delivered */
	uint32_t held_length, held_offset;
	/* Transmit. */
	uint8_t *tx_free[VCON_TX_BUFFERS];	/* lock: stack of free buffers */
	unsigned ntx_free;			/* lock */
	bool tx_interrupts;			/* lock: asked for (a writer waits) */
	struct waitq tx_wait;			/* a writer waits here for a free buffer */
	uint8_t *filling;			/* the writer's: buffer being filled, or NULL */
	size_t filled;				/* the writer's */
	char device[VCON_DEVICE_NAME_MAX];	/* set once: the boot message's name */
};

static struct vcon *channel_console;		/* set once by the probe */

static unsigned order_for(size_t bytes)
{
	unsigned order = 0;

	while ((PAGE_SIZE << order) < bytes)
		order++;
	return order;
}

/* Physically contiguous, zeroed driver memory in the direct map, or NULL. */
static void *alloc_dma(size_t bytes)
{
	uint64_t phys = pmm_alloc(order_for(bytes));
	if (phys == PHYS_NONE)
		return NULL;
	void *va = phys_to_virt(phys);
	memset(va, 0, bytes);
	return va;
}

/* Add one buffer as a chain of one descriptor; lock held (or not yet shared). */
static int post(struct vcon_queue *q, void *buf, uint32_t len, bool device_writes)
{
	struct vq_segment seg = { virt_to_phys(buf), len, device_writes };
	return vq_add(&q->vq, &seg, 1, buf);
}

static void kick(struct vcon_queue *q)
{
	if (vq_kick_needed(&q->vq))
		virtio_pci_notify(q->notify, q->index);
}

/* ---- receive ---- */

/* Give the channel what the device has written, while it has room; lock held. */
static void rx_drain(struct vcon *c)
{
	bool reposted = false;

	while (c->deliver && !c->input_stopped) {
		if (!c->held) {
			uint32_t len;
			uint8_t *buf = vq_pop_used(&c->rx.vq, &len);
			if (!buf)
				break;
			c->held = buf;
			c->held_length = MIN(len, (uint32_t)VCON_RX_BUFFER_BYTES);
			c->held_offset = 0;
		}
		size_t taken = 0;
		bool room = true;
		if (c->held_offset < c->held_length)
			room = c->deliver(c->held + c->held_offset, c->held_length - c->held_offset,
					  &taken);
		c->held_offset += (uint32_t)taken;
		if (c->held_offset == c->held_length) {
			post(&c->rx, c->held, VCON_RX_BUFFER_BYTES, true);
			c->held = NULL;
			reposted = true;
		}
		if (!room)
			c->input_stopped = true;
	}
	if (reposted)
		kick(&c->rx);
}

/* Control messages from the device are read and dropped; lock held. */
static void control_drain(struct vcon *c)
{
	void *buf;
	bool reposted = false;

	if (!c->multiport)
		return;
	while ((buf = vq_pop_used(&c->control_rx.vq, NULL))) {
		post(&c->control_rx, buf, VCON_CONTROL_BUFFER_BYTES, true);
		reposted = true;
	}
	while (vq_pop_used(&c->control_tx.vq, NULL))
		;	/* the three set-up messages, sent once */
	if (reposted)
		kick(&c->control_rx);
}

/* Free transmit buffers the device is done with; their number; lock held. */
static unsigned tx_reclaim(struct vcon *c)
{
	uint8_t *buf;
	unsigned n = 0;

	while ((buf = vq_pop_used(&c->tx.vq, NULL))) {
		c->tx_free[c->ntx_free++] = buf;
		n++;
	}
	return n;
}

static void vcon_interrupt(void *arg)
{
	struct vcon *c = arg;

	irqflags_t f = spin_lock_irqsave(&c->lock);
	rx_drain(c);
	control_drain(c);
	unsigned freed = tx_reclaim(c);
	spin_unlock_irqrestore(&c->lock, f);
	if (freed)
		waitq_wake_all(&c->tx_wait);
}

/* ---- the transport (scion/chan_transport.h) ---- */

static int vcon_start_input(chan_rx_fn rx)
{
	struct vcon *c = channel_console;

	irqflags_t f = spin_lock_irqsave(&c->lock);
	c->deliver = rx;
	rx_drain(c);	/* what came before the channel was ready */
	spin_unlock_irqrestore(&c->lock, f);
	return 0;
}

static void vcon_resume_input(void)
{
	struct vcon *c = channel_console;

	irqflags_t f = spin_lock_irqsave(&c->lock);
	if (c->input_stopped) {
		c->input_stopped = false;
		rx_drain(c);
	}
	spin_unlock_irqrestore(&c->lock, f);
}

/* A free transmit buffer, sleeping until the device returns one. */
static uint8_t *tx_buffer(struct vcon *c)
{
	uint8_t *buf = NULL;

	irqflags_t f = spin_lock_irqsave(&c->tx_wait.lock);
	for (;;) {
		spin_lock_noirq(&c->lock);
		tx_reclaim(c);
		if (!c->ntx_free && !c->tx_interrupts) {
			/* All with the device: the next one it returns interrupts. */
			c->tx_interrupts = true;
			vq_want_interrupts(&c->tx.vq, true);
			tx_reclaim(c);	/* one returned before the flag was seen */
		}
		if (c->ntx_free) {
			buf = c->tx_free[--c->ntx_free];
			if (c->tx_interrupts) {
				c->tx_interrupts = false;
				vq_want_interrupts(&c->tx.vq, false);
			}
		}
		spin_unlock_noirq(&c->lock);
		if (buf)
			break;
		waitq_sleep(&c->tx_wait, VCON_TX_WAIT_TICKS);
	}
	spin_unlock_irqrestore(&c->tx_wait.lock, f);
	return buf;
}

static void vcon_flush(void)
{
	struct vcon *c = channel_console;

	if (!c->filling || !c->filled)
		return;
	irqflags_t f = spin_lock_irqsave(&c->lock);
	/* Never -ENOSPC: the queue has a descriptor for every buffer. */
	post(&c->tx, c->filling, (uint32_t)c->filled, false);
	kick(&c->tx);
	spin_unlock_irqrestore(&c->lock, f);
	c->filling = NULL;
	c->filled = 0;
}

static void vcon_write(const void *data, size_t n)
{
	struct vcon *c = channel_console;
	const uint8_t *p = data;

	while (n) {
		if (!c->filling) {
			c->filling = tx_buffer(c);
			c->filled = 0;
		}
		size_t piece = MIN(n, VCON_TX_BUFFER_BYTES - c->filled);
		memcpy(c->filling + c->filled, p, piece);
		c->filled += piece;
		p += piece;
		n -= piece;
		if (c->filled == VCON_TX_BUFFER_BYTES)
			vcon_flush();
	}
}

static struct chan_transport vcon_transport = {
	.device = NULL,				/* set once by the probe */
	.start_input = vcon_start_input,
	.write = vcon_write,
	.flush = vcon_flush,
	.resume_input = vcon_resume_input,
};

const struct chan_transport *virtio_console_transport(void)
{
	return channel_console ? &vcon_transport : NULL;
}

/* ---- set-up ---- */

static int setup_queue(struct vcon *c, struct vcon_queue *q, uint16_t index, uint16_t needed)
{
	uint16_t size = virtio_pci_queue_max_size(&c->vp, index);
	uint16_t use = 1;

	while ((uint16_t)(use << 1) && (uint16_t)(use << 1) <= MIN(size, (uint16_t)VQ_MAX_SIZE))
		use = (uint16_t)(use << 1);
	if (!size || use < needed)
		return -ENODEV;
	void *ring = alloc_dma(vq_memory_bytes(use));
	if (!ring)
		return -ENOMEM;
	vq_init(&q->vq, use, ring);
	q->index = index;
	return virtio_pci_enable_queue(&c->vp, index, &q->vq, virt_to_phys(ring), VCON_MSIX_ENTRY,
				       &q->notify);
}

static int setup_queues(struct vcon *c)
{
	uint16_t rx = VCON_PORT0_RX_QUEUE, tx = VCON_PORT0_TX_QUEUE;
	int err;

	if (c->multiport) {
		rx = (uint16_t)(VCON_QUEUES_PER_PORT * c->port + VCON_CONTROL_RX_QUEUE);
		tx = (uint16_t)(rx + 1);
		if ((err = setup_queue(c, &c->control_rx, VCON_CONTROL_RX_QUEUE,
				       VCON_CONTROL_RX_BUFFERS)) ||
		    (err = setup_queue(c, &c->control_tx, VCON_CONTROL_TX_QUEUE,
				       VCON_CONTROL_TX_MESSAGES)))
			return err;
	}
	if ((err = setup_queue(c, &c->rx, rx, VCON_RX_BUFFERS)))
		return err;
	return setup_queue(c, &c->tx, tx, VCON_TX_BUFFERS);
}

static int alloc_buffers(struct vcon *c)
{
	c->rx_buffers = alloc_dma(VCON_RX_BUFFERS * VCON_RX_BUFFER_BYTES);
	c->tx_buffers = alloc_dma(VCON_TX_BUFFERS * VCON_TX_BUFFER_BYTES);
	c->control = alloc_dma((VCON_CONTROL_RX_BUFFERS + VCON_CONTROL_TX_MESSAGES) *
			       VCON_CONTROL_BUFFER_BYTES);
	if (!c->rx_buffers || !c->tx_buffers || !c->control)
		return -ENOMEM;
	for (unsigned i = 0; i < VCON_TX_BUFFERS; i++)
		c->tx_free[c->ntx_free++] = c->tx_buffers + i * VCON_TX_BUFFER_BYTES;
	return 0;
}

/* The device is live: post the receive buffers, open the port (MULTIPORT). */
static void go_live(struct vcon *c)
{
	irqflags_t f = spin_lock_irqsave(&c->lock);
	for (unsigned i = 0; i < VCON_RX_BUFFERS; i++)
		post(&c->rx, c->rx_buffers + i * VCON_RX_BUFFER_BYTES, VCON_RX_BUFFER_BYTES, true);
	kick(&c->rx);
	if (c->multiport) {
		static const uint16_t events[VCON_CONTROL_TX_MESSAGES] = {
			VCON_DEVICE_READY, VCON_PORT_READY, VCON_PORT_OPEN };
		for (unsigned i = 0; i < VCON_CONTROL_RX_BUFFERS; i++)
			post(&c->control_rx, c->control + i * VCON_CONTROL_BUFFER_BYTES,
			     VCON_CONTROL_BUFFER_BYTES, true);
		kick(&c->control_rx);
		for (unsigned i = 0; i < VCON_CONTROL_TX_MESSAGES; i++) {
			struct vcon_control *m = (struct vcon_control *)(c->control +
				(VCON_CONTROL_RX_BUFFERS + i) * VCON_CONTROL_BUFFER_BYTES);
			*m = (struct vcon_control){
				.id = cpu_to_le32(events[i] == VCON_DEVICE_READY ? 0 : c->port),
				.event = cpu_to_le16(events[i]),
				.value = cpu_to_le16(VCON_CONTROL_YES),
			};
			post(&c->control_tx, m, sizeof(*m), false);
		}
		kick(&c->control_tx);
	}
	spin_unlock_irqrestore(&c->lock, f);
}

/* Bring up one device; 0, or an error after which it is not used. */
static int probe(struct vcon *c, struct pci_dev *pci, const char **what)
{
	int err;

	*what = "mapping its virtio capabilities and MSI-X table";
	if ((err = virtio_pci_init(&c->vp, pci)))
		return err;
	*what = "finding a device interrupt";
	if (c->vp.polled)
		return -ENOTSUP;	/* the channel stays on the arch UART there */
	*what = "negotiating features";
	if ((err = virtio_pci_negotiate(&c->vp, 1ull << VIRTIO_CONSOLE_F_MULTIPORT)))
		return err;
	c->multiport = c->vp.features & (1ull << VIRTIO_CONSOLE_F_MULTIPORT);
	c->port = c->multiport ? VCON_CHANNEL_PORT : 0;
	spin_init(&c->lock, "vcon");
	waitq_init(&c->tx_wait, "vcon-tx");
	*what = "allocating its buffers";
	if ((err = alloc_buffers(c)))
		return err;
	*what = "routing its interrupt";
	c->vector = arch_irq_alloc_vector(vcon_interrupt, c, "virtio-console");
	if (c->vector < 0)
		return c->vector;
	if ((err = virtio_pci_route_vector(&c->vp, VCON_MSIX_ENTRY, (unsigned)c->vector, 0)))
		return err;
	*what = "setting up its queues";
	if ((err = setup_queues(c)))
		return err;
	vq_want_interrupts(&c->tx.vq, false);	/* until a writer waits */
	virtio_pci_driver_ok(&c->vp);
	go_live(c);
	return 0;
}

static void probe_device(struct pci_dev *pci)
{
	if (pci->claimed || channel_console)
		return;
	struct vcon *c = kzalloc(sizeof(*c));
	if (!c) {
		printk("virtio-console %02x:%02x.%x: out of memory; not used\n", pci->bus,
		       pci->dev, pci->fn);
		return;
	}
	pci->claimed = "virtio-console";
	const char *what = "";
	int err = probe(c, pci, &what);
	if (err) {
		virtio_pci_fail(&c->vp);
		printk("virtio-console %02x:%02x.%x: %s failed (%s); not used\n", pci->bus,
		       pci->dev, pci->fn, what, errno_name(err));
		return;
	}
	snprintf(c->device, sizeof(c->device), "virtio-console (pci %02x:%02x.%x, port %u%s)",
		 pci->bus, pci->dev, pci->fn, c->port, c->multiport ? "" : ", no MULTIPORT");
	vcon_transport.device = c->device;
	channel_console = c;
	printk("%s: MSI-X vector 0x%x on cpu 0, %u receive buffers of %u bytes\n", c->device,
	       c->vector, VCON_RX_BUFFERS, VCON_RX_BUFFER_BYTES);
}

void virtio_console_probe_all(void)
{
	uint16_t id = VIRTIO_PCI_MODERN_BASE + VIRTIO_TYPE_CONSOLE;

	for (struct pci_dev *d = pci_find(VIRTIO_PCI_VENDOR, id, NULL); d;
	     d = pci_find(VIRTIO_PCI_VENDOR, id, d))
		probe_device(d);
}
