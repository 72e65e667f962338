# SPDX-License-Identifier: BSD-2-Clause
"""The kernel's structured replies (kernel/include/scion/chan_reply.h),
asked for and taken apart: STATUS, STATS (the channel's counters),
PROBE_LIST, GRAFT_LIST, METRICS and EVENTS, each as the dicts and rows
the `scion` subcommands print or turn into JSON.

Records are read by member name through the layouts generated from the
header (layouts.py); nothing here reads the shell's text. A reply of the
wrong size, a record size other than the header's, or a list that does
not move forward is a ScionError of one line naming the op: a kernel of
another build is refused at the handshake already, so these mean a
damaged reply.
"""

from . import frame
from .client import ScionError
from .layouts import C, layout, text

LIST_REQUEST = layout("chan_list_request")
LIST_HEAD = layout("chan_list_head")
MAX_PAGES = 4096            # a list longer than this many answers is not moving forward

# `scion status`: its lines, in order (the kernel's STATUS text of before).
STATUS_KEYS = ("version", "build", "uptime_ms", "cpus", "memory_kib", "memory_free_kib",
               "grafts_loaded", "grafts_installed", "probes", "probe_sites",
               "channel_frames_accepted", "channel_frames_rejected")
METRIC_KINDS = {C.CHAN_METRIC_COUNT: "count", C.CHAN_METRIC_LATENCY: "latency",
                C.CHAN_METRIC_CONCURRENCY: "concurrency"}
GRAFT_MODES = {C.CHAN_GRAFT_SANDBOXED: "sandboxed", C.CHAN_GRAFT_TRUSTED: "trusted",
               C.CHAN_GRAFT_BUILTIN: "built-in"}


def _failed(op, status, body):
    message = body.decode("utf-8", "replace").strip()
    return ScionError(message or f"{frame.OP_NAMES.get(op, op)}: {frame.errno_name(status)}")


def request_struct(client, op, name, body=b""):
    """One structure as the answer to op: {member: value}."""
    lay = layout(name)
    status, reply = client.request(op, body)
    if status < 0:
        raise _failed(op, status, reply)
    if len(reply) != lay.size:
        raise ScionError(f"malformed {frame.OP_NAMES.get(op, op)} answer: {len(reply)} bytes, "
                         f"where a struct {name} is {lay.size}")
    return lay.unpack(reply)


def request_list(client, op, name, extra=b"", start=0, timeout=None):
    """Every record of a list op after start, asking page after page."""
    lay = layout(name)
    records, what = [], frame.OP_NAMES.get(op, op)
    for _ in range(MAX_PAGES):
        status, reply = client.request(op, LIST_REQUEST.pack(start=start) + extra,
                                       timeout=timeout)
        if status < 0:
            raise _failed(op, status, reply)
        if len(reply) < LIST_HEAD.size:
            raise ScionError(f"malformed {what} answer: {len(reply)} bytes, shorter than its "
                             f"{LIST_HEAD.size}-byte list head")
        head = LIST_HEAD.unpack(reply)
        if head["record_bytes"] != lay.size:
            raise ScionError(f"malformed {what} answer: records of {head['record_bytes']} bytes, "
                             f"where a struct {name} is {lay.size}")
        if len(reply) != LIST_HEAD.size + head["count"] * lay.size:
            raise ScionError(f"malformed {what} answer: {len(reply)} bytes for "
                             f"{head['count']} records of {lay.size}")
        records += [lay.unpack(reply, LIST_HEAD.size + k * lay.size)
                    for k in range(head["count"])]
        if not head["more"]:
            return records
        if head["next"] <= start:
            raise ScionError(f"malformed {what} answer: it asks to go on from {head['next']}, "
                             f"not after {start}")
        start = head["next"]
    raise ScionError(f"{what}: more than {MAX_PAGES} answers; the list does not end")


def status(client):
    """STATUS -> {key: value}: STATUS_KEYS first, then the probe totals and the cycle rate."""
    s = request_struct(client, frame.OP_STATUS, "chan_status")
    s["version"], s["build"] = text(s["version"]), text(s["build"])
    s.pop("reserved", None)
    return {**{k: s[k] for k in STATUS_KEYS}, **{k: v for k, v in s.items()
                                                  if k not in STATUS_KEYS}}


def channel_stats(client):
    """STATS -> the channel's counters by the names `channel` prints."""
    s = request_struct(client, frame.OP_STATS, "chan_channel_stats")
    out = {k: s[k] for k in ("frames_accepted", "frames_rejected", "garbage_bytes")}
    for reason in frame.REJECT_REASONS:
        out["rejected_" + reason.replace(" ", "_")] = s["rejected"][frame.REJECT_CODES[reason]]
    for k in ("rx_bytes", "tx_bytes", "frames_sent", "errors_sent", "requests",
              "requests_failed", "hellos", "version_mismatches", "rx_stalls", "rx_ring_used",
              "rx_held", "parser_state"):
        out[k] = s[k]
    return out


def probe_list(client, spec="", timeout=None):
    """PROBE_LIST -> [{"id", "probe", "sites", "consumers"[, "count"]}] in id order."""
    rows = []
    for r in request_list(client, frame.OP_PROBE_LIST, "chan_probe_info", spec.encode(),
                          timeout=timeout):
        row = {"id": r["id"], "probe": text(r["name"]), "sites": r["sites"],
               "consumers": r["consumers"]}
        if r["count"] >= 0:
            row["count"] = r["count"]
        rows.append(row)
    return rows


def probe_names(client, spec=""):
    """{probe id: full name} of the probes spec matches."""
    return {row["id"]: row["probe"] for row in probe_list(client, spec)}


def graft_list(client):
    """GRAFT_LIST -> [{"graft", "point", "scope", "state", counters, "mode"[, "last_abort"]}]."""
    rows = []
    for r in request_list(client, frame.OP_GRAFT_LIST, "chan_graft_info"):
        scope = (f"tid {r['scope_tid']}" if r["installed"] and r["scope_tid"]
                 else "global" if r["installed"] else "-")
        row = {"graft": text(r["name"]), "point": text(r["point"]), "scope": scope,
               "state": "installed" if r["installed"] else "loaded",
               "invocations": r["invocations"], "commits": r["commits"], "aborts": r["aborts"],
               "time_us": r["time_us"], "mode": GRAFT_MODES.get(r["mode"], f"mode {r['mode']}")}
        if text(r["last_abort"]):
            row["last_abort"] = text(r["last_abort"])
        rows.append(row)
    return rows


def ratio(x, y):
    """x / y cut to three decimals, as the shell prints it; None when y is 0."""
    if not y:
        return None
    return float(f"{x // y}.{x % y * 1000 // y:03d}")


METRIC_ADD = layout("chan_metric_add_request", "kind", "pid", "function")
METRIC_ADD_REPLY = layout("chan_metric_add_reply", "id", "reserved")
METRIC_REMOVE = layout("chan_metric_remove_request", "id", "reserved")


def metric_add(client, kind, function, pid=0):
    """METRIC_ADD: a metric of kind ("count", "latency", "concurrency") on function,
    for one process (pid) or every thread (0); its id. A refusal raises ScionError
    with the kernel's one line."""
    code = {name: value for value, name in METRIC_KINDS.items()}[kind]
    st, body = client.request(frame.OP_METRIC_ADD, METRIC_ADD.pack(
        kind=code, pid=pid, function=function.encode()))
    if st < 0:
        raise ScionError(body.decode("utf-8", "replace").strip() or
                         f"metric add {kind} {function}: {frame.errno_name(st)}")
    return METRIC_ADD_REPLY.unpack(body)["id"]


def metric_remove(client, metric_id=0):
    """METRIC_REMOVE: one metric, or every one (0)."""
    st, body = client.request(frame.OP_METRIC_REMOVE, METRIC_REMOVE.pack(id=metric_id))
    if st < 0:
        raise ScionError(body.decode("utf-8", "replace").strip() or
                         f"metric remove {metric_id}: {frame.errno_name(st)}")


def metrics(client, cycles_per_second):
    """METRICS -> one dict per metric, with the rates the shell's `stats` prints."""
    per_us = max(cycles_per_second // 1000000, 1)
    rows = []
    for r in request_list(client, frame.OP_METRICS, "chan_metric_info"):
        kind = METRIC_KINDS.get(r["kind"], f"kind {r['kind']}")
        row = {"id": r["id"], "kind": kind, "function": text(r["function"])}
        if r["tid"]:
            row["tid"] = r["tid"]
        if kind == "count":
            row["calls"] = r["calls"]
        elif kind == "latency":
            row.update(calls=r["calls"], cycles_per_call=ratio(r["area"], r["calls"]),
                       us_per_call=ratio(r["area"], r["calls"] * per_us))
        elif kind == "concurrency":
            row.update(average_inside=ratio(r["area"], r["elapsed"]),
                       elapsed_cycles=r["elapsed"], inside_now=r["inside"])
        rows.append(row)
    return rows


def stats(client):
    """`stats` as data: {"metrics": [...], "probes": the probe totals}."""
    s = status(client)
    probes = {"known": s["probes"], "sites": s["probe_sites"], "jump_sites": s["jump_sites"],
              "int3_sites": s["breakpoint_sites"], "installs": s["probe_installs"],
              "removals": s["probe_removals"], "sync_rounds": s["sync_rounds"],
              "jumps_refused": s["jumps_refused"]}
    return {"metrics": metrics(client, s["cycles_per_second"]), "probes": probes}


def events(client, after=0):
    """EVENTS -> [(number, uptime_ms, text)] of the events kept, after number after."""
    return [(r["number"], r["uptime_ms"], text(r["text"]))
            for r in request_list(client, frame.OP_EVENTS, "chan_event_info", start=after)]
