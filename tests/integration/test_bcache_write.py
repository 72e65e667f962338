# SPDX-License-Identifier: BSD-2-Clause
"""The block cache's write path (kernel/bcache/, bcache_write_bytes):
its in-kernel tests (tests/kernel/test_bcache_write.c) with the block
cache's others, on 2 CPUs under multi-threaded TCG so writers, the
flush thread and completions race for real; and a workload with writes
recorded, its trace and log saying which requests wrote, replayed on
the host and in the kernel with the same decisions as live and the
same log byte for byte."""

import re

from common import run_kernel_tests


def job_kernel_tests(ctx):
    boot = run_kernel_tests(ctx, "bcache-smp2", 2, "bcache_*", single_thread_tcg=False)
    ctx.expect("bcache-smp2/write-tests-ran", boot, r"test bcache_write_read_back: OK")


def job_read_only_disk(ctx):
    """The disk offered read-only: writes are refused with -EROFS, reads go on."""
    boot = ctx.boot("read-only", smp=1, cmdline="test=bcache_write_read_only_disk panic=exit",
                    disk=ctx.disk, disk_snapshot=True, disk_readonly=True, timeout=300)
    boot.finish()
    ctx.expect("disk-read-only", boot, r"vda: virtio-blk, .*read-only")
    ctx.expect("refused", boot, r"test bcache_write_read_only_disk: OK")


BUFFERS = 8
# 300 accesses over 40 blocks, every 10th of each 100... 30% whole-block writes of the
# pattern (kernel/bcache/workload.c), left dirty: with the flush thread kept out (age 1 h,
# share 100%) only the room a miss needs writes them back, as in a replay.
WORKLOAD = "bcache run random n=300 range=40 seed=5 write=30"
WRITE_RUN = (r"bcache run: (\d+) writes \(([\w ]+)\), (\d+) write hits, (\d+) write misses, "
             r"(\d+) write-backs, (\d+) sync writes, (\d+) write errors")


def workload_writes(n, percent):
    """The accesses of `bcache run ... write=percent` that are writes (as workload.c)."""
    return [k for k in range(n) if (k + 1) * percent // 100 != k * percent // 100]


def job_record_and_replay_writes(ctx):
    """A workload with writes recorded over the channel: the trace says which requests
    are writes, the log says the same; the host's replay with the live policy agrees
    with every decision; the kernel's replay of the same trace writes the same log byte
    for byte; a recording of synchronous writes kept in the kernel replays there."""
    import json
    import os

    from scionhost import recfmt as rf
    from scionhost.layouts import C
    from test_channel import scion
    from test_record import recording_boot, rows, sim
    from test_bcache import RUN
    from common import poweroff

    write_flags = C.BCACHE_REQ_WRITE | C.BCACHE_REQ_WHOLE
    boot, sock, out = recording_boot(ctx, [])
    try:
        boot.command("bcache flush-age 3600000 100", r"after 3600000 ms, or when more than 100%")
        boot.command(f"bcache reset {BUFFERS}", r"reset, 8 buffers")
        rc, text, err = scion(ctx, sock, "record", "-m", "bcache", "-o", out, "--run", WORKLOAD,
                              timeout=300)
        ctx.result("record-exit", rc == 0, text + err)
        m = re.search(WRITE_RUN, text)     # `--run` output comes back over the channel
        ctx.result("workload-wrote", m and m.group(1) == "90" and m.group(2) == "written back"
                   and int(m.group(5)) > 0 and m.group(7) == "0",
                   m.group(0) if m else f"no write line in: {text}")
        ctx.result("workload-data-right", re.search(r"bcache run random: 210 reads, .* 0 errors, "
                                                    r"0 bad blocks", text), text)
        if rc != 0:
            return
        meta = json.load(open(os.path.join(out, rf.META_FILE)))
        _, trace = rf.read_stream(os.path.join(out, rf.TRACE_FILE))
        _, log = rf.read_stream(os.path.join(out, rf.LOG_FILE))
        writes = set(workload_writes(300, 30))
        want_flags = [write_flags if k in writes else 0 for k in range(300)]
        ctx.result("trace-says-writes", [r["flags"] for r in trace] == want_flags and
                   meta.get("records") == {"trace": 300, "log": 300},
                   f"{sum(r['flags'] != 0 for r in trace)} writes in {len(trace)} requests")
        ctx.result("log-says-writes", [r["flags"] for r in log] == want_flags and
                   all(r["disk_reads"] == 0 and not r["prefetch"]
                       for r in log if r["flags"]), repr([r for r in log if r["flags"]][:2]))

        # The host's replay with the live policy decides as the live cache did.
        rc, text, err = sim(ctx, "replay", out, "--no-progress", "--policy", "lru")
        got = rows(text)
        live = got.get("evict=lru readahead=sequential")
        ctx.result("host-replay-agrees", rc == 0 and live and live[4] == live[5] == 300,
                   text + err)
        host_log = live[6] if live else None

        # The kernel's replay of the same trace writes the same log.
        rc, text, err = scion(ctx, sock, "record", "upload", out)
        rec = text.strip()
        ctx.result("upload", rc == 0, text + err)
        m = boot.command(f"sim run {rec} lru", r"sim: \w+: \d+ requests[\s\S]*?scion> ",
                         timeout=300)
        kernel_row = rows(m.group(0)).get("evict=lru readahead=sequential")
        ctx.result("kernel-replay-agrees", kernel_row and kernel_row[4] == kernel_row[5] == 300,
                   m.group(0))
        if kernel_row and host_log:
            fetched = os.path.join(out, "kernel-sim")
            rc, text, err = scion(ctx, sock, "record", "download", kernel_row[6], "-o", fetched)
            same = rc == 0 and open(os.path.join(fetched, rf.LOG_FILE), "rb").read() == \
                open(host_log, "rb").read()
            ctx.result("kernel-log-equals-host-log", same, text + err)

        # Synchronous writes, recorded in the kernel and replayed there.
        boot.command(f"bcache reset {BUFFERS}", r"reset, 8 buffers")
        boot.command("record start bcache", r"record: rec\d+: recording bcache")
        boot.command("bcache run loop size=12 rounds=3 write=25 sync=1", RUN, timeout=300)
        m = boot.command("record stop", r"record: rec(\d+): bcache, (\d+) requests, (\d+) "
                         r"results, (\d+) dropped")
        ctx.result("kernel-recording", m.group(2) == m.group(3) == "36" and m.group(4) == "0",
                   m.group(0))
        rec = m.group(1)
        m = boot.command(f"record show rec{rec} trace 4 1", r"seq=4 [^\n]*\n")
        ctx.result("record-show-says-write", "op=write+sync+whole" in m.group(0), m.group(0))
        m = boot.command(f"sim run rec{rec} lru clock", r"sim: rec\d+: \d+ requests[\s\S]*?scion> ",
                         timeout=300)
        lru = rows(m.group(0)).get("evict=lru readahead=sequential")
        ctx.result("kernel-recording-replays", lru and lru[4] == lru[5] == 36, m.group(0))
        m = boot.command("bcache stats", r"writes (\d+) hits \d+ misses \d+ dirty (\d+) "
                         r"write-backs \d+ sync-writes (\d+) disk-writes \d+ write-errors (\d+)")
        ctx.result("stats", m.group(1) == "9" and m.group(2) == "0" and m.group(3) == "9" and
                   m.group(4) == "0", m.group(0))
        boot.command("bcache sync", r"bcache: synced")
        poweroff(ctx, boot)
    finally:
        boot.finish()
