# SPDX-License-Identifier: BSD-2-Clause
"""The io provider (scion/io_probe.h) and the block cache recording's pid,
on a boot with the ext2 root file system (build/userland/rootfs.img as
vda, a snapshot) and the control channel, one CPU:

  - `scion trace -l -n io:::` lists start, done, wait-start and
    wait-done;
  - `run fs_tree /fsdata/d00` traced: every io:::start is a read
    (arg3 0) of 4096 bytes; their bytes add up to what the block cache
    read from the disk over the same window (its disk-reads counter,
    before and after); arg4 is the program's pid (as proc:::exit says)
    or 0, never another's, and 0 where it differs from the submitting
    thread's pid: the read-ahead the program's reads start (at least
    as many pid-0 reads as the cache's prefetches) and the shell's
    `run`, which loads the program in a kernel thread; every io:::done
    matches a start keyed by (arg0, arg1) with the same size, direction
    and pid, every demand read is done before the trace ends, and the
    latencies land in a quantize; wait-start and wait-done alternate in
    each thread with the same request, in the sleeper's pid;
  - `run fs_write` traced with the flush thread held back (flush-age at
    its maximum, share 100%): its writes (arg3 1) are all its own pid
    and add up to the cache's disk-writes, every one done;
  - `scion record -m bcache` over `run fs_tree /fsdata/d01` (before the
    writes): every request record of the program's thread carries its
    pid (no longer 0), and those of the shell's `run`, which loads the
    program in a kernel thread, pid 0;
  - last (they write over free blocks at the disk's end), the shell's
    own synchronous writes (`bcache run ... write=100 sync=1`): every
    one pid 0, in a kernel thread, adding up to disk-writes;
  - `text verify` afterwards: every probe site restored."""

import os
import re
import shutil

from common import poweroff
from test_channel import channel_boot, scion

BLOCK = 4096
READS = r'''
proc:::exit /execname == "fs_tree" || execname == "fs_write"/
{ printf("prog pid %d\n", pid); }
io:::start
{ @n[arg3, arg4, pid] = count(); @b[arg3, arg4, pid] = sum(arg2); @sz[arg2] = count();
  ts[arg0, arg1] = timestamp; req[arg0, arg1] = (arg4 << 32) | (arg3 << 31) | arg2; }
io:::start /arg4 != 0 && arg4 != pid/
{ @bad["start-pid-not-the-submitter"] = count(); }
io:::done /ts[arg0, arg1] == 0/
{ @bad["done-without-start"] = count(); }
io:::done /ts[arg0, arg1] != 0 && req[arg0, arg1] != ((arg4 << 32) | (arg3 << 31) | arg2)/
{ @bad["done-differs-from-start"] = count(); }
io:::done /ts[arg0, arg1] != 0/
{ @d[arg3, arg4] = count(); @lat = quantize(timestamp - ts[arg0, arg1]);
  ts[arg0, arg1] = 0; req[arg0, arg1] = 0; }
io:::wait-start /self->waiting/
{ @bad["wait-start-while-waiting"] = count(); }
io:::wait-start /arg4 != pid/
{ @bad["wait-pid-not-the-sleeper"] = count(); }
io:::wait-start
{ self->waiting = 1; self->sector = arg1; @w["wait-start", arg4] = count(); }
io:::wait-done /!self->waiting || self->sector != arg1/
{ @bad["wait-done-unpaired"] = count(); }
io:::wait-done
{ self->waiting = 0; self->sector = 0; @w["wait-done", arg4] = count(); }
END
{ printa("n %d %d %d %@d\n", @n); printa("b %d %d %d %@d\n", @b); printa("d %d %d %@d\n", @d);
  printa("sz %d %@d\n", @sz); printa("w %s %d %@d\n", @w); printa("bad %s %@d\n", @bad); }
'''
STATS = r"(reads[^\n]*\n[^\n]*prefetches[^\n]*\n[^\n]*writes[^\n]*)\n"


def rootfs(ctx):
    return os.path.join(ctx.userland, "rootfs.img")


def stats(boot):
    """The block cache's counters: {"disk-reads": N, "prefetches": N, "disk-writes": N, ...}."""
    m = boot.command("bcache stats", STATS)
    lines = m.group(1).splitlines()
    out = {}
    for prefix, line in zip(("r", "p", "w"), lines):
        words = line.split()
        for k, v in zip(words[::2], words[1::2]):
            out[k if k not in out else f"{prefix}-{k}"] = int(v)
    return out


def table(out, tag, keys):
    """printa lines "TAG k1 .. kn VALUE": {(k1, .., kn): VALUE}."""
    rows = {}
    for m in re.finditer(rf"^{tag} (.*)$", out, re.M):
        parts = m.group(1).split()
        if len(parts) == keys + 1:
            key = tuple(p if not re.fullmatch(r"-?\d+", p) else int(p) for p in parts[:keys])
            rows[key] = int(parts[keys])
    return rows


def traced(ctx, boot, sock, command):
    """READS over the shell command: (exit, output, the program's pid, counter deltas)."""
    before = stats(boot)
    rc, out, err = scion(ctx, sock, "trace", "-q", "--show-run", "-n", READS, "--run", command,
                         timeout=600)
    after = stats(boot)
    delta = {k: after[k] - before.get(k, 0) for k in after}
    m = re.search(r"^prog pid (\d+)$", out, re.M)
    return rc, out + err, int(m.group(1)) if m else None, delta


def job_io_trace(ctx):
    boot, sock = channel_boot(ctx, "io-trace", disk=rootfs(ctx), disk_snapshot=True, smp=1,
                              single_thread_tcg=True)
    try:
        rc, out, err = scion(ctx, sock, "trace", "-l", "-n", "io:::", timeout=120)
        names = {line.split()[-1] for line in out.splitlines()[1:]
                 if line.split() and line.split()[1:2] == ["io"]}
        ctx.result("io-probes-listed", rc == 0 and names == {"start", "done", "wait-start",
                                                             "wait-done"},
                   f"exit {rc}: {sorted(names)}\n{out[-1500:]}{err}")

        # Reads: fs_tree over one directory (64 buffers of 4 KiB: it misses). The
        # shell's `run` loads the program in its kernel thread (pid 0): arg4 0, pid 0.
        rc, text, pid, delta = traced(ctx, boot, sock, "run fs_tree /fsdata/d00")
        reader = pid
        n, b, d = table(text, "n", 3), table(text, "b", 3), table(text, "d", 2)
        sizes, waits, bad = table(text, "sz", 1), table(text, "w", 2), table(text, "bad", 1)
        detail = f"exit {rc}, pid {pid}, counters {delta}\n{text[-3000:]}"
        mine = {k: v for k, v in n.items() if k[2] == pid}
        ctx.result("reads-traced", rc == 0 and pid and n.get((0, pid, pid), 0) > 0, detail)
        ctx.result("reads-only-reads", all(k[0] == 0 for k in n) and
                   list(sizes) == [(BLOCK,)], detail)
        ctx.result("reads-pids", all(k[1] in (0, k[2]) and k[2] in (0, pid) for k in n) and
                   not bad, detail)
        total = sum(v for k, v in b.items() if k[0] == 0)
        ctx.result("read-bytes-add-up", total == delta["disk-reads"] * BLOCK and total > 0,
                   detail)
        ctx.result("read-ahead-is-the-kernels", delta["prefetches"] > 0 and
                   mine.get((0, 0, pid), 0) > 0 and
                   sum(v for k, v in n.items() if k[1] == 0) >= delta["prefetches"], detail)
        ctx.result("done-matches-start",
                   d.get((0, pid)) == n.get((0, pid, pid)) and
                   0 <= sum(v for k, v in n.items() if k[1] == 0) - d.get((0, 0), 0) <= 2 and
                   "Distribution" in text, detail)
        ctx.result("wait-start-done-pair", waits.get(("wait-start", pid), 0) > 0 and
                   waits.get(("wait-start", pid)) == waits.get(("wait-done", pid)) and
                   waits.get(("wait-start", 0)) == waits.get(("wait-done", 0)) and
                   all(k[1] in (0, pid) for k in waits), detail)

        # The block cache recording: each request's pid is the program's.
        from scionhost import recfmt as rf
        rec = os.path.join(ctx.log_dir, f"{ctx.job}-recording")
        shutil.rmtree(rec, ignore_errors=True)
        rc, out, err = scion(ctx, sock, "record", "-m", "bcache", "-o", rec, "--run",
                             "run fs_tree /fsdata/d01", timeout=600)
        _, trace = rf.read_stream(os.path.join(rec, rf.TRACE_FILE)) if rc == 0 else ({}, [])
        pid = reader + 1 if reader else None  # the next process: fs_tree makes none
        tids = {r["tid"] for r in trace if r["pid"] == pid}
        ctx.result("recording-pid", rc == 0 and pid and len(tids) == 1 and
                   all(r["pid"] == (pid if r["tid"] in tids else 0) for r in trace),
                   f"exit {rc} {out} {err}; pid {pid}; {len(trace)} requests, pid by tid "
                   f"{sorted({(r['tid'], r['pid']) for r in trace})}")

        # Writes: fs_write, the flush thread held back so that its writes are its own.
        boot.command("bcache flush-age 3600000 100", r"scion> ")
        rc, text, pid, delta = traced(ctx, boot, sock, "run fs_write")
        n, b, d = table(text, "n", 3), table(text, "b", 3), table(text, "d", 2)
        bad = table(text, "bad", 1)
        detail = f"exit {rc}, pid {pid}, counters {delta}\n{text[-3000:]}"
        ctx.result("writes-traced", rc == 0 and pid and n.get((1, pid, pid), 0) > 0 and
                   not bad, detail)
        ctx.result("write-bytes-add-up", b.get((1, pid, pid), 0) == delta["disk-writes"] * BLOCK
                   and all(k[1:] == (pid, pid) for k in n if k[0] == 1), detail)
        ctx.result("write-done-matches-start", d.get((1, pid)) == n.get((1, pid, pid)), detail)
        # The shell's own synchronous writes, to free blocks at the disk's end: pid 0.
        rc, text, _, delta = traced(ctx, boot, sock,
                                    "bcache run seq n=8 start=16300 write=100 sync=1")
        n, b = table(text, "n", 3), table(text, "b", 3)
        ctx.result("kernel-writes-pid-0", rc == 0 and delta["disk-writes"] > 0 and
                   {k for k in n if k[0] == 1} == {(1, 0, 0)} and
                   b[(1, 0, 0)] == delta["disk-writes"] * BLOCK,
                   f"exit {rc}, counters {delta}\n{text[-2000:]}")

        ctx.result("no-kernel-fault", "panic" not in boot.output and
                   "killed by" not in boot.output, boot.output[-2000:])
        rc, out, err = scion(ctx, sock, "text", "verify")
        ctx.result("text-restored", rc == 0, out + err)
    finally:
        poweroff(ctx, boot)
