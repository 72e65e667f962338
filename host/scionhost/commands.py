# SPDX-License-Identifier: BSD-2-Clause
"""The `scion` subcommands: each a thin layer over one control-channel op.

Most run a guest shell command through the SHELL op and print its output
for people: on stdout when the command succeeds, on stderr (and exit
status 1) when its status is negative. What the host reads as data comes
from the ops that answer in structured records (replies.py): `status`,
`channel`, and with --json `probe list`, `stats` and `graft list`; the
shell's text is never parsed. main() is the entry point of host/scion.
"""

import argparse
import json
import os
import statistics
import sys
import time

from . import (adapt, bench, codeadapt, coverage, daemon_cli, debug, execute, frame, monitor,
               recconvert)
from . import record, replies, streams, trace
from . import run as run_command
from .profile import cli as profile_cli
from .sweep import cli as sweep_cli
from .client import Client, ScionError, answer, default_socket_path
from .layouts import layout

DEFAULT_TIMEOUT = 30.0
DEFAULT_WAIT = 30.0
BULK_REQUEST = layout("chan_bulk_request", "bytes")
BULK_REPLY = layout("chan_bulk_reply", "cycles")


class Parser(argparse.ArgumentParser):
    """argparse with usage errors as one line, like every other error."""

    def error(self, message):
        sys.stderr.write(f"scion: {message} (`{self.prog} --help` shows the usage)\n")
        sys.exit(2)


def session(args):
    return Client(args.socket, timeout=args.timeout, wait=args.wait)


def shell_line(words):
    """Words -> one guest command line; the guest shell groups '...' and
    "..." (kernel/shell/shell.c), so a word with spaces is quoted."""
    quoted = []
    for word in words:
        if word and not any(c in word for c in " \t'\""):
            quoted.append(word)
        elif '"' not in word:
            quoted.append(f'"{word}"')
        elif "'" not in word:
            quoted.append(f"'{word}'")
        else:
            raise ScionError(f"the guest shell cannot take a word with both quote characters: "
                             f"{word}")
    return " ".join(quoted)


def report(status, body, what):
    """Print a reply's text: stdout on success; on failure stderr and
    exit status 1 (with a line of our own when the kernel said nothing)."""
    text = body.decode("utf-8", "replace")
    if text and not text.endswith("\n"):
        text += "\n"
    if status >= 0:
        sys.stdout.write(text)
        return 0
    sys.stderr.write(text or f"scion: {what} failed: {frame.errno_name(status)} ({status})\n")
    return 1


def print_json(value):
    print(json.dumps(value, indent=2))


def shell(args, words, query=None):
    """Run a guest command and print its output; with --json, print instead
    what query(client) asks of the kernel's structured replies."""
    if query and getattr(args, "json", False):
        with session(args) as client:
            print_json(query(client))
        return 0
    line = shell_line(words)
    with session(args) as client:
        status, body = client.request(frame.OP_SHELL, line.encode())
    return report(status, body, f"`{line}`")


def print_values(args, values, sep):
    """A structured reply: JSON with --json, else a "key{sep}value" line each."""
    if args.json:
        print_json(values)
    else:
        sys.stdout.write("".join(f"{k}{sep}{v}\n" for k, v in values.items()))
    return 0


def cmd_status(args):
    with session(args) as client:
        status = replies.status(client)
    return print_values(args, {k: status[k] for k in replies.STATUS_KEYS}, ": ")


def cmd_channel(args):
    with session(args) as client:
        return print_values(args, replies.channel_stats(client), " ")


def cmd_probe(args):
    sub = args.probe_command
    if sub == "record":
        return streams.cmd_probe_record(args)
    if sub == "list":
        return shell(args, ["probe", "list"] + ([args.pattern] if args.pattern else []),
                     lambda client: replies.probe_list(client, args.pattern or ""))
    if sub == "enable":
        if not args.words:
            raise ScionError("probe enable: give <id|spec> <count|hcount> [auto|jump|int3]")
        words = args.words
    elif sub in ("disable", "info"):
        words = [args.id]
    else:
        words = []
    return shell(args, ["probe", sub] + words)


def cmd_stats(args):
    return shell(args, ["stats"], replies.stats)


def cmd_graft(args):
    sub = args.graft_command
    if sub == "load":
        return graft_load(args)
    if sub == "install":
        return shell(args, ["graft", "install", args.name] + ([args.tid] if args.tid else []))
    if sub == "remove":
        return shell(args, ["graft", "remove", args.name])
    if sub == "list":
        return shell(args, ["graft", "list"], replies.graft_list)
    if sub == "points":
        return shell(args, ["graft", "points"] + (["-v"] if args.verbose else []))
    return shell(args, ["graft", sub])


def graft_load(args):
    try:
        with open(args.file, "rb") as f:
            image = f.read()
    except OSError as e:
        raise ScionError(f"cannot read {args.file}: {e.strerror}") from None
    name = os.path.basename(args.file).encode()
    room = frame.MAX_PAYLOAD - frame.REQUEST_HEADER_BYTES - len(name) - 1
    if len(image) > room:
        raise ScionError(f"{args.file} is {len(image)} bytes; the control channel carries at "
                         f"most {room} bytes of graft named {name.decode()} (one frame of "
                         f"{frame.MAX_PAYLOAD} bytes)")
    with session(args) as client:
        op = frame.OP_GRAFT_LOAD_TRUSTED if args.trusted else frame.OP_GRAFT_LOAD
        status, body = client.request(op, name + b"\0" + image)
    return report(status, body, f"graft load {args.file}")


def cmd_text(args):
    return shell(args, ["text", "verify"])


def cmd_shell(args):
    if args.words[:1] == ["--"]:      # `scion shell -- CMD`: argparse keeps the separator
        args.words = args.words[1:]
    if not args.words:
        raise ScionError("shell: give a guest command, e.g. `scion shell threads`")
    return shell(args, args.words)


def cmd_ping(args):
    if args.count < 1 or not 0 <= args.size <= frame.MAX_PAYLOAD - frame.REQUEST_HEADER_BYTES:
        raise ScionError(f"ping: give --count >= 1 and --size 0 to "
                         f"{frame.MAX_PAYLOAD - frame.REQUEST_HEADER_BYTES}")
    times = []
    with session(args) as client:
        for _ in range(args.count):
            payload = os.urandom(args.size)
            started = time.perf_counter()
            status, body = client.request(frame.OP_ECHO, payload)
            times.append((time.perf_counter() - started) * 1e6)
            if status < 0:
                return report(status, body, "ECHO")
            if body != payload:
                raise ScionError(f"ECHO returned {len(body)} bytes that differ from the "
                                 f"{len(payload)} sent")
    print(f"{args.count} echo{'es' if args.count != 1 else ''} of {args.size} bytes: "
          f"min {min(times):.0f} us, median {statistics.median(times):.0f} us, "
          f"max {max(times):.0f} us (host time)")
    return 0


def byte_count(text):
    """"4096", "64K", "16M", "1G" (binary multiples) -> bytes."""
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:].upper(), 1)
    digits = text[:-1] if scale > 1 else text
    if not digits.isdigit() or int(digits) * scale >= 1 << 32:
        raise argparse.ArgumentTypeError(f"'{text}' is not a byte count below 4G "
                                         "(e.g. 4096, 64K, 16M)")
    return int(digits) * scale


def cmd_bulk(args):
    received = [0]

    def count(stream, data):
        received[0] += len(data)

    with session(args) as client:
        started = time.perf_counter()
        status, body = client.request(frame.OP_BULK, BULK_REQUEST.pack(bytes=args.bytes),
                                      on_data=count)
        seconds = time.perf_counter() - started
    if status < 0:
        return report(status, body, "BULK")
    if received[0] != args.bytes:
        raise ScionError(f"BULK delivered {received[0]} of {args.bytes} bytes")
    cycles = f"; kernel: {answer(BULK_REPLY, body, 'BULK')['cycles']} cycles"
    print(f"received {received[0]} bytes in {seconds:.3f} s: "
          f"{received[0] / seconds / 1e6:.2f} MB/s (host time){cycles}")
    return 0


def subcommand(subparsers, name, help_text, fn=None, json_flag=False):
    """A subparser whose --help says what it does (help= alone only lists it)."""
    p = subparsers.add_parser(name, help=help_text, description=help_text)
    if fn:
        p.set_defaults(fn=fn)
    if json_flag:
        p.add_argument("--json", action="store_true", help="print JSON instead of text")
    return p


def build_parser():
    ap = Parser(prog="scion", description="Drive a running Scion kernel over its control "
                "channel (COM2 on a UNIX socket), or boot one with `scion run`.")
    ap.add_argument("--socket", default=default_socket_path(),
                    help="the control socket (default: $SCION_SOCKET, else build/control.sock)")
    ap.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="S",
                    help=f"seconds to wait for the handshake and each answer "
                         f"(default {DEFAULT_TIMEOUT:g})")
    ap.add_argument("--direct", action="store_true",
                    help="talk to the control socket directly, holding the channel for the "
                         "whole command, instead of through `scion daemon` (as "
                         "SCION_NO_DAEMON=1)")
    ap.add_argument("--wait", type=float, default=DEFAULT_WAIT, metavar="S",
                    help="seconds to wait while another client holds the channel "
                         f"(default {DEFAULT_WAIT:g})")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    subcommand(sub, "status", "the kernel's version, uptime, CPUs, memory, grafts, probes "
               "(STATUS op)", cmd_status, json_flag=True)

    probe = subcommand(sub, "probe", "list, enable, disable and inspect probes (guest `probe`)",
                       cmd_probe)
    probe_sub = probe.add_subparsers(dest="probe_command", metavar="SUBCOMMAND", required=True)
    p = subcommand(probe_sub, "list", "list the probes matching PATTERN (default: all)",
                   json_flag=True)
    p.add_argument("pattern", nargs="?", metavar="PATTERN",
                   help="provider:module:function:name, globs allowed, e.g. fbt::thread_*:entry")
    p = subcommand(probe_sub, "enable", "enable counting on probes: ARGS are "
                   "<id|spec> <count|hcount> [auto|jump|int3]")
    p.add_argument("words", nargs=argparse.REMAINDER, metavar="ARGS")
    subcommand(probe_sub, "disable", "disable the shell's enablings on probes").add_argument(
        "id", metavar="ID", help="a probe id or spec")
    subcommand(probe_sub, "info", "one probe's sites, mechanism and counts").add_argument(
        "id", metavar="ID", help="a probe id from `scion probe list`")
    subcommand(probe_sub, "clear", "every probe and metric off")
    streams.add_probe_record(probe_sub, subcommand, byte_count)

    subcommand(sub, "stats", "the metrics (count, latency, concurrency) and probe totals "
               "(guest `stats`)", cmd_stats, json_flag=True)

    graft = subcommand(sub, "graft", "load, install, remove and list grafts (guest `graft`)",
                       cmd_graft)
    graft_sub = graft.add_subparsers(dest="graft_command", metavar="SUBCOMMAND", required=True)
    p = subcommand(graft_sub, "load", "send a .graft file to the kernel's loader (GRAFT_LOAD op)")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--trusted", action="store_true",
                   help="load it unverified and unconfined (an object built without the "
                        "sandboxing step, build/grafts/trusted/), to measure what the sandbox "
                        "costs")
    p = subcommand(graft_sub, "install", "install a loaded graft, globally or for one thread")
    p.add_argument("name", metavar="NAME")
    p.add_argument("tid", nargs="?", metavar="TID", help="a thread id from `scion shell threads`")
    subcommand(graft_sub, "remove", "remove an installed graft").add_argument(
        "name", metavar="NAME")
    subcommand(graft_sub, "list", "the loaded grafts and their counters", json_flag=True)
    subcommand(graft_sub, "avail", "the grafts booted as modules, loaded or refused and why")
    subcommand(graft_sub, "points", "the graft points").add_argument(
        "-v", "--verbose", action="store_true", help="with each point's contract")

    p = subcommand(sub, "text", "compare the live kernel text with the booted image", cmd_text)
    p.add_argument("what", choices=["verify"], metavar="verify")

    p = subcommand(sub, "shell", "run any guest shell command, e.g. `scion shell threads` "
                   "(`scion shell help` lists them)", cmd_shell)
    p.add_argument("words", nargs=argparse.REMAINDER, metavar="CMD")

    subcommand(sub, "channel", "the control channel's counters (STATS op)", cmd_channel,
               json_flag=True)
    streams.add_events(sub, subcommand)
    trace.add_trace(sub, subcommand)
    execute.add_exec(sub, subcommand)
    bench.add_bench(sub, subcommand)
    monitor.add_monitor(sub, subcommand)
    recconvert.add_record_convert(record.add_record(sub, subcommand, byte_count), subcommand)
    record.add_sim(sub, subcommand)
    adapt.add_adapt(sub, subcommand)
    coverage.add_coverage(sub, subcommand)
    codeadapt.add_codeadapt(sub, subcommand)
    debug.add_debug(sub, subcommand)
    daemon_cli.add_daemon(sub, subcommand)

    p = subcommand(sub, "ping", "ECHO round trips: min and median latency (host time)", cmd_ping)
    p.add_argument("--count", "-c", type=int, default=10, metavar="N",
                   help="round trips (default 10)")
    p.add_argument("--size", type=int, default=64, metavar="B", help="bytes echoed (default 64)")

    p = subcommand(sub, "bulk", "BULK transfer from the kernel: bytes received and MB/s "
                   "(host time)", cmd_bulk)
    p.add_argument("bytes", type=byte_count, metavar="BYTES", help="e.g. 1048576 or 16M")

    run_command.add_parser(sub, ap.get_default("socket"))
    profile_cli.add_parsers(sub, subcommand)
    sweep_cli.add_parsers(sub, subcommand)
    return ap


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "fn", None):
        parser.error("give a subcommand")
    if args.direct:
        os.environ["SCION_NO_DAEMON"] = "1"    # every Client this command makes
    try:
        return args.fn(args)
    except ScionError as e:
        sys.stderr.write(f"scion: {e}\n")
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`scion ... | head`): nothing left to say.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
