# SPDX-License-Identifier: BSD-2-Clause
"""The control channel's transports (scion/chan_transport.h): floods in
both directions with nothing lost, on the virtio-console (the default)
and on the UART fallback, and a representative subset of the channel's
other jobs (damaged frames, a session end to end, streams) run again on
the UART so the fallback stays tested.

Floods, each checked byte for byte:
  guest -> host   a BULK of many MiB: the byte count and the CRC of the
                  whole transfer against the kernel's pattern; then one
                  whose reader stalls for seconds first, so the device
                  must hold the guest's output back (QEMU throttles a
                  virtserialport while the socket is full) rather than
                  drop it;
  host -> guest   ECHO requests of 64 KiB, all sent before most answers
                  are read: the kernel's ring fills, its transport stops
                  taking bytes (rx_stalls counts it) and every answer
                  still equals its request; the kernel's rx_bytes grows
                  by exactly what was sent.
"""

import os
import random
import socket
import threading
import time

import test_channel
import test_streams
from common import poweroff
from test_channel import channel_boot

BULK_CHUNK = 4096               # kernel/channel/ops.c: a BULK's DATA frames carry i % 256
ECHO_BYTES = 64 << 10
SOCKET_BUFFER = 64 << 10


def bulk_pattern(nbytes):
    chunk = bytes(i % 256 for i in range(BULK_CHUNK))
    return (chunk * (nbytes // BULK_CHUNK + 1))[:nbytes]


def channel_stats(sock):
    """The kernel's channel counters (STATS) through a session of its own."""
    from scionhost import client, replies
    with client.Client(sock, timeout=120, direct=True) as c:
        return replies.channel_stats(c)


def bulk(ctx, sock, name, nbytes, stall_seconds=0):
    """A BULK of nbytes: exact count and CRC; stall_seconds: read nothing for that long first."""
    from scionhost import client, frame
    from scionhost.commands import BULK_REQUEST
    got = []
    stalled = [False]

    def on_data(stream, data):
        if stall_seconds and not stalled[0]:
            stalled[0] = True
            time.sleep(stall_seconds)
        got.append(data)

    with client.Client(sock, timeout=300, direct=True) as c:
        if stall_seconds:       # a small receive buffer: the stall backs up into QEMU soon
            c._sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, SOCKET_BUFFER)
        t0 = time.monotonic()
        status, body = c.request(frame.OP_BULK, BULK_REQUEST.pack(bytes=nbytes), on_data=on_data)
        seconds = time.monotonic() - t0
    data = b"".join(got)
    want = bulk_pattern(nbytes)
    ctx.result(name, status == 0 and len(data) == nbytes and
               frame.crc32(data) == frame.crc32(want),
               f"status {status}: {len(data)} of {nbytes} bytes, CRC {frame.crc32(data):08x} "
               f"(want {frame.crc32(want):08x}) in {seconds:.2f} s")


def echo_flood(ctx, sock, count):
    """count ECHOs of ECHO_BYTES random bytes, written by one thread while another reads."""
    from scionhost import frame
    before = channel_stats(sock)
    version = open(os.path.join(ctx.build, "version.txt")).read().strip()
    rng = random.Random(28)
    bodies = {seq: rng.randbytes(ECHO_BYTES) for seq in range(1, count + 1)}
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock)
    s.settimeout(300)
    answers = frame.ReferenceParser(accept_types=frame.KERNEL_SENT_TYPES)
    got = {}
    sent = [0]

    def writer():
        for seq, body in bodies.items():
            f = frame.encode_request(seq, frame.OP_ECHO, body)
            s.sendall(f)
            sent[0] += len(f)

    s.sendall(frame.encode_hello(0, version))
    started = time.monotonic()
    w = threading.Thread(target=writer, daemon=True)
    w.start()
    try:
        while len(got) < count and time.monotonic() - started < 300:
            data = s.recv(1 << 16)
            if not data:
                break
            for f in answers.feed(data):
                if f.type == frame.RESPONSE and f.seq in bodies:
                    got[f.seq] = frame.decode_status(f.payload)
    finally:
        w.join(timeout=10)
        s.shutdown(socket.SHUT_RDWR)
        s.close()
    seconds = time.monotonic() - started
    wrong = [seq for seq, body in bodies.items() if got.get(seq) != (0, body)]
    ctx.result("echo-flood-exact", not wrong,
               f"{len(got)} of {count} answers, {len(wrong)} wrong or missing "
               f"({wrong[:5]}), {sent[0]} bytes sent in {seconds:.2f} s")
    after = channel_stats(sock)
    # The flood's HELLO and requests, then the second STATS session's HELLO and request.
    hello = len(frame.encode_hello(0, version))
    want = hello + sent[0] + hello + len(frame.encode_request(0, frame.OP_STATS))
    ctx.result("echo-flood-rx-bytes-exact", after["rx_bytes"] - before["rx_bytes"] == want,
               f"kernel rx_bytes grew by {after['rx_bytes'] - before['rx_bytes']}; the host "
               f"sent {want}")
    ctx.result("echo-flood-held-input", after["rx_stalls"] > before["rx_stalls"],
               f"rx_stalls {before['rx_stalls']} -> {after['rx_stalls']}: the ring filled and "
               f"the transport held the host's bytes back")


def floods(ctx, channel, bulk_bytes, echoes):
    boot, sock = channel_boot(ctx, "flood", channel=channel, smp=1)
    try:
        bulk(ctx, sock, "bulk-exact", bulk_bytes)
        bulk(ctx, sock, "bulk-stalled-reader-exact", bulk_bytes // 2, stall_seconds=3)
        echo_flood(ctx, sock, echoes)
        bulk(ctx, sock, "bulk-after-floods", BULK_CHUNK * 3 + 5)
    finally:
        poweroff(ctx, boot)


def job_virtio_flood(ctx):
    """Floods both ways on the virtio-console: nothing lost."""
    floods(ctx, "virtio", 64 << 20, 256)


def job_uart_flood(ctx):
    """Floods both ways on the UART fallback (smaller: it moves about 0.5 MB/s)."""
    floods(ctx, "uart", 1 << 20, 24)


def job_uart_frames(ctx):
    """Damaged frames and a session end to end (test_channel.py's) on the UART fallback."""
    ctx.channel = "uart"
    test_channel.job_hostile_input(ctx)
    test_channel.job_end_to_end(ctx)


def job_uart_streams(ctx):
    """Streams (test_streams.py's recording and followed events) on the UART fallback."""
    ctx.channel = "uart"
    test_streams.job_probe_record(ctx)
    test_streams.job_events(ctx)

