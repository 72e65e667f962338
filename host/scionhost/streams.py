# SPDX-License-Identifier: BSD-2-Clause
"""Subcommands that collect what the kernel sends unasked: `scion probe
record` (a stream of probe firings from the kernel's per-CPU buffers)
and `scion events` (the kernel's event lines, also sent as EVENT frames
to whichever client holds the channel; through `scion daemon`, to every
client: `events --follow` holds one connection and prints them).

Records are decoded by frame.decode_probe_records; drops are always
reported, on stderr as dtrace does, and in the JSON. A recording survives
the guest: if the channel closes (or the kernel stops answering) mid-way,
the records that arrived are printed (or written to -o FILE) as usual, the
JSON says "complete": false with a "reason" and "totals": null (the
kernel's totals never came), one line on stderr says how many were kept,
and the exit status is partial.EXIT_INCOMPLETE (3).
"""

import json
import sys
import time

from . import frame, partial, replies
from .client import ChannelLost, Client, ScionError

DEFAULT_BUFSIZE = 64 * 1024
DEFAULT_SWITCH_MS = 200
FOLLOW_POLL_SECONDS = 0.5


def session(args):
    return Client(args.socket, timeout=args.timeout, wait=args.wait)


def collect_until(client, args):
    """Let records flow: run --run's guest command, or wait --duration
    seconds, or (neither) until Ctrl-C. Returns the command's output."""
    if args.run:
        status, body = client.request(frame.OP_SHELL, args.run.encode(),
                                      timeout=max(args.timeout, 600.0))
        if status < 0:
            raise ScionError(f"`{args.run}` failed: " +
                             (body.decode("utf-8", "replace").strip() or frame.errno_name(status)))
        return body.decode("utf-8", "replace")
    if args.duration is not None:
        client.pump(args.duration)
        return ""
    print("scion: recording; Ctrl-C stops", file=sys.stderr)
    try:
        while True:
            client.pump(1.0)
    except KeyboardInterrupt:
        pass
    return ""


def cmd_probe_record(args):
    """Record probe firings; what arrived is kept if the channel is lost mid-recording
    (printed, or written to -o FILE, with "complete": false and a "reason" in the
    JSON; one line on stderr; exit status EXIT_INCOMPLETE). With -o, FILE.part holds
    the records as they arrive (see add_probe_record's -o)."""
    records, chunk_drops, part = [], {}, None

    def on_chunk(cpu, count, drops, body):
        new = frame.decode_probe_records(body, count)
        records.extend(new)
        chunk_drops[cpu] = chunk_drops.get(cpu, 0) + drops
        if part:
            for r in new:
                r["name"] = names.get(r["probe"], f"probe {r['probe']}")
            part.write("".join(json.dumps(r) + "\n" for r in new))

    lost, totals, output = None, None, ""
    stream = None
    with session(args) as client:
        names = replies.probe_names(client, args.spec)
        try:
            if args.output:
                part = partial.PartFile(args.output, binary=False)
                part.write(json.dumps({"probe_record": args.spec, "bufsize": args.bufsize,
                                       "switch_ms": args.switchrate}) + "\n")
            stream, cpus, bufsize = client.stream_open("probes", args.bufsize, args.switchrate,
                                                       args.spec, on_chunk)
            started = time.monotonic()
            try:
                output = collect_until(client, args)
                totals = client.stream_close(stream)
            except ChannelLost as e:
                lost = e
        except BaseException:
            if part:
                part.remove()
            if not lost and stream is not None:
                try:
                    client.stream_close(stream)
                except ScionError:
                    pass
            raise
    elapsed = time.monotonic() - started
    dropped = sum(chunk_drops.values())
    # The kernel's totals and what arrived must agree, or something was lost.
    if totals is not None and (totals.get("records") != len(records) or
                               totals.get("drops") != dropped):
        if part:
            part.remove()
        raise ScionError(f"stream {stream}: the kernel sent {totals.get('records')} records and "
                         f"{totals.get('drops')} drops, {len(records)} and {dropped} arrived")
    reasons = ([partial.lost_reason(lost, elapsed)] if lost else []) + \
        ([f"{dropped} record{'s were' if dropped != 1 else ' was'} dropped in full buffers"]
         if dropped else [])
    reason = "; ".join(reasons)
    records.sort(key=lambda r: r["timestamp_ns"])
    for r in records:
        r["name"] = names.get(r["probe"], f"probe {r['probe']}")
    summary = (f"{len(records)} record{'s' if len(records) != 1 else ''}, {dropped} dropped "
               f"({cpus} CPU{'s' if cpus != 1 else ''} x {bufsize} bytes, switch every "
               f"{args.switchrate} ms)")

    def write(out):
        if args.json:
            doc = {"records": records, "dropped": dropped,
                   "dropped_per_cpu": {str(c): d for c, d in sorted(chunk_drops.items())},
                   "cpus": cpus, "bufsize": bufsize, "totals": totals, "output": output,
                   "complete": not reason}
            if reason:
                doc["reason"] = reason
            out.write(json.dumps(doc, indent=2) + "\n")
            return
        out.write(output)
        if records:
            start = records[0]["timestamp_ns"]
            out.write(f"{'TIME(us)':>12} {'CPU':>3} {'TID':>5}  {'ARG0':>18}  PROBE\n")
            for r in records:
                out.write(f"{(r['timestamp_ns'] - start) / 1000:12.3f} {r['cpu']:3} "
                          f"{r['tid']:5}  {r['arg0']:#18x}  {r['name']}\n")

    if args.output:
        partial.publish(args.output, write, binary=False)
        part.remove()
    else:
        write(sys.stdout)
    for cpu, drops in sorted(chunk_drops.items()):
        if drops:
            print(f"scion: {drops} drop{'s' if drops != 1 else ''} on CPU {cpu}", file=sys.stderr)
    if lost:
        where = f"{args.output}: " if args.output else ""
        print(f"scion: {where}an incomplete recording ({reason}): kept the {len(records)} "
              f"record{'s' if len(records) != 1 else ''} that arrived", file=sys.stderr)
        return partial.EXIT_INCOMPLETE
    print(f"scion: {summary}", file=sys.stderr)
    return 0


def recent_events(args, after=0):
    """The events the kernel still keeps after number after, as (number, uptime_ms, text),
    oldest first (the EVENTS op)."""
    # Following must outwait other clients, which may hold the channel for long.
    wait = float("inf") if args.follow else args.wait
    with Client(args.socket, timeout=args.timeout, wait=wait) as client:
        return replies.events(client, after)


def show_event(number, ms, text, out=None):
    print(f"{number:6} {ms // 1000:6}.{ms % 1000:03}  {text}", file=out or sys.stdout,
          flush=True)


class Follower:
    """Prints new events once each, in order: last is the number printed last; shown
    counts them against --count. out and err: stdout and stderr (tests give others)."""

    def __init__(self, last, count, out=None, err=None):
        self.last, self.count, self.shown = last, count, 0
        self.out, self.err = out or sys.stdout, err or sys.stderr

    def done(self):
        return self.count is not None and self.shown >= self.count

    def take(self, events):
        """Print events newer than last, oldest first, saying how many numbers between
        were skipped (lost: the kernel's ring no longer had them)."""
        for number, ms, text in sorted(events):
            if number <= self.last or self.done():
                continue
            if number > self.last + 1:
                lost = number - self.last - 1
                print(f"scion: {lost} event{'s' if lost != 1 else ''} lost", file=self.err)
            show_event(number, ms, text, self.out)
            self.last = number
            self.shown += 1


def follow_polling(args, follower, deadline):
    """Straight to the kernel: each poll takes the channel for one EVENTS request and lets
    it go, since holding a direct channel would block every other `scion` command."""
    while not follower.done():
        if deadline is not None and time.monotonic() >= deadline:
            return
        time.sleep(FOLLOW_POLL_SECONDS)
        follower.take(recent_events(args, follower.last))


def follow_pushed(client, follower, deadline, ring=replies.events):
    """Through the daemon: one connection, printing the EVENT frames the daemon sends
    every client. A jump in their numbers is filled from the kernel's ring first; only
    what the ring no longer has is reported lost. Number 0 is the daemon's own notice
    (the client has said it on stderr), not an event. ring(client, after) reads the
    kernel's ring (tests give another)."""
    seen = 0        # client.events taken so far
    while not follower.done():
        pushed = [e for e in client.events[seen:] if e[0] > 0]
        seen = len(client.events)
        for event in sorted(pushed):
            if event[0] > follower.last + 1:
                follower.take(ring(client, follower.last))
            follower.take([event])
        if follower.done():
            return
        if deadline is None:
            client.pump(1.0)
        elif time.monotonic() >= deadline:
            return
        else:
            client.pump(min(1.0, deadline - time.monotonic()))


def cmd_events(args):
    """The kernel's recent events; with --follow, the new ones as they come.

    Through `scion daemon` following holds one connection: it prints the
    history (the kernel's ring, the EVENTS op) and then the EVENT frames
    the daemon sends every client, each number once; a jump in the
    numbers is filled from the ring, and only what the ring no longer has
    is reported lost. Straight to the kernel (--direct, SCION_NO_DAEMON=1)
    following polls instead, every FOLLOW_POLL_SECONDS: it takes the
    channel only to read the ring and lets it go between polls, since
    holding it would block every other `scion` command; a gap in the
    numbers (more events than the ring holds between two polls) is
    reported."""
    deadline = None
    if args.follow and args.duration is not None:
        deadline = time.monotonic() + args.duration
    follower = None
    try:
        client = Client(args.socket, timeout=args.timeout,
                        wait=float("inf") if args.follow else args.wait)
        if args.follow and not client.direct:
            with client:
                history = replies.events(client)
                for event in history:
                    show_event(*event)
                follower = Follower(history[-1][0] if history else 0, args.count)
                follow_pushed(client, follower, deadline)
        else:
            history = recent_events(args)
            for event in history:
                show_event(*event)
            if not args.follow:
                return 0
            follower = Follower(history[-1][0] if history else 0, args.count)
            follow_polling(args, follower, deadline)
    except KeyboardInterrupt:
        if follower is None:
            raise
    if args.count is not None and not follower.done():
        within = f"within {args.duration:g} s" if args.duration is not None else \
            "before Ctrl-C"
        raise ScionError(f"events: {follower.shown} of the {args.count} events asked for "
                         f"came {within}")
    return 0


def add_probe_record(probe_sub, subcommand, byte_count):
    p = subcommand(probe_sub, "record", "record every firing of the probes SPEC matches "
                   "(time, CPU, thread, first argument) through the kernel's per-CPU buffers; "
                   "drops are reported", json_flag=True)
    p.add_argument("spec", metavar="SPEC", help="probe spec, e.g. fbt::bcache_read:entry")
    p.add_argument("--run", metavar="CMD", help="guest shell command to run while recording "
                   "(its output is printed first)")
    p.add_argument("--duration", type=float, metavar="S", help="record for S seconds "
                   "(default: until --run's command ends, else until Ctrl-C)")
    p.add_argument("--bufsize", type=byte_count, default=DEFAULT_BUFSIZE, metavar="BYTES",
                   help=f"bytes per CPU buffer, 64 to 128K, a multiple of 8 "
                        f"(default {DEFAULT_BUFSIZE // 1024}K)")
    p.add_argument("--switchrate", type=int, default=DEFAULT_SWITCH_MS, metavar="MS",
                   help=f"ms between buffer switches, 10 to 60000 (default {DEFAULT_SWITCH_MS})")
    p.add_argument("-o", "--output", metavar="FILE", help="write the output (the table, or "
                   "with --json the JSON) to FILE; while recording, FILE.part gets each "
                   "record as it arrives, one JSON object per line after a first line "
                   "describing the recording, and is removed once FILE is written")
    return p


def add_events(sub, subcommand):
    p = subcommand(sub, "events", "the kernel's recent events (graft loads, installs, "
                   "aborts, markers); --follow prints new ones as they come", cmd_events)
    p.add_argument("-f", "--follow", action="store_true", help="keep printing new events")
    p.add_argument("--count", type=int, metavar="N", help="with --follow: stop after N new "
                   "events (exit status 1 if --duration ends first)")
    p.add_argument("--duration", type=float, metavar="S", help="with --follow: stop after S "
                   "seconds")
    return p
