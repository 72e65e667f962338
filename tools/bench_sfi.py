# SPDX-License-Identifier: BSD-2-Clause
"""The sandbox's part of `make bench` (arch/x86/include/arch/sfi.h):
what software fault isolation costs each example graft, and how fast the
verifier is.

One boot under -icount shift=0,sleep=off (the guest's cycle counter
counts guest instructions) with every example graft twice as a boot
module: sandboxed (build/grafts/NAME.graft) and trusted
(build/grafts/trusted/NAME.graft, loaded as NAME-trusted). For each
graft, its workload runs once with the sandboxed build installed and once
with the trusted one; the graft's GRAFT_LIST record gives the
instructions spent in its invocations (txn_run's count: the
transaction's begin and commit, the dispatch into the graft, the graft)
and how many there were. The figures are instructions per invocation for
each build and the overhead of the sandboxed one in percent; MiSFIT's
published overhead (about 10%) is quoted beside them. `graft verify` runs
the verifier again over each loaded sandboxed graft, and GRAFT_LIST has
what it took: instructions per KiB of text region (code and the ud2 that
fills the region to its power of two).

The commands (install, the workload, remove, verify) go over the control
channel's SHELL op, each inside `channel held` so that the channel's own
threads stay asleep while it runs; only their exit status is looked at.
The numbers come from GRAFT_LIST (bench_boot.py), never from the shell's
text."""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
import bench_boot  # noqa: E402  (sets the import paths of qemu/ and host/)
from scionhost import replies  # noqa: E402

# (file, graft name, workload): workloads like tests/integration/test_sfi.py's.
EXAMPLES = [
    ("evict_clock", "clock", ["bcache reset", "bcache run random n=600 seed=11"]),
    ("evict_2q", "2q", ["bcache reset", "bcache run random n=600 seed=11"]),
    ("readahead_stride", "stride", ["bcache reset", "bcache run stride n=400 stride=3"]),
    ("readahead_recorded", "recorded", ["bcache reset", "bcache run seq n=400 start=40"]),
    ("test_scale", "scale", ["testpoint 6 7"] * 20),
    ("sched_fair", "fair", ["sched order 6"] * 3),
    ("sched_lifo", "lifo", ["sched order 6"] * 3),
    # Under -icount, computing is real guest work (a tick is 10 M instructions):
    # tick-count's ticks come mostly from sleeping, which the clock skips.
    ("tick_count", "tick-count", ["sched run n=1 rounds=3 compute=1 sleep=5"]),
]
MISFIT = {"system": "MiSFIT (Small, Seltzer: MiSFIT: Constructing Safe Extensible Systems, "
                    "IEEE Concurrency 1998)",
          "figure": "software fault isolation overhead, about 10% (as the issue quotes it)"}


def run(c, command):
    """A guest command over the channel, with the channel's threads asleep meanwhile."""
    bench_boot.shell(c, f"channel held {command}")


def graft_record(c, graft):
    """The graft's GRAFT_LIST record (the raw counters: cycles, not microseconds)."""
    found = [r for r in replies.request_list(c, replies.frame.OP_GRAFT_LIST, "chan_graft_info")
             if replies.text(r["name"]) == graft]
    if len(found) != 1:
        sys.exit(f"bench: GRAFT_LIST has {len(found)} grafts named {graft}")
    return found[0]


def measure(c, graft, commands):
    run(c, f"graft install {graft}")
    for command in commands:
        run(c, command)
    run(c, f"graft remove {graft}")
    r = graft_record(c, graft)
    return {"invocations": r["invocations"], "aborts": r["aborts"], "cycles": r["cycles"],
            "mode": replies.GRAFT_MODES.get(r["mode"], r["mode"])}


def sfi_bench(kernel, disk, out_dir):
    modules = []
    for name, _, _ in EXAMPLES:
        modules.append(os.path.join(ROOT, "build", "grafts", name + ".graft"))
        modules.append(os.path.join(ROOT, "build", "grafts", "trusted", name + ".graft") +
                       " trusted")
    b, sock = bench_boot.boot("bench-sfi", out_dir, kernel=kernel, smp=1, icount=True,
                              timeout=2400, disk=disk, disk_snapshot=True, modules=modules)
    figures = []
    try:
        with bench_boot.session(b, sock) as c:
            for name, graft, commands in EXAMPLES:
                sandboxed = measure(c, graft, commands)
                trusted = measure(c, graft + "-trusted", commands)
                if sandboxed["mode"] != "sandboxed" or trusted["mode"] != "trusted":
                    sys.exit(f"bench: {graft}: modes {sandboxed['mode']}/{trusted['mode']} "
                             f"(log: {b.log_path})")
                per = {}
                for mode, s in (("sandboxed", sandboxed), ("trusted", trusted)):
                    if not s["invocations"] or s["aborts"]:
                        sys.exit(f"bench: {graft} ({mode}): {s['invocations']} invocations, "
                                 f"{s['aborts']} aborts (log: {b.log_path})")
                    per[mode] = s["cycles"] / s["invocations"]
                    figures.append({"figure": f"sfi.{name}.{mode}_per_invocation",
                                    "value": round(per[mode]), "unit": "guest instructions",
                                    "invocations": s["invocations"]})
                figures.append({"figure": f"sfi.{name}.overhead",
                                "value": round(100 * (per["sandboxed"] - per["trusted"]) /
                                               per["trusted"], 1), "unit": "percent"})
                run(c, f"graft verify {graft}")
                r = graft_record(c, graft)
                figures.append({"figure": f"sfi.{name}.verify_per_kib",
                                "value": round(r["verify_cycles"] * 1024 / r["text_bytes"]),
                                "unit": "guest instructions per KiB of text region",
                                "text_bytes": r["text_bytes"]})
    finally:
        bench_boot.power_off(b)
    return {
        "config": {"name": "sfi", "smp": 1, "mem": "256M", "icount": "shift=0,sleep=off",
                   "accel": "tcg, single-threaded (implied by icount)",
                   "disk": "virtio-blk, raw, snapshot=on",
                   "grafts": "build/grafts (sandboxed) and build/grafts/trusted (boot modules)",
                   "measured": "txn_run's cycles per invocation: transaction begin and "
                               "commit, dispatch, the graft"},
        "figures": figures,
        "published": MISFIT,
        "log": os.path.relpath(b.log_path, ROOT),
    }


def print_sfi(result):
    values = {f["figure"]: f["value"] for f in result["figures"]}
    print("\nsoftware fault isolation (guest instructions per invocation, incl. transaction):")
    print(f"  {'graft':<20} {'trusted':>9} {'sandboxed':>10} {'overhead':>9} {'verify/KiB':>11}")
    for name, _, _ in EXAMPLES:
        print(f"  {name:<20} {values[f'sfi.{name}.trusted_per_invocation']:>9} "
              f"{values[f'sfi.{name}.sandboxed_per_invocation']:>10} "
              f"{values[f'sfi.{name}.overhead']:>8}% {values[f'sfi.{name}.verify_per_kib']:>11}")
    print(f"  MiSFIT, published: about 10%")
