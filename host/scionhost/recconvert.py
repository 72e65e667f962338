# SPDX-License-Identifier: BSD-2-Clause
"""`scion record convert DIR --to text|csv|ctf [-o OUT]`: a recording
directory (trace.bin, log.bin, meta.json, read by recfmt.py) of any
module (bcache, sched, a graft point) as text (one line per record, as
the kernel's `record show` prints it, after a header line per stream;
stdout by default), as CSV (OUT/trace.csv and OUT/log.csv; default
DIR/csv) or as a Common Trace Format 1.8 trace for babeltrace2
(recctf.py; default DIR/ctf).

CSV: a header row of column names, then one row per record in the file's
order; CSV_COLUMNS has each module's columns. Enumerated values are their
names (a number the names do not know stays a number); a block cache
request's and result's op is its flags by name: read, write,
write+sync, write+whole, write+sync+whole (CTF: the flags word). A graft point's
call has its six argument words in columns arg0..arg5 and its done
record its result, both in hex (0x...) as `record show` prints them.
A sched trace begins with the start-state records (kinds queued,
running, sleeping: every thread as the recording found it) and has, after
the event's columns, their counters ticks_run, switches_in and slice,
cells left empty on the rows of ordinary events. Text shows them at the
end of those lines as ticks_run=, switches= and slice=, like `record
show`; CTF as events of their own class, sched:snapshot.

The whole recording is read and checked before anything is written, and
output appears under its name only once it is whole: text goes to a
temporary file renamed to OUT, csv and ctf into a temporary directory
beside OUT that then takes OUT's place. A recording that cannot be read
(a file missing or cut short, a bad magic, a module this does not know,
fewer records than its header says, a record of a type it should not
hold) is one line on stderr and exit status 1, and leaves no output
behind; so is a directory holding only the .part files of a `scion
record` that died (`scion record recover DIR` first). An incomplete
recording (meta.json's "complete": false: drops, or a channel lost
mid-recording) is converted after a one-line warning on stderr that
gives its "reason"."""

import csv
import os
import shutil
import sys
import tempfile

from . import recctf, recfmt
from .client import ScionError

STREAM_FILES = {"trace": recfmt.TRACE_FILE, "log": recfmt.LOG_FILE}


def field(key):
    return lambda r: r[key]


def named(key, names):
    """An enumerated field by its name; a value without one keeps its number."""
    return lambda r: names.get(r[key], r[key])


def hex_word(value):
    return f"0x{value:x}"


def state_counter(key):
    """A start-state record's counter; empty on an ordinary event's row."""
    return lambda r: r[key] if recfmt.is_state_event(r) else ""


# module -> stream -> ((column, record -> cell), ...)
CSV_COLUMNS = {
    "bcache": {
        "trace": tuple((c, field(c)) for c in ("seq", "time_ns", "cpu", "tid", "pid", "block",
                                               "in_flight"))
        + (("op", lambda r: recfmt.op_name(r.get("flags", 0))),),
        "log": (("seq", field("seq")), ("cpu", field("cpu")), ("block", field("block")),
                ("op", lambda r: recfmt.op_name(r.get("flags", 0))),
                ("outcome", named("outcome", recfmt.OUTCOMES)),
                ("victim", lambda r: recfmt.block_text(r["victim"])),
                ("latency_ns", field("latency_ns")),
                # No prefetch is an empty cell.
                ("prefetch", lambda r: ";".join(recfmt.prefetch_text(p) for p in r["prefetch"])))},
    "sched": {
        "trace": (("seq", field("seq")), ("tick", field("tick")), ("time_ns", field("time_ns")),
                  ("cpu", field("cpu")), ("tid", field("tid")),
                  ("event", named("kind", recfmt.EVENTS)), ("affinity", field("affinity")))
        + tuple((c, state_counter(c)) for c in recfmt.STATE_FIELDS),
        "log": tuple((c, field(c)) for c in ("seq", "tick", "cpu", "tid", "prev", "queued"))},
    recfmt.POINT_MODULE: {
        "trace": (("seq", field("seq")), ("time_ns", field("time_ns")), ("cpu", field("cpu")),
                  ("tid", field("tid")))
        + tuple((f"arg{k}", lambda r, k=k: hex_word(r["args"][k]))
                for k in range(recfmt.POINT_ARGS)),
        "log": (("seq", field("seq")), ("time_ns", field("time_ns")), ("cpu", field("cpu")),
                ("result", lambda r: hex_word(r["result"])),
                ("outcome", named("outcome", recfmt.POINT_OUTCOMES)))},
}
# What a csv or ctf output directory holds; an existing OUT that holds anything
# else is someone else's directory, and convert will not replace it.
OUTPUT_FILES = {"csv": {"trace.csv", "log.csv"}, "ctf": recctf.FILES}


def load(directory):
    """(meta, {"trace"/"log": (header, records) or None}), checked; RecError if not whole."""
    if not os.path.isdir(directory):
        raise recfmt.RecError(f"{directory}: " + ("not a directory" if os.path.exists(directory)
                                                  else "no such recording directory"))
    recfmt.unfinished(directory)
    if not os.path.lexists(os.path.join(directory, recfmt.META_FILE)):
        raise recfmt.RecError(f"{directory}: no {recfmt.META_FILE}; give a directory `scion "
                              f"record` wrote ({recfmt.META_FILE}, {recfmt.TRACE_FILE}, "
                              f"{recfmt.LOG_FILE})")
    meta = recfmt.read_meta(directory)
    if not isinstance(meta, dict):
        raise recfmt.RecError(f"{os.path.join(directory, recfmt.META_FILE)}: not a JSON object")
    # Each stream's record count, when meta.json gives it: the files must agree.
    counts = meta.get("records") if isinstance(meta.get("records"), dict) else {}
    streams = {}
    for stream, name in recfmt.STREAM_NAMES.items():
        path = os.path.join(directory, STREAM_FILES[name])
        if not os.path.lexists(path):
            # A simulated log has no trace; a file meta.json counts records in must be there.
            if counts.get(name):
                raise recfmt.RecError(f"{path}: missing; meta.json counts {counts[name]} "
                                      f"{name} records")
            streams[name] = None
            continue
        header, records = recfmt.read_stream(path, stream)     # a module it knows
        other = next((s[0]["module"] for s in streams.values() if s), header["module"])
        if header["module"] != other:
            raise recfmt.RecError(f"{path}: a {header['module']} recording, beside a "
                                  f"{other} one")
        if name in counts and counts[name] != header["records"]:
            raise recfmt.RecError(f"{path}: {header['records']} records, meta.json says "
                                  f"{counts[name]}")
        streams[name] = (header, records)
    if not any(streams.values()):
        raise recfmt.RecError(f"{directory}: holds neither {recfmt.TRACE_FILE} nor "
                              f"{recfmt.LOG_FILE}")
    return meta, streams


def text_lines(streams):
    for name, stream in streams.items():
        if stream is None:
            continue
        header, records = stream
        yield (f"{name}: {header['module']}, {header['policy']}, {len(records)} records, "
               f"{header['drops']} dropped\n")
        for r in records:
            yield recfmt.record_text(r) + "\n"


def write_text(f, streams):
    f.writelines(text_lines(streams))


def csv_rows(name, records, module):
    columns = CSV_COLUMNS[module][name]
    yield [column for column, _ in columns]
    for r in records:
        yield [cell(r) for _, cell in columns]


def write_csv(directory, streams):
    for name, stream in streams.items():
        if stream is not None:
            with open(os.path.join(directory, f"{name}.csv"), "w", newline="") as f:
                csv.writer(f).writerows(csv_rows(name, stream[1], stream[0]["module"]))


def ctf_env(meta, streams):
    """The CTF trace's env: what the recording says about itself."""
    first = next(s[0] for s in (streams["trace"], streams["log"]) if s)
    config = meta.get("config") if isinstance(meta.get("config"), dict) else {}

    def number(value, fallback):
        return value if isinstance(value, int) and 0 <= value < 1 << 63 else fallback

    env = {"module": first["module"], "policy": meta.get("policy") or first["policy"],
           "kernel_version": meta.get("kernel_version") or "unknown"}
    # The module's configuration words by name (bcache: buffers, blocks; sched: cpus, hz,
    # slice_ticks; a graft point has none), as meta.json gives them or else the header.
    for k, name in enumerate(recfmt.CONFIG_NAMES.get(first["module"], ())):
        env[name] = number(config.get(name), first["config"][k])
    for name, stream in streams.items():
        env[f"{name}_records"] = len(stream[1]) if stream else 0
        env[f"{name}_drops"] = stream[0]["drops"] if stream else 0
    env["complete"] = int(meta.get("complete", True) is True)
    reason = recfmt.incomplete_reason(meta)
    if reason:
        env["reason"] = reason          # why not (drops, the channel lost mid-recording)
    return env


def file_mode(mode):
    """mode as the umask lets a new file have it (mkstemp and mkdtemp make theirs private)."""
    umask = os.umask(0)
    os.umask(umask)
    return mode & ~umask


def publish_file(out, fill):
    """fill(f) writes a temporary file beside out, which then becomes out."""
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(out)}.",
                               dir=os.path.dirname(os.path.abspath(out)))
    try:
        with os.fdopen(fd, "w") as f:
            fill(f)
        os.chmod(tmp, file_mode(0o666))
        os.replace(tmp, out)
    except BaseException:
        os.unlink(tmp)
        raise


def publish_dir(out, kind, fill):
    """fill(dir) writes a temporary directory beside out, which then takes out's
    place; an earlier conversion at out is replaced, anything else is refused."""
    if os.path.lexists(out) and (os.path.islink(out) or not os.path.isdir(out)
                                 or not set(os.listdir(out)) <= OUTPUT_FILES[kind]):
        raise ScionError(f"{out} exists and is not a {kind} conversion; remove it or give "
                         f"another -o")
    tmp = tempfile.mkdtemp(prefix=f".{os.path.basename(out)}.",
                           dir=os.path.dirname(os.path.abspath(out)))
    old = None
    try:
        fill(tmp)
        os.chmod(tmp, file_mode(0o777))
        if os.path.lexists(out):
            old = tmp + ".old"
            os.rename(out, old)
        os.rename(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        if old and not os.path.lexists(out):
            os.rename(old, out)
        raise
    if old:
        shutil.rmtree(old, ignore_errors=True)


def cmd_record_convert(args):
    out = args.output
    try:
        meta, streams = load(args.dir)
        reason = recfmt.incomplete_reason(meta)
        if reason:
            counts = " and ".join(f"{len(s[1])} {name} records" for name, s in streams.items()
                                  if s)
            print(f"scion: {args.dir}: an incomplete recording ({reason}): converting the "
                  f"{counts} that arrived", file=sys.stderr)
        if args.to == "text":
            if out in (None, "-"):
                write_text(sys.stdout, streams)
                return 0
            publish_file(out, lambda f: write_text(f, streams))
        elif args.to == "csv":
            out = out or os.path.join(args.dir, "csv")
            publish_dir(out, "csv", lambda d: write_csv(d, streams))
        else:
            out = out or os.path.join(args.dir, "ctf")
            env = ctf_env(meta, streams)
            publish_dir(out, "ctf", lambda d: recctf.write(d, env, streams))
    except recfmt.RecError as e:
        raise ScionError(f"record convert: {e}") from None
    except OSError as e:
        raise ScionError(f"record convert: cannot write {out}: "
                         f"{e.strerror or e}") from None
    counts = ", ".join(f"{len(s[1])} {name} records" for name, s in streams.items() if s)
    print(f"{out}: {counts} as {args.to}")
    return 0


def add_record_convert(record_sub, subcommand):
    """`scion record convert`, under the `record` group's subparsers."""
    p = subcommand(record_sub, "convert", "convert a recording directory (trace.bin, log.bin, "
                   "meta.json) to text, CSV or Common Trace Format (babeltrace2)",
                   cmd_record_convert)
    p.add_argument("dir", metavar="DIR", help="the recording directory")
    p.add_argument("--to", required=True, choices=("text", "csv", "ctf"),
                   help="text: one line per record; csv: OUT/trace.csv and OUT/log.csv; "
                        "ctf: a CTF 1.8 trace directory")
    p.add_argument("-o", "--output", metavar="OUT",
                   help="text: a file (default stdout); csv, ctf: a directory "
                        "(default DIR/csv, DIR/ctf), replaced if it holds an earlier conversion")
    return p
