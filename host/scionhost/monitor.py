# SPDX-License-Identifier: BSD-2-Clause
"""`scion monitor`: the kernel's measurement thread controlled over the
MONITOR op (CHAN_OP_MONITOR, kernel/include/scion/monitor_rec.h): one
struct monitor_ctl_request out, the state after the command back as a
struct monitor_ctl_status, printed for people or with --json as data.

  scion monitor status                       change nothing
  scion monitor interval NAME MS             a source, a resource ("cpu") or "*"
  scion monitor burst MS EVERY_S             1 ms samples per burst (0: none), how often
  scion monitor clock SCALE [START]          the calendar's time scale, where it starts
  scion monitor start | stop | burst-now

SCALE is a speed-up of real time: "720" (or "0.5"), or a ratio of spans,
"1d/2m" (a day in two minutes = 720); the wire carries it in thousandths
(MONITOR_SCALE_ONE). START is YYYY-MM-DD or YYYY-MM-DDTHH:MM in UTC, sent
as seconds since 1970 (0 on the wire keeps the calendar where it is, so
the epoch itself cannot be asked for). A refusal is the kernel's one
line; nothing here spells a layout (layouts.py). control() is what
`scion profile collect` uses to read the state around its stream.
"""

import datetime
import json
import re

from . import frame
from .client import Client, ScionError, answer
from .layouts import C, layout

REQUEST = layout("monitor_ctl_request", "cmd", "ms", "every_s", "scale", "start_s", "name")
STATUS = layout("monitor_ctl_status")
COMMANDS = {"status": C.MONITOR_CTL_STATUS, "interval": C.MONITOR_CTL_INTERVAL,
            "burst": C.MONITOR_CTL_BURST, "clock": C.MONITOR_CTL_CLOCK,
            "start": C.MONITOR_CTL_START, "stop": C.MONITOR_CTL_STOP,
            "burst-now": C.MONITOR_CTL_BURST_NOW}
SPAN_UNITS = {"ms": 0.001, "s": 1, "m": 60, "min": 60, "h": 3600, "d": 86400, "w": 604800}
SPAN = re.compile(r"^\s*(\d+(?:\.\d+)?)?\s*([a-z]+)\s*$")
U32_MAX = (1 << 32) - 1


def control(client, cmd, ms=0, every_s=0, scale=0, start_s=0, name=""):
    """Send one MONITOR command (a MONITOR_CTL_* value); the kernel's state after it
    as {member: value}. A refusal is a ScionError of the kernel's one line."""
    raw = name.encode()
    if len(raw) >= C.MONITOR_SOURCE_NAME_MAX:
        raise ScionError(f"monitor: name {name!r} is longer than "
                         f"{C.MONITOR_SOURCE_NAME_MAX - 1} bytes")
    status, body = client.request(frame.OP_MONITOR, REQUEST.pack(
        cmd=cmd, ms=ms, every_s=every_s, scale=scale, start_s=start_s, name=raw))
    if status < 0:
        line = body.decode("utf-8", "replace").strip()
        if line.startswith("scion: "):
            line = line[len("scion: "):]
        raise ScionError(line or f"monitor: {frame.errno_name(status)} ({status})")
    return answer(STATUS, body, "MONITOR")


def parse_scale(word):
    """"720", "0.5", "1d/2m" -> thousandths of real time (MONITOR_SCALE_ONE = 1x)."""
    def span(part):
        m = SPAN.match(part.lower())
        if not m or m.group(2) not in SPAN_UNITS:
            raise ValueError(part)
        return float(m.group(1) or 1) * SPAN_UNITS[m.group(2)]
    try:
        if "/" in word:
            simulated, real = word.split("/", 1)
            factor = span(simulated) / span(real)
        else:
            factor = float(word)
    except (ValueError, ZeroDivisionError):
        factor = -1.0
    scale = round(factor * C.MONITOR_SCALE_ONE)
    if not 1 <= scale <= U32_MAX:
        raise ScionError(f"monitor clock: scale {word!r}: give how many times faster than "
                         f"real time the calendar runs, e.g. 720 or 0.5, or simulated/real "
                         f"spans such as 1d/2m (units {', '.join(SPAN_UNITS)})")
    return scale


def parse_start(word):
    """YYYY-MM-DD[THH:MM] (UTC) -> seconds since 1970."""
    try:
        if "T" in word:
            when = datetime.datetime.strptime(word, "%Y-%m-%dT%H:%M")
        else:
            when = datetime.datetime.strptime(word, "%Y-%m-%d")
    except ValueError:
        raise ScionError(f"monitor clock: start {word!r}: give YYYY-MM-DD or "
                         f"YYYY-MM-DDTHH:MM (UTC)") from None
    seconds = int(when.replace(tzinfo=datetime.timezone.utc).timestamp())
    if seconds <= 0:
        raise ScionError(f"monitor clock: start {word!r}: give a time after 1970-01-01T00:00 "
                         f"(0 means keep the calendar where it is)")
    return seconds


def ns_iso(ns):
    """Nanoseconds since 1970 -> 'YYYY-MM-DDTHH:MM:SS.mmm' (UTC)."""
    return datetime.datetime.fromtimestamp(ns / 1e9, datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%S.%f")[:-3]


def describe(st):
    """A monitor_ctl_status as text lines for people."""
    scale = st["scale"] / C.MONITOR_SCALE_ONE
    day = (datetime.datetime.fromtimestamp(st["config_valid_day"], datetime.timezone.utc)
           .strftime("%Y-%m-%d") if st["config_loaded"] else "none")
    rows = [("running", "yes" if st["running"] else "no"),
            ("streaming", "yes" if st["streaming"] else "no"),
            ("sources", st["sources"]),
            ("shortest interval", f"{st['min_interval_ms']} ms"),
            ("burst", f"{st['burst_ms']} x 1 ms every {st['burst_every_s']} s"
             if st["burst_ms"] else "none"),
            ("time scale", f"{scale:g}x" + (" (real time)" if scale == 1 else "")),
            ("calendar", ns_iso(st["wall_ns"])),
            ("monotonic", f"{st['mono_ns'] / 1e9:.3f} s"),
            ("configuration", day),
            ("rounds", st["rounds"]), ("bursts", st["bursts"]),
            ("samples written", st["samples_written"]),
            ("samples dropped", st["samples_dropped"]),
            ("red flags", st["redflags"])]
    return "".join(f"{k}: {v}\n" for k, v in rows)


def request_of(args):
    """The argparse namespace of `scion monitor ...` -> control()'s arguments."""
    sub = args.monitor_command
    fields = {"cmd": COMMANDS[sub]}
    if sub == "interval":
        fields.update(name=args.name, ms=args.ms)
    elif sub == "burst":
        fields.update(ms=args.ms, every_s=args.every_s)
    elif sub == "clock":
        fields.update(scale=parse_scale(args.scale),
                      start_s=parse_start(args.start) if args.start else 0)
    return fields


def cmd_monitor(args):
    fields = request_of(args)
    with Client(args.socket, timeout=args.timeout, wait=args.wait) as client:
        st = control(client, **fields)
    if args.json:
        print(json.dumps(dict(st, wall=ns_iso(st["wall_ns"]),
                              scale_factor=st["scale"] / C.MONITOR_SCALE_ONE), indent=2))
    else:
        print(describe(st), end="")
    return 0


def u32(word):
    if not word.isdigit() or int(word) > U32_MAX:
        raise ValueError(word)
    return int(word)


def add_monitor(sub, subcommand):
    mon = subcommand(sub, "monitor", "the kernel's measurement thread: its state, intervals, "
                     "bursts, calendar (MONITOR op)", cmd_monitor)
    msub = mon.add_subparsers(dest="monitor_command", metavar="SUBCOMMAND", required=True)
    subcommand(msub, "status", "the monitor's state, changing nothing", json_flag=True)
    p = subcommand(msub, "interval", "sample NAME every MS milliseconds", json_flag=True)
    p.add_argument("name", metavar="NAME",
                   help="a source (cpu.busy), a resource (cpu: every cpu.* source) or '*'")
    p.add_argument("ms", type=u32, metavar="MS")
    p = subcommand(msub, "burst", "MS samples 1 ms apart every EVERY_S seconds (MS 0: no "
                   "bursts)", json_flag=True)
    p.add_argument("ms", type=u32, metavar="MS")
    p.add_argument("every_s", type=u32, metavar="EVERY_S")
    p = subcommand(msub, "clock", "run the calendar SCALE times as fast as real time, from "
                   "START if given", json_flag=True)
    p.add_argument("scale", metavar="SCALE", help="720, 0.5 or 1d/2m (a day in two minutes)")
    p.add_argument("start", nargs="?", metavar="START",
                   help="YYYY-MM-DD or YYYY-MM-DDTHH:MM, UTC (default: keep the calendar)")
    subcommand(msub, "start", "start sampling (without a stream: red flags only)",
               json_flag=True)
    subcommand(msub, "stop", "stop sampling", json_flag=True)
    subcommand(msub, "burst-now", "start a burst now", json_flag=True)
