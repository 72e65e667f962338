# SPDX-License-Identifier: BSD-2-Clause
"""`scion profile collect` (host/scionhost/profile/collect.py, its records
taken apart by monitor_records.py) and `scion monitor` (host/scionhost/
monitor.py): the kernel's "monitor" stream into a profile database.

  collect_decoder   no QEMU: records built with the generated layouts, fed
                    to the collector: every record type; a round split in a
                    CONTINUED record; rounds of one drain out of order across
                    CPUs; lost_before and the drops after the last round as
                    gaps whose counts sum to samples_dropped; a thread sampled
                    without a record; truncated, garbage, unknown-type,
                    wrong-size and miscounted chunks, a sample of an unknown
                    source and a clock that goes back: each one line.
  collect_fake      no QEMU: the commands against fake_kernel.py: the summary
                    line and --json, a count the kernel disagrees with, a
                    garbage chunk; `scion monitor` packs its requests (scale
                    "1d/2m" = 720000 thousandths, START in seconds since 1970)
                    and a refusal is the kernel's one line.
  collect_kernel    the real kernel (2 CPUs): a few seconds into SQLite and
                    into PostgreSQL (pg_server.py): rows = samples_written,
                    one row per CPU per round of a per-CPU source, named
                    threads, `scion profile info` reads it; SIGTERM mid-way:
                    incomplete and consistent; a tiny --bufsize: drops stored
                    as gaps whose lost counts sum to samples_dropped; the guest
                    powered off mid-way: one line, what arrived kept, incomplete.
  collect_nightly   the real kernel with its calendar at 2880x (a day in 30
                    s): one collection covering 2024-03-04 into SQLite, the
                    same rows copied to PostgreSQL: `scion analyze nightly
                    --json` gives identical results from both.
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time

from scionhost import frame
from scionhost.layouts import C, layout
from scionhost.profile import collect, db as pdb
from scionhost.profile.monitor_records import (BURST, CONTINUED, HEAD, RecordError, decode_chunk,
                                               round_record, source_record, status_record,
                                               thread_record)

from common import poweroff
from fake_kernel import FakeKernel
from pg_server import PostgresServer, PostgresUnavailable
from test_channel import channel_boot, scion as scion_at

SCION = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "host", "scion")
W0 = 1709510400 * 10**9                 # 2024-03-04T00:00 UTC
END_WALL = W0 + 10 * 10**8
SOURCES = [(0, C.MONITOR_COUNTER, C.MONITOR_SCOPE_CPU, "cpu.busy", "ns"),
           (1, C.MONITOR_GAUGE, C.MONITOR_SCOPE_GLOBAL, "mm.free", "pages"),
           (2, C.MONITOR_COUNTER, C.MONITOR_SCOPE_THREAD, "thread.cpu", "ns")]
MONITOR_STATUS = layout("monitor_ctl_status")
MONITOR_REQUEST = layout("monitor_ctl_request")


def wall(i):
    return W0 + i * 10**8


def mono(i):
    return 5 * 10**9 + i * 10**8


def script(written=16):
    """Two drains of a stream as (cpu, records, drops, body) chunks, and the totals."""
    chunk0 = [source_record(*s) for s in SOURCES] + [
        thread_record(7, "shell"),
        round_record(1, mono(1), wall(1), [(0, 0, 100), (0, 1, 200), (1, 0, 5000), (2, 7, 10)]),
        round_record(3, mono(3), wall(3), [(0, 0, 300), (0, 1, 400), (1, 0, 4800)],
                     flags=BURST, lost_before=4)]
    chunk1 = [thread_record(9, "worker"),
              round_record(2, mono(2), wall(2), [(0, 0, 150), (0, 1, 260)]),
              round_record(2, mono(2), wall(2), [(1, 0, 4900), (2, 7, 20), (2, 9, 5)],
                           flags=CONTINUED)]
    chunk2 = [round_record(4, mono(4), wall(4), [(0, 0, 400), (0, 1, 500), (2, 7, 30),
                                                 (2, 11, 1)])]
    chunks = [(0, len(chunk0), 0, b"".join(chunk0)), (1, len(chunk1), 0, b"".join(chunk1)),
              (frame.CHUNK_STATUS, 0, 0, status_record(sources=3, rounds_written=3,
                                                        samples_written=12, samples_dropped=4)),
              (1, len(chunk2), 1, b"".join(chunk2)),
              (frame.CHUNK_STATUS, 0, 0, status_record(sources=3, rounds_written=4,
                                                        samples_written=written,
                                                        samples_dropped=6, rounds_dropped=2,
                                                        last_wall_ns=wall(4), ended=1))]
    return chunks, {"records": 10, "drops": 1}


def one_line_error(e, *words):
    text = str(e)
    return "\n" not in text and all(w in text for w in words)


def fresh_collector(path):
    db = pdb.open_db(path, create=True)
    mid = db.machine_id("t", 2, create=True)
    cid = db.new_collection(mid, "collect", W0, {})
    writer = pdb.SampleWriter(db, cid)
    return db, writer, collect.Collector(db, writer, W0)


def job_collect_decoder(ctx):
    with tempfile.TemporaryDirectory() as tmp:
        db, writer, coll = fresh_collector(os.path.join(tmp, "a.db"))
        chunks, totals = script()
        for chunk in chunks:
            coll.on_chunk(*chunk)
        final = coll.finish(END_WALL)
        writer.flush()
        ctx.result("counts-agree", collect.check_end(coll, final, totals, writer.committed) is None
                   and writer.committed == 16 and coll.rounds == 4,
                   f"{collect.check_end(coll, final, totals, writer.committed)}, "
                   f"{writer.committed} rows, {coll.rounds} rounds")
        res = {name: rid for name, (rid, *_) in db.resources().items()}
        kinds = {r[0]: (r[1], r[2], r[3]) for r in db.query(
            "SELECT name, unit, kind, scope FROM resources")}
        ctx.result("sources-are-resources", kinds == {
            "cpu.busy": ("ns", "counter", "cpu"), "mm.free": ("pages", "gauge", "global"),
            "thread.cpu": ("ns", "counter", "thread")}, repr(kinds))
        rows = db.query("SELECT resource_id, scope_id, wall_ns, burst, mono_ns, value FROM "
                        "samples ORDER BY resource_id, scope_id, burst, wall_ns")
        cpu_rows = [(s, w, v) for r, s, w, b, m, v in rows if r == res["cpu.busy"] and not b]
        ctx.result("per-cpu-row-per-round", cpu_rows == [
            (0, wall(1), 100), (0, wall(2), 150), (0, wall(4), 400),
            (1, wall(1), 200), (1, wall(2), 260), (1, wall(4), 500)], repr(cpu_rows))
        burst = [(r, s, w, v) for r, s, w, b, m, v in rows if b]
        ctx.result("burst-flag", sorted(burst) == sorted([
            (res["cpu.busy"], 0, wall(3), 300), (res["cpu.busy"], 1, wall(3), 400),
            (res["mm.free"], 0, wall(3), 4800)]), repr(burst))
        split = [(w, v) for r, s, w, b, m, v in rows if r == res["mm.free"] and not b]
        ctx.result("continued-round-joins-its-seq", split == [(wall(1), 5000), (wall(2), 4900)],
                   repr(split))
        ctx.result("mono-kept", all(m - w == mono(0) - wall(0) for *_, w, b, m, v in rows),
                   repr(rows[:3]))
        threads = dict(db.query("SELECT tid, name FROM threads"))
        ctx.result("threads-named", threads == {7: "shell", 9: "worker", 11: "tid 11"},
                   repr(threads))
        gaps = db.query("SELECT cpu, start_ns, end_ns, lost, reason FROM gaps ORDER BY start_ns")
        ctx.result("lost-before-is-a-gap", gaps == [
            (0, wall(2), wall(3), 4, collect.DROP_REASON),
            (-1, wall(4), END_WALL, 2, collect.TAIL_REASON)], repr(gaps))
        ctx.result("gaps-sum-to-samples-dropped",
                   sum(g[3] for g in gaps) == final["samples_dropped"] == coll.lost, repr(gaps))
        writer.close(complete=True)
        ctx.result("collection-counts", db.query("SELECT samples, complete FROM collections") ==
                   [(16, 1)], repr(db.query("SELECT samples, complete FROM collections")))

        # A garbled or inconsistent stream: one line each, never a crash.
        good = b"".join(source_record(*s) for s in SOURCES)
        cases = {
            "truncated": (good[:-5], 3, ["truncated", "CPU 0"]),
            "garbage": (b"\xff" * 40, 1, ["type 65535"]),
            "unknown-type": (HEAD.pack(type=9, size=8) + bytes(4), 1, ["type 9",
                                                                      "does not define"]),
            "short-header": (good + b"\x03\x00", 4, ["middle of a record header"]),
            "wrong-size": (HEAD.pack(type=C.MONITOR_REC_SOURCE, size=60) + bytes(56), 1,
                           ["source record", "60 bytes"]),
            "round-size": (round_record(1, 1, 1, [(0, 0, 1), (0, 1, 2)])[:-16], 1,
                           ["truncated"]),
            "miscounted": (good, 2, ["holds 3 records", "says 2"]),
            "zero-size": (HEAD.pack(type=C.MONITOR_REC_ROUND, size=0) + bytes(28), 1,
                          ["0 bytes"]),
        }
        bad_round = bytearray(round_record(1, 1, 1, [(0, 0, 1), (0, 1, 2)]))
        bad_round[4:6] = (3).to_bytes(2, "little")     # nsamples 3, the size says 2
        cases["nsamples"] = (bytes(bad_round), 1, ["for 3 samples"])
        for name, (body, count, words) in cases.items():
            try:
                decode_chunk(body, count, 0)
                ctx.result(f"refuses-{name}", False, "accepted")
            except RecordError as e:
                ctx.result(f"refuses-{name}", one_line_error(e, *words), str(e))
            except Exception as e:                  # noqa: BLE001 - a crash is the failure
                ctx.result(f"refuses-{name}", False, f"crashed: {e!r}")
        for name, body, words in (("status-size", b"\0" * 10, ["10 bytes"]),
                                  ("status-version", layout("monitor_stream_status").pack(
                                      version=99), ["version 99"])):
            try:
                coll.on_chunk(frame.CHUNK_STATUS, 0, 0, body)
                ctx.result(f"refuses-{name}", False, "accepted")
            except RecordError as e:
                ctx.result(f"refuses-{name}", one_line_error(e, *words), str(e))

    with tempfile.TemporaryDirectory() as tmp:
        db, writer, coll = fresh_collector(os.path.join(tmp, "b.db"))
        coll.on_chunk(0, 1, 0, round_record(1, mono(1), wall(1), [(5, 0, 1)]))
        try:
            coll.on_chunk(frame.CHUNK_STATUS, 0, 0, status_record(sources=0))
            ctx.result("refuses-unknown-source", False, "accepted")
        except RecordError as e:
            ctx.result("refuses-unknown-source", one_line_error(e, "source 5", "never described"),
                       str(e))
    with tempfile.TemporaryDirectory() as tmp:
        db, writer, coll = fresh_collector(os.path.join(tmp, "c.db"))
        chunks, _ = script()
        for chunk in chunks[:3]:
            coll.on_chunk(*chunk)
        back = round_record(5, mono(5), wall(1), [(0, 0, 900)])
        coll.on_chunk(0, 1, 0, back)
        try:
            coll.on_chunk(frame.CHUNK_STATUS, 0, 0, status_record(sources=3))
            ctx.result("refuses-clock-going-back", False, "accepted")
        except pdb.ProfileError as e:
            ctx.result("refuses-clock-going-back", one_line_error(
                e, "clock went backwards in cpu.busy scope 0", str(mono(5)), "incomplete"), str(e))
        ctx.result("what-came-before-is-committed", db.query(
            "SELECT COUNT(*) FROM samples")[0][0] == 12 == writer.committed, str(writer.committed))


# ---- the commands against the fake kernel ------------------------------------

def fake_answers(requests, stream_data, stream=3):
    """The MONITOR op and a "monitor" stream whose chunks (stream_data["chunks"], with
    stream_data["totals"]) all go out at its close."""
    def monitor(body):
        req = MONITOR_REQUEST.unpack(body)
        requests.append(req)
        if req["cmd"] == C.MONITOR_CTL_BURST_NOW:
            return -C.EINVAL, b"monitor: sampling is off (monitor start)"
        return 0, MONITOR_STATUS.pack(running=1, sources=3, min_interval_ms=100,
                                      scale=req["scale"] or 1000, wall_ns=W0, mono_ns=mono(0))

    def stream_open(body):
        return 0, layout("chan_stream_open_reply").pack(stream=stream, cpus=2, bufsize=4096)

    def stream_close(body):
        frames = [frame.encode(frame.DATA, 0, frame.encode_data(
            stream, frame.CHUNK_HEADER.pack(cpu, n, drops) + data))
            for cpu, n, drops, data in stream_data["chunks"]]
        totals = stream_data["totals"]
        return (0, layout("chan_stream_totals").pack(records=totals["records"],
                                                     drops=totals["drops"]), *frames)
    return {frame.OP_MONITOR: monitor, frame.OP_STREAM_OPEN: stream_open,
            frame.OP_STREAM_CLOSE: stream_close}


def run(sock, *args, timeout=60):
    return subprocess.run([sys.executable, SCION, "--socket", sock, *args], capture_output=True,
                          text=True, timeout=timeout, env={**os.environ,
                                                           "SCION_HOST_VERSION": "v-test"})


def failed_one_line(proc, *words):
    lines = proc.stderr.splitlines()
    return (proc.returncode == 1 and len(lines) == 1 and lines[0].startswith("scion: ") and
            all(w in lines[0] for w in words))


def job_collect_fake(ctx):
    with tempfile.TemporaryDirectory() as tmp:
        sock = os.path.join(tmp, "s")
        requests = []
        chunks, totals = script()
        data = {"chunks": chunks, "totals": totals}
        # One fake for all (closing one takes seconds); it outlives a host that hangs up.
        with FakeKernel(sock, version="v-test", answers=fake_answers(requests, data)):
            db = os.path.join(tmp, "a.db")
            proc = run(sock, "profile", "collect", "--db", db, "--duration", "0.3", "--machine",
                       "fake", "--quiet")
            ctx.result("summary-line", proc.returncode == 0 and proc.stdout ==
                       f"collect: 16 samples of 3 resources, 3 threads, 2 gaps in "
                       f"{proc.stdout.split(' in ')[-1].split(' s ')[0]} s into {db}\n",
                       proc.stdout + proc.stderr)
            proc = run(sock, "profile", "collect", "--db", db, "--duration", "0.3", "--machine",
                       "fake2", "--json")
            try:
                s = json.loads(proc.stdout)
                ok = (s["samples"] == 16 and s["lost"] == 6 and s["gaps"] == 2 and s["complete"]
                      and s["status"]["samples_written"] == 16 and s["cpus"] == 2)
            except (ValueError, KeyError) as e:
                ok, s = False, e
            ctx.result("summary-json", ok, f"{s!r} {proc.stderr}")
            proc = run(sock, "profile", "info", "--db", db, "--json")
            info = json.loads(proc.stdout) if proc.returncode == 0 else {}
            cols = [c for m in info.get("machines", []) for c in m["collections"]]
            ctx.result("info-complete", len(cols) == 2 and all(
                c["complete"] and c["samples"] == 16 and c["source"] == "collect" for c in cols),
                proc.stdout + proc.stderr)

            data["chunks"] = script(written=17)[0]
            db = os.path.join(tmp, "b.db")
            proc = run(sock, "profile", "collect", "--db", db, "--duration", "0.2")
            ctx.result("mismatch-one-line", failed_one_line(
                proc, "16 samples stored, the kernel wrote 17", "incomplete"), proc.stderr)
            with pdb.open_db(db) as d:
                got = d.query("SELECT complete, samples FROM collections")
            ctx.result("mismatch-incomplete", got == [(0, 16)], repr(got))

            data["chunks"] = [(0, 1, 0, b"\xff" * 24)] + chunks[2:]
            proc = run(sock, "profile", "collect", "--db", os.path.join(tmp, "c.db"),
                       "--duration", "0.2")
            ctx.result("garbage-one-line", failed_one_line(proc, "type 65535"), proc.stderr)

            requests.clear()
            proc = run(sock, "monitor", "clock", "1d/2m", "2024-03-04T06:00")
            if not requests:
                ctx.result("clock-request", False, proc.stderr)
                return
            ctx.result("clock-request", proc.returncode == 0 and requests[-1]["cmd"] ==
                       C.MONITOR_CTL_CLOCK and requests[-1]["scale"] == 720000 and
                       requests[-1]["start_s"] == 1709532000 and "time scale: 720x" in proc.stdout,
                       f"{requests} {proc.stdout}{proc.stderr}")
            proc = run(sock, "monitor", "clock", "0.5", "--json")
            ctx.result("clock-json", proc.returncode == 0 and requests[-1]["scale"] == 500 and
                       requests[-1]["start_s"] == 0 and json.loads(proc.stdout)["scale"] == 500,
                       proc.stdout + proc.stderr)
            proc = run(sock, "monitor", "interval", "cpu", "50")
            ctx.result("interval-request", proc.returncode == 0 and requests[-1]["name"]
                       .rstrip(b"\0") == b"cpu" and requests[-1]["ms"] == 50, repr(requests[-1]))
            proc = run(sock, "monitor", "burst", "500", "60")
            ctx.result("burst-request", proc.returncode == 0 and (
                requests[-1]["cmd"], requests[-1]["ms"], requests[-1]["every_s"]) ==
                (C.MONITOR_CTL_BURST, 500, 60), repr(requests[-1]))
            proc = run(sock, "monitor", "burst-now")
            ctx.result("refusal-is-the-kernels-line", failed_one_line(proc) and proc.stderr ==
                       "scion: monitor: sampling is off (monitor start)\n", proc.stderr)
            n = len(requests)
            for name, args in (("scale", ["clock", "fast"]), ("ratio", ["clock", "1d/0s"]),
                               ("start", ["clock", "720", "2024-13-01"])):
                proc = run(sock, "monitor", *args)
                ctx.result(f"bad-{name}-one-line", failed_one_line(proc, "monitor clock") and
                           len(requests) == n, proc.stderr)


# ---- the real kernel ------------------------------------------------------------

def check_collection(ctx, name, spec, summary):
    """rows = samples_written, per-CPU sources one row per CPU per round, named threads,
    `scion profile info` reads it."""
    with pdb.open_db(spec) as db:
        cid = summary["collection"]
        rows = db.query("SELECT COUNT(*) FROM samples WHERE collection_id = ?", (cid,))[0][0]
        stored = db.query("SELECT samples, complete FROM collections WHERE collection_id = ?",
                          (cid,))[0]
        ctx.result(f"{name}/rows-equal-samples-written", rows > 0 and rows == summary["samples"]
                   == summary["status"]["samples_written"] and tuple(stored) == (rows, 1),
                   f"{rows} rows, collection {stored}, summary {summary}")
        bad = []
        for rname, (rid, _, _, scope) in db.resources().items():
            if scope != "cpu":
                continue
            per_round = db.query("SELECT wall_ns, COUNT(*), COUNT(DISTINCT scope_id) FROM "
                                 "samples WHERE collection_id = ? AND resource_id = ? GROUP BY "
                                 "wall_ns, burst", (cid, rid))
            bad += [(rname, r) for r in per_round if tuple(r[1:]) != (2, 2)]
            if not per_round:
                bad.append((rname, "no rows"))
        ctx.result(f"{name}/per-cpu-row-per-round", not bad, repr(bad[:5]))
        names = [r[0] for r in db.query("SELECT name FROM threads WHERE collection_id = ?",
                                        (cid,))]
        ctx.result(f"{name}/threads-named", len(names) == summary["threads"] and
                   "monitor" in names and all(n and not n.startswith("tid ") for n in names),
                   repr(names))
    proc = subprocess.run([sys.executable, SCION, "profile", "info", "--db", spec],
                          capture_output=True, text=True, timeout=120)
    ctx.result(f"{name}/profile-info", proc.returncode == 0 and "complete" in proc.stdout
               and "INCOMPLETE" not in proc.stdout, proc.stdout + proc.stderr)


def collect_json(ctx, sock, name, *args, timeout=180):
    rc, out, err = scion_at(ctx, sock, "profile", "collect", "--quiet", "--json", *args,
                            timeout=timeout)
    try:
        return json.loads(out) if rc == 0 else None
    finally:
        ctx.result(f"{name}/collect", rc == 0, f"exit {rc}: {err}")


def job_collect_kernel(ctx):
    boot, sock = channel_boot(ctx, "collect", smp=2)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            spec = os.path.join(tmp, "k.db")
            summary = collect_json(ctx, sock, "sqlite", "--db", spec, "--duration", "4",
                                   "--machine", "qemu")
            if summary:
                check_collection(ctx, "sqlite", spec, summary)
            try:
                with PostgresServer() as pg:
                    url = pg.database("collect")
                    summary = collect_json(ctx, sock, "postgresql", "--db", url, "--duration",
                                           "4", "--machine", "qemu")
                    if summary:
                        check_collection(ctx, "postgresql", url, summary)
            except PostgresUnavailable as e:
                ctx.result("postgresql/server", False, str(e))

            spec = os.path.join(tmp, "term.db")
            proc = subprocess.Popen([sys.executable, SCION, "--socket", sock, "profile",
                                     "collect", "--db", spec, "--duration", "60", "--quiet"],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            time.sleep(5)
            proc.send_signal(signal.SIGTERM)
            out, err = proc.communicate(timeout=60)
            ctx.result("sigterm/one-line", proc.returncode == 1 and err.count("\n") == 1 and
                       "interrupted (SIGTERM)" in err and "incomplete" in err, err)
            with pdb.open_db(spec) as db:
                got = db.query("SELECT complete, samples FROM collections")
                rows = db.query("SELECT COUNT(*) FROM samples")[0][0]
            ctx.result("sigterm/incomplete-and-consistent", len(got) == 1 and got[0][0] == 0 and
                       got[0][1] == rows > 0, f"{got}, {rows} rows")

            spec = os.path.join(tmp, "tiny.db")
            summary = collect_json(ctx, sock, "tiny-buffer", "--db", spec, "--duration", "4",
                                   "--bufsize", "4096", "--switch-ms", "1000")
            if summary:
                with pdb.open_db(spec) as db:
                    lost = db.query("SELECT COUNT(*), COALESCE(SUM(lost), 0) FROM gaps")[0]
                    rows = db.query("SELECT COUNT(*) FROM samples")[0][0]
                st = summary["status"]
                ctx.result("tiny-buffer/drops-are-gaps", st["samples_dropped"] > 0 and
                           tuple(lost) == (summary["gaps"], st["samples_dropped"]) and
                           rows == st["samples_written"], f"gaps {lost}, {rows} rows, {st}")
            rc, out, err = scion_at(ctx, sock, "monitor", "status", "--json")
            st = json.loads(out) if rc == 0 else {}
            ctx.result("monitor-status", rc == 0 and st.get("sources", 0) > 0 and
                       not st.get("streaming") and not st.get("running"), out + err)

            # The guest powers off mid-collection: what arrived is kept, incomplete.
            spec = os.path.join(tmp, "lost.db")
            proc = subprocess.Popen([sys.executable, SCION, "--socket", sock, "profile",
                                     "collect", "--db", spec, "--duration", "120", "--quiet"],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            time.sleep(5)
            boot.command("poweroff", r"powering off")
            boot.proc.wait(timeout=60)
            out, err = proc.communicate(timeout=60)
            ctx.result("channel-lost/one-line", proc.returncode == 1 and err.count("\n") == 1
                       and "closed" in err and "incomplete" in err, err)
            with pdb.open_db(spec) as db:
                got = db.query("SELECT complete, samples FROM collections")
                rows = db.query("SELECT COUNT(*) FROM samples")[0][0]
            ctx.result("channel-lost/incomplete-and-consistent", len(got) == 1 and
                       got[0][0] == 0 and got[0][1] == rows > 0, f"{got}, {rows} rows")
    finally:
        poweroff(ctx, boot)


def copy_rows(src_path, dst_url):
    """The profile rows of an SQLite database into an empty PostgreSQL one, keys kept."""
    with pdb.open_db(src_path) as src, pdb.open_db(dst_url, create=True) as dst:
        with dst.transaction():
            for table in ("machines", "collections", "resources", "threads", "samples", "gaps"):
                cols = [r[1] for r in src.query(f"PRAGMA table_info({table})")]
                dst.insert_many(table, cols, src.query(f"SELECT {', '.join(cols)} FROM {table}"))


def job_collect_nightly(ctx):
    boot, sock = channel_boot(ctx, "nightly", smp=2)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for args in (["burst", "100", "3600"], ["clock", "1d/30s", "2024-03-03T23:50"]):
                rc, out, err = scion_at(ctx, sock, "monitor", *args)
                ctx.result(f"monitor-{args[0]}", rc == 0, out + err)
            spec = os.path.join(tmp, "day.db")
            # --until: as long as the calendar takes to cover the day, however fast it runs.
            summary = collect_json(ctx, sock, "day", "--db", spec, "--until", "2024-03-05T00:05",
                                   "--machine", "qemu")
            if not summary:
                return
            last = summary["status"]["last_wall_ns"]
            ctx.result("until-the-calendar", summary["complete"] and
                       1709597100 * 10**9 <= last < 1709600400 * 10**9,
                       f"complete {summary['complete']}, last round at {last}")
            rc, out, err = scion_at(ctx, sock, "profile", "collect", "--db", spec, "--until",
                                    "2024-03-04T12:00", "--machine", "qemu")
            ctx.result("until-in-the-past", rc == 1 and err.count("\n") == 1 and
                       "--until: the calendar is already at" in err, f"exit {rc}: {err!r}")
            try:
                server = PostgresServer()
                server.__enter__()
            except PostgresUnavailable as e:
                ctx.result("postgresql/server", False, str(e))
                return
            try:
                dbs = {"sqlite": spec, "postgresql": server.database("day")}
                copy_rows(spec, dbs["postgresql"])
                results = {}
                for name, db in dbs.items():
                    proc = subprocess.run([sys.executable, SCION, "analyze", "nightly", "--db",
                                           db, "--day", "2024-03-04", "--out",
                                           os.path.join(tmp, name), "--json", "--no-report",
                                           "--quiet"], capture_output=True, text=True,
                                          timeout=600)
                    ctx.result(f"nightly-{name}", proc.returncode == 0, proc.stderr)
                    if proc.returncode:
                        return
                    results[name] = {k: v for k, v in json.loads(proc.stdout).items()
                                     if k != "run_id"}
                diff = [k for k in results["sqlite"]
                        if results["sqlite"][k] != results["postgresql"].get(k)]
                ctx.result("identical-nightly", not diff and results["sqlite"]["resources"],
                           f"differ in {diff}")
            finally:
                server.__exit__(None, None, None)
    finally:
        poweroff(ctx, boot)
