# SPDX-License-Identifier: BSD-2-Clause
"""The profile database (host/scionhost/profile/db.py, schema.sql): bad
input gets one line and loses nothing, and PostgreSQL gives the same
analysis as SQLite.

  bad_input     `scion` on a text file, on another program's SQLite
                database, on a profile database of another schema version,
                on a missing file; a database another writer holds locked;
                a day without samples; a history with missing days (the
                missing references are reported, the analysis runs); a
                second synthetic history over the first's days; a bad
                --anomaly; a clock that goes backwards in the samples given
                to the writer (refused, what came before committed, the
                collection incomplete); two writers declaring the same
                machine and resource, one from a stale cache (one row each;
                a different unit refused): each one line on stderr.
  interrupted   `scion profile synth` killed (SIGKILL) mid-way: the database
                is intact, its collection incomplete with exactly the
                samples it says it committed, and a day it finished can be
                analysed (reported as from an incomplete collection); SIGTERM
                says so in one line.
  postgresql    a real server (Debian's initdb and pg_ctl, tests/integration/
                pg_server.py): the same synthetic history written to
                PostgreSQL and to SQLite gives identical results.json and the
                same next-day configuration; two writers' declarations as
                above; an empty database, another
                program's database and an unreachable server are one line.
"""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

from scionhost.profile import config, db as pdb
from pg_server import PostgresServer, PostgresUnavailable

SCION = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "host", "scion")
SMALL = ["--interval-ms", "60000", "--history-interval-ms", "60000", "--thread-interval-ms",
         "120000", "--burst-ms", "0"]


def scion(*args, timeout=120):
    return subprocess.run([sys.executable, SCION] + list(args), capture_output=True, text=True,
                          timeout=timeout)


def one_line(proc, *words):
    """Failed, and stderr is one line "scion: ..." holding every word."""
    lines = proc.stderr.splitlines()
    return (proc.returncode == 1 and len(lines) == 1 and lines[0].startswith("scion: ")
            and all(w in lines[0] for w in words))


def check(ctx, name, proc, *words):
    ctx.result(name, one_line(proc, *words), f"exit {proc.returncode}, stderr {proc.stderr!r}")


def job_bad_input(ctx):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        text = os.path.join(tmp, "notes.txt")
        with open(text, "w") as f:
            f.write("not a database\n" * 100)
        check(ctx, "text-file", scion("analyze", "nightly", "--db", text, "--out", out),
              "not a Scion profile database")
        other = os.path.join(tmp, "other.db")
        conn = sqlite3.connect(other)
        conn.execute("CREATE TABLE recipes (name TEXT)")
        conn.commit()
        conn.close()
        check(ctx, "other-sqlite", scion("profile", "info", "--db", other),
              "not a Scion profile database", "recipes")
        check(ctx, "missing-file", scion("analyze", "nightly", "--db",
                                         os.path.join(tmp, "none.db"), "--out", out),
              "no such profile database")

        db = os.path.join(tmp, "p.db")
        proc = scion("profile", "synth", "--db", db, "--start", "2024-03-04", "--days", "3",
                     *SMALL)
        ctx.result("synth-first", proc.returncode == 0, proc.stderr)
        proc = scion("profile", "synth", "--db", db, "--start", "2024-03-14", "--days", "2",
                     *SMALL)
        ctx.result("synth-later", proc.returncode == 0, proc.stderr)
        check(ctx, "overlapping-history", scion("profile", "synth", "--db", db, "--start",
                                                "2024-03-05", "--days", "2", *SMALL),
              "already has collection 1")
        check(ctx, "bad-anomaly", scion("profile", "synth", "--db", db, "--start", "2024-04-01",
                                        "--days", "2", "--anomaly", "storm@1,10:00"),
              "--anomaly 'storm@1,10:00'")
        check(ctx, "missing-day", scion("analyze", "nightly", "--db", db, "--day", "2024-03-10",
                                        "--out", out), "no samples for machine synthetic on "
              "2024-03-10", "2024-03-04 to 2024-03-06, 2024-03-14 to 2024-03-15")
        proc = scion("analyze", "nightly", "--db", db, "--day", "2024-03-15", "--out", out,
                     "--json", "--no-report")
        missing = json.loads(proc.stdout)["summary"]["missing_references"] if \
            proc.returncode == 0 else None
        ctx.result("missing-references-reported", missing == [
            "previous week 2024-03-08", "previous month 2024-02-16"], f"{missing} {proc.stderr}")

        # Another writer holds the write lock: the writer waits --lock-timeout, then one line.
        holder = sqlite3.connect(db, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        started = time.monotonic()
        proc = scion("profile", "synth", "--db", db, "--start", "2024-05-01", "--days", "1",
                     "--lock-timeout", "1", *SMALL)
        check(ctx, "locked", proc, "locked by another writer", "waited 1 s")
        ctx.result("locked-waited", 1 <= time.monotonic() - started < 30)
        proc = scion("analyze", "nightly", "--db", db, "--day", "2024-03-15", "--out", out,
                     "--no-report", "--lock-timeout", "1")
        check(ctx, "locked-while-storing", proc, "locked by another writer",
              "storing the analysis")
        holder.execute("ROLLBACK")
        holder.close()

        conn = sqlite3.connect(db)
        conn.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
        conn.commit()
        conn.close()
        check(ctx, "schema-version", scion("analyze", "nightly", "--db", db, "--out", out),
              "profile schema version 1", "reads version 2")
        clock_backwards(ctx, os.path.join(tmp, "clock.db"))
        two_writers(ctx, os.path.join(tmp, "two.db"), "sqlite")


def clock_backwards(ctx, path):
    db = pdb.open_db(path, create=True)
    mid = db.machine_id("m", 1, create=True)
    rid = db.resource_id("cpu.busy", "ns", "counter", "cpu")
    cid = db.new_collection(mid, "api", 10**18, {})
    w = pdb.SampleWriter(db, cid)
    w.add_stream(rid, 0, 0, [10**18 + i * 10**8 for i in range(1, 11)],
                 [i * 10**8 for i in range(1, 11)], list(range(10)))
    try:
        w.add_stream(rid, 0, 0, [10**18 + 11 * 10**8, 10**18 + 12 * 10**8],
                     [11 * 10**8, 5 * 10**8], [10, 11])
        error = None
    except pdb.ProfileError as e:
        error = str(e)
    ctx.result("clock-backwards-refused", error is not None and "\n" not in error
               and "clock went backwards in cpu.busy scope 0" in error
               and "the 11 samples before it are committed" in error, str(error))
    rows = db.query("SELECT COUNT(*) FROM samples WHERE collection_id = ?", (cid,))[0][0]
    col = db.collections(mid)[0]
    ctx.result("clock-backwards-kept", rows == 11 and col["samples"] == 11
               and not col["complete"], f"{rows} rows, {col}")
    db.close()


def two_writers(ctx, spec, label):
    """Two writers (a sweep's runs side by side) declare the same machine and
    resource, the second from a cache read before the first's insert: both get
    the one row, and a unit that differs is still refused in one line."""
    first, second = pdb.open_db(spec, create=True), pdb.open_db(spec)
    second.resources()     # read while the resource is not there yet
    ids = [first.machine_id("m", 2, create=True), second.machine_id("m", 2, create=True)]
    rids = [first.resource_id("bcache.reads", "requests", "counter", "global"),
            second.resource_id("bcache.reads", "requests", "counter", "global")]
    count = second.query("SELECT COUNT(*) FROM resources WHERE name = 'bcache.reads'")[0][0]
    ctx.result(f"{label}-same-declaration", ids[0] == ids[1] and rids[0] == rids[1] and
               count == 1, f"machines {ids}, resources {rids}, {count} rows")
    third = pdb.open_db(spec)
    third.resources()
    first.resource_id("bcache.misses", "requests", "counter", "global")
    try:
        third.resource_id("bcache.misses", "ns", "counter", "global")
        error = None
    except pdb.ProfileError as e:
        error = str(e)
    ctx.result(f"{label}-other-unit-refused", error is not None and "\n" not in error and
               "resource bcache.misses is counter global in requests" in error, str(error))
    for db in (first, second, third):
        db.close()


def wait_for(db_path, condition, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
            row = conn.execute("SELECT started_ns, ended_ns, samples FROM collections").fetchone()
            conn.close()
            if row and condition(*row):
                return True
        except sqlite3.Error:
            pass
        time.sleep(0.1)
    return False


def job_interrupted(ctx):
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "p.db")
        argv = [sys.executable, SCION, "profile", "synth", "--db", db, "--start", "2024-03-04",
                "--days", "20", "--history-interval-ms", "10000", "--burst-ms", "0",
                "--interval-ms", "10000"]
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        two_days = wait_for(db, lambda start, end, n: end and end >= start + 2 * 86400 * 10**9)
        proc.kill()
        proc.wait()
        ctx.result("killed-mid-way", two_days and proc.returncode == -signal.SIGKILL)
        conn = sqlite3.connect(db)
        integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
        complete, said, ended = conn.execute(
            "SELECT complete, samples, ended_ns FROM collections").fetchone()
        rows = conn.execute("SELECT COUNT(*) FROM samples").fetchone()[0]
        last = conn.execute("SELECT MAX(wall_ns) FROM samples").fetchone()[0]
        conn.close()
        ctx.result("intact", integrity == "ok", integrity)
        ctx.result("incomplete-and-consistent", complete == 0 and said == rows and ended == last,
                   f"complete {complete}, collection says {said} samples up to {ended}, "
                   f"{rows} rows up to {last}")
        proc = scion("profile", "info", "--db", db)
        ctx.result("info-says-incomplete", proc.returncode == 0 and "INCOMPLETE" in proc.stdout,
                   proc.stdout + proc.stderr)
        proc = scion("analyze", "nightly", "--db", db, "--day", "2024-03-05", "--out",
                     os.path.join(tmp, "out"), "--json", "--no-report")
        ok = proc.returncode == 0 and json.loads(proc.stdout)["summary"][
            "incomplete_collections"] == [1]
        ctx.result("analysed-and-reported", ok, proc.stderr[-500:])

        db2 = os.path.join(tmp, "q.db")
        argv[argv.index(db)] = db2
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_for(db2, lambda start, end, n: n > 0)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
        ctx.result("sigterm-one-line", proc.returncode == 1 and len(err.splitlines()) == 1
                   and "interrupted: what was committed is kept" in err, err)


def comparable(results):
    """Results without what differs by backend (the run's key)."""
    return {k: v for k, v in results.items() if k != "run_id"}


def job_postgresql(ctx):
    try:
        server = PostgresServer()
        server.__enter__()
    except PostgresUnavailable as e:
        ctx.result("server", False, str(e))
        return
    try:
        with tempfile.TemporaryDirectory() as tmp:
            dbs = {"sqlite": os.path.join(tmp, "p.db"), "postgresql": server.database("profiles")}
            args = ["--start", "2024-03-04", "--days", "9", "--interval-ms", "5000",
                    "--history-interval-ms", "60000", "--thread-interval-ms", "120000",
                    "--burst-ms", "256", "--burst-every-min", "240", "--anomaly",
                    "group@8,10:20,60m", "--seed", "11"]
            results, configs = {}, {}
            for name, spec in dbs.items():
                proc = scion("profile", "synth", "--db", spec, *args)
                ctx.result(f"synth-{name}", proc.returncode == 0, proc.stderr)
                out = os.path.join(tmp, name)
                proc = scion("analyze", "nightly", "--db", spec, "--out", out, "--json",
                             "--no-report")
                ctx.result(f"analyze-{name}", proc.returncode == 0, proc.stderr)
                if proc.returncode:
                    return
                results[name] = comparable(json.loads(proc.stdout))
                cfg = config.read(os.path.join(out, results[name]["config"]["file"]))
                configs[name] = {k: v for k, v in cfg.items() if k not in ("generated", "crc32")}
            same = results["sqlite"] == results["postgresql"]
            diff = [k for k in results["sqlite"] if results["sqlite"][k] !=
                    results["postgresql"].get(k)]
            ctx.result("identical-results", same and results["sqlite"]["anomalies"],
                       f"differ in {diff}")
            ctx.result("identical-config", configs["sqlite"] == configs["postgresql"])
            proc = scion("profile", "info", "--db", dbs["postgresql"])
            ctx.result("info", proc.returncode == 0 and "(postgresql)" in proc.stdout
                       and "1 days analysed" in proc.stdout, proc.stdout + proc.stderr)
            two_writers(ctx, server.database("two"), "postgresql")
            check(ctx, "empty-database", scion("analyze", "nightly", "--db",
                                               server.database("empty"), "--out", tmp),
                  "empty database")
            other = server.database("other")
            import psycopg2
            conn = psycopg2.connect(other)
            with conn, conn.cursor() as cur:
                cur.execute("CREATE TABLE invoices (id INTEGER)")
            conn.close()
            check(ctx, "other-database", scion("profile", "info", "--db", other),
                  "not a Scion profile database", "invoices")
            check(ctx, "unreachable", scion("profile", "info", "--db",
                                            f"postgresql:///x?host={tmp}/nowhere"),
                  "cannot connect")
    finally:
        server.__exit__(None, None, None)
