# SPDX-License-Identifier: BSD-2-Clause
"""What the kernel sends unasked over the control channel: probe firings
streamed from its per-CPU buffers (`scion probe record`) and event lines
(`scion events`, EVENT frames).

Recordings are checked against what the workload must produce (the
block numbers a sequential run reads, in order), against the guest's
own count metric on the same probe, and for drops: an undersized
buffer reports exactly what it could not hold. Streams a client opens
and abandons are closed by the next session; the text is restored."""

import json
import os
import re
import subprocess
import sys
import threading

from common import graft_path, poweroff
from test_channel import channel_boot, scion

SEQ_START, SEQ_READS = 100, 40
RANDOM_READS = 100
TINY_BUFFER = 64            # two 32-byte records per CPU
HISTORY = 64                # kernel/channel/event.c EVENT_SLOTS


def record(ctx, sock, *args):
    """scion probe record ... --json -> (exit status, parsed JSON or None, stderr)."""
    rc, out, err = scion(ctx, sock, "probe", "record", "--json", *args, timeout=300)
    try:
        return rc, json.loads(out), err
    except ValueError:
        return rc, None, err + out


def job_probe_record(ctx):
    boot, sock = channel_boot(ctx, "record", smp=2, single_thread_tcg=True)
    try:
        spec = "fbt::bcache_read:entry"
        boot.command("count bcache_read", r"scion> ")
        rc, got, err = record(ctx, sock, spec, "--run",
                              f"bcache run seq n={SEQ_READS} start={SEQ_START}")
        recs = got["records"] if got else []
        ctx.result("sequential-run-recorded",
                   rc == 0 and [r["arg0"] for r in recs] ==
                   list(range(SEQ_START, SEQ_START + SEQ_READS)) and got["dropped"] == 0,
                   f"exit {rc}: {[r['arg0'] for r in recs]} {err}"[:600])
        ctx.result("records-well-formed",
                   recs and all(r["name"] == "fbt:kernel:bcache_read:entry" for r in recs)
                   and len({r["tid"] for r in recs}) == 1
                   and all(a["timestamp_ns"] <= b["timestamp_ns"] for a, b in zip(recs, recs[1:])),
                   repr(recs[:3]))
        ctx.result("kernel-totals-agree", got and got["totals"]["records"] == SEQ_READS
                   and got["totals"]["bytes"] == SEQ_READS * 32, repr(got and got["totals"]))
        m = boot.command("stats", r"count\s+bcache_read: (\d+) calls")
        ctx.result("count-metric-agrees", int(m.group(1)) == SEQ_READS,
                   f"the count metric saw {m.group(1)} calls, the recording {SEQ_READS}")
        boot.command("probe clear", r"scion> ")

        rc, got, err = record(ctx, sock, spec, "--bufsize", str(TINY_BUFFER), "--switchrate",
                              "60000", "--run", f"bcache run random n={RANDOM_READS} seed=5")
        ok = rc == 0 and got is not None
        per_cpu = {}
        for r in got["records"] if ok else []:
            per_cpu[r["cpu"]] = per_cpu.get(r["cpu"], 0) + 1
        ctx.result("drops-counted-exactly",
                   ok and len(got["records"]) + got["dropped"] == RANDOM_READS
                   and got["dropped"] >= RANDOM_READS - 2 * got["cpus"]
                   and all(n <= TINY_BUFFER // 32 for n in per_cpu.values()),
                   f"exit {rc}: {len(got['records']) if ok else '-'} records, "
                   f"{got['dropped'] if ok else '-'} dropped {err}")
        ctx.result("drops-on-stderr", re.search(r"^scion: \d+ drops on CPU \d+$", err, re.M)
                   is not None, err)

        rc, got, err = record(ctx, sock, "fbt::sched_tick:entry", "--duration", "1.5")
        ok = rc == 0 and got is not None
        by_cpu = {}
        for r in got["records"] if ok else []:
            by_cpu.setdefault(r["cpu"], []).append(r["timestamp_ns"])
        ctx.result("every-cpu-streams-its-own",
                   ok and sorted(by_cpu) == [0, 1] and all(len(v) >= 20 for v in by_cpu.values())
                   and all(a < b for v in by_cpu.values() for a, b in zip(v, v[1:])),
                   f"exit {rc}: {({c: len(v) for c, v in by_cpu.items()})} {err}")

        for name, args, want in (
                ("no-such-probe", ["fbt::no_such_function_at_all:entry", "--duration", "0"],
                 r"^scion: stream open: probes: .*no_such_function_at_all"),
                ("bad-bufsize", ["fbt::bcache_read:entry", "--bufsize", "60", "--duration", "0"],
                 r"^scion: stream open: buffer size '60'"),
                ("bad-switchrate", ["fbt::bcache_read:entry", "--switchrate", "1", "--duration",
                                    "0"], r"^scion: stream open: switch interval '1'")):
            rc, out, err = scion(ctx, sock, "probe", "record", *args)
            ctx.result(f"refused/{name}", rc == 1 and out == "" and err.count("\n") == 1
                       and re.search(want, err) is not None, f"exit {rc}: {out!r} {err!r}")

        # A client that opens a stream and vanishes: the next session closes it.
        from scionhost.client import Client
        client = Client(sock, timeout=60)
        client.open()
        client.stream_open("probes", 4096, 100, spec, lambda *chunk: None)
        client.close()
        rc, out, err = scion(ctx, sock, "shell", "channel", "streams")
        ctx.result("abandoned-stream-closed", rc == 0 and "(no stream open)" in out,
                   f"exit {rc}: {out}{err}")
        rc, out, err = scion(ctx, sock, "probe", "list", spec, "--json")
        rows = json.loads(out) if rc == 0 else []
        ctx.result("its-probes-disabled", len(rows) == 1 and rows[0]["consumers"] == 0, out + err)
        malformed_stream_requests(ctx, sock, spec)
        rc, out, err = scion(ctx, sock, "text", "verify")
        ctx.result("text-restored", rc == 0 and "text: identical" in out, out + err)
    finally:
        poweroff(ctx, boot)


MALFORMED_OPENS = [b"", b"probes", b"probes 4096", b"probes x 100 fbt::a:entry",
                   b"probes 4096 100\0fbt", b"\xff" * 300, b"nosuch 4096 100",
                   b"probes 99999999999 100 fbt::a:entry", b"probes 4096 -5 fbt::a:entry",
                   b"probes 4096 100 " + b"a" * 200, b"probes 4100 100 fbt::bcache_read:entry",
                   b"probes 4096 100"]
MALFORMED_CLOSES = [b"", b"\1\2\3", b"\0\0\0\0", b"\x39\x30\0\0", b"\1\0\0\0\0"]


def malformed_stream_requests(ctx, sock, spec):
    """Bad STREAM_OPEN / STREAM_CLOSE bodies: one-line errors, nothing opened;
    a fifth stream refused while four are open."""
    from scionhost import frame
    from scionhost.client import Client
    with Client(sock, timeout=60) as client:
        answers = [client.request(frame.OP_STREAM_OPEN, body) for body in MALFORMED_OPENS]
        answers += [client.request(frame.OP_STREAM_CLOSE, body) for body in MALFORMED_CLOSES]
        bad = [(i, status, text) for i, (status, text) in enumerate(answers)
               if status >= 0 or not text or b"\n" in text.rstrip(b"\n")]
        ctx.result("malformed-stream-requests-refused", not bad, repr(bad)[:600])
        status, text = client.request(frame.OP_SHELL, b"channel streams")
        ctx.result("nothing-opened-by-them", b"(no stream open)" in text, text.decode())
        opened = [client.stream_open("probes", 4096, 1000, spec, lambda *c: None)[0]
                  for _ in range(4)]
        status, text = client.request(frame.OP_STREAM_OPEN, f"probes 4096 1000 {spec}".encode())
        ctx.result("fifth-stream-refused", status == -16 and b"4 streams are open" in text,
                   f"{status} {text!r}")
        totals = [client.stream_close(s) for s in opened]
        ctx.result("four-streams-closed", len(totals) == 4 and len(set(opened)) == 4, repr(totals))


EVENT_LINE = re.compile(r"^\s*(\d+)\s+\d+\.\d{3}  (.*)$")


def events_of(text):
    return [(int(m[1]), m[2]) for m in map(EVENT_LINE.match, text.splitlines()) if m]


def job_events(ctx):
    boot, sock = channel_boot(ctx, "events", smp=1)
    try:
        argv = [sys.executable, os.path.join(ctx.root, "host", "scion"), "--socket", sock]
        boot.command("channel event start", r"scion> ")
        follower = subprocess.Popen(argv + ["events", "--follow", "--count", "3", "--duration",
                                            "120"], stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True)
        lines, started = [], threading.Event()

        def read_follower():
            for line in follower.stdout:
                lines.append(line)
                if line.rstrip().endswith("mark: start"):
                    started.set()

        reader = threading.Thread(target=read_follower, daemon=True)
        reader.start()
        # Events posted before the follower read its history would not count as new.
        ctx.result("follower-read-history", started.wait(60), "".join(lines)[-400:])
        rc, out, err = scion(ctx, sock, "graft", "load", graft_path(ctx, "loop"))
        rc2, out2, err2 = scion(ctx, sock, "graft", "install", "loop")
        boot.command("bcache reset 8", r"scion> ")
        boot.command("bcache run random n=30 seed=2", r"\d+ reads")
        follower.wait(timeout=180)
        reader.join(timeout=10)
        out_f, err_f = "".join(lines), follower.stderr.read()
        new = events_of(out_f)[-3:]
        want = [r"graft: loop\.graft: loaded 'loop' for bcache\.evict",
                r"graft: 'loop' installed at bcache\.evict",
                r"graft: 'loop' aborted at bcache\.evict: time budget of \d+ us exceeded"]
        ok = follower.returncode == 0 and len(new) == 3 and \
            all(re.match(w, text) for w, (_, text) in zip(want, new)) and \
            [n for n, _ in new] == list(range(new[0][0], new[0][0] + 3))
        ctx.result("follow-sees-load-install-abort", ok,
                   f"exit {follower.returncode}: {out_f[-600:]!r} {err_f!r} "
                   f"(load: {out}{err} install: {out2}{err2})")

        boot.command("channel event marker from the console", r"scion> ")
        rc, out, err = scion(ctx, sock, "events")
        history = events_of(out)
        ctx.result("history-numbered-from-1",
                   rc == 0 and [n for n, _ in history] == list(range(1, len(history) + 1))
                   and history[-1][1] == "mark: marker from the console",
                   f"exit {rc}: {out[-600:]!r} {err!r}")

        from scionhost import frame
        from scionhost.client import Client
        with Client(sock, timeout=60) as client:
            client.request(frame.OP_SHELL, b"channel event pushed")
            client.pump(1.0)
            pushed = [e for e in client.events if e[2] == "mark: pushed"]
            for i in range(HISTORY + 6):
                client.request(frame.OP_SHELL, f"channel event burst {i}".encode())
        ctx.result("event-frame-pushed", len(pushed) == 1, repr(client.events))
        rc, out, err = scion(ctx, sock, "events")
        history = events_of(out)
        numbers = [n for n, _ in history]
        ctx.result("ring-keeps-the-last-64",
                   len(history) == HISTORY and numbers == list(range(numbers[0], numbers[0] + HISTORY))
                   and history[-1][1] == f"mark: burst {HISTORY + 5}", f"{out[-400:]!r}")
        rc, out, err = scion(ctx, sock, "events", "--follow", "--count", "1", "--duration", "2")
        ctx.result("follow-timeout-is-an-error",
                   rc == 1 and re.search(r"^scion: events: 0 of the 1 events", err, re.M)
                   is not None, f"exit {rc}: {err!r}")
    finally:
        poweroff(ctx, boot)
