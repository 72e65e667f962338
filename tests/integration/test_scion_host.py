# SPDX-License-Identifier: BSD-2-Clause
"""The host command `scion` without QEMU: the frame codec against
chan_proto.h, the reference receiver on hand-made hostile streams, the
command line (help, errors, the session lock), and whole sessions
against fake_kernel.py's stand-in for the kernel."""

import fcntl
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCION = os.path.join(ROOT, "host", "scion")
from scionhost import frame
from scionhost.layouts import layout
from fake_kernel import FakeKernel

TRAILER = layout("chan_frame_trailer", "crc")

FAKE_VERSION = "v-test"


def run_scion(args, env=None, timeout=60):
    full_env = dict(os.environ, SCION_HOST_VERSION=FAKE_VERSION)
    full_env.pop("SCION_SOCKET", None)
    full_env.update(env or {})
    return subprocess.run([sys.executable, SCION] + args, capture_output=True, text=True,
                          env=full_env, timeout=timeout)


def one_error_line(proc, starts):
    """Failed, and stderr is exactly one line starting with starts."""
    lines = proc.stderr.splitlines()
    return proc.returncode != 0 and len(lines) == 1 and lines[0].startswith(starts)


def describe(proc):
    return f"exit {proc.returncode}, stdout {proc.stdout!r}, stderr {proc.stderr!r}"


class TempDir:
    """A short directory for sockets (a UNIX socket path has 107 bytes)."""

    def __enter__(self):
        self.path = tempfile.mkdtemp(prefix="scion-")
        return self.path

    def __exit__(self, *exc):
        shutil.rmtree(self.path, ignore_errors=True)


# --- the wire format -------------------------------------------------------

def header_constants():
    """CHAN_* numbers of chan_proto.h: #defines and enum members, read here on their
    own (the generated description frame.py uses is checked against the compiler by
    test_layouts.py)."""
    with open(os.path.join(ROOT, "kernel", "include", "scion", "chan_proto.h")) as f:
        text = f.read()
    values = {name: int(value, 0) for name, value in
              re.findall(r"#define\s+CHAN_(\w+)\s+(0x[0-9a-fA-F]+|\d+)", text)}
    for body in re.findall(r"enum\s+(?!chan_reject)\w+\s*{(.*?)}", text, re.S):
        following = 0
        for name, value in re.findall(r"CHAN_(\w+)\s*(?:=\s*(\d+))?\s*,", body):
            following = int(value) if value else following
            values[name] = following
            following += 1
    return values


def job_frame_codec(ctx):
    constants = header_constants()
    wrong = [f"{name}: header {value}, frame.py {getattr(frame, name, None)}"
             for name, value in constants.items() if getattr(frame, name, None) != value]
    ctx.result("constants-match-chan_proto.h", len(constants) >= 20 and not wrong,
               f"{len(constants)} constants; differ: {wrong}")

    with open(os.path.join(ROOT, "kernel", "include", "scion", "errno.h")) as f:
        errnos = {int(v): n for n, v in re.findall(r"#define\s+(E\w+)\s+(\d+)", f.read())}
    ctx.result("errno-names-match-errno.h", errnos == frame.ERRNO_NAMES,
               f"errno.h {errnos}")

    raw = frame.encode(frame.HELLO, 0x01020304, b"abc")
    layout_ok = (raw[:4] == bytes((0xAC, 0x5C, 1, frame.HELLO)) and raw[4:8] == b"\x04\x03\x02\x01"
                 and raw[8:12] == b"\x03\x00\x00\x00"
                 and raw[12:16] == TRAILER.pack(crc=frame.crc32(raw[:12]))
                 and raw[16:19] == b"abc" and raw[19:] == TRAILER.pack(crc=frame.crc32(b"abc"))
                 and len(raw) == 16 + 3 + 4)
    ctx.result("header-layout", layout_ok, raw.hex())
    empty = frame.encode(frame.REQUEST, 9, b"")
    ctx.result("empty-payload-has-its-crc", len(empty) == 20 and empty[16:] == b"\0\0\0\0",
               empty.hex())
    ctx.result("crc32-is-zlib", frame.crc32(b"123456789") == 0xCBF43926)

    parser = frame.ReferenceParser()
    body = bytes(range(256)) * 3
    frames = parser.feed(frame.encode_request(77, frame.OP_ECHO, body) +
                         frame.encode_hello(78, "v1.2-dirty"))
    ok = (len(frames) == 2 and frames[0].type == frame.REQUEST and frames[0].seq == 77
          and frame.decode_request(frames[0].payload) == (frame.OP_ECHO, body)
          and frames[0].payload[2:4] == b"\0\0"
          and frames[1] == (frame.HELLO, 78, b"v1.2-dirty"))
    ctx.result("request-and-hello-round-trip", ok, repr(frames)[:200])

    kernel_side = frame.ReferenceParser(frame.KERNEL_SENT_TYPES)
    stream = (frame.encode(frame.RESPONSE, 5, frame.encode_status(-22, b"probe: usage\n"))
              + frame.encode(frame.ERROR, 6, frame.encode_status(-38, b"unknown op 9"))
              + frame.encode(frame.DATA, 0, frame.encode_data(3, b"\x00\xac\x5c"))
              + frame.encode(frame.HELLO, 7, b"v1\ngcc 12.2.0, x86_64"))
    got = kernel_side.feed(stream)
    ok = (len(got) == 4 and frame.decode_status(got[0].payload) == (-22, b"probe: usage\n")
          and frame.decode_status(got[1].payload) == (-38, b"unknown op 9")
          and frame.decode_data(got[2].payload) == (3, b"\x00\xac\x5c")
          and frame.decode_hello(got[3].payload) == ("v1", "gcc 12.2.0, x86_64"))
    ctx.result("response-error-data-hello-round-trip", ok, repr(got)[:300])

    try:
        frame.encode(frame.REQUEST, 1, bytes(frame.MAX_PAYLOAD + 1))
        ctx.result("oversized-payload-refused", False, "encode accepted MAX_PAYLOAD + 1 bytes")
    except frame.FrameError:
        ctx.result("oversized-payload-refused", True)
    try:
        frame.decode_status(b"\1\2")
        ctx.result("short-status-refused", False, "decode_status accepted 2 bytes")
    except frame.FrameError:
        ctx.result("short-status-refused", True)
    stream_decoding(ctx)


def refused(fn, *args):
    try:
        fn(*args)
        return False
    except frame.FrameError:
        return True


def stream_decoding(ctx):
    """Stream chunks, probe records and events as the kernel lays them out
    (struct chan_probe_record and the chunk header of chan_proto.h)."""
    rec = frame.PROBE_RECORD.pack(timestamp_ns=1000, tid=7, arg0=0xdead, probe_id=42, cpu=1,
                                  size=frame.PROBE_RECORD.size)
    chunk = frame.CHUNK_HEADER.pack(1, 2, 5) + rec + rec
    cpu, count, drops, body = frame.decode_chunk(chunk)
    records = frame.decode_probe_records(body, count)
    ctx.result("chunk-and-records-decode",
               (cpu, count, drops) == (1, 2, 5) and len(records) == 2 and records[0] ==
               {"timestamp_ns": 1000, "tid": 7, "arg0": 0xdead, "probe": 42, "cpu": 1},
               repr((cpu, count, drops, records)))
    ctx.result("record-size-matches-the-header", frame.PROBE_RECORD.size == 32
               and frame.CHUNK_HEADER.size == frame.CHUNK_HEADER_BYTES)
    ctx.result("short-chunk-refused", refused(frame.decode_chunk, bytes(15)))
    ctx.result("record-count-mismatch-refused",
               refused(frame.decode_probe_records, rec + rec, 3)
               and refused(frame.decode_probe_records, rec[:-1], 1))
    ctx.result("record-with-wrong-size-refused",
               refused(frame.decode_probe_records, rec[:-2] + b"\x30\0", 1))
    ctx.result("event-decodes", frame.decode_event(b"12 3456 graft: 'x' aborted") ==
               (12, 3456, "graft: 'x' aborted") and frame.decode_event(b"1 2") == (1, 2, ""))
    ctx.result("malformed-event-refused", refused(frame.decode_event, b"graft: x")
               and refused(frame.decode_event, b"12"))


# --- the reference receiver ------------------------------------------------

def counts(parser):
    nonzero = {reason: n for reason, n in parser.rejects.items() if n}
    return (parser.accepted, parser.rejected, nonzero, parser.garbage_bytes)


def without_magic0(payload_choices):
    """The first payload whose frame tail (payload + CRC) has no 0xac, so
    scanning it as garbage counts every byte."""
    for p in payload_choices:
        if frame.MAGIC0 not in p + TRAILER.pack(crc=frame.crc32(p)):
            return p
    raise AssertionError("no payload without 0xac")


def job_reference_parser(ctx):
    good = frame.encode_request(100, frame.OP_STATUS, b"")
    tail_payload = without_magic0(layout("chan_request_header").pack(op=frame.OP_ECHO) +
                                  bytes([i]) * 6 for i in range(1, 100))
    tail = len(tail_payload) + 4

    bad_crc = bytearray(frame.encode_header(frame.REQUEST, 0x5CAC, 0))
    bad_crc[12] ^= 1        # wrong header CRC; bytes 4-5 hold a magic that must not be re-scanned
    bad_version = frame.encode(frame.REQUEST, 11, tail_payload, version=2)
    oversized = frame.encode_header(frame.REQUEST, 12, frame.MAX_PAYLOAD + 1)
    bad_payload = bytearray(frame.encode_request(13, frame.OP_ECHO, b"hi"))
    bad_payload[-1] ^= 0x80
    cases = [
        # name, stream, (accepted, rejected, {reason: n}, garbage), rejections
        ("good-frame", good, (1, 0, {}, 0), []),
        ("hello-accepted", frame.encode_hello(1, "v"), (1, 0, {}, 0), []),
        ("bad-header-crc-dropped-no-rescan", bytes(bad_crc) + good,
         (1, 1, {frame.BAD_HEADER_CRC: 1}, 0), [(frame.BAD_HEADER_CRC, 0)]),
        ("bad-version-then-payload-is-garbage", bad_version + good,
         (1, 1, {frame.BAD_VERSION: 1}, tail), [(frame.BAD_VERSION, 11)]),
        ("oversized", oversized + good, (1, 1, {frame.OVERSIZED: 1}, 0),
         [(frame.OVERSIZED, 12)]),
        ("bad-payload-crc", bytes(bad_payload) + good, (1, 1, {frame.BAD_PAYLOAD_CRC: 1}, 0),
         [(frame.BAD_PAYLOAD_CRC, 13)]),
        ("unknown-type-response", frame.encode(frame.RESPONSE, 14, b"\0\0\0\0") + good,
         (1, 1, {frame.UNKNOWN_TYPE: 1}, 0), [(frame.UNKNOWN_TYPE, 14)]),
        ("unknown-type-0-and-9", frame.encode(0, 15, b"") + frame.encode(9, 16, b"x") + good,
         (1, 2, {frame.UNKNOWN_TYPE: 2}, 0), [(frame.UNKNOWN_TYPE, 15), (frame.UNKNOWN_TYPE, 16)]),
        ("garbage-counted", b"hello" + good + b"\x00\xff\x5c", (1, 0, {}, 8), []),
        ("magic0-repeated", b"\xac\xac" + good, (1, 0, {}, 2), []),
        ("magic0-then-other", b"\xac\x00\xac\x41" + good, (1, 0, {}, 4), []),
        ("magic1-alone-is-garbage", b"\x5c" + good, (1, 0, {}, 1), []),
        ("resync-after-everything", b"junk" + bytes(bad_crc) + bad_version + oversized +
         bytes(bad_payload) + frame.encode(frame.EVENT, 3, b"e") + good,
         (1, 5, {frame.BAD_HEADER_CRC: 1, frame.BAD_VERSION: 1, frame.OVERSIZED: 1,
                 frame.BAD_PAYLOAD_CRC: 1, frame.UNKNOWN_TYPE: 1}, 4 + tail), None),
    ]
    for name, stream, want, want_rejections in cases:
        whole = frame.ReferenceParser()
        frames = whole.feed(stream)
        bytewise = frame.ReferenceParser()
        for b in stream:
            bytewise.feed(bytes([b]))
        ok = (counts(whole) == want and counts(bytewise) == want
              and (want_rejections is None or whole.rejections == want_rejections)
              and len(frames) == want[0] and whole.state == frame.SYNC)
        ctx.result(name, ok, f"got {counts(whole)} (byte by byte {counts(bytewise)}), "
                             f"rejections {whole.rejections}; want {want}, {want_rejections}")

    frames = frame.ReferenceParser().feed(bytes(bad_payload) + good)
    ctx.result("resync-delivers-the-next-frame", len(frames) == 1 and frames[0].seq == 100,
               repr(frames))

    p = frame.ReferenceParser()
    p.feed(good[:10])
    p.idle()
    p.feed(good[:20])
    p.idle()
    p.feed(b"\xac")
    p.idle()                    # a lone magic byte is garbage, not a frame
    p.idle()                    # in SYNC: nothing to drop
    p.feed(good)
    ctx.result("truncated-on-idle", counts(p) == (1, 2, {frame.TRUNCATED: 2}, 1)
               and p.rejections == [(frame.TRUNCATED, 0), (frame.TRUNCATED, 100)],
               f"{counts(p)} {p.rejections}")

    # Any split of a hostile stream gives the same counts as one feed.
    rng = random.Random(20261122)
    pieces = [good, bytes(bad_crc), bad_version, oversized, bytes(bad_payload),
              frame.encode(frame.DATA, 2, b"\0\0\0\0zz")]
    stream = b"".join(rng.choice(pieces) + rng.randbytes(rng.randrange(0, 40))
                      for _ in range(300))
    whole = frame.ReferenceParser()
    whole.feed(stream)
    chunked = frame.ReferenceParser()
    i = 0
    while i < len(stream):
        n = rng.randrange(1, 64)
        chunked.feed(stream[i:i + n])
        i += n
    ctx.result("chunking-does-not-matter", counts(whole) == counts(chunked)
               and whole.rejections == chunked.rejections and whole.accepted > 0,
               f"{counts(whole)} vs {counts(chunked)}")


# --- the command line ------------------------------------------------------

HELP_COMMANDS = [[], ["status"], ["probe"], ["probe", "list"], ["probe", "enable"],
                 ["probe", "record"], ["events"],
                 ["probe", "disable"], ["probe", "info"], ["probe", "clear"], ["stats"],
                 ["graft"], ["graft", "load"], ["graft", "install"], ["graft", "remove"],
                 ["graft", "list"], ["graft", "avail"], ["graft", "points"], ["text"],
                 ["shell"], ["channel"], ["ping"], ["bulk"], ["run"], ["adapt"],
                 ["adapt", "decisions"], ["adapt", "explain"]]


def job_cli_help(ctx):
    ctx.result("executable", os.access(SCION, os.X_OK), f"{SCION} is not executable")
    for words in HELP_COMMANDS:
        proc = run_scion(words + ["--help"])
        ctx.result("help/" + ("-".join(words) or "scion"),
                   proc.returncode == 0 and proc.stdout.startswith("usage: scion")
                   and not proc.stderr, describe(proc))
    proc = run_scion([])
    ctx.result("no-subcommand-is-an-error", one_error_line(proc, "scion: "), describe(proc))
    proc = run_scion(["frobnicate"])
    ctx.result("unknown-subcommand-one-line", one_error_line(proc, "scion: "), describe(proc))


def job_cli_errors(ctx):
    with TempDir() as tmp:
        missing = os.path.join(tmp, "control.sock")
        proc = run_scion(["--socket", missing, "status"])
        ctx.result("missing-socket", one_error_line(
            proc, f"scion: no control socket at {missing} (is Scion running? start it with "
                  "`scion run` or `make run`)"), describe(proc))
        proc = run_scion(["probe", "list"], env={"SCION_SOCKET": missing})
        ctx.result("missing-socket-from-env", one_error_line(
            proc, f"scion: no control socket at {missing}"), describe(proc))

        stale = os.path.join(tmp, "stale.sock")
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(stale)
        s.close()               # the file stays; nothing listens
        proc = run_scion(["--socket", stale, "status"])
        ctx.result("stale-socket", one_error_line(proc, f"scion: nothing listens on {stale}"),
                   describe(proc))

        big = os.path.join(tmp, "huge.graft")
        with open(big, "wb") as f:
            f.write(bytes(frame.MAX_PAYLOAD))
        proc = run_scion(["--socket", missing, "graft", "load", big])
        ctx.result("graft-too-large-refused-before-sending",
                   one_error_line(proc, f"scion: {big} is {frame.MAX_PAYLOAD} bytes")
                   and not proc.stdout, describe(proc))
        proc = run_scion(["--socket", missing, "graft", "load", os.path.join(tmp, "none.graft")])
        ctx.result("graft-file-missing", one_error_line(proc, "scion: cannot read"),
                   describe(proc))
        proc = run_scion(["--socket", "/tmp/" + "x" * 120, "status"])
        ctx.result("socket-path-too-long", one_error_line(proc, "scion: socket path"),
                   describe(proc))
        proc = run_scion(["run", "--smp", "9", "--no-build", "--socket", missing])
        ctx.result("run-refuses-bad-smp", one_error_line(proc, "scion: run: SMP='9'"),
                   describe(proc))
        proc = run_scion(["run", "--tcg", "fast", "--no-build", "--socket", missing])
        ctx.result("run-refuses-bad-tcg", one_error_line(proc, "scion: run: TCG=fast"),
                   describe(proc))
        proc = run_scion(["run", "--iso", os.path.join(tmp, "none.iso"), "--no-build",
                          "--socket", missing])
        ctx.result("run-refuses-missing-iso", one_error_line(proc, "scion: run: no ISO at"),
                   describe(proc))
        proc = run_scion(["run", "--programs", os.path.join(tmp, "none.cpio"), "--no-build",
                          "--socket", missing])
        ctx.result("run-refuses-missing-programs", one_error_line(
            proc, "scion: run: no program archive"), describe(proc))
        not_cpio = os.path.join(tmp, "programs.tar")
        with open(not_cpio, "wb") as f:
            f.write(b"x")
        proc = run_scion(["run", "--programs", not_cpio, "--no-build", "--socket", missing])
        ctx.result("run-refuses-programs-not-named-cpio", one_error_line(
            proc, f"scion: run: {not_cpio}: a program archive's name ends in .cpio"),
            describe(proc))
        proc = run_scion(["run", "--iso", os.path.join(tmp, "none.iso"), "--programs", not_cpio,
                          "--no-build", "--socket", missing])
        ctx.result("run-refuses-programs-with-iso", one_error_line(
            proc, "scion: run: --programs boots a module, which an ISO names"), describe(proc))
        live = os.path.join(tmp, "live.sock")
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
            listener.bind(live)
            listener.listen(1)
            proc = run_scion(["run", "--no-build", "--socket", live])
        ctx.result("run-refuses-a-live-socket", one_error_line(
            proc, f"scion: run: a running Scion already listens on {live}"), describe(proc))


def job_lock(ctx):
    with TempDir() as tmp, FakeKernel(os.path.join(tmp, "c.sock"), FAKE_VERSION,
                                      hold_seconds=2.0) as fake:
        path = fake.path
        with open(path + ".lock", "a") as held:
            fcntl.flock(held, fcntl.LOCK_EX)
            # The CLI's start-up (seconds on a loaded host) is measured by
            # the --wait 0 run and allowed for in the --wait 1 run's bound.
            started = time.monotonic()
            proc = run_scion(["--socket", path, "--wait", "0", "status"])
            startup = time.monotonic() - started
            ctx.result("held-lock-refuses-wait-0", one_error_line(
                proc, f"scion: another client holds the control channel at {path}"),
                describe(proc))
            started = time.monotonic()
            proc = run_scion(["--socket", path, "--wait", "1", "status"])
            waited = time.monotonic() - started
            ctx.result("held-lock-waits-then-refuses", one_error_line(
                proc, "scion: another client holds") and 1 <= waited < 2 * startup + 5,
                f"{describe(proc)} after {waited:.1f} s (start-up {startup:.1f} s)")
        ctx.result("no-connection-while-locked", not fake.sessions, repr(fake.sessions))

        # Two clients at once: the first holds the channel for 2 s (its
        # request is slow); a second with --wait 0 is refused, a third
        # with the default wait is served after it, never interleaved.
        env = dict(os.environ, SCION_HOST_VERSION=FAKE_VERSION)
        first = subprocess.Popen([sys.executable, SCION, "--socket", path, "status"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 env=env)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not any(
                op is not None for s in list(fake.sessions) for _, _, op, _ in s):
            time.sleep(0.02)
        refused = run_scion(["--socket", path, "--wait", "0", "status"])
        ctx.result("second-client-refused-while-first-runs",
                   one_error_line(refused, "scion: another client holds the control channel"),
                   describe(refused))
        second = subprocess.Popen([sys.executable, SCION, "--socket", path, "channel"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  env=env)
        out1, err1 = first.communicate(timeout=30)
        out2, err2 = second.communicate(timeout=30)
        ctx.result("both-served", first.returncode == 0 and second.returncode == 0
                   and "uptime_ms: 1250" in out1 and "frames_accepted 5" in out2,
                   f"first {first.returncode} {err1!r}, second {second.returncode} {err2!r}")
        ops = [[op for _, _, op, _ in s if op is not None] for s in fake.sessions]
        ctx.result("one-session-each-not-interleaved",
                   ops == [[frame.OP_STATUS], [frame.OP_STATS]], repr(ops))


# --- whole sessions against the stand-in kernel -----------------------------

def corrupt_answers():
    """(name, scion arguments, answers that break one rule, what the one error line says)."""
    from scionhost.layouts import layout
    head, probe = layout("chan_list_head"), layout("chan_probe_info")

    def raw(status, body):
        return lambda _: (status, body)
    return [
        ("status-short", ["status"], {frame.OP_STATUS: raw(0, b"\0" * 40)},
         "scion: malformed STATUS answer: 40 bytes, where a struct chan_status is"),
        ("channel-long", ["channel", "--json"], {frame.OP_STATS: raw(0, b"\0" * 400)},
         "scion: malformed STATS answer: 400 bytes"),
        ("list-no-head", ["probe", "list", "--json"], {frame.OP_PROBE_LIST: raw(0, b"\1\2")},
         "scion: malformed PROBE_LIST answer: 2 bytes, shorter than its"),
        ("list-record-size", ["graft", "list", "--json"], {frame.OP_GRAFT_LIST: raw(
            0, head.pack(count=1, total=1, record_bytes=100) + bytes(100))},
         "scion: malformed GRAFT_LIST answer: records of 100 bytes, where a struct"),
        ("list-count", ["probe", "list", "--json"], {frame.OP_PROBE_LIST: raw(
            0, head.pack(count=3, total=3, record_bytes=probe.size) + bytes(probe.size))},
         "scion: malformed PROBE_LIST answer:"),
        ("list-stuck", ["events"], {frame.OP_EVENTS: raw(
            0, head.pack(count=0, total=9, record_bytes=layout("chan_event_info").size, more=1,
                         next=0))},
         "scion: malformed EVENTS answer: it asks to go on from 0"),
        ("error-status", ["probe", "list", "--json"], {frame.OP_PROBE_LIST: raw(
            -22, b"probe list x:y:z:w:v: malformed spec")},
         "scion: probe list x:y:z:w:v: malformed spec"),
        ("error-no-text", ["stats", "--json"], {frame.OP_METRICS: raw(-12, b"")},
         "scion: METRICS: ENOMEM"),
    ]


def job_structured_replies_refused_when_damaged(ctx):
    """A damaged structured reply: one clear line, exit 1, no traceback."""
    for name, argv, answers, want in corrupt_answers():
        with TempDir() as tmp, FakeKernel(os.path.join(tmp, "c.sock"), FAKE_VERSION,
                                          answers=answers) as fake:
            proc = run_scion(["--socket", fake.path] + argv)
            ctx.result(name, one_error_line(proc, want) and not proc.stdout, describe(proc))



SHELL_OUTPUT = {
    "probe list": (0, "  ID     PROBE" + " " * 56 + "SITES ENABLED\n"
                      "  1      fbt:kernel:kernel_main:entry" + " " * 32 + "1     0\n"
                      "  2      fbt:kernel:thread_create:entry" + " " * 30 + "1     1, count 42\n"
                      "2 probes\n"),
    "probe info 99": (-2, "probe: no probe with id 99; 'probe list' shows them\n"),
    "stats": (0, "metrics:\n  1   count        thread_create: 12 calls\n"
                 "  2   latency      thread_yield tid 4: 3 calls, 1500.250 cycles per call "
                 "(0.500 us)\n"
                 "  3   concurrency  thread_sleep_ticks: - threads inside on average over "
                 "0 cycles, 0 now\n"
                 "probes: 721 known, 3 sites patched (2 jump, 1 int3); 5 installs, 2 removals, "
                 "9 sync rounds, 1 jumps refused\n"),
    "graft list": (0, f"{'graft':<16} {'point':<18} {'scope':<10} {'state':<9} invocations  "
                      "commits  aborts   time(us) mode\n"
                      f"{'lifo':<16} {'sched.pick_next':<18} {'global':<10} {'installed':<9} "
                      f"{55:>10} {55:>8} {0:>7} {12:>10} sandboxed\n"
                      f"{'loop':<16} {'test.method':<18} {'tid 7':<10} {'installed':<9} "
                      f"{1:>10} {0:>8} {1:>7} {5000:>10} trusted\n"
                      "    last abort: time budget exceeded\n"
                      "graft area: 6 pages in use; 4 sandbox windows\n"),
    "graft points -v": (0, "point kind ...\n"),
    'syms "a b"': (0, "0 functions match 'a b'\n"),
    "text verify": (0, "text: identical\n"),
}


def job_fake_kernel_session(ctx):
    import json
    noise = (b"\x00garbage\xac"
             + frame.encode(frame.ERROR, 0, frame.encode_status(-5, b"bad header CRC"))
             + frame.encode(frame.EVENT, 0, b"graft: lifo aborted")     # not "N MS TEXT"
             + frame.encode(frame.EVENT, 0, b"4 1200 graft: 'lifo' aborted")
             + frame.encode(frame.RESPONSE, 999, b"\0\0\0\0late answer to another client"))
    with TempDir() as tmp, FakeKernel(os.path.join(tmp, "c.sock"), FAKE_VERSION,
                                      shell=SHELL_OUTPUT, ignore_hellos=1, noise=noise) as fake:
        sock = ["--socket", fake.path]
        proc = run_scion(sock + ["status"])
        ctx.result("status-after-resent-hello-and-noise",
                   proc.returncode == 0 and "cpus: 2" in proc.stdout and fake.hellos_seen >= 2,
                   f"{describe(proc)}; HELLOs seen {fake.hellos_seen}")
        proc = run_scion(sock + ["status", "--json"])
        ctx.result("status-json", proc.returncode == 0 and json.loads(proc.stdout).get("cpus") == 2,
                   describe(proc))
        proc = run_scion(sock + ["probe", "list", "--json"])
        want = [{"id": 1, "probe": "fbt:kernel:kernel_main:entry", "sites": 1, "consumers": 0},
                {"id": 2, "probe": "fbt:kernel:thread_create:entry", "sites": 1, "consumers": 1,
                 "count": 42}]
        ctx.result("probe-list-json", proc.returncode == 0 and json.loads(proc.stdout) == want,
                   describe(proc))
        proc = run_scion(sock + ["probe", "info", "99"])
        ctx.result("negative-status-exits-1-output-on-stderr",
                   proc.returncode == 1 and not proc.stdout
                   and proc.stderr.startswith("probe: no probe with id 99"), describe(proc))
        proc = run_scion(sock + ["stats", "--json"])
        stats = json.loads(proc.stdout) if proc.returncode == 0 else {}
        ctx.result("stats-json", stats.get("probes", {}).get("known") == 721
                   and stats["probes"].get("jumps_refused") == 1
                   and [m["kind"] for m in stats.get("metrics", [])] ==
                   ["count", "latency", "concurrency"]
                   and stats["metrics"][1].get("tid") == 4
                   and stats["metrics"][1].get("cycles_per_call") == 1500.25
                   and stats["metrics"][1].get("us_per_call") == 0.5
                   and stats["metrics"][2].get("average_inside") is None, describe(proc))
        proc = run_scion(sock + ["graft", "list", "--json"])
        grafts = json.loads(proc.stdout) if proc.returncode == 0 else []
        ctx.result("graft-list-json", [g["graft"] for g in grafts] == ["lifo", "loop", "spare"]
                   and [g["scope"] for g in grafts] == ["global", "tid 7", "-"]
                   and [g["mode"] for g in grafts] == ["sandboxed", "trusted", "built-in"]
                   and grafts[2]["state"] == "loaded" and "last_abort" not in grafts[0]
                   and grafts[1].get("last_abort") == "time budget exceeded", describe(proc))
        proc = run_scion(sock + ["events"])
        ctx.result("events-over-three-pages", proc.returncode == 0 and [
            line.split()[0] for line in proc.stdout.splitlines()] == ["1", "2", "3", "4", "5"]
            and "1.005  mark: 5" in proc.stdout, describe(proc))
        proc = run_scion(sock + ["status", "--json"])
        status = json.loads(proc.stdout) if proc.returncode == 0 else {}
        ctx.result("status-json-keys", list(status) == [
            "version", "build", "uptime_ms", "cpus", "memory_kib", "memory_free_kib",
            "grafts_loaded", "grafts_installed", "probes", "probe_sites",
            "channel_frames_accepted", "channel_frames_rejected"]
            and status["version"] == FAKE_VERSION and status["uptime_ms"] == 1250, describe(proc))
        proc = run_scion(sock + ["graft", "points", "-v"])
        ctx.result("graft-points-v", proc.returncode == 0 and proc.stdout.startswith("point"),
                   describe(proc))
        proc = run_scion(sock + ["shell", "syms", "a b"])
        ctx.result("shell-quotes-words-with-spaces", proc.returncode == 0, describe(proc))
        proc = run_scion(sock + ["text", "verify"])
        ctx.result("text-verify", proc.stdout == "text: identical\n", describe(proc))
        graft = os.path.join(tmp, "lifo.graft")
        with open(graft, "wb") as f:
            f.write(b"\x7fELF" + bytes(100))
        proc = run_scion(sock + ["graft", "load", graft])
        ctx.result("graft-load", proc.stdout == "graft: loaded lifo.graft (104 bytes)\n",
                   describe(proc))
        proc = run_scion(sock + ["ping", "--count", "5"])
        ctx.result("ping", proc.returncode == 0 and re.match(
            r"5 echoes of 64 bytes: min \d+ us, median \d+ us", proc.stdout), describe(proc))
        proc = run_scion(sock + ["bulk", "1M"])
        ctx.result("bulk", proc.returncode == 0 and proc.stdout.startswith(
            "received 1048576 bytes in") and "123456 cycles" in proc.stdout, describe(proc))
        proc = run_scion(sock + ["channel", "--json"])
        counters = json.loads(proc.stdout) if proc.returncode == 0 else {}
        ctx.result("channel-json", counters.get("frames_accepted") == 5
                   and counters.get("rejected_bad_header_CRC") == 1
                   and counters.get("rejected_truncated") == 2
                   and list(counters)[:4] == ["frames_accepted", "frames_rejected",
                                               "garbage_bytes", "rejected_bad_header_CRC"],
                   describe(proc))
        proc = run_scion(sock + ["channel"])
        ctx.result("channel-text", proc.returncode == 0 and proc.stdout.startswith(
            "frames_accepted 5\nframes_rejected 0\n") and "rejected_truncated 2\n" in proc.stdout,
            describe(proc))

        proc = run_scion(sock + ["status"], env={"SCION_HOST_VERSION": "v-other"})
        ctx.result("kernel-refuses-other-version", one_error_line(
            proc, f"scion: version mismatch: host v-other, kernel {FAKE_VERSION}"), describe(proc))

    with TempDir() as tmp, FakeKernel(os.path.join(tmp, "c.sock"), "v-kernel",
                                      refuse_other_versions=False) as fake:
        proc = run_scion(["--socket", fake.path, "status"])
        ctx.result("host-refuses-other-version", one_error_line(
            proc, f"scion: version mismatch: host {FAKE_VERSION}, kernel v-kernel"),
            describe(proc))
        ctx.result("nothing-asked-after-mismatch",
                   all(op is None for s in fake.sessions for _, _, op, _ in s), repr(fake.sessions))

    with TempDir() as tmp, FakeKernel(os.path.join(tmp, "c.sock"), FAKE_VERSION,
                                      silent_ops={frame.OP_ECHO}) as fake:
        proc = run_scion(["--socket", fake.path, "--timeout", "1", "ping", "-c", "1"])
        ctx.result("request-timeout", one_error_line(
            proc, f"scion: no response to ECHO within 1 s (socket {fake.path})"), describe(proc))

    with TempDir() as tmp:
        path = os.path.join(tmp, "c.sock")
        silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        silent.bind(path)
        silent.listen(1)        # accepts (in the backlog) but never answers: still booting
        try:
            proc = run_scion(["--socket", path, "--timeout", "1", "status"])
            ctx.result("handshake-timeout", one_error_line(
                proc, "scion: no HELLO from the kernel within 1 s"), describe(proc))
        finally:
            silent.close()
