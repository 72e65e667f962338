# SPDX-License-Identifier: BSD-2-Clause
"""The sandbox's part of `make bench` (arch/x86/include/arch/sfi.h):
what software fault isolation costs each example graft, and how fast the
verifier is.

One boot under -icount shift=0,sleep=off (the guest's cycle counter
counts guest instructions) with every example graft twice as a boot
module: sandboxed (build/grafts/NAME.graft) and trusted
(build/grafts/trusted/NAME.graft, loaded as NAME-trusted). For each
graft, its workload runs once with the sandboxed build installed and once
with the trusted one; `graft stat` gives the instructions spent in the
graft's invocations (txn_run's count: the transaction's begin and commit,
the dispatch into the graft, the graft) and how many there were. The
figures are instructions per invocation for each build and the overhead
of the sandboxed one in percent; MiSFIT's published overhead (about 10%)
is quoted beside them. `graft verify` runs the verifier again over each
loaded sandboxed graft: instructions per KiB of text region (code and the
ud2 that fills the region to its power of two)."""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "qemu"))
import harness  # noqa: E402

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
STAT = re.compile(r"graft (\S+): invocations (\d+) commits (\d+) aborts (\d+) cycles (\d+) "
                  r"mode (\S+) text (\d+)")
VERIFY = re.compile(r"graft (\S+): verified (\d+) bytes of text in (\d+) cycles")
MISFIT = {"system": "MiSFIT (Small, Seltzer: MiSFIT: Constructing Safe Extensible Systems, "
                    "IEEE Concurrency 1998)",
          "figure": "software fault isolation overhead, about 10% (as the issue quotes it)"}


def run(boot, command, expect=""):
    """Type command and wait for expect in its output, then for the prompt
    after it (not the one before: the echo of the command comes first)."""
    m = boot.command(command, re.escape(command) + r"\r?\n[\s\S]*?" + expect + r"[\s\S]*?scion> ",
                     timeout=900)
    return re.search(expect, m.group(0)) if expect else m


def measure(boot, name, graft, commands):
    run(boot, f"graft install {graft}", r"installed at")
    for command in commands:
        run(boot, command)
    run(boot, f"graft remove {graft}", r"removed from")
    m = run(boot, f"graft stat {graft}", STAT.pattern)
    return {"invocations": int(m[2]), "aborts": int(m[4]), "cycles": int(m[5]), "mode": m[6]}


def sfi_bench(kernel, disk, out_dir):
    modules = []
    for name, _, _ in EXAMPLES:
        modules.append(os.path.join(ROOT, "build", "grafts", name + ".graft"))
        modules.append(os.path.join(ROOT, "build", "grafts", "trusted", name + ".graft") +
                       " trusted")
    boot = harness.Boot("bench-sfi", out_dir, kernel=kernel, smp=1, icount=True, timeout=2400,
                        disk=disk, disk_snapshot=True, modules=modules)
    figures = []
    try:
        boot.wait_for(r"scion> ")
        for name, graft, commands in EXAMPLES:
            sandboxed = measure(boot, name, graft, commands)
            trusted = measure(boot, name, graft + "-trusted", commands)
            if sandboxed["mode"] != "sandboxed" or trusted["mode"] != "trusted":
                sys.exit(f"bench: {graft}: modes {sandboxed['mode']}/{trusted['mode']} "
                         f"(log: {boot.log_path})")
            per = {}
            for mode, s in (("sandboxed", sandboxed), ("trusted", trusted)):
                if not s["invocations"] or s["aborts"]:
                    sys.exit(f"bench: {graft} ({mode}): {s['invocations']} invocations, "
                             f"{s['aborts']} aborts (log: {boot.log_path})")
                per[mode] = s["cycles"] / s["invocations"]
                figures.append({"figure": f"sfi.{name}.{mode}_per_invocation",
                                "value": round(per[mode]), "unit": "guest instructions",
                                "invocations": s["invocations"]})
            figures.append({"figure": f"sfi.{name}.overhead",
                            "value": round(100 * (per["sandboxed"] - per["trusted"]) /
                                           per["trusted"], 1), "unit": "percent"})
            m = run(boot, f"graft verify {graft}", VERIFY.pattern)
            figures.append({"figure": f"sfi.{name}.verify_per_kib",
                            "value": round(int(m[3]) * 1024 / int(m[2])),
                            "unit": "guest instructions per KiB of text region",
                            "text_bytes": int(m[2])})
        boot.command("poweroff", r"powering off")
    finally:
        boot.finish()
    return {
        "config": {"name": "sfi", "smp": 1, "mem": "256M", "icount": "shift=0,sleep=off",
                   "accel": "tcg, single-threaded (implied by icount)",
                   "disk": "virtio-blk, raw, snapshot=on",
                   "grafts": "build/grafts (sandboxed) and build/grafts/trusted (boot modules)",
                   "measured": "txn_run's cycles per invocation: transaction begin and "
                               "commit, dispatch, the graft"},
        "figures": figures,
        "published": MISFIT,
        "log": os.path.relpath(boot.log_path, ROOT),
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
