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
      in its metadata ("complete": false, and a "reason").
      Recordings survive the guest: each chunk is also appended, as it
      arrives, to DIR/trace.bin.part or DIR/log.bin.part (partial.py), and
      if the channel closes or the kernel stops answering mid-recording,
      the final files are written of what arrived, meta.json says
      "complete": false with a one-line "reason" ("the channel closed
      after 4.1 s (...)"), one line on stderr says how many records were
      kept, and the exit status is EXIT_INCOMPLETE (3). Ctrl-C during
      --run or --duration does the same with status 130.
  scion record recover DIR         the .part files of a `scion record` that died -> a recording
  scion record upload DIR          -> the recording's number in the kernel (recN)
  scion record download REC -o DIR
  scion sim replay TRACE --policy P [...] [--follow]   (build/host/scion-sim)
"""

import json
import os
import sys
import time

from . import frame, partial, recfmt
from .client import ChannelLost, Client, ScionError, answer
from .layouts import layout
from .streams import collect_until

DEFAULT_BUFSIZE = 128 * 1024
DEFAULT_SWITCH_MS = 100
PUT_CHUNK = 192 * 1024
GET_CHUNK = 200 * 1024
# REC_PUT and REC_GET (scion/chan_proto.h).
PUT_REQUEST = layout("chan_rec_put_request", "rec", "stream", "flags")
PUT_REPLY = layout("chan_rec_put_reply", "rec")
PUT_FINISH = frame.REC_PUT_FINISH
GET_REQUEST = layout("chan_rec_get_request", "rec", "stream", "reserved", "offset", "max",
                     "reserved2")
GET_REPLY = layout("chan_rec_get_reply", "size")


def session(args):
    return Client(args.socket, timeout=args.timeout, wait=args.wait)


class Recording:
    """A `scion record` stream as it arrives: every record is kept in memory,
    to be sorted into the final files, and appended (flushed) to DIR/trace.bin.part
    or DIR/log.bin.part with its chunk; DIR/meta.json.part says what is being
    recorded. finish() writes trace.bin, log.bin and meta.json whole and removes the
    parts; the parts stay only if the host command itself dies first (`scion record
    recover DIR` then makes a recording of them)."""

    def __init__(self, out, meta):
        self.out, self.meta = out, meta     # meta: what the session knows (kernel, CPUs...)
        self.headers = {}
        self.raw = {recfmt.STREAM_TRACE: [], recfmt.STREAM_LOG: []}
        self.drops = {}
        self.parts = {}                     # stream -> its PartFile
        self.meta_part = None
        self.made_dir = False
        self.discarded = False

    def arrived(self):
        return sum(len(r) for r in self.raw.values())

    def dropped(self):
        return sum(self.drops.values())

    def on_chunk(self, cpu, count, chunk_drops, body):
        try:
            self._chunk(cpu, count, chunk_drops, body)
        except recfmt.RecError as e:
            raise ScionError(f"record: a malformed chunk of CPU {cpu}: {e}") from None

    def _chunk(self, cpu, count, chunk_drops, body):
        if self.discarded:
            return
        if cpu == frame.CHUNK_STATUS:
            for k in range(2):
                h = recfmt.unpack_header(body[k * recfmt.HEADER.size:], "the kernel's header")
                self.headers[h["stream"]] = h
            if len(self.headers) == 2 and not self.parts:
                self._open_parts()
            return
        self.drops[cpu] = self.drops.get(cpu, 0) + chunk_drops
        records = recfmt.split_records(body)
        if len(records) != count:
            raise ScionError(f"a chunk of CPU {cpu} holds {len(records)} records, its header "
                             f"says {count}")
        new = {recfmt.STREAM_TRACE: [], recfmt.STREAM_LOG: []}
        for r in records:
            stream = (recfmt.STREAM_LOG if recfmt.raw_type(r) in recfmt.LOG_TYPES
                      else recfmt.STREAM_TRACE)
            new[stream].append(r)
            self.raw[stream].append(r)
        # The records first, then the header's provisional counts: a part's header never
        # counts records its body does not hold.
        for stream, part in self.parts.items():
            if new[stream]:
                part.write(b"".join(new[stream]))
            if new[stream] or chunk_drops:
                part.pwrite(0, self._header(stream, len(self.raw[stream])))

    def _header(self, stream, records):
        h = self.headers[stream]
        # A buffer drop may have lost a record of either stream: count it against both.
        return recfmt.pack_header(stream, h["module"], h["policy"], h["config"], records,
                                  self.dropped())

    def _open_parts(self):
        if not os.path.isdir(self.out):
            try:
                os.makedirs(self.out)
            except OSError as e:
                raise ScionError(f"cannot make {self.out}: {e.strerror}") from None
            self.made_dir = True
        # What DIR held is replaced by this recording, from its start.
        for name in (recfmt.TRACE_FILE, recfmt.LOG_FILE, recfmt.META_FILE):
            try:
                os.unlink(os.path.join(self.out, name))
            except FileNotFoundError:
                pass
            except OSError as e:
                raise ScionError(f"cannot replace {os.path.join(self.out, name)}: "
                                 f"{e.strerror}") from None
        for stream, name in ((recfmt.STREAM_TRACE, recfmt.TRACE_FILE),
                             (recfmt.STREAM_LOG, recfmt.LOG_FILE)):
            self.parts[stream] = partial.PartFile(os.path.join(self.out, name))
            self.parts[stream].write(self._header(stream, 0))
        meta = build_meta(self.headers, self.meta, {"trace": 0, "log": 0}, {}, False,
                          "the recording has not ended: `scion record` is running, or died "
                          "before it wrote the recording; `scion record recover DIR` makes "
                          "one of the .part files")
        self.meta_part = partial.PartFile(os.path.join(self.out, recfmt.META_FILE))
        self.meta_part.write(meta_bytes(meta))

    def finish(self, reason=None):
        """Write trace.bin and log.bin (each stream sorted by sequence number, its
        header's counts exact) and meta.json, then remove the parts. reason: why the
        recording is incomplete besides drops, or None. Returns the meta."""
        if len(self.headers) != 2:
            raise ScionError("record: the kernel sent no recording headers")
        if not self.parts:
            self._open_parts()
        counts = {}
        for stream in (recfmt.STREAM_TRACE, recfmt.STREAM_LOG):
            records = sorted(self.raw[stream], key=recfmt.raw_seq)
            write_final(self.out, stream, self._header(stream, len(records)), records)
            counts[recfmt.STREAM_NAMES[stream]] = len(records)
        dropped = self.dropped()
        reasons = ([reason] if reason else []) + ([drops_reason(dropped)] if dropped else [])
        meta = build_meta(self.headers, self.meta, counts, self.drops, not reasons,
                          "; ".join(reasons))
        partial.publish(os.path.join(self.out, recfmt.META_FILE),
                        lambda f: f.write(meta_bytes(meta)))
        self._remove_parts()
        return meta

    def _remove_parts(self):
        for part in list(self.parts.values()) + [self.meta_part]:
            if part:
                part.remove()
        self.parts, self.meta_part = {}, None

    def discard(self):
        """Nothing is to be kept (the command failed before the end): no parts left."""
        self.discarded = True
        self._remove_parts()
        if self.made_dir:
            try:
                os.rmdir(self.out)
            except OSError:
                pass


def drops_reason(dropped):
    return f"{dropped} record{'s were' if dropped != 1 else ' was'} dropped in full buffers"


def build_meta(headers, session_meta, counts, drops_per_cpu, complete, reason):
    """meta.json's content: the headers' module, policy and configuration, the
    session's (kernel version, CPUs, buffer size, switch interval), the counts; a
    reason when it is not complete."""
    h = headers[recfmt.STREAM_TRACE]
    dropped = sum(drops_per_cpu.values())
    meta = {"module": h["module"], "policy": h["policy"],
            "kernel_version": session_meta.get("kernel_version", "unknown"),
            "config": recfmt.config_dict(h["module"], h["config"]),
            "records": counts, "drops": {"trace": dropped, "log": dropped},
            "drops_per_cpu": {str(c): d for c, d in sorted(drops_per_cpu.items())}}
    for key in ("cpus", "bufsize", "switch_ms"):
        meta[key] = session_meta.get(key)
    meta["complete"] = complete
    if not complete:
        meta["reason"] = reason
    return meta


def meta_bytes(meta):
    return (json.dumps(meta, indent=2) + "\n").encode()


def write_final(out, stream, header, records):
    name = recfmt.TRACE_FILE if stream == recfmt.STREAM_TRACE else recfmt.LOG_FILE
    partial.publish(os.path.join(out, name),
                    lambda f: (f.write(header), f.writelines(records)))


def stream_words(module):
    return recfmt.STREAM_WHAT.get(module, ("requests", "results"))


def cmd_record(args):
    """Record, and keep what arrived whatever happens to the guest: a channel that
    closes (or a kernel that stops answering) mid-recording still leaves the final
    files, with meta.json saying "complete": false and why; exit status
    EXIT_INCOMPLETE."""
    if args.record_command:
        return args.record_fn(args)
    if not args.module or not args.out:
        raise ScionError("record: give -m MODULE and -o DIR (or a subcommand: "
                         "`scion record --help`)")
    lost, interrupted, output, totals = None, False, "", None
    with session(args) as client:
        rec = Recording(args.out, {"kernel_version": client.kernel_version or "unknown",
                                   "switch_ms": args.switchrate})
        stream, cpus, bufsize = client.stream_open("record", args.bufsize, args.switchrate,
                                                   args.module, rec.on_chunk)
        rec.meta.update(cpus=cpus, bufsize=bufsize)
        started = time.monotonic()
        try:
            try:
                output = collect_until(client, args)
            except ChannelLost as e:
                lost = e
            except KeyboardInterrupt:
                interrupted = True
            if not lost and not interrupted:
                try:
                    totals = client.stream_close(stream)
                except ChannelLost as e:
                    lost = e
        except BaseException:
            rec.discard()
            if not lost and not interrupted:
                try:
                    client.stream_close(stream)
                except ScionError:
                    pass
            raise
    elapsed = time.monotonic() - started
    arrived, dropped = rec.arrived(), rec.dropped()
    if totals is not None and (totals.get("records") != arrived or
                               totals.get("drops") != dropped):
        rec.discard()
        raise ScionError(f"record: the kernel sent {totals.get('records')} records and "
                         f"{totals.get('drops')} drops, {arrived} and {dropped} arrived")
    if len(rec.headers) != 2:
        rec.discard()
        if lost:
            raise ScionError(f"record: {partial.lost_reason(lost, elapsed)}, before anything "
                             f"arrived: no recording")
        raise ScionError("record: the kernel sent no recording headers")
    reason = (partial.lost_reason(lost, elapsed) if lost else
              f"interrupted by Ctrl-C after {elapsed:.1f} s" if interrupted else None)
    meta = rec.finish(reason)
    counts, module = meta["records"], meta["module"]
    what = stream_words(module)
    if reason:
        print(f"scion: {args.out}: an incomplete recording ({meta['reason']}): kept the "
              f"{counts['trace']} {what[0]} and {counts['log']} {what[1]} that arrived",
              file=sys.stderr)
        return 130 if interrupted else partial.EXIT_INCOMPLETE
    sys.stdout.write(output)
    print(f"scion: {args.out}: {module} ({meta['policy']}), {counts['trace']} {what[0]}, "
          f"{counts['log']} {what[1]}, {dropped} dropped", file=sys.stderr)
    if dropped:
        print(f"scion: the recording is incomplete: {dropped} records were dropped "
              f"(a larger --bufsize or a shorter --switchrate keeps up)", file=sys.stderr)
    return 0


def cmd_recover(args):
    """A recording of the .part files a `scion record` that died left in DIR."""
    d = args.dir
    paths = {stream: os.path.join(d, name + recfmt.PART_SUFFIX)
             for stream, name in ((recfmt.STREAM_TRACE, recfmt.TRACE_FILE),
                                  (recfmt.STREAM_LOG, recfmt.LOG_FILE))}
    if not any(os.path.exists(p) for p in paths.values()):
        raise ScionError(f"record recover: {d}: no {recfmt.TRACE_FILE}{recfmt.PART_SUFFIX} or "
                         f"{recfmt.LOG_FILE}{recfmt.PART_SUFFIX}: nothing to recover")
    headers, raw, left = {}, {}, 0
    try:
        for stream, path in paths.items():
            if not os.path.exists(path):
                continue
            h, records, rest = recfmt.read_partial(path)
            if h["stream"] != stream:
                raise recfmt.RecError(f"{path}: its header says it is a "
                                      f"{recfmt.STREAM_NAMES[h['stream']]} stream")
            headers[stream], left = h, left + rest
            # Sorted by sequence number; a record written twice is kept once.
            unique = {}
            for r in records:
                unique.setdefault((recfmt.raw_seq(r), r), r)
            raw[stream] = [unique[k] for k in sorted(unique, key=lambda k: k[0])]
    except recfmt.RecError as e:
        raise ScionError(f"record recover: {e}") from None
    first = headers.get(recfmt.STREAM_TRACE) or headers[recfmt.STREAM_LOG]
    for stream in paths:
        if stream not in headers:       # a part never made: an empty stream of its module
            headers[stream] = dict(first, stream=stream)
            raw[stream] = []
    # meta.json.part, written when the recording began: the kernel version, CPUs, ...
    session_meta = {}
    meta_part = os.path.join(d, recfmt.META_FILE + recfmt.PART_SUFFIX)
    try:
        with open(meta_part) as f:
            session_meta = json.load(f)
    except (OSError, ValueError):
        pass
    if not isinstance(session_meta, dict):
        session_meta = {}
    dropped = max(h["drops"] for h in headers.values())
    counts = {}
    for stream in paths:
        h = headers[stream]
        header = recfmt.pack_header(stream, h["module"], h["policy"], h["config"],
                                    len(raw[stream]), dropped)
        write_final(d, stream, header, raw[stream])
        counts[recfmt.STREAM_NAMES[stream]] = len(raw[stream])
    reasons = ["recovered from the .part files of a recording that did not end: `scion "
               "record` died before writing it"]
    if left:
        reasons.append(f"{left} bytes of a record cut short were left out")
    if dropped:
        reasons.append(drops_reason(dropped))
    meta = build_meta(headers, session_meta, counts, {}, False, "; ".join(reasons))
    meta["drops"] = {"trace": dropped, "log": dropped}     # per CPU: not in the parts
    partial.publish(os.path.join(d, recfmt.META_FILE), lambda f: f.write(meta_bytes(meta)))
    for path in list(paths.values()) + [meta_part]:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
    what = stream_words(first["module"])
    print(f"scion: {d}: recovered an incomplete recording: {counts['trace']} {what[0]}, "
          f"{counts['log']} {what[1]}" + (f" ({left} bytes cut short left out)" if left else ""),
          file=sys.stderr)
    return 0


def cmd_upload(args):
    try:
        recfmt.unfinished(args.dir)
        meta = (recfmt.read_meta(args.dir)
                if os.path.exists(os.path.join(args.dir, recfmt.META_FILE)) else None)
    except recfmt.RecError as e:
        raise ScionError(f"upload: {e}") from None
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
    # An incomplete recording is uploaded as it is (the kernel checks every byte of it).
    reason = recfmt.incomplete_reason(meta)
    if reason:
        counts = [f"{recfmt.unpack_header(data)['records']} {recfmt.STREAM_NAMES[stream]} "
                  f"records" for stream, data in streams]
        print(f"scion: {args.dir}: an incomplete recording ({reason}): uploading the "
              f"{' and '.join(counts)} that arrived", file=sys.stderr)
    rec = 0
    with session(args) as client:
        for i, (stream, data) in enumerate(streams):
            for off in range(0, len(data), PUT_CHUNK):
                last = i == len(streams) - 1 and off + PUT_CHUNK >= len(data)
                body = PUT_REQUEST.pack(rec=rec, stream=stream, flags=PUT_FINISH if last else 0)
                status, reply = client.request(frame.OP_REC_PUT, body + data[off:off + PUT_CHUNK])
                if status < 0:
                    raise ScionError(reply.decode("utf-8", "replace").strip() or
                                     f"upload: {frame.errno_name(status)}")
                rec = answer(PUT_REPLY, reply, "REC_PUT")["rec"]
    print(f"rec{rec}")
    return 0


def fetch_stream(client, rec, stream):
    data, total = b"", None
    while total is None or len(data) < total:
        body = GET_REQUEST.pack(rec=rec, stream=stream, offset=len(data), max=GET_CHUNK)
        status, reply = client.request(frame.OP_REC_GET, body)
        if status < 0:
            raise ScionError(reply.decode("utf-8", "replace").strip() or
                             f"download: {frame.errno_name(status)}")
        total = answer(GET_REPLY, reply, "REC_GET", exact=False)["size"]
        if len(reply) <= GET_REPLY.size and len(data) < total:
            raise ScionError(f"download rec{rec}: the kernel stopped at byte {len(data)} of "
                             f"{total}")
        data += reply[GET_REPLY.size:]
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
                   "meta.json go (NAME.part as data arrives; if the channel is lost, what "
                   "arrived, marked incomplete, and exit status 3)")
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
    r = subcommand(rsub, "recover", "make a recording of the .part files a `scion record` "
                   "that died left in DIR (sorted, exact counts, meta.json incomplete)")
    r.add_argument("dir", metavar="DIR")
    r.set_defaults(record_fn=cmd_recover)
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
                   help="bcache: e.g. 2q, clock+stride, evict=lru readahead=recorded, "
                        "optimal (min+oracle: the optimum), optimal-evict (min); "
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
