# SPDX-License-Identifier: BSD-2-Clause
"""The in-kernel benchmarks' structured path: the control channel's "bench"
stream (kernel/test/bench_stream.c) and `scion bench` (host/scionhost/bench.py),
what `make bench` reads its figures from.

- A run over the stream reports, as records, the figures the shell's `bench`
  prints for people for the same selector (same names, same order), the
  run's configuration, and a status that ends it; the console shows the run
  too.
- Malformed or refused requests get one line and open nothing: a selector
  that matches nothing, two words, one too long, a second run while one is
  going; the shell's `bench` meanwhile says a run is in progress.
- A stream closed before its run ends: the run stops after the benchmark in
  progress, the host gets a status saying so (or the one of a run that had
  ended), and the next run works.
- `channel held CMD` runs CMD (its status is CMD's) with the channel held.
- The host refuses records of the wrong size in one line (no QEMU).
"""

import re
import time

from common import poweroff
from test_channel import channel_boot, scion

SELECTOR = "xcall,context_switch,text_poke"
FIGURES = {"xcall.all", "xcall.one_remote", "sched.context_switch", "text_poke.same_bytes"}
FIGURE_LINE = re.compile(r"^bench (\S+) (\d+) (\S+)$", re.M)


def job_bench_stream(ctx):
    from scionhost import bench, frame
    from scionhost.client import Client, ScionError

    boot, sock = channel_boot(ctx, "bench-stream", smp=2, single_thread_tcg=True)
    try:
        with Client(sock, timeout=120) as client:
            mark = boot.mark()
            items, status = bench.run(client, SELECTOR, timeout=300)
            figures = [i["name"] for i in items if i["kind"] == "figure"]
            ctx.result("figures-as-records", set(figures) == FIGURES and len(figures) == 4 and all(
                i["value"] > 0 and i["unit"] == "cycles" for i in items if i["kind"] == "figure"),
                repr(items))
            config = {i["name"]: i["value"] for i in items if i["kind"] == "config"}
            ctx.result("configuration-first", items[:2] == [i for i in items if
                                                             i["kind"] == "config"] and
                       config.get("cpus") == 2 and config.get("cycles_per_second", 0) > 0,
                       repr(items[:3]))
            ctx.result("status-ends-the-run", status["ran"] == 3 and status["status"] == 0 and
                       status["records"] == len(items), repr(status))
            shown = boot.wait_for(r"benchmarks finished: 3", start=mark, timeout=60)
            ctx.result("console-shows-the-run",
                       [m[0] for m in FIGURE_LINE.findall(boot.output[mark:shown.end()])] ==
                       figures, boot.output[mark:shown.end()][-600:])

            status, text = client.request(frame.OP_SHELL, f"bench {SELECTOR}".encode(),
                                          timeout=300)
            names = [m[0] for m in FIGURE_LINE.findall(text.decode())]
            ctx.result("the-shell-prints-the-same-figures", status == 0 and names == figures,
                       text.decode()[-600:])

            # Malformed and refused: one line each, no stream left open.
            for what, args, expect in (
                    ("matches-nothing", "no_such_bench*", r"no benchmark matches"),
                    ("two-words", "xcall context_switch", r"give one selector"),
                    ("too-long", "x" * 200, r"give one selector")):
                status, text = client.request(frame.OP_STREAM_OPEN,
                                              f"bench 16384 50 {args}".encode())
                line = text.decode("utf-8", "replace")
                ctx.result(f"refuses-{what}", status < 0 and re.search(expect, line) and
                           line.strip().count("\n") == 0 and line.startswith("stream open: bench:"),
                           f"{status}: {line!r}")
            status, text = client.request(frame.OP_SHELL, b"channel streams")
            ctx.result("nothing-opened-by-them", b"(no stream open)" in text, text.decode())

            # A run cut short: close at once; a second run meanwhile is refused.
            got = []
            stream, _, _ = client.stream_open("bench", bench.BUFSIZE, bench.SWITCH_MS, "*",
                                              lambda cpu, n, drops, body: got.append(cpu))
            status, text = client.request(frame.OP_STREAM_OPEN, b"bench 16384 50 xcall")
            busy = status == -16 and b"another run is in progress" in text
            status2, text2 = client.request(frame.OP_SHELL, b"bench xcall")
            ctx.result("one-run-at-a-time", busy and status2 == -16 and
                       b"another run is in progress" in text2, f"{text!r} / {text2!r}")
            totals = client.stream_close(stream)
            ctx.result("cut-short-run-ends-with-a-status", frame.CHUNK_STATUS in got and
                       totals["drops"] == 0, f"chunks {got}, totals {totals}")
            deadline, items = time.monotonic() + 300, None
            while items is None and time.monotonic() < deadline:
                try:
                    items, _ = bench.run(client, "xcall", timeout=120)
                except ScionError as e:
                    if "in progress" not in str(e):
                        raise
                    time.sleep(0.5)
            ctx.result("next-run-works", items is not None and
                       [i["name"] for i in items if i["kind"] == "figure"] ==
                       ["xcall.all", "xcall.one_remote"], repr(items))

        rc, out, err = scion(ctx, sock, "shell", "channel", "held", "version")
        ctx.result("channel-held-runs-the-command", rc == 0 and out.strip(), out + err)
        rc, out, err = scion(ctx, sock, "shell", "channel", "held", "no_such_command")
        ctx.result("channel-held-passes-its-status", rc != 0 and "unknown command" in out + err,
                   f"{rc}: {out + err}")
        rc, out, err = scion(ctx, sock, "bench", "xcall")
        ctx.result("scion-bench-prints-figures", rc == 0 and
                   [line.split()[0] for line in out.splitlines()] == ["xcall.all",
                                                                      "xcall.one_remote"],
                   out + err)
        rc, out, err = scion(ctx, sock, "bench", "nothing_here")
        ctx.result("scion-bench-refusal-is-one-line", rc == 1 and err.startswith("scion: ") and
                   err.count("\n") == 1 and "no benchmark matches" in err, err)
    finally:
        poweroff(ctx, boot)


def job_bench_records_decoded(ctx):
    """Records as the kernel lays them out; a record or chunk of the wrong size is
    refused in one line."""
    from scionhost import bench, frame
    rec = bench.RECORD.pack(value=474, seq=3, kind=frame.BENCH_FIGURE, size=bench.RECORD.size,
                            name=b"xcall.all", unit=b"cycles")
    items = bench.decode_records(rec + rec, 2)
    ctx.result("decoded", items[0] == {"kind": "figure", "name": "xcall.all", "value": 474,
                                       "unit": "cycles", "seq": 3}, repr(items))
    for what, body, count in (("short-chunk", rec[:-8], 1), ("count-mismatch", rec, 2),
                              ("bad-size", bench.RECORD.pack(size=96) , 1)):
        try:
            bench.decode_records(body, count)
            ctx.result(f"refuses-{what}", False, "decoded")
        except frame.FrameError as e:
            ctx.result(f"refuses-{what}", "\n" not in str(e), str(e))
