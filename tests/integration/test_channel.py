# SPDX-License-Identifier: BSD-2-Clause
"""The control channel (a virtio-console, or COM2 with channel="uart", on a
UNIX socket) driven by the host command
host/scion: status, loading a graft from a file, installing it,
running a workload and reading stats, all checked against the guest
shell's own answers; version mismatch refused on both sides; 30,000
hostile frames whose rejection counts the kernel must report exactly as
the host's reference parser predicts, the channel working afterwards;
two clients at once served one after the other."""

import fcntl
import json
import os
import random
import re
import socket
import subprocess
import sys
import threading
import time

from bcache_model import Cache, command_workload
from common import graft_path, poweroff, shell_boot

HOSTILE_FRAMES = 30_000


def scion(ctx, sock, *args, env=None, timeout=60):
    """Run host/scion against sock; returns (exit status, stdout, stderr)."""
    argv = [sys.executable, os.path.join(ctx.root, "host", "scion"), "--socket", sock, *args]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                       env={**os.environ, **(env or {})})
    return p.returncode, p.stdout, p.stderr


# What the kernel's boot message names for each of qemu/machine.py's channel devices.
CHANNEL_DEVICES = {"virtio": r"virtio-console \(pci [0-9a-f]{2}:[0-9a-f]{2}\.[0-7], port 1\)",
                   "uart": r"COM2"}


def channel_boot(ctx, name, channel=None, **kw):
    """Boot to the shell with the control channel on a socket: over channel
    ("virtio" or "uart"), by default the context's (ctx.channel, which a
    job may set to run other jobs' checks on the UART) or the virtio-console."""
    channel = channel or getattr(ctx, "channel", "virtio")
    sock = os.path.join(ctx.log_dir, f"{ctx.job}-{name}.sock")
    boot = shell_boot(ctx, name, control_socket=sock, channel=channel, timeout=600, **kw)
    boot.wait_for(r"channel: control channel on " + CHANNEL_DEVICES[channel])
    return boot, sock


def job_end_to_end(ctx):
    """status, graft load/install, a workload, stats, remove: as the guest shell says."""
    boot, sock = channel_boot(ctx, "e2e", smp=2, single_thread_tcg=True)
    try:
        version = open(os.path.join(ctx.build, "version.txt")).read().strip()
        rc, out, err = scion(ctx, sock, "status")
        ctx.result("status", rc == 0 and f"version: {version}" in out and "cpus: 2" in out,
                   f"exit {rc}: {out}{err}")
        rc, out, err = scion(ctx, sock, "graft", "load", graft_path(ctx, "evict_clock"))
        ctx.result("graft-load", rc == 0 and "loaded 'clock' for bcache.evict (version 1)" in out,
                   f"exit {rc}: {out}{err}")
        boot.command("graft avail", r"scion> ")
        rc, out, err = scion(ctx, sock, "graft", "install", "clock")
        ctx.result("graft-install", rc == 0 and "'clock' installed at bcache.evict" in out,
                   f"exit {rc}: {out}{err}")
        scion(ctx, sock, "shell", "bcache", "reset", "32")
        command = "bcache run random n=200 range=64 seed=3"
        rc, out, err = scion(ctx, sock, "shell", *command.split())
        m = re.search(r"(\d+) reads, (\d+) hits, (\d+) misses", out)
        model = Cache(32, evict="clock")
        want = model.run(command_workload(command))
        ctx.result("workload-through-channel",
                   rc == 0 and m and (int(m.group(2)), int(m.group(3))) == (want["hits"], want["misses"]),
                   f"exit {rc}: {out}{err}; model {want['hits']} hits {want['misses']} misses")
        rc, out, err = scion(ctx, sock, "graft", "list")
        host_line = re.search(r"^clock\s.*$", out, re.M)
        guest = boot.command("graft list", r"\nclock\s[^\n]*\r?\n")
        ctx.result("graft-list-as-guest-shell",
                   rc == 0 and host_line and host_line.group(0).split() == guest.group(0).split(),
                   f"host: {host_line.group(0) if host_line else out!r}; guest: {guest.group(0).strip()}")
        rc, out, err = scion(ctx, sock, "shell", "bcache")
        guest = boot.command("bcache", r"prefetches [^\n]*\r?\n")
        ctx.result("stats-as-guest-shell", rc == 0 and guest.group(0).strip() in out,
                   f"host: {out!r}; guest: {guest.group(0).strip()}")
        rc, out, err = scion(ctx, sock, "graft", "remove", "clock")
        ctx.result("graft-remove", rc == 0 and "'clock' removed" in out, f"exit {rc}: {out}{err}")
        rc, out, err = scion(ctx, sock, "graft", "load", graft_path(ctx, "unexported"))
        ctx.result("loader-error-verbatim",
                   rc != 0 and "undefined symbol 'printk' is not exported to grafts" in out + err,
                   f"exit {rc}: {out}{err}")
        rc, out, err = scion(ctx, sock, "text", "verify")
        ctx.result("text-verify", rc == 0 and "text: identical" in out, f"exit {rc}: {out}{err}")
        rc, out, err = scion(ctx, sock, "status", env={"SCION_HOST_VERSION": "v0-other-build"})
        ctx.result("version-mismatch-refused",
                   rc != 0 and "v0-other-build" in err and version in err and "\n" == err[-1:]
                   and err.count("\n") == 1, f"exit {rc}: {err!r}")
        rc, out, err = scion(ctx, sock, "shell", "nosuchcommand")
        ctx.result("unknown-command", rc != 0 and "nosuchcommand" in out + err, f"exit {rc}: {out}{err}")
        boot.command("uptime", r"up \S+")
        ctx.result("console-still-works", True)
    finally:
        poweroff(ctx, boot)


def hostile_stream(frame, rng):
    """HOSTILE_FRAMES frames of every kind of damage, as one byte string."""
    out = bytearray()
    for i in range(HOSTILE_FRAMES):
        kind = rng.randrange(6)
        payload = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 24)))
        if kind == 0:                      # random bytes
            out += bytes(rng.randrange(256) for _ in range(rng.randrange(1, 32)))
            continue
        if kind == 5:                      # a frame of any type with a random payload
            ftype = rng.randrange(256)
            if ftype == frame.REQUEST and len(payload) >= 2 and payload[0] | payload[1] << 8 in (
                    frame.OP_SHELL, frame.OP_GRAFT_LOAD, frame.OP_BULK):
                payload = b"\xff\xff" + payload[2:]    # nothing that runs commands or floods
            out += frame.encode(ftype, i, payload)
            continue
        good = bytearray(frame.encode_request(i, 0xfff0, payload))
        if kind == 1:                      # one bit flipped anywhere
            bit = rng.randrange(len(good) * 8)
            good[bit // 8] ^= 1 << (bit % 8)
        elif kind == 2:                    # truncated
            del good[rng.randrange(1, len(good)):]
        elif kind == 3:                    # oversized length field, header CRC right
            good = bytearray(frame.encode_header(frame.REQUEST, i, frame.MAX_PAYLOAD + 1 +
                                                 rng.randrange(1 << 20)))
        else:                              # bad version, header CRC right
            good = bytearray(frame.encode_header(frame.REQUEST, i, 0, version=rng.randrange(2, 256)))
        out += good
    return bytes(out)


def job_hostile_input(ctx):
    """30,000 damaged frames: counted exactly, answered, and the channel still works."""
    from scionhost import frame
    # Zero bytes finish any frame the stream leaves open (payloads are short),
    # then a last good REQUEST whose answer says the kernel has read it all.
    marker_seq = 0x7e57ab1e
    stream = hostile_stream(frame, random.Random(61)) + bytes(64) + \
        frame.encode_request(marker_seq, frame.OP_STATUS)
    model = frame.ReferenceParser()
    model.feed(stream)
    boot, sock = channel_boot(ctx, "hostile", smp=1)
    try:
        s = socket.socket(socket.AF_UNIX)
        s.connect(sock)
        answers = frame.ReferenceParser(accept_types=frame.KERNEL_SENT_TYPES)
        answered = []

        def drain():
            while True:
                data = s.recv(1 << 16)
                if not data:
                    return
                answered.extend(answers.feed(data))

        reader = threading.Thread(target=drain, daemon=True)
        reader.start()
        started = time.monotonic()
        s.sendall(stream)
        while not any(f.seq == marker_seq for f in answered) and time.monotonic() - started < 400:
            time.sleep(0.5)
        # shutdown, not just close: the reader thread's recv would keep the
        # connection open, and QEMU serves one client at a time.
        s.shutdown(socket.SHUT_RDWR)
        s.close()
        ctx.result("sent", any(f.seq == marker_seq for f in answered),
                   f"{len(stream)} bytes, {HOSTILE_FRAMES} frames in "
                   f"{time.monotonic() - started:.0f} s; last frame answered: "
                   f"{any(f.seq == marker_seq for f in answered)}")
        rc, out, err = scion(ctx, sock, "channel", "--json")
        counts = json.loads(out) if rc == 0 else {}
        # The status call itself adds its HELLO and STATS request: two accepted frames.
        ctx.result("rejected-as-predicted", counts.get("frames_rejected") == model.rejected,
                   f"kernel {counts.get('frames_rejected')}, reference parser {model.rejected} "
                   f"(exit {rc}: {out}{err})")
        for reason in frame.REJECT_REASONS:
            key = "rejected_" + reason.replace(" ", "_")
            ctx.result(f"rejected/{key}", counts.get(key) == model.rejects[reason],
                       f"kernel {counts.get(key)}, reference parser {model.rejects[reason]}")
        ctx.result("accepted-as-predicted", counts.get("frames_accepted") == model.accepted + 2,
                   f"kernel {counts.get('frames_accepted')}, reference parser {model.accepted} + 2")
        ctx.result("garbage-as-predicted", counts.get("garbage_bytes") == model.garbage_bytes,
                   f"kernel {counts.get('garbage_bytes')}, reference parser {model.garbage_bytes}")
        errors = sum(1 for f in answered if f.type == frame.ERROR)
        ctx.result("every-reject-answered", errors >= model.rejected,
                   f"{errors} ERROR frames for {model.rejected} rejected frames")
        rc, out, err = scion(ctx, sock, "status")
        ctx.result("status-after", rc == 0 and "version:" in out, f"exit {rc}: {out}{err}")
        boot.command("uptime", r"up \S+")
        ctx.result("console-after", True)
    finally:
        poweroff(ctx, boot)


def structured_vs_shell(ctx, boot, sock):
    """What the structured replies say against what the guest shell prints."""
    rc, out, err = scion(ctx, sock, "probe", "list", "--json", "fbt::thread_c*:")
    rows = json.loads(out) if rc == 0 else []
    guest = boot.command("probe list fbt::thread_c*:", r"[\s\S]*?\d+ probes?\r?\n")
    shell_rows = re.findall(r"^\s+(\d+)\s+(\S+)\s+(\d+)\s+(\d+)", guest.group(0), re.M)
    ctx.result("probe-list-as-shell", rows and [(str(r["id"]), r["probe"], str(r["sites"]),
                                               str(r["consumers"])) for r in rows] == shell_rows,
               f"structured {rows}; shell {shell_rows}")
    # Every probe, over several answers (not on the console: its names include panic).
    rc, out, err = scion(ctx, sock, "probe", "list", "--json")
    every = json.loads(out) if rc == 0 else []
    ids = [r["id"] for r in every]
    rc, out, err = scion(ctx, sock, "status", "--json")
    known = json.loads(out).get("probes") if rc == 0 else None
    ctx.result("probe-list-all-pages", len(every) == known and
               len(every) * 216 > 65536 and ids == sorted(set(ids)),
               f"{len(every)} records, {known} probes known")
    rc, out, err = scion(ctx, sock, "graft", "list", "--json")
    grafts = json.loads(out) if rc == 0 else None
    guest = boot.command("graft list", r"[\s\S]*?graft area[^\n]*\r?\n")
    lines = [line.split() for line in guest.group(0).splitlines()[1:] if line.strip()
             and not line.startswith(("graft area", "(no grafts", "    "))
             and line.split()[:2] != ["graft", "point"]]
    ctx.result("graft-list-as-shell", grafts is not None and [
        [g["graft"], g["point"], *g["scope"].split(), g["state"], str(g["invocations"]),
         str(g["commits"]), str(g["aborts"])] for g in grafts] ==
        [line[:len(line) - 2] for line in lines], f"structured {grafts}; shell {lines}")
    rc, out, err = scion(ctx, sock, "stats", "--json")
    stats = json.loads(out) if rc == 0 else {}
    guest = boot.command("stats", r"probes: (\d+) known, (\d+) sites patched")
    ctx.result("stats-as-shell", stats.get("probes", {}).get("known") == int(guest.group(1))
               and stats["probes"]["sites"] == int(guest.group(2)), f"{stats} / {guest.group(0)}")
    scion(ctx, sock, "shell", "channel", "event", "structured-marker")
    rc, out, err = scion(ctx, sock, "events")
    ctx.result("events", rc == 0 and "mark: structured-marker" in out, f"exit {rc}: {out}{err}")


def metric_ops(ctx, client):
    """METRIC_ADD sets up a metric that METRICS then lists and that counts the
    calls made; METRIC_REMOVE takes one away, then all; bad requests are
    refused in one line each."""
    from scionhost import frame, replies
    from scionhost.client import ScionError
    from scionhost.layouts import layout
    before = {r["id"] for r in replies.request_list(client, frame.OP_METRICS, "chan_metric_info")}
    mid = replies.metric_add(client, "count", "shell_run")
    cid = replies.metric_add(client, "concurrency", "shell_run")
    for _ in range(3):
        client.request(frame.OP_SHELL, b"uptime")    # each a shell_run
    rows = {r["id"]: r for r in replies.request_list(client, frame.OP_METRICS, "chan_metric_info")}
    ctx.result("metric-add/listed", mid in rows and cid in rows and mid not in before and
               replies.text(rows[mid]["function"]) == "shell_run" and
               rows[mid]["kind"] == frame.C.CHAN_METRIC_COUNT and rows[mid]["calls"] == 3 and
               rows[cid]["kind"] == frame.C.CHAN_METRIC_CONCURRENCY and rows[cid]["area"] > 0,
               repr(rows))
    replies.metric_remove(client, mid)
    left = {r["id"] for r in replies.request_list(client, frame.OP_METRICS, "chan_metric_info")}
    ctx.result("metric-remove/one", mid not in left and cid in left, repr(left))
    replies.metric_remove(client)
    left = replies.request_list(client, frame.OP_METRICS, "chan_metric_info")
    ctx.result("metric-remove/all", left == [], repr(left))
    add = layout("chan_metric_add_request", "kind", "pid", "function")
    bad = [("no-function", add.pack(kind=1, function=b"no_such_function"),
            "metric add: count on 'no_such_function': no fbt probe for it"),
           ("bad-kind", add.pack(kind=9, function=b"thread_yield"), "metric add: kind 9"),
           ("no-nul", add.pack(kind=1, function=b"f" * 64), "metric add: kind 1"),
           ("no-process", add.pack(kind=1, pid=4000, function=b"thread_yield"),
            "metric add: no process 4000"),
           ("short", b"\0" * 8, "metric add: give a struct chan_metric_add_request")]
    for name, body, want in bad:
        status, text = client.request(frame.OP_METRIC_ADD, body)
        line = text.decode("utf-8", "replace")
        ctx.result(f"metric-add/refused/{name}", status < 0 and line.startswith(want) and
                   "\n" not in line.strip(), f"{status}: {line!r}")
    try:
        replies.metric_remove(client, 12345)
        ctx.result("metric-remove/refused", False, "no error")
    except ScionError as e:
        ctx.result("metric-remove/refused", str(e) == "metric remove: no metric 12345", str(e))


def job_structured_replies(ctx):
    """The structured ops agree with the shell, and refuse bad requests in one line."""
    from scionhost import frame
    from scionhost.client import Client
    from scionhost.layouts import layout
    boot, sock = channel_boot(ctx, "structured", smp=1)
    try:
        scion(ctx, sock, "graft", "load", graft_path(ctx, "evict_clock"))
        scion(ctx, sock, "graft", "install", "clock")
        scion(ctx, sock, "shell", "count", "thread_create")
        scion(ctx, sock, "shell", "latency", "thread_yield")
        structured_vs_shell(ctx, boot, sock)
        bad = [("status-with-body", frame.OP_STATUS, b"x", "status: a request of 1 bytes"),
               ("list-short", frame.OP_GRAFT_LIST, b"\0\0", "graft list: a request of 2 bytes"),
               ("list-long", frame.OP_METRICS, bytes(12), "metrics: a request of 12 bytes"),
               ("events-long", frame.OP_EVENTS, bytes(9), "events: a request of 9 bytes"),
               ("probe-spec-nul", frame.OP_PROBE_LIST, bytes(8) + b"fbt\0x",
                "probe list: give a spec of at most"),
               ("probe-spec-long", frame.OP_PROBE_LIST, bytes(8) + b"f" * 400,
                "probe list: give a spec of at most"),
               ("probe-spec-bad", frame.OP_PROBE_LIST, bytes(8) + b"a:b:c:d:e",
                "probe list a:b:c:d:e: ")]
        with Client(sock) as client:
            for name, op, body, want in bad:
                status, text = client.request(op, body)
                line = text.decode("utf-8", "replace")
                ctx.result(f"refused/{name}", status < 0 and line.startswith(want)
                           and "\n" not in line.strip(), f"{status}: {line!r}")
            metric_ops(ctx, client)
            status, text = client.request(frame.OP_STATUS)
            ctx.result("answers-after-refusals", status == 0 and
                       len(text) == layout("chan_status").size, f"{status}, {len(text)} bytes")
        boot.command("uptime", r"up \S+")
        ctx.result("console-after", True)
    finally:
        poweroff(ctx, boot)


def job_two_clients(ctx):
    """Two clients at once are served one after the other; with --wait 0 the second is refused."""
    boot, sock = channel_boot(ctx, "two-clients", smp=1)
    try:
        argv = [sys.executable, os.path.join(ctx.root, "host", "scion"), "--socket", sock]
        procs = [subprocess.Popen(argv + ["shell", "graft", "points", "-v"], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for _ in range(2)]
        outs = [p.communicate(timeout=120) for p in procs]
        ok = all(p.returncode == 0 for p in procs) and outs[0][0] == outs[1][0] and \
            outs[0][0].count("bcache.evict") == 1
        ctx.result("both-served-whole", ok, f"{[p.returncode for p in procs]}: {outs!r}"[:600])
        with open(sock + ".lock", "a") as held:
            fcntl.flock(held, fcntl.LOCK_EX)
            p = subprocess.run(argv[:2] + ["--socket", sock, "--wait", "0", "status"],
                               capture_output=True, text=True, timeout=60)
        rc, out, err = p.returncode, p.stdout, p.stderr
        ctx.result("second-refused-clearly", rc != 0 and "another client" in err and out == "",
                   f"exit {rc}: {out!r} {err!r}")
    finally:
        poweroff(ctx, boot)
