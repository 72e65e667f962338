// SPDX-License-Identifier: BSD-2-Clause
/*
 * The control channel: frames between the host command `scion` and the
 * kernel over a transport (scion/chan_transport.h: the virtio-console
 * when the machine has one, else the arch UART, COM2 on x86), beside the
 * human console. The transport's interrupt puts bytes into a ring; when
 * the ring is full it stops taking them and the transport holds the
 * host's bytes back, so none is lost and the channel's counts are exact. The channel
 * thread parses the ring (kernel/channel/frame.c), answers rejected
 * frames with an ERROR, checks the HELLO's version, and runs requests
 * (ops.c) one at a time, sending their answers itself; the output
 * thread (stream.c) sends events and stream data: nothing is ever
 * written to the channel from interrupt or probe context.
 */
#include <scion/thread.h>
#include <scion/printk.h>
#include <scion/format.h>
#include <scion/string.h>
#include <scion/errno.h>
#include <scion/mm.h>
#include <scion/clock.h>
#include <scion/version.h>
#include <scion/chan_transport.h>
#include "channel_internal.h"

#define BATCH_BYTES      256	/* taken from the ring per lock round */
#define MESSAGE_MAX      192

struct channel channel = {
	.rx_wq = WAITQ_INIT(channel.rx_wq, "channel-rx"),
	.tx_lock = MUTEX_INIT(channel.tx_lock, "channel-tx"),
};

static uint32_t ring_used(void)
{
	return channel.ring_head - channel.ring_tail;
}

/*
 * The transport's interrupt (chan_rx_fn): keep as many of the n bytes as
 * the ring has room for; false when it has no room for another.
 */
static bool receive_bytes(const uint8_t *data, size_t n, size_t *taken)
{
	spin_lock_noirq(&channel.rx_wq.lock);
	bool was_empty = ring_used() == 0;
	size_t kept = 0;
	while (kept < n && ring_used() < CHANNEL_RX_RING)
		channel.ring[channel.ring_head++ % CHANNEL_RX_RING] = data[kept++];
	channel.counters.rx_bytes += kept;
	*taken = kept;
	bool room = ring_used() < CHANNEL_RX_RING;
	if (!room) {
		channel.input_held = true;
		channel.counters.rx_stalls++;
	}
	spin_unlock_noirq(&channel.rx_wq.lock);
	if (was_empty && kept)
		waitq_wake_all(&channel.rx_wq);
	return room;
}

void channel_send(uint8_t type, uint32_t seq, const void *a, size_t alen, const void *b,
		  size_t blen)
{
	uint8_t header[CHAN_HEADER_BYTES];
	struct chan_frame_trailer trailer = { chan_crc32(chan_crc32(0, a, alen), b, blen) };

	chan_wire_to_le(CHAN_WIRE(chan_frame_trailer), &trailer, 1);

	chan_header_encode(header, type, seq, (uint32_t)(alen + blen));
	mutex_lock(&channel.tx_lock);
	channel.transport->write(header, sizeof(header));
	channel.transport->write(a, alen);
	channel.transport->write(b, blen);
	channel.transport->write(&trailer, sizeof(trailer));
	channel.transport->flush();
	channel.counters.tx_bytes += sizeof(header) + alen + blen + sizeof(trailer);
	channel.counters.frames_sent++;
	channel.counters.errors_sent += type == CHAN_ERROR;
	mutex_unlock(&channel.tx_lock);
}

void channel_respond(uint32_t seq, int status, const void *body, size_t len)
{
	struct chan_response_header head = { status };
	chan_wire_to_le(CHAN_WIRE(chan_response_header), &head, 1);
	channel_send(CHAN_RESPONSE, seq, &head, sizeof(head), body, len);
}

void channel_error(uint32_t seq, int err, const char *fmt, ...)
{
	struct chan_response_header head = { err };
	char text[MESSAGE_MAX];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	chan_wire_to_le(CHAN_WIRE(chan_response_header), &head, 1);
	channel_send(CHAN_ERROR, seq, &head, sizeof(head), text,
		     n < (int)sizeof(text) ? (size_t)n : sizeof(text) - 1);
}

static void handle_hello(uint32_t seq, const uint8_t *payload, uint32_t length)
{
	char host[64];
	size_t n = length < sizeof(host) - 1 ? length : sizeof(host) - 1;

	memcpy(host, payload, n);
	host[n] = '\0';
	for (size_t i = 0; i < n; i++)	/* the version is text: keep the message one line */
		if (host[i] < ' ' || host[i] > '~')
			host[i] = '?';
	channel.counters.hellos++;
	if (length != strlen(scion_version) || memcmp(payload, scion_version, length)) {
		channel.handshake_done = false;
		channel.counters.version_mismatches++;
		channel_error(seq, -EPROTO, "version mismatch: host %s%s, kernel %s", host,
			      length > n ? "..." : "", scion_version);
		return;
	}
	channel.handshake_done = true;
	channel_streams_close_all();	/* the previous session's, if its host vanished */
	channel_send(CHAN_HELLO, seq, scion_version, strlen(scion_version), "\n", 1);
}

static void handle_event(const struct chan_event *ev)
{
	if (!ev->frame) {
		channel_error(ev->seq, -EBADMSG, "rejected frame: %s", chan_reject_name(ev->reject));
		return;
	}
	if (ev->type == CHAN_HELLO) {
		handle_hello(ev->seq, ev->payload, ev->length);
	} else if (!channel.handshake_done) {
		channel.counters.requests_failed++;
		channel_error(ev->seq, -EPERM, "no handshake: send a HELLO with version %s first",
			      scion_version);
	} else {
		channel_handle_request(ev->seq, ev->payload, ev->length);
	}
}

static void channel_thread(void *arg)
{
	uint8_t batch[BATCH_BYTES];
	struct chan_event ev;
	(void)arg;

	channel.thread = thread_current();
	for (;;) {
		irqflags_t f = spin_lock_irqsave(&channel.rx_wq.lock);
		uint64_t deadline = clock_ticks() + ms_to_ticks(CHAN_IDLE_RESET_MS);
		while (ring_used() == 0 && clock_ticks() < deadline) {
			if (READ_ONCE(channel.held)) {
				/* No idle reset while held: only the host's bytes wake it. */
				channel.rx_parked = true;
				waitq_sleep(&channel.rx_wq, 0);
				channel.rx_parked = false;
				continue;
			}
			waitq_sleep(&channel.rx_wq, deadline - clock_ticks());
		}
		uint32_t n = 0;
		while (n < BATCH_BYTES && ring_used())
			batch[n++] = channel.ring[channel.ring_tail++ % CHANNEL_RX_RING];
		bool resume = channel.input_held && ring_used() <= CHANNEL_RX_RING / 2;
		if (resume)
			channel.input_held = false;
		spin_unlock_irqrestore(&channel.rx_wq.lock, f);
		if (resume)
			channel.transport->resume_input();
		if (n == 0 && chan_parse_idle(&channel.parser, &ev))
			handle_event(&ev);
		for (uint32_t i = 0; i < n; i++)
			if (chan_parse_byte(&channel.parser, batch[i], &ev))
				handle_event(&ev);
	}
}

void channel_init(void)
{
	const struct chan_transport *transport = virtio_console_transport();
	if (!transport)
		transport = chan_uart_transport();
	if (!transport)
		return;
	channel.transport = transport;
	uint8_t *buffer = kmalloc(CHAN_MAX_PAYLOAD + CHAN_CRC_BYTES);
	if (!buffer) {
		printk("channel: out of memory; no control channel\n");
		return;
	}
	chan_parser_init(&channel.parser, buffer);
	if (thread_spawn("channel", channel_thread, NULL, -1) || channel_output_start()) {
		printk("channel: cannot start its thread; no control channel\n");
		return;
	}
	int err = transport->start_input(receive_bytes);
	if (err) {
		printk("channel: no interrupt for the channel device (%s)\n", errno_name(err));
		return;
	}
	channel.present = true;
	printk("channel: control channel on %s, protocol version %u\n", transport->device,
	       CHAN_VERSION);
}
