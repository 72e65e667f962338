# SPDX-License-Identifier: BSD-2-Clause
"""Stream records little-endian on the wire from the big-endian sparc64
kernel (issue 25, scion/chan_wire.h): each converted stream is decoded by
the host's own decoders and its values checked against what the kernel
says of them in other ways (its console, the shell, the file the host sent).

  sparc64_wire.streams   one boot of the kernel with the control channel:
      monitor     a "monitor" stream (host/scionhost/profile/monitor_records.py decodes it):
                  its source records are the shell's `monitor` list (names,
                  units, intervals, count) and the status chunk's count; rounds
                  numbered 1, 2, ... with growing times; the samples written
                  are the status's; a thread record names the channel thread
      recording   `record start sched` / `record stop` in the shell, then
                  `scion record download` (REC_GET) read by recfmt.read_stream:
                  the header (module, CPUs, Hz) and as many events and picks as
                  the shell said, sequence numbers rising; the same bytes
                  fetched 100 at a time (records cut across requests); `scion record
                  upload` (REC_PUT) of those files and a second download of
                  the upload: the same bytes; likewise uploaded 13 bytes a
                  request (heads and records cut across requests)
                  `sim run` replays it under rr in a kernel simulation
                  instance, and the host simulator (`scion sim replay`) of the
                  download gives the same picks and switches;
      record      a "record" stream (`scion record -m sched`): whole files
                  the host reads, the kernel's totals equal to what arrived
      profile     PROFILE_CONFIG with a file host/scionhost/profile/config.py writes: the
                  kernel's line, MONITOR's status (config_loaded, its day,
                  the burst schedule) and `monitor config show` (each
                  resource's interval, window, duration, the bucket's expected
                  value and band) are the file's; the same file with one bit
                  of its CRC changed is refused naming the crc32
  sparc64_wire.bench     the test kernel's "bench" stream (bench.py decodes
      it): the configuration records (1 CPU, 100 MHz) and every figure equal
      to the console's `bench NAME VALUE UNIT` lines
  sparc64_wire.trace_layout  (host only) kernel/trace/trace_wire.c built as if
      the host were big-endian (tests/sparc64_wire/trace_wire_mirror.c): a
      session's records and aggregation entries turned member by member by
      their clause's and aggregation's layout, strings untouched
  sparc64_wire.descriptors  (host only) every multi-byte integer member of
      every structure of the wire headers (flattened, arrays counted) is in
      its generated descriptor and nothing else is; the generator refuses a
      structure with a member it cannot describe (a pointer, a union, a
      bit-field), naming it, and makes no file

The "probes" stream's records are checked by streams/probe-records (`scion
probe record` of kmalloc's entry). Trace records, aggregations and
dof_status (kernel/trace/trace_wire.c) are
exercised on sparc64 by streams/trace: a BEGIN record, and fbt probes (the
SPARC splices) feeding count, sum, quantize and stack()-keyed aggregations
that the host decodes with values that agree; trace_layout checks the
conversion member by member on the host besides."""

import datetime
import os
import re
import subprocess
import sys
import tempfile
import time

import harness
import machine

import sparc64_build

from wire_build import ROOT, WIRE_HEADERS, build_wire_program


def build(ctx, tests=False):
    """The sparc64 kernel (tests: the test kernel) through the locked builder: (kernel, version)."""
    kernel, failure = sparc64_build.build_kernel(ctx, tests=tests)
    if failure:
        raise harness.BootError(f"make ARCH=sparc64{' KERNEL_TESTS=yes' if tests else ''} "
                                f"kernel failed:\n    {failure}")
    build_dir = os.path.join(ctx.root, sparc64_build.sparc64_build_dir(ctx))
    # scion trace compiles against this kernel's symbols and types (kernel.syms and
    # kernel.ctf beside it; its kernel.elf says big-endian: dtc -B).
    ctx.sparc64_ksyms = os.path.join(os.path.dirname(kernel), "kernel.syms")
    with open(os.path.join(build_dir, "version.txt")) as f:
        return kernel, f.read().strip()


def boot_with_channel(ctx, kernel, name):
    sock = os.path.join(ctx.log_dir, f"{ctx.job}-{name}.sock")
    boot = harness.Boot(f"{ctx.job}-{name}", ctx.log_dir, timeout=600,
                        argv=machine.sparc64_qemu_command(kernel, "", control_socket=sock))
    boot.wait_for(r"scion> ")
    return boot, sock


def power_off(ctx, boot):
    boot.command("poweroff", r"powering off")
    status = boot.finish()
    ctx.result("poweroff", status == machine.SPARC64_EXIT_POWEROFF, f"QEMU exit status {status}")


def scion(ctx, sock, version, *args):
    """host/scion --socket sock ARGS: (exit status, stdout + stderr)."""
    env = dict(os.environ, SCION_HOST_VERSION=version)
    if getattr(ctx, "sparc64_ksyms", None):
        env["SCION_KSYMS"] = ctx.sparc64_ksyms
    p = subprocess.run([sys.executable, os.path.join(ctx.root, "host", "scion"), "--socket",
                        sock, *args], capture_output=True, text=True, timeout=300, env=env)
    return p.returncode, p.stdout + p.stderr


def shell(client, line):
    """SHELL line: (status, text)."""
    from scionhost import frame
    status, out = client.request(frame.OP_SHELL, line.encode())
    return status, out.decode("utf-8", "replace")


# ---- the monitor stream ----------------------------------------------------

def check_monitor(ctx, client):
    from scionhost import frame
    from scionhost.profile import monitor_records as mr

    status, listing = shell(client, "monitor")
    listed = {}
    for m in re.finditer(r"^  (\S+)\s+(counter|gauge)\s+(\S+)\s+(\d+) ", listing, re.M):
        listed[m.group(1)] = (m.group(2), m.group(3), int(m.group(4)))
    count = re.search(r"^(\d+) sources$", listing, re.M)
    chunks = []
    sid, _, _ = client.stream_open("monitor", 65536, 100, "", lambda *c: chunks.append(c))
    client.pump(2.5)
    totals = client.stream_close(sid)
    records, statuses = [], []
    try:
        for cpu, n, _drops, body in chunks:
            if cpu == frame.CHUNK_STATUS:
                statuses.append(mr.decode_status(body))
            else:
                records.extend(mr.decode_chunk(body, n, cpu))
        decoded = ""
    except frame.FrameError as e:
        decoded = str(e)
    ctx.result("monitor/decodes", not decoded and bool(records) and bool(statuses), decoded)
    if decoded or not records or not statuses:
        return
    sources = [r for r in records if isinstance(r, mr.Source)]
    rounds = [r for r in records if isinstance(r, mr.Round)]
    threads = [r for r in records if isinstance(r, mr.Thread)]
    final = statuses[-1]
    got = {s.name: (s.kind, s.unit, s.interval_ms) for s in sources}
    ctx.result("monitor/sources-are-the-shell-list", status == 0 and count is not None and
               got == listed and len(sources) == int(count.group(1)) == final["sources"] and
               [s.index for s in sources] == list(range(len(sources))),
               f"stream {sorted(got.items())[:4]}..., shell {sorted(listed.items())[:4]}..., "
               f"{len(sources)} records, status {final['sources']}")
    seqs = [r.seq for r in rounds if not r.flags & frame.C.MONITOR_ROUND_CONTINUED]
    mono = [r.mono_ns for r in rounds]
    ctx.result("monitor/rounds-numbered-in-time",
               len(rounds) >= 5 and seqs == list(range(1, len(seqs) + 1)) and
               mono == sorted(mono) and 0 < mono[0] < 3600 * 10 ** 9 and
               final["rounds_written"] == len(seqs) and final["ended"] == 1,
               f"{len(rounds)} rounds, seqs {seqs[:8]}, mono {mono[:3]}, status {final}")
    samples = sum(len(r.samples) for r in rounds)
    bad = [(s, scope, v) for r in rounds for s, scope, v in r.samples
           if s >= len(sources) or v >= 1 << 56]
    free = next((s.index for s in sources if s.name == "mm.free"), None)
    free_values = [v for r in rounds for s, _, v in r.samples if s == free]
    ctx.result("monitor/samples", samples == final["samples_written"] and not bad and
               bool(free_values) and all(0 < v < 1 << 34 and v % 8192 == 0 for v in free_values)
               and totals["drops"] == 0,
               f"{samples} samples, status {final['samples_written']}, bad {bad[:3]}, "
               f"mm.free {free_values[:3]}")
    ctx.result("monitor/thread-records", bool(threads) and
               all(0 < t.tid < 1 << 20 and t.name.isprintable() and t.name for t in threads),
               f"{threads[:5]}")


# ---- recordings: REC_GET, REC_PUT and the "record" stream --------------------

def check_sched_files(directory, events, picks):
    """What is wrong with the sched recording in directory ("": nothing)."""
    from scionhost import recfmt
    try:
        th, trace = recfmt.read_stream(os.path.join(directory, recfmt.TRACE_FILE),
                                       recfmt.STREAM_TRACE)
        lh, log = recfmt.read_stream(os.path.join(directory, recfmt.LOG_FILE),
                                     recfmt.STREAM_LOG)
    except recfmt.RecError as e:
        return str(e)
    config = recfmt.config_dict("sched", th["config"])
    seqs = [r["seq"] for r in sorted(trace + log, key=lambda r: r["seq"])]
    ticks = [r["tick"] for r in trace]
    tids = {r["tid"] for r in trace}
    problems = []
    if th["module"] != "sched" or th["drops"] or lh["drops"] or th["policy"] != lh["policy"]:
        problems.append(f"headers {th}, {lh}")
    if (events is not None and len(trace) != events) or (picks is not None and len(log) != picks):
        problems.append(f"{len(trace)} events and {len(log)} picks, the shell said "
                        f"{events} and {picks}")
    if not trace or not log:
        problems.append("no events or no picks")
    if len(set(seqs)) != len(seqs) or seqs[0] < 1 or seqs[-1] > 1 << 32:
        problems.append(f"sequence numbers {seqs[:10]}")
    if ticks != sorted(ticks) or not 0 < ticks[-1] < 10 ** 7:
        problems.append(f"ticks {ticks[:10]}")
    if not all(0 < t < 1 << 20 for t in tids) or any(r["cpu"] != 0 for r in trace) or \
            any(not (r["tid"] in tids or r["tid"] < 1 << 20) for r in log):
        problems.append(f"tids {sorted(tids)[:10]}, CPUs {[r['cpu'] for r in trace][:10]}")
    if any(r["affinity"] not in (-1, 0) for r in trace):
        problems.append(f"affinities {[r['affinity'] for r in trace][:10]} (an i32: -1 or 0)")
    if config.get("cpus") != 1 or config.get("hz") != 100:
        problems.append(f"config {config}")
    return "; ".join(problems)


def check_recordings(ctx, sock, version):
    """The shell's recording, then host/scion's transfers (each its own client: one
    client holds the channel at a time)."""
    from scionhost.client import Client
    with Client(sock, version=version) as client:
        status, started = shell(client, "record start sched")
        shell(client, "uptime")
        time.sleep(0.3)
        status, stopped = shell(client, "record stop")
    m = re.search(r"rec(\d+): recording sched", started)
    counts = re.search(r"sched, (\d+) events, (\d+) picks, 0 dropped", stopped)
    ctx.result("recording/shell", m is not None and counts is not None, started + stopped)
    if not m or not counts:
        return
    rec = int(m.group(1))
    # Kernel simulation on sun4u: the recording replayed under rr in an instance.
    with Client(sock, version=version) as client:
        status, sim = shell(client, f"sim run rec{rec} rr")
    kernel_rr = re.search(r"^rr\s+(\d+)\s+(\d+)\s", sim, re.M)
    ctx.result("recording/kernel-sim", status == 0 and kernel_rr is not None and
               re.search(r"^live pick_next=rr", sim, re.M) is not None, f"{status}: {sim}")
    work = tempfile.mkdtemp(prefix="wire-rec-", dir=ctx.log_dir)
    first = os.path.join(work, "download")
    rc, out = scion(ctx, sock, version, "record", "download", f"rec{rec}", "-o", first)
    problem = check_sched_files(first, int(counts.group(1)), int(counts.group(2))) \
        if rc == 0 else out
    ctx.result("recording/rec-get-decodes", rc == 0 and not problem, problem)
    if rc:
        return
    # The host simulator replays the big-endian kernel's recording as the kernel did.
    rc, out = scion(ctx, sock, version, "sim", "replay", first, "--policy", "rr")
    host_rr = re.search(r"^rr\s+(\d+)\s+(\d+)\s", out, re.M)
    ctx.result("recording/host-sim-agrees", rc == 0 and kernel_rr is not None and
               host_rr is not None and host_rr.groups() == kernel_rr.groups(),
               f"kernel {kernel_rr and kernel_rr.groups()}, host: exit {rc}: {out[-800:]}")
    # REC_GET in pieces of 100 bytes: records cut across requests, each piece turned alike.
    from scionhost import frame, record
    from scionhost.client import Client
    pieces = {}
    with Client(sock, version=version) as client:
        for stream, name in ((1, "trace.bin"), (2, "log.bin")):
            data, total = b"", None
            while total is None or len(data) < total:
                status, reply = client.request(frame.OP_REC_GET, record.GET_REQUEST.pack(
                    rec=rec, stream=stream, offset=len(data), max=100))
                if status < 0 or len(reply) <= record.GET_REPLY.size:
                    break
                total = record.GET_REPLY.unpack(reply)["size"]
                data += reply[record.GET_REPLY.size:]
            pieces[name] = data
    whole = {n: open(os.path.join(first, n), "rb").read() for n in pieces}
    ctx.result("recording/rec-get-in-pieces", pieces == whole and all(whole.values()),
               f"{ {n: len(d) for n, d in pieces.items()} } bytes in pieces, "
               f"{ {n: len(d) for n, d in whole.items()} } whole")
    rc, out = scion(ctx, sock, version, "record", "upload", first)
    up = re.search(r"^rec(\d+)$", out, re.M)
    ctx.result("recording/rec-put", rc == 0 and up is not None, out)
    if not up:
        return
    second = os.path.join(work, "again")
    rc, out = scion(ctx, sock, version, "record", "download", f"rec{up.group(1)}", "-o", second)
    same = rc == 0 and all(open(os.path.join(first, n), "rb").read() ==
                           open(os.path.join(second, n), "rb").read()
                           for n in ("trace.bin", "log.bin"))
    ctx.result("recording/put-then-get-same-bytes", same, out)

    # REC_PUT in pieces of 13 bytes: record heads and records cut across requests.
    uploaded, answer = 0, ""
    with Client(sock, version=version) as client:
        for stream, name in ((1, "trace.bin"), (2, "log.bin")):
            data = whole[name]
            for off in range(0, len(data), 13):
                last = stream == 2 and off + 13 >= len(data)
                status, reply = client.request(frame.OP_REC_PUT, record.PUT_REQUEST.pack(
                    rec=uploaded, stream=stream, flags=record.PUT_FINISH if last else 0) +
                    data[off:off + 13])
                if status < 0:
                    answer = reply.decode("utf-8", "replace")
                    break
                uploaded = record.PUT_REPLY.unpack(reply)["rec"]
            if answer:
                break
    third = os.path.join(work, "pieces")
    rc, out = scion(ctx, sock, version, "record", "download", f"rec{uploaded}", "-o", third) \
        if not answer else (1, answer)
    same = rc == 0 and all(whole[n] == open(os.path.join(third, n), "rb").read()
                           for n in ("trace.bin", "log.bin"))
    ctx.result("recording/put-in-pieces-same-bytes", same, out)

    streamed = os.path.join(work, "stream")
    rc, out = scion(ctx, sock, version, "record", "-m", "sched", "-o", streamed,
                    "--duration", "2")
    problem = check_sched_files(streamed, None, None) if rc == 0 else out
    ctx.result("record-stream/decodes", rc == 0 and not problem, problem or out)


# ---- PROFILE_CONFIG ----------------------------------------------------------

def check_profile_config(ctx, client):
    from scionhost import frame, monitor
    from scionhost.profile import config

    nb = 96                                             # 15-minute buckets
    cfg = {"machine": "sparc-wire", "valid_day": datetime.date(2026, 3, 14),
           "generated": 1_773_500_000, "bucket_ms": config.DAY_MS // nb,
           "burst_every_s": 7200, "burst_ms": 250,
           "resources": [
               {"name": "mm.free", "kind": "gauge", "scope": "global", "interval_ms": 250,
                "window_ms": 1000, "duration_ms": 60000,
                "buckets": [(123_456_789, 100_000_000, 150_000_001)] * nb},
               {"name": "cpu.busy", "kind": "counter", "scope": "cpu", "interval_ms": 500,
                "window_ms": 1500, "duration_ms": 90000, "buckets": None},
               {"name": "no.such.source", "kind": "gauge", "scope": "global",
                "interval_ms": 300, "window_ms": 600, "duration_ms": 1200, "buckets": None}]}
    data = config.encode(cfg)
    status, reply = client.request(frame.OP_PROFILE_CONFIG, data)
    line = reply.decode("utf-8", "replace")
    ctx.result("profile/loaded", status == 0 and line.startswith(
        "profile config: loaded for 2026-03-14 (machine sparc-wire): 3 resources, 96 buckets "
        "of 15 min, 2 intervals changed, 1 unknown"), f"{status}: {line!r}")
    st = monitor.control(client, frame.C.MONITOR_CTL_STATUS)
    day = int(datetime.datetime(2026, 3, 14, tzinfo=datetime.timezone.utc).timestamp())
    ctx.result("profile/monitor-status", st["config_loaded"] == 1 and
               st["config_valid_day"] == day and st["burst_ms"] == 250 and
               st["burst_every_s"] == 7200, f"{st}")
    status, shown = shell(client, "monitor config show")
    want = [r"^profile config: for 2026-03-14 \(machine sparc-wire\), written 2026-03-14: "
            r"3 resources \(1 unknown\), 96 buckets of 900000 ms, bursts of 250 ms every 7200 s$",
            r"^  mm\.free\s+gauge\s+global\s+250\s+1000\s+60000\s+\d\d:\d\d 123456\.789 "
            r"\[100000\.000, 150000\.001\]",
            r"^  cpu\.busy\s+counter\s+cpu\s+500\s+1500\s+90000\s+\(no bands\)",
            r"^  no\.such\.source\s+gauge\s+global\s+300\s+600\s+1200\s+\(no bands\)\s+"
            r"\(no such source\)"]
    missing = [w for w in want if not re.search(w, shown, re.M)]
    ctx.result("profile/show-is-the-file", status == 0 and not missing,
               f"missing {missing} in {shown!r}")
    status, listing = shell(client, "monitor")
    ctx.result("profile/interval-applied", re.search(r"^  mm\.free\s+gauge\s+bytes\s+250 ",
                                                     listing, re.M) is not None, listing[:2000])
    bad = bytearray(data)
    bad[config.CRC_OFFSET] ^= 0x01
    status, reply = client.request(frame.OP_PROFILE_CONFIG, bytes(bad))
    line = reply.decode("utf-8", "replace")
    ctx.result("profile/bad-crc-refused", status == -frame.C.EINVAL and
               line.startswith("profile config: crc32 0x") and "does not match" in line,
               f"{status}: {line!r}")


# A D program over fbt splices: aggregations of every kind the checks read back.
TRACE_AGGREGATIONS = ("fbt:kernel:kmalloc:entry { @calls = count(); @bytes[probefunc] = sum(arg0); "
                      "@sizes = quantize(arg0); @callers[stack(2)] = count(); } "
                      "profile:::tick-1sec { exit(0); }")


def check_trace(ctx, sock, version):
    """D on the big-endian kernel through `scion trace`: a BEGIN record, then
    fbt probes (KernInst splices) feeding count, sum, quantize and stack-keyed
    aggregations, each decoded by the host with values that agree, and the
    kernel's types: curthread's members and a typed kernel variable."""
    rc, out = scion(ctx, sock, version, "trace", "-n", "BEGIN { trace(1234567); exit(0); }")
    ctx.result("trace/begin-record", rc == 0 and re.search(r":BEGIN\s+1234567$", out, re.M)
               is not None, f"exit {rc}: {out}")
    rc, out = scion(ctx, sock, version, "trace", "-n", TRACE_AGGREGATIONS)
    lines = out.splitlines()
    # The tick's record, then @bytes ("kmalloc N"), @calls (one number), the
    # quantize table (value | bars count) and the stacks, in the order printed.
    total = re.search(r"^\s+kmalloc\s+(\d+)$", out, re.M)
    buckets = [(int(m.group(1)), int(m.group(2))) for m in
               re.finditer(r"^\s+(\d+) \|[@ ]+ (\d+)\s*$", out, re.M)]
    calls = sum(n for _, n in buckets)
    single = [int(x) for x in re.findall(r"^\s+(\d+)$", out, re.M)]
    # Each quantize bucket [v, 2v) bounds what its calls summed.
    low = sum(n * v for v, n in buckets)
    high = sum(n * max(2 * v, 1) for v, n in buckets)
    ctx.result("trace/aggregations-agree", rc == 0 and total is not None and calls > 0 and
               calls in single and low <= int(total.group(1)) < high,
               f"exit {rc}: sum {total and total.group(1)}, bounds [{low}, {high}), "
               f"{calls} calls: {out[-1500:]}")
    ctx.result("trace/stacks-symbolized", re.search(r"^\s+kernel`\w+\+0x[0-9a-f]+$", out, re.M)
               is not None, f"{lines[-12:]}")
    # The kernel's own types (kernel.ctf, compiled with -B): members read big-endian.
    rc, out = scion(ctx, sock, version, "trace", "-q", "-n", "BEGIN { printf(\"%d %d %s\\n\", "
                    "curthread->tid == tid, `cpu_table[0].index, curthread->name); exit(0); }")
    ctx.result("trace/kernel-types", rc == 0 and re.search(r"^1 0 \S+$", out, re.M) is not None,
               f"exit {rc}: {out}")
    # Typed args[] of an SDT probe: the struct thread and struct cpu of sched:::on-cpu.
    rc, out = scion(ctx, sock, version, "trace", "-q", "-n", "sched:::on-cpu { @on[args[2] == "
                    "curthread && args[2]->tid == arg0 && args[3]->index == arg1] = count(); } "
                    "tick-100 /++t == 20/ { printa(\"on %d %@u\\n\", @on); exit(0); }")
    ctx.result("trace/sdt-args-typed", rc == 0 and re.findall(r"^on (\d+) \d+$", out, re.M) ==
               ["1"], f"exit {rc}: {out}")
    # print() lays a struct out by its C type from the big-endian bytes (dtc -B).
    rc, out = scion(ctx, sock, version, "trace", "-q", "-n", "BEGIN { printf(\"tid %x\\n\", tid); "
                    "print(curthread->se); exit(0); }")
    tid = re.search(r"^tid ([0-9a-f]+)$", out, re.M)
    ctx.result("trace/print-big-endian", rc == 0 and tid is not None and
               "struct sched_entity {\n" in out and f"\n    tid = 0x{tid.group(1)}\n" in out,
               f"exit {rc}: {out}")
    # Stores of each width into a D array and alloca's memory, read back big-endian: a
    # 2-byte store into the low half of an int is its high-order bytes on sparc64.
    rc, out = scion(ctx, sock, version, "trace", "-q", "-n", "int a[2]; BEGIN { a[1] = 0x01020304; "
                    "*(short *)&a[0] = 0x0506; this->p = (long *)alloca(8); *this->p = -2; "
                    "printf(\"%x %x %d\\n\", a[1], a[0], *this->p); exit(0); }")
    ctx.result("trace/stores-big-endian", rc == 0 and "1020304 5060000 -2\n" in out,
               f"exit {rc}: {out}")
    # The network's byte order is sparc64's own: htonl and its kin are the identity here
    # (test_d_types.py's kernel-types sees x86 swap the bytes).
    rc, out = scion(ctx, sock, version, "trace", "-q", "-n", "BEGIN { printf(\"%x %x %x %x\\n\", "
                    "htonl(0x12345678), htons(0x1234), ntohll(0x0102030405060708), "
                    "ntohl(htonl(0xa1b2c3d4))); exit(0); }")
    ctx.result("trace/htonl-identity", rc == 0 and "12345678 1234 102030405060708 a1b2c3d4\n" in out,
               f"exit {rc}: {out}")
    # profile-1000 (arch_timer_max_hz here): 10 firings a tick of tick-100, counted over
    # 50 of them. Both ride the one timer, but a timer interrupt that comes late by more
    # than a millisecond (a loaded host: this guest runs without -icount) fires profile-1000
    # once, not once per period it missed, as DTrace's would; tick-100 misses far fewer.
    # So the bound below is loose: at least 300 shows a rate well above 100 Hz, and at most
    # 550 that nothing fires more often than asked.
    rc, out = scion(ctx, sock, version, "trace", "-q", "-n", "profile-1000 { @fast = count(); } "
                    "tick-100 /++ticks == 50/ { printa(\"fast %@u\\n\", @fast); exit(0); }")
    fast = re.search(r"^fast (\d+)$", out, re.M)
    ctx.result("trace/profile-1000", rc == 0 and fast is not None and
               300 <= int(fast.group(1)) <= 550, f"exit {rc}: {out}")


def check_probe_records(ctx, sock, version):
    """The "probes" stream's records (struct chan_probe_record) from the
    big-endian kernel: `scion probe record` of kmalloc's entry while a shell
    command runs; every record names the probe, CPU 0, a thread, a size."""
    import json
    rc, out = scion(ctx, sock, version, "probe", "record", "--json", "--run",
                    "probe list fbt:kernel:kmalloc:*", "fbt:kernel:kmalloc:entry")
    try:
        doc, _ = json.JSONDecoder().raw_decode(out[out.index("{"):])
    except ValueError:
        ctx.result("probe-records/decode", False, f"exit {rc}: {out[-800:]}")
        return
    recs = doc.get("records", [])
    ids = re.findall(r"^\s+(\d+)\s+fbt:kernel:kmalloc:entry\s", doc.get("output", ""), re.M)
    times = [r["timestamp_ns"] for r in recs]
    ctx.result("probe-records/decode", rc == 0 and recs and ids and
               all(r["probe"] == int(ids[0]) and r["cpu"] == 0 and 0 < r["tid"] < 1 << 20 and
                   0 < r["arg0"] < 1 << 24 for r in recs) and times == sorted(times) and
               doc["totals"]["records"] == len(recs) and doc["dropped"] == 0,
               f"exit {rc}: {json.dumps(recs[:4])} ids {ids}")


def job_streams(ctx):
    """The monitor stream, recordings through REC_GET, REC_PUT and the record
    stream, and PROFILE_CONFIG on one boot (see the module's description)."""
    from scionhost.client import Client, ScionError

    kernel, version = build(ctx)
    boot, sock = boot_with_channel(ctx, kernel, "boot")
    try:
        with Client(sock, version=version) as client:
            try:
                check_monitor(ctx, client)
            except ScionError as e:
                ctx.result("monitor/decodes", False, str(e))
            try:
                check_profile_config(ctx, client)
            except ScionError as e:
                ctx.result("profile/loaded", False, str(e))
        try:
            check_recordings(ctx, sock, version)
        except ScionError as e:
            ctx.result("recording/shell", False, str(e))
        check_trace(ctx, sock, version)
        check_probe_records(ctx, sock, version)
        power_off(ctx, boot)
    finally:
        boot.kill()     # a no-op once it powered off; else QEMU ends here


# ---- the bench stream --------------------------------------------------------

def job_bench(ctx):
    """The test kernel's bench stream, decoded by bench.py, against its console lines."""
    from scionhost import bench
    from scionhost.client import Client, ScionError

    kernel, version = build(ctx, tests=True)
    boot, sock = boot_with_channel(ctx, kernel, "boot")
    try:
        start = boot.mark()
        with Client(sock, version=version) as client:
            try:
                items, st = bench.run(client, "graft_dispatch,dnlc", timeout=400)
                error = ""
            except ScionError as e:
                items, st, error = [], {}, str(e)
        ctx.result("decodes", not error and bool(items), error)
        boot.wait_for(r"benchmarks finished: \d+", start=start, timeout=60)
        console = boot.output[start:]
        printed = [(m.group(1), int(m.group(2)), m.group(3)) for m in
                   re.finditer(r"^bench (\S+) (\d+) (\S+)\r?$", console, re.M)]
        config = {i["name"]: i["value"] for i in items if i["kind"] == "config"}
        figures = [(i["name"], i["value"], i["unit"]) for i in items if i["kind"] == "figure"]
        ctx.result("config-records", config == {"cpus": 1, "cycles_per_second": 100_000_000},
                   f"{config}")
        ctx.result("figures-are-the-console's", bool(figures) and figures == printed,
                   f"stream {figures[:4]}, console {printed[:4]}")
        ctx.result("status", st.get("ran") == 2 and st.get("records") == len(items) and
                   [i["seq"] for i in items] == list(range(1, len(items) + 1)), f"{st}")
        power_off(ctx, boot)
    finally:
        boot.kill()


# ---- the descriptors (host) --------------------------------------------------

COVERAGE_PROGRAM = r"""
#include <stdio.h>
#include <scion/chan_wire.h>

#define PRINT(NAME) do { \
	const struct chan_wire_layout *l = CHAN_WIRE(NAME); \
	printf("%s %u", l->name, l->size); \
	for (uint32_t f = 0; f < l->nfields; f++) \
		printf(" %u:%u:%u", l->fields[f].offset, l->fields[f].size, l->fields[f].count); \
	printf("\n"); \
} while (0);

int main(void)
{
	CHAN_WIRE_ALL(PRINT)
	return 0;
}
"""

# A structure the generator must refuse, by the member named.
UNDESCRIBABLE = {"pointer": "struct odd { uint32_t a; const char *name; };",
                 "union": "struct odd { uint32_t a; union { uint32_t b; uint16_t c; } u; };",
                 "bit-field": "struct odd { uint32_t a : 3; uint32_t b; };",
                 "unknown type": "struct odd { uint32_t a; size_t b; };"}


def expected_fields(gen, name, base=0):
    """(offset, size, count) of every multi-byte integer member of struct name, from the
    host's layouts (a second reading: the Python module, not the C descriptors)."""
    sizes = {"H": 2, "h": 2, "I": 4, "i": 4, "Q": 8, "q": 8}
    out = []
    for _field, offset, code, count in gen.STRUCTS[name]["fields"]:
        if count == 0:
            continue
        if code.startswith("struct "):
            inner = code[len("struct "):]
            for k in range(count or 1):
                out += expected_fields(gen, inner, base + offset + k * gen.STRUCTS[inner]["size"])
        elif code in sizes:
            out.append((base + offset, sizes[code], count or 1))
        elif code not in ("c", "B", "b", "?"):
            out.append((base + offset, None, code))    # a code this check does not know: fails
    return out


def job_descriptors(ctx):
    """Every converted structure's descriptor covers each of its multi-byte members."""
    from scionhost import layouts
    gen = layouts._GEN
    headers = {os.path.basename(h) for h in WIRE_HEADERS}
    structs = [n for n, info in gen.STRUCTS.items() if info["header"] in headers]
    # The records this change turns, which must be among them.
    converted = ["monitor_rec_head", "monitor_rec_source", "monitor_rec_thread",
                 "monitor_rec_process", "monitor_rec_round", "monitor_sample",
                 "rec_file_header", "rec_head", "rec_common", "rec_point_call", "rec_point_done",
                 "rec_bcache_request", "rec_bcache_result", "rec_bcache_prefetch",
                 "rec_sched_event", "rec_sched_state", "rec_sched_pick", "dof_rechdr",
                 "dof_error", "dof_aggent", "dof_status", "dof_word", "profile_config_header",
                 "profile_config_resource", "profile_config_bucket", "chan_bench_record"]
    with tempfile.TemporaryDirectory(prefix="scion-wire-") as work:
        exe = build_wire_program(ctx, work, "cover", COVERAGE_PROGRAM)
        if not exe:
            return
        described = {}
        for line in subprocess.run([exe], capture_output=True, text=True,
                                   timeout=60).stdout.splitlines():
            name, size, *fields = line.split()
            described[name] = (int(size), sorted(tuple(int(x) for x in f.split(":"))
                                                 for f in fields))
        wrong = []
        for name in structs:
            want = sorted(expected_fields(gen, name), key=lambda f: (f[0], f[1] or 0))
            got = described.get(name)
            if got is None or got[0] != gen.STRUCTS[name]["size"] or got[1] != want:
                wrong.append(f"{name}: descriptor {got}, members {want}")
        ctx.result("every-member-described", not wrong and len(described) == len(structs),
                   "; ".join(wrong[:4]) or f"{len(described)} descriptors, {len(structs)} "
                   f"structures")
        missing = [n for n in converted if n not in described]
        ctx.result("converted-records-described", not missing, f"no descriptor: {missing}")
        for what, body in UNDESCRIBABLE.items():
            bad_h, out = os.path.join(work, "odd.h"), os.path.join(work, "odd_layouts.h")
            with open(bad_h, "w") as f:
                f.write(f"#include <stdint.h>\n{body}\n")
            proc = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "gen_layouts.py"),
                                   "--c-wire", *[os.path.join(ROOT, h) for h in WIRE_HEADERS],
                                   bad_h, "-o", out],
                                  capture_output=True, text=True)
            ctx.result(f"refuses-{what.replace(' ', '-')}", proc.returncode != 0 and
                       "struct odd: cannot describe the member" in proc.stderr and
                       not os.path.exists(out), f"exit {proc.returncode}: {proc.stderr}")


def job_trace_layout(ctx):
    """kernel/trace/trace_wire.c built for the host as if it were big-endian
    (tests/sparc64_wire/trace_wire_mirror.c says why and what it checks): a
    session's records (integer, string, stack and exit data, an error record)
    and aggregation entries (integer, string and stack keys, values) turned
    member by member, strings untouched."""
    with open(os.path.join(ROOT, "tests", "sparc64_wire", "trace_wire_mirror.c")) as f:
        source = f.read()
    # The host's kernel headers, as the D oracle's host build of kernel/trace/ uses them.
    includes = [f"-I{os.path.join(ROOT, d)}" for d in (
        "tests/host/include", "kernel", "tests/host", "arch/x86/include", "arch/x86",
        "grafts/include")]
    with tempfile.TemporaryDirectory(prefix="scion-trace-wire-") as work:
        exe = build_wire_program(
            ctx, work, "mirror", source, ["kernel/trace/trace_wire.c", "kernel/channel/wire.c"],
            extra_flags=["-O1", "-fsanitize=address,undefined", "-U__BYTE_ORDER__",
                         "-D__BYTE_ORDER__=__ORDER_BIG_ENDIAN__", *includes])
        if not exe:
            return
        proc = subprocess.run([exe], capture_output=True, text=True, timeout=60)
        summary = re.search(r"^(\d+) passed, (\d+) failed$", proc.stdout, re.M)
        ctx.result("mirror-checks", proc.returncode == 0 and summary is not None and
                   int(summary.group(1)) >= 15 and summary.group(2) == "0",
                   (proc.stdout + proc.stderr)[-2000:])

