# SPDX-License-Identifier: BSD-2-Clause
"""`scion trace`: DTrace on a running Scion.

The D program is compiled on the host by build/host/dtc (host/dtrace/)
into a trace object and a description of its records; the TRACE_START op
loads the object, and the kernel streams the principal buffers, the
aggregation snapshots and a status chunk every switch interval. The
consumer (dconsumer.py) prints them the way dtrace(1M) does. The trace
ends when the program calls exit(), when --duration or --run says, when
the process -p names exits, when a CPU's buffer fills (bufpolicy=fill),
or on Ctrl-C; the stream's close runs END and brings the last data (with
bufpolicy=ring, all the records, kept in the kernel until then). -w
permits destructive actions (the destructive option), -Z descriptions
that match no probe (zdefs); -x oformat=json prints JSON lines (djson.py).

-p PID (dtrace's): $target is PID in the program, and the trace ends when
that process exits: the program gets one more clause,
`proc:::exit /pid == $target/ { exit(0); }` (TARGET_EXIT_CLAUSE), and the
process is checked to be alive before the trace starts and once it runs
(an exit in between fires no probe). compile_program(args, target=PID)
and target_alive are what another way of naming the target (-c, which
starts the process) reuses. Output to
-o FILE is written to FILE.part as it comes and renamed at the end; if
the channel is lost mid-trace, what arrived is still printed and the
exit status is partial.EXIT_INCOMPLETE (3).

-c CMD (dtrace's): the program of the boot archive CMD names is made
suspended (execute.Execution, the EXEC op) in the trace's session, its
pid becomes the target (args.pid, as -p gives it: compile_program's
$target), the trace starts, then the process is resumed; its output is
printed as it comes, and the trace ends when it has ended (or as above;
a target still running then is killed).
"""

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time

from . import execute, frame, ksyms, partial, replies
from .client import ChannelLost, Client, ScionError, answer
from .layouts import layout

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHUNK_AGG = frame.CHUNK_AGG
CHUNK_STATUS = frame.CHUNK_STATUS
MIN_SWITCH_MS = frame.STREAM_SWITCH_MIN_MS
MAX_BUFSIZE = frame.STREAM_MAX_BUF
KERNEL_DEFAULT_BUFSIZE = 0      # TRACE_START's bufsize 0: the kernel's own default
START_REQUEST = layout("chan_trace_start_request", "bufsize", "switch_ms")
START_REPLY = layout("chan_trace_start_reply", "stream", "cpus", "nepids")
EPID = layout("chan_trace_epid", "clause", "probe_id")
DTRACE_DEFAULT_BUFSIZE = 4 << 20
DTRACE_DEFAULT_RATE_NS = 1000000000


def dtc_path():
    return os.environ.get("SCION_DTC") or os.path.join(ROOT, "build", "host", "dtc")


def ksyms_path():
    """The running kernel's symbol list for D's `name (the build writes it beside the kernel)."""
    return os.environ.get("SCION_KSYMS") or os.path.join(ROOT, "build", "kernel.syms")


def kernel_types_args():
    """dtc's arguments for the running kernel's C types: its kernel.ctf, which the
    build writes beside kernel.syms (and -B when that kernel.elf is big-endian, for
    where bit-fields lie); none when there is no such file."""
    kdir = os.path.dirname(os.path.abspath(ksyms_path()))
    ctf = os.path.join(kdir, "kernel.ctf")
    if not os.path.exists(ctf):
        return []
    argv = ["-T", ctf]
    try:
        with open(os.path.join(kdir, "kernel.elf"), "rb") as f:
            ident = f.read(6)
        if ident[:4] == b"\x7fELF" and ident[5] == 2:    # EI_DATA: ELFDATA2MSB
            argv.append("-B")
    except OSError:
        pass
    return argv


# What follows the program when it traces a target process: the trace ends at its exit.
TARGET_EXIT_CLAUSE = "\nproc:::exit\n/pid == $target/\n{\n\texit(0);\n}\n"


def compile_program(args, target=None):
    """Run dtc; return its JSON, or raise ScionError with dtc's message. target (a
    pid, else args.pid when the command line has -p): $target's value, and
    TARGET_EXIT_CLAUSE follows the program."""
    if target is None:
        target = getattr(args, "pid", None)
    if target is None:
        return run_dtc(args, args.program, args.script, [])
    if args.program is not None:
        return run_dtc(args, args.program + TARGET_EXIT_CLAUSE, None, ["-p", str(target)])
    with open(args.script, encoding="utf-8", errors="surrogateescape") as f:
        source = f.read()
    # The clause goes after the script's last line, so dtc's line numbers stay the script's;
    # its messages name the script, not the copy.
    tmp = tempfile.NamedTemporaryFile("w", suffix=".d", prefix="scion-target-", delete=False,
                                      encoding="utf-8", errors="surrogateescape")
    try:
        with tmp:
            tmp.write(source + ("" if source.endswith("\n") else "\n") + TARGET_EXIT_CLAUSE)
        return run_dtc(args, None, tmp.name, ["-p", str(target)], shown_as=args.script)
    finally:
        os.unlink(tmp.name)


def run_dtc(args, program, script, extra, shown_as=None):
    dtc = dtc_path()
    if not os.path.exists(dtc):
        raise ScionError(f"{dtc} is missing: run `make` first")
    argv = [dtc] + extra
    if args.cpp:
        argv.append("-C")
    if os.path.exists(ksyms_path()):
        argv += ["-K", ksyms_path()]
    argv += kernel_types_args()
    for opt in args.x or []:
        argv += ["-x", opt]
    if args.quiet:
        argv += ["-x", "quiet"]
    if getattr(args, "destructive", False):
        argv += ["-x", "destructive"]
    if getattr(args, "zdefs", False):
        argv += ["-x", "zdefs"]
    if program is not None:
        argv += ["-n", program]
    else:
        argv += ["-s", script]
    argv += args.macro_args
    r = subprocess.run(argv, capture_output=True, text=True)
    err = r.stderr.replace(script, shown_as) if shown_as else r.stderr
    sys.stderr.write(err)           # errors, or warnings such as "... lowered to 1m"
    if r.returncode != 0:
        raise SystemExit(1)
    return json.loads(r.stdout)


def target_alive(client, pid):
    """Whether process pid is alive (not exited, not a zombie): the status of the
    SIGNAL op with signal 0, which sends nothing."""
    status, _ = client.request(frame.OP_SIGNAL, execute.SIGNAL.pack(pid=int(pid), sig=0))
    return status >= 0


def probe_names(client, specs):
    """{probe id: (provider, module, function, name)} for the probes specs match."""
    names = {}
    for spec in specs:
        try:
            rows = replies.probe_names(client, spec)
        except ChannelLost:
            raise
        except ScionError:
            continue
        for pid, name in rows.items():
            parts = name.split(":", 3)
            if len(parts) == 4:
                names[pid] = tuple(parts)
    return names


def full_spec(desc):
    """A D probe description as the kernel's four-part spec."""
    parts = desc.split(":")
    return ":".join([""] * (4 - len(parts)) + parts) if len(parts) < 4 else desc


class Symbols:
    """Code addresses to "module`symbol+0xoff": kernel functions (trap entry
    included) on the host from build/kernel.syms (ksyms.py), the rest by the
    kernel (SYMBOLIZE op): probe patches (by the kernel instruction they stand
    for), grafts ("graft`NAME+0xoff"). A return address is looked up by the
    byte before it (a call to a noreturn function may end its caller)."""

    def __init__(self, client, kernel=None):
        self.client = client
        self.kernel = kernel            # ksyms.KernelSymbols, or None: ask for everything
        self.cache = {}

    def __call__(self, addr, return_address=False):
        key = (addr, return_address)
        look = addr - 1 if return_address and addr else addr
        if key not in self.cache and self.kernel and self.kernel.in_text(look):
            found = self.kernel.lookup(look)
            self.cache[key] = f"kernel`{found[0]}+0x{addr - found[1]:x}" if found else None
        if key not in self.cache:
            flags = frame.SYM_RETURN_ADDRESS if return_address else 0
            status, body = self.client.request(frame.OP_SYMBOLIZE,
                                               frame.SYM_REQUEST.pack(address=addr, flags=flags))
            self.cache[key] = (symbol_name(body[:frame.SYM_RECORD_BYTES])
                               if status >= 0 and len(body) == frame.SYM_RECORD_BYTES else None)
        return self.cache[key]


def symbol_name(record):
    """One SYMBOLIZE record (struct chan_sym_record) as dtrace prints a frame, or None
    when nothing holds it."""
    r = frame.SYM_RECORD.unpack(record)
    name = r["name"][:r["name_len"]].decode("utf-8", "replace")
    if r["kind"] in (frame.SYM_KERNEL, frame.SYM_PATCH):
        return f"kernel`{name}+0x{r['offset']:x}"
    if r["kind"] == frame.SYM_GRAFT:
        return f"graft`{name}+0x{r['offset']:x}"
    return None


def start(client, meta, args, on_chunk):
    """TRACE_START: returns (stream, cpus, {epid: (clause, probe id)})."""
    opts = meta["options"]
    bufsize = int(opts.get("bufsize") or DTRACE_DEFAULT_BUFSIZE)
    # dtrace's defaults (4m, 1hz) suit its machines; a guest on a serial line gets the
    # kernel's smaller one (TRACE_DEFAULT_BUFSIZE, asked for as 0).
    if bufsize == DTRACE_DEFAULT_BUFSIZE:
        bufsize = KERNEL_DEFAULT_BUFSIZE
    if bufsize > MAX_BUFSIZE:
        print(f"dtrace: bufsize {bufsize} lowered to {MAX_BUFSIZE} (the kernel's most)",
              file=sys.stderr)
        bufsize = MAX_BUFSIZE
    bufsize -= bufsize % 8
    rate_ns = int(opts.get("switchrate") or DTRACE_DEFAULT_RATE_NS)
    switch_ms = (args.switch_ms if rate_ns == DTRACE_DEFAULT_RATE_NS else
                 max(MIN_SWITCH_MS, rate_ns // 1000000))
    body = START_REQUEST.pack(bufsize=bufsize, switch_ms=switch_ms) + \
        bytes.fromhex(meta["object_hex"])
    status, reply = client.request(frame.OP_TRACE_START, body)
    head, epids, rest = started(status, reply, "TRACE_START", "trace start")
    if rest:
        raise ScionError(f"TRACE_START answer of {len(reply)} bytes for {head['nepids']} EPIDs")
    client.watch_stream(head["stream"], on_chunk)
    return head["stream"], head["cpus"], epids


def started(status, reply, op, what):
    """A TRACE_START or TRACE_ANON answer: (head, {epid: (clause, probe id)}, what follows)."""
    if status < 0:
        raise ScionError(reply.decode("utf-8", "replace").strip() or
                         f"{what}: {frame.errno_name(status)}")
    head = answer(START_REPLY, reply, op, exact=False)
    end = START_REPLY.size + EPID.size * head["nepids"]
    if len(reply) < end:
        raise ScionError(f"{op} answer of {len(reply)} bytes for {head['nepids']} EPIDs")
    epids = {}
    for i in range(head["nepids"]):
        e = EPID.unpack(reply, START_REPLY.size + EPID.size * i)
        epids[i + 1] = (e["clause"], e["probe_id"])
    return head, epids, reply[end:]


# The options only the consumer reads (dconsumer.py, dagg.py, djson.py): the ones -x may
# still change when -a claims a session whose program was compiled and enabled at boot.
CONSUMER_OPTIONS = ("aggrate", "aggsortkey", "aggsortkeypos", "aggsortpos", "aggsortrev",
                    "flowindent", "oformat", "quiet", "rawbytes", "stackindent")


def consumer_options(args):
    """The -x options of `scion trace -a`, as dtc reads them (it checks each name and
    value); a kernel-side one (bufsize, strsize...) was fixed at boot: a ScionError."""
    names = sorted({opt.split("=", 1)[0].strip() for opt in args.x or []})
    fixed = [n for n in names if n not in CONSUMER_OPTIONS]
    if fixed:
        raise ScionError(f"trace -a: -x {fixed[0]} was set when the anonymous program was "
                         f"enabled at boot; -a takes only the consumer's options "
                         f"({', '.join(CONSUMER_OPTIONS)})")
    if not names:
        return {}
    given = run_dtc(args, "BEGIN { }", None, [])["options"]
    return {n: given.get(n) for n in names}


def claim_anonymous(client, args, on_chunk):
    """TRACE_ANON (scion trace -a): the boot-time session, with the program's dtc
    JSON the kernel kept, its consumer options overridden by -x; returns (meta,
    stream, cpus, epids)."""
    overrides = consumer_options(args)      # before the claim: a bad -x leaves it unclaimed
    body = START_REQUEST.pack(bufsize=0, switch_ms=args.switch_ms)
    status, reply = client.request(frame.OP_TRACE_ANON, body)
    head, epids, text = started(status, reply, "TRACE_ANON", "trace -a")
    try:
        meta = json.loads(text.decode("utf-8"))
        meta["options"], meta["clauses"], meta["aggs"]    # what the consumer reads
    except (UnicodeDecodeError, ValueError, KeyError, TypeError):
        raise ScionError("trace -a: the anonymous program's description does not read "
                         "(not dtc's JSON)") from None
    meta["options"].update(overrides)
    if args.quiet:
        meta["options"]["quiet"] = True
    client.watch_stream(head["stream"], on_chunk)
    return meta, head["stream"], head["cpus"], epids


class Snapshots:
    """Chunks grouped by snapshot: trace and aggregation chunks until a status chunk.
    on_ready, when set, is called as each snapshot completes (to consume it at once)."""

    def __init__(self):
        self.records, self.aggs, self.ready = [], [], []
        self.arrived = 0                    # trace records, all snapshots
        self.on_ready = None

    def on_chunk(self, cpu, count, drops, body):
        if cpu == CHUNK_STATUS:
            self.ready.append((self.records, self.aggs, body))
            self.records, self.aggs = [], []
            if self.on_ready:
                self.on_ready()
        elif cpu & CHUNK_AGG:
            self.aggs.append((cpu & ~CHUNK_AGG, body))
        else:
            self.records.append((cpu, body, drops))
            self.arrived += count

    def take(self):
        ready, self.ready = self.ready, []
        return ready

    def cut(self):
        """The channel is lost: what arrived of a snapshot whose status never came is
        ready too."""
        if self.records or self.aggs:
            self.ready.append((self.records, self.aggs, None))
            self.records, self.aggs = [], []


class KeptSymbols:
    """A symbolizer that outlives the channel: once it is lost, an address the host
    cannot name itself (outside the kernel's text) and not named before stays a
    number (as dtrace prints one it cannot name)."""

    def __init__(self, symbolize):
        self.symbolize, self.lost, self.known = symbolize, False, {}

    def __call__(self, addr, return_address=False):
        key = (addr, return_address)
        if key not in self.known:
            kernel = getattr(self.symbolize, "kernel", None)
            look = addr - 1 if return_address and addr else addr
            if self.lost and not (kernel and kernel.in_text(look)):
                return None
            try:
                self.known[key] = (self.symbolize(addr, return_address=True) if return_address
                                   else self.symbolize(addr))
            except ChannelLost:
                self.lost = True
                return None
        return self.known[key]


def needs_symbols(meta):
    """Whether the program's output may name code addresses (stack(), sym(), func(),
    %a, a symbol-keyed aggregation): their names come from the kernel (SYMBOLIZE),
    which answers nothing while a --run command runs."""
    def walk(v):
        if isinstance(v, dict):
            if v.get("type") in ("stack", "ustack") or v.get("kind") in ("stack", "ustack"):
                return True
            if v.get("sym") not in (None, "none"):
                return True
            if isinstance(v.get("format"), str) and re.search(r"%[^a-zA-Z%]*[aA]", v["format"]):
                return True
            return any(walk(x) for k, x in v.items() if k != "object_hex")
        if isinstance(v, list):
            return any(walk(x) for x in v)
        return False
    return walk(meta)


def cmd_trace(args):
    """Run the program; its output goes to stdout or -o FILE as snapshots arrive
    (FILE.part, flushed after each, renamed to FILE at the end). With --run, snapshots
    are consumed as they arrive unless the output names code addresses (needs_symbols:
    then when the command ends). If the channel is lost mid-trace, what arrived is
    printed (the last snapshot's aggregations too), one line says so and the exit
    status is partial.EXIT_INCOMPLETE."""
    from .dconsumer import Consumer
    from .djson import JsonConsumer

    if args.verbose and not args.list:
        raise ScionError("-v goes with -l: it lists each probe's argument types")
    if args.list:
        return list_probes(args)
    if args.program is None and args.script is None and not args.anonymous:
        raise ScionError("give -n PROGRAM or -s FILE (or -l, or -a)")
    if args.anonymous and (args.command or args.pid is not None):
        raise ScionError("-a claims the boot-time trace: it takes no -c or -p")
    snaps = Snapshots()
    interrupted, lost, part, target_gone = [], None, None, []
    # The program compiles before anything reaches the kernel, so that its
    # errors come first -- except under -c, whose $target is known only
    # once the command's process is made.
    meta = None if args.command or args.anonymous else compile_program(args)
    with Client(args.socket, timeout=args.timeout, wait=args.wait) as client:
        target = start_command(client, args)
        if args.pid is not None and not target and not target_alive(client, args.pid):
            raise ScionError(f"failed to grab pid {args.pid}: no such process")
        if args.anonymous:
            meta, stream, cpus, epids = claim_anonymous(client, args, snaps.on_chunk)
        else:
            if meta is None:
                meta = compile_program(args)
            if meta["options"].get("destructive") and not meta["options"].get("quiet"):
                print("dtrace: allowing destructive actions", file=sys.stderr)
            stream, cpus, epids = start(client, meta, args, snaps.on_chunk)
        quiet = bool(meta["options"].get("quiet"))
        if target:
            target.resume()
        elif args.pid is not None and not target_alive(client, args.pid):
            target_gone.append(True)    # exited before its proc:::exit was enabled
        started = time.monotonic()
        if args.output:
            part = partial.PartFile(args.output, binary=False)
        out = part.f if part else sys.stdout
        specs = sorted({full_spec(d) for c in meta["clauses"] for d in c["probes"]})
        try:
            names = probe_names(client, specs)
        except ChannelLost as e:
            names, lost = {}, e
        if not quiet:
            what = ("anonymous state" if args.anonymous else f"script '{args.script}'"
                    if args.script else f"description '{args.program}'")
            n = len(epids)
            print(f"dtrace: {what} matched {n} probe{'s' if n != 1 else ''}", file=sys.stderr)
        symbols = KeptSymbols(Symbols(client, ksyms.load(ksyms_path())))
        kind = JsonConsumer if meta["options"].get("oformat") == "json" else Consumer
        consumer = kind(meta, epids, lambda pid: names.get(pid, ("?", "?", "?", str(pid))),
                        symbols, out, sys.stderr, quiet)

        def consume():
            for records, aggs, status in snaps.take():
                consumer.snapshot(records, aggs, status)

        previous = signal.signal(signal.SIGINT, lambda *_: interrupted.append(True))
        try:
            deadline = time.monotonic() + args.duration if args.duration is not None else None
            try:
                if args.run and not lost:
                    if not needs_symbols(meta):
                        snaps.on_ready = consume
                    st, body = client.request(frame.OP_SHELL, args.run.encode(),
                                              timeout=max(args.timeout, 600.0))
                    snaps.on_ready = None
                    out.write(body.decode("utf-8", "replace")) if args.show_run else None
                while (not args.run and not lost and not consumer.exited and not interrupted
                       and not consumer.filled and not target_gone
                       and not (target and target.status)):
                    if deadline is not None and time.monotonic() >= deadline:
                        break
                    client.pump(0.05)
                    consume()
            except ChannelLost as e:
                lost = e
        finally:
            snaps.on_ready = None
            signal.signal(signal.SIGINT, previous)
            if not lost:
                try:
                    client.stream_close(stream)
                except ChannelLost as e:
                    lost = e
            if lost:
                symbols.lost = True
                snaps.cut()
            consume()
        consumer.finish()
        end_command(target, lost)
    if args.pid is not None and not target and (target_gone or consumer.exited) and not quiet:
        print(f"dtrace: pid {args.pid} has exited", file=sys.stderr)
    if part:
        part.finish()
    if lost:
        where = f"{args.output}: " if args.output else ""
        print(f"scion: {where}the trace ended early "
              f"({partial.lost_reason(lost, time.monotonic() - started)}): kept the output of "
              f"the {snaps.arrived} record{'s' if snaps.arrived != 1 else ''} that arrived",
              file=sys.stderr)
        return partial.EXIT_INCOMPLETE
    return consumer.exit_status if consumer.exited else 0


def start_command(client, args):
    """-c CMD: CMD's program made suspended in client's session (an
    execute.Execution), its pid the target (args.pid); None without -c."""
    if not getattr(args, "command", None):
        return None
    if args.run or getattr(args, "pid", None) is not None:
        raise ScionError("give one of -c, -p and --run")
    try:
        argv = shlex.split(args.command)
    except ValueError as e:
        raise ScionError(f"-c '{args.command}': {e}") from None
    if not argv:
        raise ScionError("-c: give a program of the boot archive and its arguments")
    target = execute.Execution(client, argv, suspended=True)
    args.pid = target.pid
    return target


def end_command(target, lost):
    """After the trace: a -c target that still runs is killed; its stream is closed."""
    if not target or lost:
        return
    try:
        if target.status is None:
            target.interrupt(signal.SIGKILL)
            for _ in range(100):
                if target.poll(0.05):
                    break
        if target.status is not None:
            target.finish()
    except ChannelLost:
        pass


def probe_arg_types(names):
    """{probe name: [C type of args[0], ...] or None} from the kernel's types
    (dtc -A; None where they say nothing of the probe)."""
    dtc = dtc_path()
    if not os.path.exists(dtc):
        raise ScionError(f"{dtc} is missing: run `make` first")
    argv = [dtc] + (["-K", ksyms_path()] if os.path.exists(ksyms_path()) else [])
    argv += kernel_types_args() + ["-A", "-s", "-"]
    r = subprocess.run(argv, input="".join(n + "\n" for n in names), capture_output=True,
                       text=True)
    if r.returncode != 0:
        raise ScionError(f"dtc -A failed: {r.stderr.strip()}")
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    return {row["probe"]: row["args"] for row in rows}


def list_probes(args):
    spec = full_spec(args.program) if args.program else ""
    with Client(args.socket, timeout=args.timeout, wait=args.wait) as client:
        rows = replies.probe_list(client, spec, timeout=max(args.timeout, 120.0))
    types = probe_arg_types([row["probe"] for row in rows]) if args.verbose else {}
    print(f"{'ID':>5} {'PROVIDER':>17} {'MODULE':>29} {'FUNCTION':>32} NAME")
    for row in rows:
        prov, mod, func, name = (row["probe"].split(":", 3) + ["", "", "", ""])[:4]
        print(f"{row['id']:5} {prov:>17} {mod:>29} {func:>32} {name}")
        if args.verbose:
            # dtrace -lv's block, the argument types alone (Scion has no stability attributes).
            arg_types = types.get(row["probe"])
            print("\n\tArgument Types")
            for i, t in enumerate(arg_types or []):
                print(f"\t\targs[{i}]: {t}")
            if not arg_types:
                print("\t\tNone")
            print()
    return 0


def add_trace(sub, subcommand):
    p = subcommand(sub, "trace", "DTrace: run a D program on the running kernel (dtrace -n/-s)",
                   cmd_trace)
    what = p.add_mutually_exclusive_group()
    what.add_argument("-n", dest="program", metavar="PROGRAM",
                      help="a D program, or with -l a probe description")
    what.add_argument("-s", dest="script", metavar="FILE", help="a D script")
    what.add_argument("-a", dest="anonymous", action="store_true",
                      help="claim the anonymous trace enabled at boot (a .anon boot module)")
    p.add_argument("-l", dest="list", action="store_true", help="list probes (matching -n)")
    p.add_argument("-v", dest="verbose", action="store_true",
                   help="with -l, each probe's argument types (args[]), as dtrace -lv")
    p.add_argument("-q", dest="quiet", action="store_true", help="quiet: only explicit output")
    p.add_argument("-o", dest="output", metavar="FILE", help="write the trace output to FILE "
                   "(FILE.part while tracing, flushed as data arrives)")
    p.add_argument("-x", action="append", metavar="OPT[=VAL]",
                   help="a D option (bufsize, switchrate, dynvarsize, nspec, specsize, ...)")
    p.add_argument("-C", dest="cpp", action="store_true", help="run the C preprocessor first")
    p.add_argument("-w", dest="destructive", action="store_true",
                   help="permit destructive actions: chill, raise, stop, panic, breakpoint")
    p.add_argument("-Z", dest="zdefs", action="store_true",
                   help="permit probe descriptions that match no probes")
    p.add_argument("-c", dest="command", metavar="CMD",
                   help="run CMD (a program of the boot archive and its arguments), made "
                        "suspended, traced from its first instruction; stop when it ends")
    p.add_argument("-p", dest="pid", type=int, metavar="PID",
                   help="trace process PID: $target is PID, and the trace ends when it exits")
    p.add_argument("--duration", type=float, metavar="S", help="stop after S seconds")
    p.add_argument("--run", metavar="CMD", help="run guest shell command CMD, then stop")
    p.add_argument("--show-run", action="store_true", help="print --run's output too")
    p.add_argument("--switch-ms", type=int, default=100, metavar="MS",
                   help="default switch interval when the program sets no switchrate "
                        "(default 100)")
    p.add_argument("macro_args", nargs="*", metavar="ARG", help="$1, $2, ... of the program")
