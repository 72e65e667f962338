# SPDX-License-Identifier: BSD-2-Clause
"""The measurement thread and the "monitor" stream (kernel/monitor/sampler.c,
monitor_stream.c), read raw from the channel with the layouts generated from
scion/monitor_rec.h (the host's collector is tested in test_profile_collect).

- Opening the stream writes the source table first, then rounds: every due
  source in each round, one sample per CPU for a per-CPU source, one per
  thread for a per-thread one, the thread named before its first sample; the
  status's samples_written equals the samples received; closing it turns
  sampling off again.
- Intervals: a source at 50 ms is sampled about twice as often as one at
  100 ms; a 1 ms burst gives samples 1 ms apart (no busy-wait: the fast tick).
- The calendar: `clock 720 2026-11-25` starts the day there and runs 720x.
- The MONITOR op refuses bad requests with one line and changes nothing; so
  does the shell.
- A buffer too small for the rounds drops them: the next round says how many
  samples were lost and the counts add up.
"""

import re
import struct

from common import poweroff
from test_channel import channel_boot

DAY_2026_11_25 = 1795564800  # seconds since 1970 at 2026-11-25 00:00 UTC


def decode(body, L, C):
    """Records of one chunk: (type, dict, samples)."""
    head = L.layout("monitor_rec_head")
    kinds = {C.MONITOR_REC_SOURCE: "monitor_rec_source", C.MONITOR_REC_THREAD: "monitor_rec_thread",
             C.MONITOR_REC_ROUND: "monitor_rec_round", C.MONITOR_REC_PROCESS: "monitor_rec_process"}
    sample = L.layout("monitor_sample")
    out, at = [], 0
    while at + head.size <= len(body):
        h = head.unpack(body[at:at + head.size])
        if h["size"] < head.size or at + h["size"] > len(body):
            raise ValueError(f"record at {at}: size {h['size']}")
        lay = L.layout(kinds[h["type"]])
        rec = lay.unpack(body[at:at + lay.size])
        samples = []
        if h["type"] == C.MONITOR_REC_ROUND:
            base = at + lay.size
            samples = [sample.unpack(body[base + i * sample.size:base + (i + 1) * sample.size])
                       for i in range(rec["nsamples"])]
        out.append((h["type"], rec, samples))
        at += (h["size"] + 7) & ~7
    return out


class Collector:
    def __init__(self, L, C):
        self.L, self.C = L, C
        self.records, self.statuses = [], []

    def __call__(self, cpu, count, drops, body):
        if cpu == self.C.CHAN_CHUNK_STATUS:
            self.statuses.append(self.L.layout("monitor_stream_status").unpack(body))
        else:
            self.records += decode(body, self.L, self.C)

    def of(self, kind):
        return [r for r in self.records if r[0] == kind]


def ctl(client, frame, L, C, cmd, **fields):
    req = L.layout("monitor_ctl_request")
    values = {"cmd": cmd, "ms": 0, "every_s": 0, "scale": 0, "start_s": 0, "name": b""}
    values.update(fields)
    status, body = client.request(frame.OP_MONITOR, req.pack(**values))
    if status < 0:
        return status, body.decode("utf-8", "replace")
    return status, L.layout("monitor_ctl_status").unpack(body)


def job_monitor_stream(ctx):
    from scionhost import frame, layouts as L
    from scionhost.client import Client
    C = L.C

    boot, sock = channel_boot(ctx, "monitor-stream", smp=2)
    try:
        with Client(sock, timeout=60) as client:
            st = ctl(client, frame, L, C, C.MONITOR_CTL_STATUS)[1]
            ctx.result("off-at-boot", st["running"] == 0 and st["streaming"] == 0 and
                       st["sources"] > 20, repr(st))
            ok = all(ctl(client, frame, L, C, *a, **kw)[0] == 0 for a, kw in (
                ((C.MONITOR_CTL_INTERVAL,), dict(name=b"cpu", ms=50)),
                ((C.MONITOR_CTL_INTERVAL,), dict(name=b"thread", ms=200)),
                ((C.MONITOR_CTL_BURST,), dict(ms=100, every_s=3600)),
                ((C.MONITOR_CTL_CLOCK,), dict(scale=720 * C.MONITOR_SCALE_ONE,
                                              start_s=DAY_2026_11_25))))
            ctx.result("settings-accepted", ok)

            got = Collector(L, C)
            stream, cpus, _ = client.stream_open("monitor", 131072, 100, "", got)
            st = ctl(client, frame, L, C, C.MONITOR_CTL_STATUS)[1]
            ctx.result("stream-turns-sampling-on", st["running"] == 1 and st["streaming"] == 1,
                       repr(st))
            client.pump(1.5)
            ctx.result("burst-now", ctl(client, frame, L, C, C.MONITOR_CTL_BURST_NOW)[0] == 0)
            client.pump(2.5)
            client.stream_close(stream)
            st = ctl(client, frame, L, C, C.MONITOR_CTL_STATUS)[1]
            ctx.result("close-turns-it-off", st["running"] == 0 and st["streaming"] == 0 and
                       st["bursts"] >= 1, repr(st))

            sources = {r[1]["index"]: r[1] for r in got.of(C.MONITOR_REC_SOURCE)}
            first_round = next(i for i, r in enumerate(got.records) if r[0] == C.MONITOR_REC_ROUND)
            ctx.result("sources-first", len(sources) == got.statuses[-1]["sources"] and
                       all(r[0] == C.MONITOR_REC_SOURCE for r in got.records[:len(sources)]) and
                       first_round >= len(sources), f"{len(sources)} sources")
            rounds = got.of(C.MONITOR_REC_ROUND)
            samples = sum(len(r[2]) for r in rounds)
            last = got.statuses[-1]
            ctx.result("status-counts-every-sample", last["ended"] == 1 and
                       last["samples_written"] == samples and last["samples_dropped"] == 0,
                       f"{samples} received, status {last}")

            name = {i: s["name"].rstrip(b"\0").decode() for i, s in sources.items()}
            normal = [r for r in rounds if not r[1]["flags"] & C.MONITOR_ROUND_BURST]
            burst = [r for r in rounds if r[1]["flags"] & C.MONITOR_ROUND_BURST]
            per_cpu_ok = all(sorted(s["scope_id"] for s in r[2] if name[s["source"]] == "cpu.busy")
                             in ([], list(range(cpus))) for r in normal)
            ctx.result("one-sample-per-cpu", per_cpu_ok and cpus == 2)

            def count(src):
                return sum(1 for r in normal if any(name[s["source"]] == src for s in r[2]))
            fast, slow = count("cpu.busy"), count("mm.free")
            ctx.result("intervals-per-source", slow >= 5 and 1.6 <= fast / slow <= 2.4,
                       f"cpu.busy (50 ms) in {fast} rounds, mm.free (100 ms) in {slow}")

            threads = {r[1]["tid"]: r[1]["name"].rstrip(b"\0").decode()
                       for r in got.of(C.MONITOR_REC_THREAD)}
            tids = {s["scope_id"] for r in normal for s in r[2]
                    if name[s["source"]] == "thread.cpu"}
            ctx.result("threads-named", tids and tids <= set(threads) and
                       "monitor" in threads.values(), f"{sorted(threads.values())}")

            gaps = [b[1]["mono_ns"] - a[1]["mono_ns"] for a, b in zip(burst, burst[1:])]
            ctx.result("burst-1ms-apart", len(burst) == 100 and
                       sorted(gaps)[len(gaps) // 2] in range(900_000, 1_100_000),
                       f"{len(burst)} burst rounds, median gap {sorted(gaps)[len(gaps) // 2]} ns")

            walls = [r[1]["wall_ns"] for r in normal]
            monos = [r[1]["mono_ns"] for r in normal]
            rate = (walls[-1] - walls[0]) / (monos[-1] - monos[0])
            ctx.result("calendar-scaled", walls[0] >= DAY_2026_11_25 * 10**9 and
                       walls[-1] < (DAY_2026_11_25 + 86400) * 10**9 and 719 < rate < 721 and
                       all(b > a for a, b in zip(walls, walls[1:])),
                       f"first {walls[0]}, rate {rate}")

            # Bad requests: one line, nothing changed.
            for what, args, kw, expect in (
                    ("interval-zero", (C.MONITOR_CTL_INTERVAL,), dict(name=b"cpu", ms=0),
                     r"interval 0 ms out of range"),
                    ("no-such-source", (C.MONITOR_CTL_INTERVAL,), dict(name=b"nope", ms=10),
                     r"no source or resource is called 'nope'"),
                    ("burst-too-long", (C.MONITOR_CTL_BURST,), dict(ms=5000, every_s=2),
                     r"less than the time between bursts"),
                    ("scale-zero", (C.MONITOR_CTL_CLOCK,), dict(scale=0), r"time scale 0"),
                    ("unknown-command", (99,), {}, r"no command 99")):
                status, line = ctl(client, frame, L, C, *args, **kw)
                ctx.result(f"refuses-{what}", status < 0 and re.search(expect, line) and
                           line.strip().count("\n") == 0, f"{status}: {line!r}")
            status, body = client.request(frame.OP_MONITOR, b"\0" * 7)
            ctx.result("refuses-short-request", status < 0 and b"a request of 7 bytes" in body)
            st = ctl(client, frame, L, C, C.MONITOR_CTL_STATUS)[1]
            ctx.result("refusals-change-nothing", st["burst_ms"] == 100 and
                       st["min_interval_ms"] == 50 and st["scale"] == 720000, repr(st))

            # Drops: a buffer that holds the sources and a few rounds.
            small = Collector(L, C)
            ctl(client, frame, L, C, C.MONITOR_CTL_INTERVAL, name=b"*", ms=10)
            stream, _, _ = client.stream_open("monitor", 8192, 1000, "", small)
            client.pump(2.5)
            client.stream_close(stream)
            last = small.statuses[-1]
            rounds = small.of(C.MONITOR_REC_ROUND)
            lost = sum(r[1]["lost_before"] for r in rounds)
            received = sum(len(r[2]) for r in rounds)
            ctx.result("drops-counted", last["samples_dropped"] > 0 and
                       received == last["samples_written"] and
                       lost <= last["samples_dropped"] and lost > 0,
                       f"received {received}, lost_before sum {lost}, status {last}")
            status, text = client.request(frame.OP_SHELL, b"monitor")
            out = text.decode()
            ctx.result("shell-shows-state", re.search(r"sampling off", out) and
                       re.search(r"calendar: 2026-11-2[5-6] \d\d:\d\d:\d\d, 720\.000 x", out) and
                       re.search(r"bursts: 100 samples 1 ms apart every 3600 s", out), out[:600])
            status, text = client.request(frame.OP_SHELL, b"monitor interval cpu 0")
            ctx.result("shell-refuses-one-line", text.decode().strip() ==
                       "monitor: interval 0 ms out of range (1 to 3600000 ms)", text.decode())
    finally:
        poweroff(ctx, boot)


THREAD_ROW = re.compile(r"^ +(\d+) (\S+) +(\d+) +(\d+) +(\d+)\s*$", re.M)


def thread_cpu(client, frame):
    """thread.cpu (ns) by thread name, from `monitor threads` (tests may read shell text)."""
    status, text = client.request(frame.OP_SHELL, b"monitor threads")
    # Columns in name order: bcache_reads, cpu, disk_wait.
    return {m.group(2): int(m.group(4)) for m in THREAD_ROW.finditer(text.decode())}


def job_daily_workload(ctx):
    """`daily`: the web threads' share of the CPUs follows the calendar's office
    hours, the rogue takes a large share inside its window and begins no step
    outside it, and bad arguments get one line."""
    from scionhost import frame
    from scionhost.client import Client

    # Under -icount the guest counts instructions, not host time: CPU shares do
    # not depend on what else the host runs.
    boot, sock = channel_boot(ctx, "daily-workload", smp=2, icount=True)
    try:
        with Client(sock, timeout=60) as client:
            def shell(line):
                return client.request(frame.OP_SHELL, line.encode())[1].decode()

            def cpu_over(start, seconds=1.0):
                """Each thread's share of the 2 CPUs over seconds (host) at calendar time
                start, and the steps the rogue began meanwhile (key "rogue steps")."""
                shell(f"monitor clock 1 {start}")
                # A step begun before the jump (up to 50 ms of guest time) ends first:
                # waited for in guest time, since a loaded host runs the guest slowly.
                t = uptime_ns()
                while uptime_ns() - t < 300 * 10**6:
                    client.pump(0.05)
                t0, before, steps0 = uptime_ns(), thread_cpu(client, frame), rogue_steps()
                client.pump(seconds)
                after, t1, steps1 = thread_cpu(client, frame), uptime_ns(), rogue_steps()
                spent = {k: after[k] - before.get(k, 0) for k in after}
                share = {k: v / (2 * (t1 - t0)) for k, v in spent.items()}   # of 2 CPUs
                share["rogue steps"] = steps1 - steps0
                return share

            def rogue_steps():
                m = re.search(r", (\d+) steps$", shell("daily").strip())
                return int(m.group(1)) if m else -1

            def uptime_ns():
                m = re.search(r"up (\d+)\.(\d{3}) s", shell("uptime"))
                return (int(m.group(1)) * 1000 + int(m.group(2))) * 10**6

            out = shell("daily start threads=2 rogue=10:00-11:00")
            ctx.result("starts", "2 web threads and the rogue running" in out, out)
            cpu_over("2026-11-25T02:00")    # warm up: TCG translates the threads' code first
            night, day, after = (cpu_over("2026-11-25T02:00"), cpu_over("2026-11-25T10:10"),
                                 cpu_over("2026-11-25T11:30"))
            # The two web threads together: one thread's share over a host second
            # varies with the host's load (CI saw one at 3.8 times its night).
            web_day, web_night = day["web-0"] + day["web-1"], night["web-0"] + night["web-1"]
            ctx.result("office-hours", web_day > 4 * web_night and
                       min(day["web-0"], day["web-1"]) > 2 * max(night["web-0"], night["web-1"]),
                       f"night {night}, day {day}")
            # Outside its window the rogue begins no step: counted by the rogue itself, since
            # its thread.cpu there also holds the emulator's stalls. Both CPUs run on one host
            # thread, and a CPU spinning on a lock (pause) waits out the other's time slice,
            # up to a tick: the rogue, waking each 50 ms to look at the calendar, met
            # sched_lock held often enough to be charged 40-130 ms a second at 11:30 while
            # it spun not at all (lockstat:::spin-spin saw its spins of 3-10 ms).
            ctx.result("rogue-in-its-window", day["rogue"] > 0.1 and day["rogue steps"] > 0 and
                       night["rogue steps"] == 0 and after["rogue steps"] == 0,
                       f"rogue's share of the CPUs: night {night['rogue']:.4f}, 10:10 "
                       f"{day['rogue']:.4f}, 11:30 {after['rogue']:.4f}; steps begun: night "
                       f"{night['rogue steps']}, 10:10 {day['rogue steps']}, 11:30 "
                       f"{after['rogue steps']}")
            out = shell("daily")
            ctx.result("status", re.search(r"daily: 3 threads; 11:3\d on the calendar, demand \d+ "
                                           r"per mille; rogue 10:00-11:00, \d+ steps$",
                                           out.strip()), out)
            for line, expect in (("daily rogue 25:00-26:00", "give the rogue's window"),
                                 ("daily rogue 10:00-10:00", "give the rogue's window"),
                                 ("daily start", "already running"),
                                 ("daily start threads=99", "threads=N with N from 1 to 8"),
                                 ("daily frob", "usage")):
                out = shell(line).strip()
                ctx.result(f"refuses-{line.replace(' ', '-')}",
                           expect in out and out.count("\n") == 0, out)
            out = shell("daily stop")
            ctx.result("stops", "daily: stopped" in out and
                       "rogue" not in thread_cpu(client, frame), out)
    finally:
        poweroff(ctx, boot)
