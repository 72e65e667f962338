# SPDX-License-Identifier: BSD-2-Clause
"""The block cache over the test disk: every policy (the default LRU and
sequential read-ahead, and the example grafts clock, 2q, stride and
recorded) gives exactly the hits, misses, prefetches and evictions that
an independent model (bcache_model.py) predicts, and `bcache dump`
matches the model's state; misbehaving grafts at bcache.evict and
bcache.readahead are aborted with the cache's state as it was before
the invocation (full dumps compared), locks free, the default back in
place, and later workloads still correct."""

import re

from bcache_model import Cache, command_workload
from common import graft_path, poweroff, shell_boot

RUN = (r"bcache run \w+: (\d+) reads, (\d+) hits, (\d+) misses, (\d+) prefetches, (\d+) used, "
       r"(\d+) evictions, (\d+) disk reads, (\d+) errors, (\d+) bad blocks, \d+ cycles\r?\n")
COUNTS = ("reads", "hits", "misses", "prefetches", "used", "evictions", "disk_reads")
GOOD = ["evict_clock", "evict_2q", "readahead_stride", "readahead_recorded"]
# Misbehaving grafts at bcache.evict: (file, graft name, reason in the abort line).
MISBEHAVING_EVICT = [
    ("loop", "loop", r"time budget of \d+ us exceeded, pc loop\+0x[0-9a-f]+"),
    ("null_deref", "null-deref", r"page fault \(read, not present\) at address 0x0, pc null-deref\+0x[0-9a-f]+"),
    ("forged_store", "forged-store",
     r"page fault \(write, not present\) at address 0x[0-9a-f]+12345000, pc forged-store\+0x[0-9a-f]+"),
    ("divide_zero", "divide-zero", r"divide error at pc divide-zero\+0x[0-9a-f]+"),
    ("lock_forever", "lock-forever", r"time budget of \d+ us exceeded, pc lock-forever\+0x[0-9a-f]+"),
    ("bad_victim", "bad-victim", r"bad result 0x8: not a buffer index"),
    # Sandboxed, its stack is the window's: running off either end faults (a
    # push below it cannot be delivered: double fault; a store above: page fault).
    # Its stack runs out at a push (a write) or at the API stack probe before a
    # call into the API (a read), whichever comes first.
    ("recurse", "recurse", r"(double fault \(stack overflow\?\) at pc|page fault \((write|read), "
                           r"not present\) at address 0x[0-9a-f]+, pc) recurse\+0x[0-9a-f]+"),
]


def read_dump(boot):
    """`bcache dump` as a list of lines (continued lru lines joined)."""
    start = boot.mark()
    boot.send("bcache dump\n")
    boot.wait_for(r"\nlru[^\n]*\r?\n(lru\+[^\n]*\r?\n)*scion> ", start=start)
    lines = []
    for line in boot.output[start:].splitlines():
        line = line.strip()
        if line.startswith("lru+"):
            lines[-1] += line[4:]
        elif re.match(r"(cache|policy|buf|lru)\b", line):
            lines.append(line)
    return lines


def run_and_compare(ctx, boot, model, label, command, expect=None):
    """Run a workload in the kernel and in the model; the counts must agree
    (and agree with expect, counts worked out by hand, where given)."""
    m = boot.command(command, RUN, timeout=120)
    got = dict(zip(COUNTS, map(int, m.groups()[:7])))
    want = model.run(command_workload(command))
    want = {k: want[k] for k in COUNTS}
    clean = m.group(8) == "0" and m.group(9) == "0"
    ctx.result(f"{label}/data-verified", clean, m.group(0).strip())
    ctx.result(f"{label}/counts-as-model", got == want, f"kernel {got}\n    model  {want}")
    if expect:
        ctx.result(f"{label}/counts-as-worked-out", all(got[k] == v for k, v in expect.items()),
                   f"kernel {got}, worked out {expect}")
    return got


def compare_dump(ctx, boot, model, label):
    got, want = read_dump(boot), model.dump()
    diff = [f"kernel: {g}\n    model:  {w}" for g, w in zip(got, want) if g != w]
    ctx.result(f"{label}/dump-as-model", got == want,
               (diff[0] if diff else f"{len(got)} lines vs {len(want)}") + f" (log: {boot.log_path})")


def job_policies(ctx):
    """Default and grafted policies give the model's counts and state."""
    boot = shell_boot(ctx, "policies", smp=2, single_thread_tcg=True, timeout=600,
                      modules=[graft_path(ctx, n) for n in GOOD])
    try:
        boot.command("bcache", r"bcache: 64 buffers of 4096 bytes over vda; eviction default, "
                     r"read-ahead default\r?\n")
        # Empty, as the model starts: the boot's file system probe (ext2) read a block.
        boot.command("bcache reset 64", r"reset, 64 buffers")
        model = Cache(64)
        # Sequential: the first two reads miss, then read-ahead stays one block
        # ahead (the last prefetch, block 200, is not read).
        run_and_compare(ctx, boot, model, "lru/seq", "bcache run seq start=100 n=100",
                        dict(hits=98, misses=2, prefetches=99, used=98))
        run_and_compare(ctx, boot, model, "lru/random", "bcache run random n=300 range=128 seed=7")
        run_and_compare(ctx, boot, model, "lru/loop", "bcache run loop start=2000 size=65 rounds=3")
        compare_dump(ctx, boot, model, "lru")

        # A hot set of 8, a scan of 100, the hot set again: LRU has lost it (the
        # first two reads miss, read-ahead fetches the rest), 2Q kept it.
        scan = ["bcache run loop start=0 size=8 rounds=4", "bcache run seq start=3000 n=100",
                "bcache run loop start=0 size=8 rounds=1"]
        for evict in ("lru", "2q"):
            boot.command("bcache reset 32", r"reset, 32 buffers")
            if evict == "2q":
                boot.command("graft install 2q", r"'2q' installed at bcache.evict")
            model = Cache(32, evict=evict)
            for k, command in enumerate(scan):
                hot_again = k == len(scan) - 1
                expect = dict(misses=0 if evict == "2q" else 2) if hot_again else None
                run_and_compare(ctx, boot, model, f"{evict}/scan-{k}", command, expect)
        run_and_compare(ctx, boot, model, "2q/random", "bcache run random n=300 range=96 seed=5")
        compare_dump(ctx, boot, model, "2q")
        boot.command("graft remove 2q", r"'2q' removed")

        boot.command("bcache reset 32", r"reset, 32 buffers")
        boot.command("graft install clock", r"'clock' installed at bcache.evict")
        model = Cache(32, evict="clock")
        run_and_compare(ctx, boot, model, "clock/random", "bcache run random n=400 range=64 seed=11")
        run_and_compare(ctx, boot, model, "clock/loop", "bcache run loop start=500 size=40 rounds=3")
        compare_dump(ctx, boot, model, "clock")
        boot.command("graft remove clock", r"'clock' removed")

        boot.command("bcache reset 64", r"reset, 64 buffers")
        model = Cache(64)
        run_and_compare(ctx, boot, model, "sequential/stride", "bcache run stride start=10 stride=7 n=50",
                        dict(hits=0, misses=50, prefetches=0))
        boot.command("graft install stride", r"'stride' installed at bcache.readahead")
        model.readahead_policy = "stride"
        # Three reads to see the stride twice, then every read was prefetched.
        run_and_compare(ctx, boot, model, "stride/stride", "bcache run stride start=500 stride=7 n=50",
                        dict(hits=47, misses=3, prefetches=48, used=47))
        run_and_compare(ctx, boot, model, "stride/random", "bcache run random n=100 range=512 seed=3")
        compare_dump(ctx, boot, model, "stride")
        boot.command("graft remove stride", r"'stride' removed")

        boot.command("bcache reset 64", r"reset, 64 buffers")
        boot.command("graft install recorded", r"'recorded' installed at bcache.readahead")
        model = Cache(64, readahead="recorded")
        first = run_and_compare(ctx, boot, model, "recorded/first-pass",
                                "bcache run random n=200 range=4000 seed=21")
        again = run_and_compare(ctx, boot, model, "recorded/second-pass",
                                "bcache run random n=200 range=4000 seed=21")
        ctx.result("recorded/second-pass-mostly-hits", again["hits"] > 150 > first["hits"],
                   f"first pass {first['hits']} hits, second {again['hits']}")
        compare_dump(ctx, boot, model, "recorded")
        boot.command("graft remove recorded", r"'recorded' removed")

        for label, command, error in [
                ("no-pattern", "bcache run", r"bcache: usage: bcache \[stats"),
                ("bad-pattern", "bcache run zigzag", r"bcache: run: unknown pattern 'zigzag'"),
                ("bad-key", "bcache run seq speed=3", r"bcache: run: 'speed=3': give key=number"),
                ("bad-number", "bcache run seq n=lots", r"bcache: run: 'n=lots': give key=number"),
                ("start-beyond", "bcache run seq start=8192", r"bcache: run: start must be below 8192"),
                ("zero-buffers", "bcache reset 0", r"bcache: give 1 to 4096 buffers"),
                ("too-many", "bcache reset 4097", r"bcache: give 1 to 4096 buffers"),
                ("bad-count", "bcache reset x", r"bcache: 'x' is not a number of buffers"),
                ("unknown", "bcache frob", r"bcache: usage: bcache \[stats")]:
            boot.command(command, error + r"[^\n]*\r?\n")
            ctx.result(f"refused/{label}", True)
        m = boot.command("bcache run random n=50 seed=99", RUN)
        ctx.result("works-after-errors", m.group(8) == "0" and m.group(9) == "0", m.group(0))
    finally:
        poweroff(ctx, boot)


def abort_line(name, point, reason, changes):
    plural = "" if changes == 1 else "s"
    return (rf"graft: '{name}' aborted at {point}: {reason}; {changes} change{plural} undone, "
            r"graft removed, default used\r?\n")


def job_misbehaving_grafts(ctx):
    """Each misbehaving graft is aborted with the cache's state restored exactly."""
    modules = [graft_path(ctx, m[0]) for m in MISBEHAVING_EVICT]
    modules += [graft_path(ctx, "prefetch_beyond"), graft_path(ctx, "evict_clock")]
    boot = shell_boot(ctx, "misbehaving", smp=2, single_thread_tcg=True, timeout=400,
                      modules=modules)
    try:
        boot.command("bcache reset 8", r"reset, 8 buffers")
        model = Cache(8)
        run_and_compare(ctx, boot, model, "fill", "bcache run random n=40 range=24 seed=9")
        before = read_dump(boot)
        ctx.result("state-as-model-before", before == model.dump(), "\n    ".join(before))
        lru_victim = model.evict_lru()
        changes = 1 + 2 * 8  # scribble.h: policy word 0, then tag and referenced bit of each buffer
        for _, name, reason in MISBEHAVING_EVICT:
            boot.command(f"graft install {name}", rf"'{name}' installed at bcache.evict")
            start = boot.mark()
            boot.send("bcache victim\n")
            m = boot.wait_for(r"bcache victim: buffer (\d+) \(block (\d+)\)\r?\n", start=start, timeout=60)
            said = boot.output[start:]
            ctx.result(f"{name}/aborted-with-reason",
                       re.search(abort_line(name, "bcache.evict", reason, changes), said), said.strip()[-300:])
            ctx.result(f"{name}/default-victim", int(m.group(1)) == lru_victim,
                       f"{m.group(0).strip()}; LRU's victim is buffer {lru_victim}")
            after = read_dump(boot)
            diff = [f"before: {b}\n    after:  {a}" for b, a in zip(before, after) if a != b]
            ctx.result(f"{name}/state-restored", after == before,
                       diff[0] if diff else f"{len(before)} vs {len(after)} lines")
            boot.command(f"graft remove {name}", rf"remove {name}: it is not installed")
        boot.command("graft locks", r"lock 7: [^\n]*\r?\n")
        ctx.result("locks-free-after-aborts", "held by" not in boot.output[-600:], boot.output[-600:])
        boot.command("graft list", r"lock-forever\s+bcache.evict\s+-\s+loaded\s+1\s+0\s+1\s")
        ctx.result("list-counts-the-abort", True)

        # On the real path: a miss needs a victim, the graft faults, LRU decides, the run is right.
        boot.command("graft install null-deref", r"installed")
        start = boot.mark()
        run_and_compare(ctx, boot, model, "abort-on-miss", "bcache run random n=60 range=40 seed=2")
        said = boot.output[start:]
        ctx.result("abort-on-miss/one-abort", len(re.findall(r"'null-deref' aborted", said)) == 1, said[-400:])
        boot.command("bcache", r"eviction default, read-ahead default\r?\n")
        ctx.result("abort-on-miss/default-back", True)

        # A read-ahead graft whose API call is refused: its plan and policy word are undone.
        boot.command("graft install prefetch-beyond", r"installed at bcache.readahead")
        start = boot.mark()
        run_and_compare(ctx, boot, model, "prefetch-beyond", "bcache run seq start=100 n=6")
        said = boot.output[start:]
        ctx.result("prefetch-beyond/aborted",
                   re.search(abort_line("prefetch-beyond", "bcache.readahead",
                                        r"bcache_prefetch: block 8292 is beyond the disk \(8192 blocks\)", 2),
                             said), said[-400:])
        compare_dump(ctx, boot, model, "prefetch-beyond")

        # A good policy still works after all that.
        boot.command("graft install clock", r"'clock' installed")
        model.evict_policy = "clock"
        run_and_compare(ctx, boot, model, "clock-after-aborts", "bcache run random n=80 range=30 seed=4")
        compare_dump(ctx, boot, model, "clock-after-aborts")
    finally:
        poweroff(ctx, boot)
