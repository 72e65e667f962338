# SPDX-License-Identifier: BSD-2-Clause
"""The guest's text output as objects, for `--json`.

Each parser follows the printk formats of the command it reads (named
at each function), so a change there must be made here too. Lines a
parser does not recognise are skipped rather than guessed at.
"""

import re


def number(text):
    """An int or float when text is one, else text unchanged."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def key_values(text):
    """"key: value" lines (the STATUS op) -> {key: value}."""
    result = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip():
            result[key.strip()] = number(value.strip())
    return result


def name_values(text):
    """"name value" lines (the STATS op) -> {name: value}."""
    result = {}
    for line in text.splitlines():
        parts = line.split(None, 1)
        if len(parts) == 2:
            result[parts[0]] = number(parts[1].strip())
    return result


# kernel/probe/cmd_probe.c list_one: "  ID PROBE SITES ENABLED[, count N]".
PROBE_ROW = re.compile(r"^\s+(\d+)\s+(\S+)\s+(\d+)\s+(\d+)(?:, count (-?\d+))?\s*$")


def probe_list(text):
    rows = []
    for line in text.splitlines():
        m = PROBE_ROW.match(line)
        if m:
            row = {"id": int(m[1]), "probe": m[2], "sites": int(m[3]), "consumers": int(m[4])}
            if m[5] is not None:
                row["count"] = int(m[5])
            rows.append(row)
    return rows


# kernel/metrics/cmd_metrics.c print_metric and cmd_stats.
METRIC_ROW = re.compile(r"^\s+(\d+)\s+(count|latency|concurrency)\s+(\S+?)(?: tid (\d+))?: (.*)$")
COUNT_TAIL = re.compile(r"^(\d+) calls$")
LATENCY_TAIL = re.compile(r"^(\d+) calls, (\S+) cycles per call \((\S+) us\)$")
CONCURRENCY_TAIL = re.compile(r"^(\S+) threads inside on average over (\d+) cycles, (-?\d+) now$")
PROBE_TOTALS = re.compile(
    r"^probes: (\d+) known, (\d+) sites patched \((\d+) jump, (\d+) int3\); (\d+) installs, "
    r"(\d+) removals, (\d+) sync rounds, (\d+) jumps refused$")


def _ratio(text):
    """cmd_metrics.c's ratio(): "12.345", or "-" when undefined (null)."""
    return None if text == "-" else float(text)


def stats(text):
    """`stats` -> {"metrics": [...], "probes": {...}}: one object per
    metric line, and the probe totals of its last line."""
    metrics, probes = [], {}
    for line in text.splitlines():
        m = METRIC_ROW.match(line)
        if m:
            row = {"id": int(m[1]), "kind": m[2], "function": m[3]}
            if m[4]:
                row["tid"] = int(m[4])
            tail = m[5]
            if (t := COUNT_TAIL.match(tail)) and m[2] == "count":
                row["calls"] = int(t[1])
            elif (t := LATENCY_TAIL.match(tail)) and m[2] == "latency":
                row.update(calls=int(t[1]), cycles_per_call=_ratio(t[2]),
                           us_per_call=_ratio(t[3]))
            elif (t := CONCURRENCY_TAIL.match(tail)) and m[2] == "concurrency":
                row.update(average_inside=_ratio(t[1]), elapsed_cycles=int(t[2]),
                           inside_now=int(t[3]))
            else:
                row["text"] = tail
            metrics.append(row)
        elif m := PROBE_TOTALS.match(line):
            keys = ("known", "sites", "jump_sites", "int3_sites", "installs", "removals",
                    "sync_rounds", "jumps_refused")
            probes = dict(zip(keys, map(int, m.groups())))
    return {"metrics": metrics, "probes": probes}


# kernel/graft/cmd_graft.c list_one: name, point, scope ("global", "-" or
# "tid N"), state, invocations, commits, aborts, time(us), mode; then
# perhaps "    last abort: WHY".
GRAFT_ROW = re.compile(r"^(\S+)\s+(\S+)\s+(global|-|tid \d+)\s+(installed|loaded)\s+(\d+)\s+(\d+)"
                       r"\s+(\d+)\s+(\d+)\s+(sandboxed|trusted|built-in)\s*$")
LAST_ABORT = re.compile(r"^\s+last abort: (.*)$")


def graft_list(text):
    rows = []
    for line in text.splitlines():
        m = GRAFT_ROW.match(line)
        if m:
            rows.append({"graft": m[1], "point": m[2], "scope": m[3], "state": m[4],
                         "invocations": int(m[5]), "commits": int(m[6]), "aborts": int(m[7]),
                         "time_us": int(m[8]), "mode": m[9]})
        elif (a := LAST_ABORT.match(line)) and rows:
            rows[-1]["last_abort"] = a[1]
    return rows
