# SPDX-License-Identifier: BSD-2-Clause
"""`scion adapt decisions` and `scion adapt explain N`: the adaptation
loop's decisions (kernel/adapt/decisions.c) as data, and any of them
replayed on the host.

  scion adapt decisions [--json]
      The decisions the kernel keeps (the last CHAN_ADAPT_DECISIONS):
      number, the flag's ratio and threshold, the trace's recording, the
      outcome with its reason, the policy chosen, the watch's verdict.
  scion adapt explain N [--json] [--keep DIR]
      Decision N's rows (the live policy, each candidate, each optimum:
      hits, misses, requests, aborts, as the kernel simulated them), its
      trace recording downloaded from the kernel's store (REC_GET), every
      row's policy spec replayed by the host simulator (build/host/scion-sim,
      the same policy sources, grafts included; priced by the latency model
      the kernel used, which the decision carries), and the two
      tables side by side. A row whose figures differ is marked `*`, and
      the exit status is then 1.

The decisions come from the ADAPT_DECISIONS and ADAPT_ROWS ops, read by
member name through the layouts generated from scion/chan_reply.h. The
host simulator's figures are read from its row for each spec (its own
output, one process per spec so its abort line is that spec's) and its
log file's header (the requests). Errors are one line: no such decision,
the recording gone from the store, no simulator.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from . import frame, recfmt, record, replies
from .client import Client, ScionError
from .layouts import C, text

ROLES = {C.CHAN_ADAPT_ROLE_LIVE: "live", C.CHAN_ADAPT_ROLE_CANDIDATE: "candidate",
         C.CHAN_ADAPT_ROLE_OPTIMUM: "optimum"}
OUTCOMES = {C.CHAN_ADAPT_PENDING: "pending", C.CHAN_ADAPT_INSTALLED: "installed",
            C.CHAN_ADAPT_WOULD_INSTALL: "would-install", C.CHAN_ADAPT_NONE: "none",
            C.CHAN_ADAPT_INSTALL_FAILED: "install-failed"}
REASONS = {C.CHAN_ADAPT_REASON_NONE: "",
           C.CHAN_ADAPT_REASON_BEATS_MARGIN: "beats the live policy by the margin",
           C.CHAN_ADAPT_REASON_WITHIN_OPTIMUM: "the live policy is within the margin of the "
                                               "optimum",
           C.CHAN_ADAPT_REASON_NO_CANDIDATE: "no candidate beats the live policy by the margin",
           C.CHAN_ADAPT_REASON_INSTALL_LIMIT: "the installs-an-hour limit is reached",
           C.CHAN_ADAPT_REASON_RECORD_LIMIT: "the recordings-an-hour limit is reached",
           C.CHAN_ADAPT_REASON_NO_RECORDING: "no recording",
           C.CHAN_ADAPT_REASON_NOT_SIMULATED: "the recording could not be simulated",
           C.CHAN_ADAPT_REASON_INSTALL_ERROR: "the install failed"}
VERDICTS = {C.CHAN_ADAPT_UNWATCHED: "", C.CHAN_ADAPT_WATCHING: "watching",
            C.CHAN_ADAPT_KEPT: "kept", C.CHAN_ADAPT_REVERTED: "reverted",
            C.CHAN_ADAPT_REVERT_FAILED: "revert-failed"}
FIGURES = ("hits", "misses", "requests", "aborts")
SCHED_FIGURES = ("worst_permille", "mean_permille", "aborts")
MODULES = {C.CHAN_ADAPT_MODULE_BCACHE: "bcache", C.CHAN_ADAPT_MODULE_SCHED: "sched"}
# scion-sim's per-thread table of a sched replay: tid, phases, ticks run, then wait/done.
SIM_THREAD = re.compile(r"^  (\d+)\s+(\d+)\s+(\d+)\s+(\d+)/(\d+)\s*$", re.M)
# scion-sim's row: the policy, hits, misses, evictions, prefetches, disk reads, time, agree, log.
SIM_ROW = re.compile(r"^(evict=\S+ readahead=\S+)\s+(\d+)\s+(\d+)\s+\d+\s+\d+\s+\d+\s+"
                     r"[\d.]+\s+\S+\s+(\S.*)$", re.M)
SIM_ABORTS = re.compile(r"^scion-sim: (.+?): (\d+) graft invocations aborted", re.M)


def permille(value):
    return f"{value // 1000}.{value % 1000:03d}"


def decision_dict(d):
    out = {"decision": d["number"], "uptime_ms": d["uptime_ms"],
           "module": MODULES.get(d["module"], f"module {d['module']}"),
           "ratio": permille(d["ratio_permille"]),
           "threshold": permille(d["threshold_permille"]), "flag_reads": d["flag_reads"],
           "recording": f"rec{d['rec']}" if d["rec"] else None, "requests": d["requests"],
           "rows": d["rows"], "outcome": OUTCOMES.get(d["outcome"], f"outcome {d['outcome']}"),
           "reason": REASONS.get(d["reason"], f"reason {d['reason']}"),
           "chosen": text(d["chosen"]) or None, "margin": d["margin"],
           "model": [d["model_hit_ns"], d["model_miss_ns"]] if d["model_hit_ns"] else None,
           "watch": VERDICTS.get(d["verdict"], f"verdict {d['verdict']}") or None}
    if d["verdict"] in (C.CHAN_ADAPT_KEPT, C.CHAN_ADAPT_REVERTED, C.CHAN_ADAPT_REVERT_FAILED):
        out.update(ratio_before=permille(d["before_permille"]),
                   ratio_after=permille(d["after_permille"]), watch_reads=d["watch_reads"])
    return out


def decisions(client):
    """ADAPT_DECISIONS -> [decision dict], oldest first."""
    return [decision_dict(d) for d in replies.request_list(client, frame.OP_ADAPT_DECISIONS,
                                                           "chan_adapt_decision")]


def decision(client, n):
    """Decision n and its rows: (decision dict, [row dict]); a ScionError when it is not kept."""
    found = replies.request_list(client, frame.OP_ADAPT_DECISIONS, "chan_adapt_decision",
                                 start=n - 1)
    if not found or found[0]["number"] != n:
        kept = decisions(client)
        have = (f"decisions {kept[0]['decision']} to {kept[-1]['decision']} are kept"
                if kept else "the kernel has made none")
        raise ScionError(f"adapt explain: no decision {n}: {have}")
    keys = C.CHAN_ADAPT_ROW_KEYS
    rows = [{"index": r["index"], "role": ROLES.get(r["role"], f"role {r['role']}"),
             "policy": text(r["policy"]), "hits": r["hits"], "misses": r["misses"],
             "requests": r["requests"], "aborts": r["aborts"],
             "worst_permille": r["worst_permille"], "mean_permille": r["mean_permille"],
             "log": f"rec{r['log_rec']}" if r["log_rec"] else None}
            for r in replies.request_list(client, frame.OP_ADAPT_ROWS, "chan_adapt_row",
                                          start=n * keys)
            if r["decision"] == n]
    return decision_dict(found[0]), rows


def cmd_decisions(args):
    with record.session(args) as client:
        rows = decisions(client)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"{'#':>4} {'ratio':>6} {'rule':>6} {'rec':>6} {'requests':>8} {'outcome':<14} "
          f"{'chosen':<12} watch")
    for d in rows:
        watch = d["watch"] or "-"
        if "ratio_after" in d:
            watch += f" ({d['ratio_before']} -> {d['ratio_after']})"
        print(f"{d['decision']:>4} {d['ratio']:>6} {d['threshold']:>6} "
              f"{d['recording'] or '-':>6} {d['requests']:>8} {d['outcome']:<14} "
              f"{d['chosen'] or '-':<12} {watch}" + (f"  ({d['reason']})" if d["reason"] else ""))
    return 0


def replay_row(binary, recdir, spec, out, model=None):
    """The host simulator's figures of spec on the recording in recdir (priced by model,
    (hit_ns, miss_ns), when given): {hits, misses, requests, aborts}, or a ScionError with
    the simulator's one line."""
    given = ["--model", f"{model[0]},{model[1]}"] if model else []
    p = subprocess.run([binary, "replay", recdir, "--policy", spec, "--out", out] + given,
                       capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        why = (p.stderr.strip().splitlines() or [f"exit status {p.returncode}"])[-1]
        raise ScionError(f"adapt explain: the host simulator refused {spec}: {why}")
    rows = [m for m in SIM_ROW.finditer(p.stdout) if not m[1].startswith("live ")]
    if len(rows) != 1:
        raise ScionError(f"adapt explain: the host simulator printed {len(rows)} rows for "
                         f"{spec}, not one")
    m = rows[0]
    aborts = sum(int(a[2]) for a in SIM_ABORTS.finditer(p.stdout))
    with open(m[4].strip(), "rb") as f:
        header = recfmt.unpack_header(f.read(recfmt.HEADER.size), m[4].strip())
    return {"policy": m[1], "hits": int(m[2]), "misses": int(m[3]),
            "requests": header["records"], "aborts": aborts}


def replay_sched_row(binary, recdir, spec, out):
    """The host simulator's slowdowns of pick-next policy spec ("pick_next=fair tick=rr")
    on the sched recording in recdir: {worst_permille, mean_permille, aborts}, worked out
    from its per-thread table as the kernel works them out (sched_evaluate.c)."""
    m = re.search(r"pick_next=(\S+)", spec)
    name = m[1] if m else spec
    p = subprocess.run([binary, "replay", recdir, "--policy", name, "--out", out],
                       capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        why = (p.stderr.strip().splitlines() or [f"exit status {p.returncode}"])[-1]
        raise ScionError(f"adapt explain: the host simulator refused {name}: {why}")
    bound = C.CHAN_ADAPT_SLOWDOWN_MIN_RUN
    slowdowns = [max(1000, (int(w) + int(run)) * 1000 // max(int(run), bound))
                 for _tid, _phases, run, w, _done in SIM_THREAD.findall(p.stdout) if int(run)]
    if not slowdowns:
        raise ScionError(f"adapt explain: the host simulator showed no thread for {name}")
    return {"policy": spec, "worst_permille": max(slowdowns),
            "mean_permille": sum(slowdowns) // len(slowdowns),
            "aborts": sum(int(a[2]) for a in SIM_ABORTS.finditer(p.stdout + p.stderr))}


def download(client, rec, out):
    """Recording rec (trace and log) from the kernel's store into out."""
    for stream, name in ((recfmt.STREAM_TRACE, recfmt.TRACE_FILE),
                         (recfmt.STREAM_LOG, recfmt.LOG_FILE)):
        try:
            data = record.fetch_stream(client, rec, stream)
        except ScionError as e:
            raise ScionError(f"adapt explain: rec{rec} cannot be read from the kernel's store "
                             f"({e})") from None
        recfmt.unpack_header(data, f"rec{rec}'s {name}")
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


def cmd_explain(args):
    if not args.n.isdigit() or int(args.n) < 1:
        raise ScionError(f"adapt explain: '{args.n}' is not a decision number (1, 2, ...: "
                         "`scion adapt decisions`)")
    n = int(args.n)
    binary = record.sim_binary()
    if not os.access(binary, os.X_OK):
        raise ScionError(f"adapt explain: {binary}: no simulator; `make sim` builds it "
                         "(or set SCION_SIM)")
    work = args.keep or tempfile.mkdtemp(prefix=f"scion-explain-{n}-")
    os.makedirs(work, exist_ok=True)
    try:
        with record.session(args) as client:
            d, rows = decision(client, n)
            if not d["recording"]:
                raise ScionError(f"adapt explain: decision {n} has no recording "
                                 f"({d['outcome']}: {d['reason'] or 'not simulated'})")
            if not rows:
                raise ScionError(f"adapt explain: decision {n} ({d['recording']}) has no "
                                 f"simulated rows ({d['outcome']}: {d['reason']})")
            download(client, int(d["recording"][3:]), work)
        out = os.path.join(work, "sim")
        os.makedirs(out, exist_ok=True)
        sched = d["module"] == "sched"
        figures = SCHED_FIGURES if sched else FIGURES
        for row in rows:
            host = (replay_sched_row(binary, work, row["policy"], out) if sched else
                    replay_row(binary, work, row["policy"], out, d["model"]))
            row["host"] = {k: host[k] for k in figures}
            row["same"] = all(row[k] == host[k] for k in figures) and \
                host["policy"] == row["policy"]
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    differ = [r for r in rows if not r["same"]]
    if args.json:
        print(json.dumps({"decision": d, "rows": rows, "same": not differ}, indent=2))
    else:
        print_explain(d, rows)
    return 1 if differ else 0


# Each module's table: the figures of a row (key, column width), the kernel's beside the host's.
TABLES = {
    "bcache": (("hits", 7), ("misses", 7), ("requests", 8), ("aborts", 6)),
    "sched": (("worst_permille", 14), ("mean_permille", 13), ("aborts", 6)),
}


def print_explain(d, rows):
    sched = d["module"] == "sched"
    head = (f"decision {d['decision']}: the scheduler; {d['recording']}: {d['requests']} events"
            if sched else
            f"decision {d['decision']}: bcache.hit_ratio {d['ratio']} < {d['threshold']}; "
            f"{d['recording']}: {d['requests']} requests")
    margin = "" if sched else f"; margin {d['margin']} hits"
    print(f"{head}; {d['outcome']}" + (f" {d['chosen']}" if d["chosen"] else "")
          + (f" ({d['reason']}{margin})" if d["reason"] else "")
          + (f"; watch: {d['watch']}" if d["watch"] else ""))
    cells = TABLES["sched" if sched else "bcache"]
    width = 30 if sched else 38
    names = " ".join(f"{k:>{w}}" for k, w in cells)
    print(f"  {'role':<9} {'policy':<{width}} {names} | host {names}")
    for r in rows:
        mine = " ".join(f"{r[k]:>{w}}" for k, w in cells)
        host = " ".join(f"{r['host'][k]:>{w}}" for k, w in cells)
        print(f"{' ' if r['same'] else '*'} {r['role']:<9} {r['policy']:<{width}} {mine} | "
              f"     {host}")
    differ = sum(1 for r in rows if not r["same"])
    print(f"{len(rows) - differ} of {len(rows)} rows the same on the host"
          + (f"; {differ} differ (marked *)" if differ else ""))


def add_adapt(sub, subcommand):
    p = subcommand(sub, "adapt", "the adaptation loop's decisions as data, and any of them "
                   "replayed on the host (guest `adapt` drives the loop)")
    asub = p.add_subparsers(dest="adapt_command", metavar="SUBCOMMAND", required=True)
    subcommand(asub, "decisions", "the decisions the kernel keeps (ADAPT_DECISIONS op)",
               cmd_decisions, json_flag=True)
    e = subcommand(asub, "explain", "replay decision N's simulations on the host from its "
                   "recording and print both tables; exit 1 when a row differs", cmd_explain,
                   json_flag=True)
    e.add_argument("n", metavar="N", help="a decision number (`scion adapt decisions`)")
    e.add_argument("--keep", metavar="DIR", help="download the recording and keep the host "
                   "simulator's logs in DIR (default: a temporary directory, removed)")
