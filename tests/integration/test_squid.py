# SPDX-License-Identifier: BSD-2-Clause
"""KernInst's Squid study at a small scale (tools/squid_study.py --scale
small: 8 clients, a disk cache of 150 files, a name cache of 48 entries,
96 block-cache buffers), on the test kernel:

  - the drill-down starts at the proxy's system calls and finds the open
    call the largest; it descends through vfs_open to both of the
    paper's bottlenecks by name: path-name lookup (vfs_walk, and below it
    the file system's lookup, the name cache's miss path) and truncation
    (vfs_truncate), which are the two largest bottlenecks it names;
  - fix 1 (`dnlc size` on the running kernel) cuts the name-cache miss
    ratio and the lookup's share, and the open call's share falls; fix 2
    (squid --no-trunc) takes truncation out of open, whose share falls
    again, below a quarter of what it was before the fixes;
  - every squid run served every client the right bytes (the tool stops
    otherwise), the curves hold every phase's intervals, the report has
    one plot per level, the comparison and four curves, and its table
    shows the figures of results.json;
  - the cache disk is clean for e2fsck -fn after the last sync."""

import csv
import json
import os
import re
import subprocess
import sys

from test_fs import fsck

TOOL = "tools/squid_study.py"


def job_small_study(ctx):
    out = os.path.join(ctx.log_dir, "squid-study")
    r = subprocess.run([sys.executable, os.path.join(ctx.root, TOOL), "--scale", "small",
                        "--kernel-dir", ctx.kernel_dir, "--out", out, "--keep-disk",
                        "--timeout", "900"], capture_output=True, text=True, timeout=1200)
    ctx.result("tool-ran", r.returncode == 0, (r.stdout + r.stderr)[-2000:])
    if r.returncode:
        return
    with open(os.path.join(out, "results.json")) as f:
        res = json.load(f)
    levels = res["levels"]
    ctx.result("open-is-the-largest-system-call",
               res["open_call"] in ("sys_open", "sys_openat"), json.dumps(levels[0]["measured"]))
    chosen = [f for lv in levels for f in lv["chosen"]]
    ctx.result("descends-through-vfs_open", "vfs_open" in chosen, repr(chosen))
    ctx.result("finds-lookup", "vfs_walk" in chosen and res["found"]["lookup"], repr(chosen))
    ctx.result("finds-truncation", "vfs_truncate" in chosen and res["found"]["truncate"],
               repr(chosen))
    top2 = res["bottlenecks"][:2]
    paths = [b["path"] for b in top2]
    ctx.result("the-two-largest-bottlenecks",
               sorted(any(f in p for p in paths) for f in ("vfs_walk", "vfs_truncate")) ==
               [True, True], json.dumps(res["bottlenecks"]))
    ph = {k: v["figures"] for k, v in res["phases"].items()}
    ctx.result("phases", sorted(ph) == ["before", "fix1", "fix2"], repr(sorted(ph)))
    if sorted(ph) != ["before", "fix1", "fix2"]:
        return
    b, f1, f2 = ph["before"], ph["fix1"], ph["fix2"]
    detail = json.dumps(ph)
    ctx.result("fix1-cuts-misses", f1["dnlc_miss"] < b["dnlc_miss"] / 2 and b["dnlc_miss"] > 0.3,
               detail)
    ctx.result("fix1-cuts-lookup", f1["lookup"] < b["lookup"] * 0.6, detail)
    ctx.result("fix1-cuts-open", f1["open"] < b["open"], detail)
    ctx.result("fix2-cuts-open", f2["open"] < f1["open"] and f2["open"] < b["open"] / 4, detail)
    ctx.result("fix2-truncates-in-ftruncate", f2["ftruncate"] > 0 and b["ftruncate"] == 0, detail)
    for name, phase in res["phases"].items():
        sq = phase["squid"]
        ctx.result(f"{name}-served", sq["bad_clients"] == 0 and sq["requests"] ==
                   res["config"]["clients"] * res["config"]["requests"], json.dumps(sq))
    with open(os.path.join(out, "curves.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    ctx.result("curves", all(any(r["phase"] == p and r["series"] == "dnlc_miss_ratio" for r in rows)
                             and any(r["phase"] == p and r["series"] == res["open_call"]
                                     for r in rows) for p in ph), f"{len(rows)} rows")
    with open(os.path.join(out, "report.html")) as f:
        report = f.read()
    plots = len(re.findall(r"<img class='level'", report))
    ctx.result("report-plots", plots == len(levels) and report.count("<img class='curve'") == 4
               and report.count("<img class='compare'") == 1, f"{plots} level plots")
    cells = dict(re.findall(r"<td class='(\w+-\w+)'>([\d.]+)%</td>", report))
    want = {f"{p}-{k}": f"{100 * ph[p][k]:.1f}" for p in ph
            for k in ("open", "lookup", "truncate", "dnlc_miss")}
    ctx.result("report-table-is-the-json", cells == want, f"{cells} vs {want}")
    status, text = fsck(os.path.join(out, "squid-disk.img"))
    ctx.result("e2fsck-clean", status == 0 and "Fix?" not in text, text[-1500:])
    if all(ok for _, ok, _ in ctx.results):
        os.unlink(os.path.join(out, "squid-disk.img"))
