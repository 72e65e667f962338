# SPDX-License-Identifier: BSD-2-Clause
"""`scion record` and `scion sim`: recording a module's boundaries into a
directory on the host, moving recordings to and from the kernel's store,
and replaying traces on the host.

  scion record -m bcache -o DIR [--run CMD | --duration S]
      The kernel's "record" stream source grafts recorders on the
      module's input and output events; its per-CPU buffers come here,
      are sorted by sequence number and written as DIR/trace.bin,
      DIR/log.bin and DIR/meta.json (formats: recfmt.py). The kernel's
      record and drop counts must match what arrived, or the command
      fails: nothing is lost silently, and a recording with drops says so
      in its metadata ("complete": false).
  scion record upload DIR          -> the recording's number in the kernel (recN)
  scion record download REC -o DIR
  scion sim replay TRACE --policy P [...] [--follow]   (build/host/scion-sim)
"""

import json
import os
import struct
import sys

from . import frame, recfmt
from .client import Client, ScionError
from .streams import collect_until

DEFAULT_BUFSIZE = 128 * 1024
DEFAULT_SWITCH_MS = 100
PUT_CHUNK = 192 * 1024
PUT_FINISH = 1
GET_CHUNK = 200 * 1024


def session(args):
    return Client(args.socket, timeout=args.timeout, wait=args.wait)


def cmd_record(args):
    if args.record_command:
        return args.record_fn(args)
    if not args.module or not args.out:
        raise ScionError("record: give -m MODULE and -o DIR (or a subcommand: "
                         "`scion record --help`)")
    headers, raw = {}, {recfmt.STREAM_TRACE: [], recfmt.STREAM_LOG: []}
    drops, cpus_seen = {}, set()

    def on_chunk(cpu, count, chunk_drops, body):
        if cpu == frame.CHUNK_STATUS:
            for k in range(2):
                h = recfmt.unpack_header(body[k * recfmt.HEADER.size:], "the kernel's header")
                headers[h["stream"]] = h
            return
        cpus_seen.add(cpu)
        drops[cpu] = drops.get(cpu, 0) + chunk_drops
        records = recfmt.split_records(body)
        if len(records) != count:
            raise ScionError(f"a chunk of CPU {cpu} holds {len(records)} records, its header "
                             f"says {count}")
        for r in records:
            stream = (recfmt.STREAM_LOG if recfmt.raw_type(r) in recfmt.LOG_TYPES
                      else recfmt.STREAM_TRACE)
            raw[stream].append(r)

    with session(args) as client:
        version = client.kernel_version or "unknown"
        stream, cpus, bufsize = client.stream_open("record", args.bufsize, args.switchrate,
                                                   args.module, on_chunk)
        try:
            output = collect_until(client, args)
        finally:
            totals = client.stream_close(stream)
    arrived = len(raw[recfmt.STREAM_TRACE]) + len(raw[recfmt.STREAM_LOG])
    dropped = sum(drops.values())
    if totals.get("records") != arrived or totals.get("drops") != dropped:
        raise ScionError(f"record: the kernel sent {totals.get('records')} records and "
                         f"{totals.get('drops')} drops, {arrived} and {dropped} arrived")
    if len(headers) != 2:
        raise ScionError("record: the kernel sent no recording headers")
    os.makedirs(args.out, exist_ok=True)
    counts = {}
    for stream, name in ((recfmt.STREAM_TRACE, recfmt.TRACE_FILE),
                         (recfmt.STREAM_LOG, recfmt.LOG_FILE)):
        h = headers[stream]
        records = sorted(raw[stream], key=recfmt.raw_seq)
        # A buffer drop may have lost a record of either stream: count it against both.
        header = recfmt.pack_header(stream, h["module"], h["policy"], h["config"],
                                    len(records), dropped)
        recfmt.write_stream(os.path.join(args.out, name), header, records)
        counts[recfmt.STREAM_NAMES[stream]] = len(records)
    h = headers[recfmt.STREAM_TRACE]
    meta = {"module": h["module"], "policy": h["policy"], "kernel_version": version,
            "config": recfmt.config_dict(h["module"], h["config"]),
            "records": counts, "drops": {"trace": dropped, "log": dropped},
            "drops_per_cpu": {str(c): d for c, d in sorted(drops.items())},
            "cpus": cpus, "bufsize": bufsize, "switch_ms": args.switchrate,
            "complete": dropped == 0}
    with open(os.path.join(args.out, recfmt.META_FILE), "w") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")
    sys.stdout.write(output)
    what = recfmt.STREAM_WHAT.get(h["module"], ("requests", "results"))
    print(f"scion: {args.out}: {h['module']} ({h['policy']}), {counts['trace']} {what[0]}, "
          f"{counts['log']} {what[1]}, {dropped} dropped", file=sys.stderr)
    if dropped:
        print(f"scion: the recording is incomplete: {dropped} records were dropped "
              f"(a larger --bufsize or a shorter --switchrate keeps up)", file=sys.stderr)
    return 0


def cmd_upload(args):
    streams = []
    for stream, name in ((recfmt.STREAM_TRACE, recfmt.TRACE_FILE),
                         (recfmt.STREAM_LOG, recfmt.LOG_FILE)):
        path = os.path.join(args.dir, name)
        if os.path.exists(path):
            recfmt.read_stream(path)        # refuse what the kernel would refuse, here first
            with open(path, "rb") as f:
                streams.append((stream, f.read()))
    if not streams:
        raise ScionError(f"{args.dir}: neither {recfmt.TRACE_FILE} nor {recfmt.LOG_FILE}")
    rec = 0
    with session(args) as client:
        for i, (stream, data) in enumerate(streams):
            for off in range(0, len(data), PUT_CHUNK):
                last = i == len(streams) - 1 and off + PUT_CHUNK >= len(data)
                body = struct.pack("<IHH", rec, stream, PUT_FINISH if last else 0)
                status, reply = client.request(frame.OP_REC_PUT, body + data[off:off + PUT_CHUNK])
                if status < 0:
                    raise ScionError(reply.decode("utf-8", "replace").strip() or
                                     f"upload: {frame.errno_name(status)}")
                rec = struct.unpack_from("<I", reply)[0]
    print(f"rec{rec}")
    return 0


def fetch_stream(client, rec, stream):
    data, total = b"", None
    while total is None or len(data) < total:
        body = struct.pack("<IHHQI", rec, stream, 0, len(data), GET_CHUNK)
        status, reply = client.request(frame.OP_REC_GET, body)
        if status < 0:
            raise ScionError(reply.decode("utf-8", "replace").strip() or
                             f"download: {frame.errno_name(status)}")
        total = struct.unpack_from("<Q", reply)[0]
        if len(reply) <= 8 and len(data) < total:
            raise ScionError(f"download rec{rec}: the kernel stopped at byte {len(data)} of "
                             f"{total}")
        data += reply[8:]
    return data


def cmd_download(args):
    text = args.rec[3:] if args.rec.startswith("rec") else args.rec
    if not text.isdigit():
        raise ScionError(f"'{args.rec}' is not a recording (rec1, rec2, ...)")
    rec = int(text)
    os.makedirs(args.out, exist_ok=True)
    with session(args) as client:
        for stream, name in ((recfmt.STREAM_TRACE, recfmt.TRACE_FILE),
                             (recfmt.STREAM_LOG, recfmt.LOG_FILE)):
            data = fetch_stream(client, rec, stream)
            header = recfmt.unpack_header(data, f"rec{rec}'s {name}")
            if header["records"] or stream == recfmt.STREAM_LOG:
                with open(os.path.join(args.out, name), "wb") as f:
                    f.write(data)
                print(f"{os.path.join(args.out, name)}: {header['records']} records")
    return 0


def sim_binary():
    path = os.environ.get("SCION_SIM")
    if path:
        return path
    here = os.path.dirname(os.path.realpath(__file__))
    return os.path.join(here, "..", "..", "build", "host", "scion-sim")


def cmd_sim(args):
    binary = sim_binary()
    if not os.access(binary, os.X_OK):
        raise ScionError(f"{binary}: no simulator; `make sim` builds it (or set SCION_SIM)")
    argv = [binary, args.sim_command]
    if args.sim_command == "replay":
        argv.append(args.trace)
        for p in args.policy:
            argv += ["--policy", p]
        for flag in ("log", "model", "out"):
            if getattr(args, flag):
                argv += [f"--{flag}", getattr(args, flag)]
        if args.follow:
            argv.append("--follow")
        if args.progress:
            argv.append("--progress")
        if args.verbose:
            argv.append("-v")
    sys.stdout.flush()
    os.execv(binary, argv)


def add_record(sub, subcommand, byte_count):
    p = subcommand(sub, "record", "record a module's trace (inputs) and log (outputs) into "
                   "a directory, or move recordings to and from the kernel", cmd_record)
    p.add_argument("-m", "--module", metavar="MODULE", help="the module, bcache or sched, or "
                   "any graft point, e.g. bcache.evict (its calls and how each ended)")
    p.add_argument("-o", "--out", metavar="DIR", help="where trace.bin, log.bin and "
                   "meta.json go")
    p.add_argument("--run", metavar="CMD", help="guest shell command to run while recording")
    p.add_argument("--duration", type=float, metavar="S", help="record for S seconds "
                   "(default: until --run's command ends, else until Ctrl-C)")
    p.add_argument("--bufsize", type=byte_count, default=DEFAULT_BUFSIZE, metavar="BYTES",
                   help=f"bytes per CPU buffer (default {DEFAULT_BUFSIZE // 1024}K)")
    p.add_argument("--switchrate", type=int, default=DEFAULT_SWITCH_MS, metavar="MS",
                   help=f"ms between buffer switches (default {DEFAULT_SWITCH_MS})")
    rsub = p.add_subparsers(dest="record_command", metavar="SUBCOMMAND")
    u = subcommand(rsub, "upload", "send a recording directory to the kernel's store (for "
                   "`sim run`); prints its name there")
    u.add_argument("dir", metavar="DIR")
    u.set_defaults(record_fn=cmd_upload)
    d = subcommand(rsub, "download", "fetch a recording of the kernel's store into DIR")
    d.add_argument("rec", metavar="REC", help="rec1, rec2, ... (`scion shell record list`)")
    d.add_argument("-o", "--out", dest="out", required=True, metavar="DIR")
    d.set_defaults(record_fn=cmd_download)
    return rsub


def add_sim(sub, subcommand):
    p = subcommand(sub, "sim", "replay recorded traces against policies on the host "
                   "(build/host/scion-sim)", cmd_sim)
    ssub = p.add_subparsers(dest="sim_command", metavar="SUBCOMMAND", required=True)
    subcommand(ssub, "policies", "the policies the host simulator can run")
    r = subcommand(ssub, "replay", "replay TRACE (a recording directory or a trace.bin) with "
                   "each POLICY; print the comparison and write each log")
    r.add_argument("trace", metavar="TRACE")
    r.add_argument("--policy", action="append", required=True, metavar="P",
                   help="bcache: e.g. 2q, clock+stride, evict=lru readahead=recorded; "
                        "sched: rr, fair, lifo (repeatable)")
    r.add_argument("--log", metavar="LOG", help="the recorded log (default: TRACE's log.bin)")
    r.add_argument("--model", metavar="HIT_NS,MISS_NS", help="latency model (default: "
                   "measured in the recorded log)")
    r.add_argument("--follow", action="store_true", help="sched: follow the recorded history "
                   "(trace and log), asking each policy at each recorded pick; the live "
                   "policy reproduces the recorded log (default: the open-loop model)")
    r.add_argument("--out", metavar="DIR", help="where the logs go (default: TRACE/sim)")
    r.add_argument("--progress", action="store_true", help="show progress on stderr")
    r.add_argument("-v", "--verbose", action="store_true", help="say when grafts abort")
