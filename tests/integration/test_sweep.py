# SPDX-License-Identifier: BSD-2-Clause
"""Experiment sweeps (issue 29, host/scionhost/sweep/): `scion sweep`
run as a user runs it, on tiny sweeps of the test kernel (each run a
boot of a second or a few).

  plan      expansion, indexes, exclusions and stable ids; bad files and
            requests are one line and exit status 2
  local     a sweep run here two at a time: its figures (monitor sources, a
            D program's aggregations, a recording) and profile collections;
            a run whose QEMU goes away recorded as failed (twice tried) with
            its log while the others finish; status and the CSV/HTML report
  icount    the same index run twice gives identical icount figures
            (the in-kernel graft and name-cache benchmarks' instruction
            counts; the block cache's miss figures wait on the host's disk
            I/O, which icount does not make deterministic)
  resume    a sweep killed (SIGKILL, the runner and its QEMUs) resumes: no
            run done twice, none lost
  slurm     a real single-node Slurm (slurm_cluster.py) runs a sweep as one
            array job whose tasks write to a throw-away PostgreSQL
            (pg_server.py); it then holds what a local run of the same
            sweep puts in SQLite
"""

import contextlib
import csv
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

from pg_server import PostgresServer, PostgresUnavailable
from scionhost.sweep import results
from slurm_cluster import SlurmCluster, SlurmUnavailable

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCION = [sys.executable, os.path.join(ROOT, "host", "scion")]
LOOP_READS = 200
SLOW_TIMEOUT = 5
# A D program over the workload: its aggregations are figures (the run has one CPU).
D_READS = "fbt::bcache_read:entry { @reads = count(); @by[cpu] = sum(1); }"
LOOP = f"bcache run loop start=0 size=24 n={LOOP_READS}"


def scion(*args, env=None, timeout=600):
    return subprocess.run(SCION + list(args), capture_output=True, text=True, env=env,
                          timeout=timeout)


def workdir(ctx):
    """A fresh folder for the job's sweep files, database and logs (kept for reading)."""
    d = os.path.join(ctx.log_dir, f"{ctx.job}-sweep")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def sweep_file(ctx, d, name, body, timeout=120):
    path = os.path.join(d, name + ".toml")
    with open(path, "w") as f:
        f.write(f'[sweep]\nname = "{name}"\nkernel = "{ctx.kernel32}"\n'
                f'disk = "{ctx.disk}"\nout = "{d}"\ntimeout = {timeout}\n' + body)
    return path


POLICIES = """
[policies.lru]
[policies.2q]
modules = ["evict_2q"]
commands = ["graft install 2q"]
[workloads.loop]
commands = ["bcache reset {cache}", "%s"]
[collect]
monitor = ["bcache.reads", "bcache.hits", "bcache.misses"]
""" % LOOP


def rows(db, sql, args=()):
    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


def figures(db, sweep):
    out = {}
    for run_id, name, value in rows(db, "SELECT run_id, name, value FROM sweep_results "
                                        "WHERE sweep = ?", (sweep,)):
        out.setdefault(run_id, {})[name] = value
    return out


def statuses(db, sweep):
    return dict(rows(db, "SELECT run_id, status FROM sweep_runs WHERE sweep = ?", (sweep,)))


def plan_json(ctx, path):
    proc = scion("sweep", "plan", path, "--json")
    if proc.returncode != 0:
        ctx.result("plan-runs", False, proc.stderr.strip())
        return None
    return json.loads(proc.stdout)


def job_plan(ctx):
    """Expansion, indexes, exclusions, stable ids, and one-line errors."""
    d = workdir(ctx)
    body = ("[axes]\npolicy = [\"lru\", \"2q\"]\nworkload = [\"loop\"]\ncache = [16, 64]\n"
            "seed = [1, 2, 3]\n[[exclude]]\npolicy = \"2q\"\ncache = 64\nseed = [2, 3]\n"
            + POLICIES)
    path = sweep_file(ctx, d, "planned", body)
    plan = plan_json(ctx, path)
    if plan is None:
        return
    runs = plan["runs"]
    configs = [(r["config"]["policy"], r["config"]["cache"], r["config"]["seed"]) for r in runs]
    ctx.result("count", plan["count"] == 10 and plan["excluded"] == 2 and len(runs) == 10,
               f"{plan['count']} runs, {plan['excluded']} excluded; want 10 and 2")
    ctx.result("indexes", [r["index"] for r in runs] == list(range(len(runs))),
               f"indexes {[r['index'] for r in runs]}")
    ctx.result("order", configs[:4] == [("lru", 16, 1), ("lru", 16, 2), ("lru", 16, 3),
                                        ("lru", 64, 1)] and configs[-1] == ("2q", 64, 1),
               f"runs in the order {configs}")
    ctx.result("exclusions", ("2q", 64, 2) not in configs and ("2q", 64, 3) not in configs
               and ("lru", 64, 2) in configs, f"configurations {configs}")
    ids = [r["id"] for r in runs]
    ctx.result("ids-unique", len(set(ids)) == len(ids), f"ids {ids}")
    again = plan_json(ctx, path)
    ctx.result("ids-stable", again and [r["id"] for r in again["runs"]] == ids,
               "a second plan of the same file gave other ids")
    # Another loop length changes the runs of that workload, and only the ids.
    changed = plan_json(ctx, sweep_file(ctx, d, "planned", body.replace("n=200", "n=201")))
    ctx.result("ids-follow-configuration", changed and not set(ids) & {
        r["id"] for r in changed["runs"]}, "ids did not change with the workload's commands")
    bad = {
        "malformed": "[axes\nworkload = [",
        "unknown-axis": "[axes]\nworkload = [\"loop\"]\ncolour = [1, 2]\n" + POLICIES,
        "empty-product": "[axes]\nworkload = [\"loop\"]\ncache = [1]\n[[exclude]]\n"
                         "cache = 1\n" + POLICIES,
        "exclude-unknown-axis": "[axes]\nworkload = [\"loop\"]\ncache = [1]\n[[exclude]]\n"
                                "speed = 1\n" + POLICIES,
        "no-workload-table": "[axes]\nworkload = [\"scan\"]\ncache = [1]\n" + POLICIES,
        "empty-axis": "[axes]\nworkload = []\n" + POLICIES,
    }
    for name, text in bad.items():
        proc = scion("sweep", "plan", sweep_file(ctx, d, name, text))
        lines = proc.stderr.strip().splitlines()
        ctx.result(f"bad-{name}", proc.returncode == 2 and len(lines) == 1
                   and lines[0].startswith("scion: sweep: ") and not proc.stdout,
                   f"exit status {proc.returncode}, stderr {proc.stderr.strip()[:300]!r}")
    bad_d = sweep_file(ctx, d, "bad-d", "[axes]\nworkload = [\"loop\"]\ncache = [1]\n"
                       + POLICIES.replace("[collect]\n", "[collect]\nd = \"fbt::no_such:entry "
                                          "{ @ = count( }\"\n"))
    proc = scion("sweep", "run-one", bad_d, "--index", "0", "--db", os.path.join(d, "d.db"))
    row = rows(os.path.join(d, "d.db"), "SELECT status, attempts, error FROM sweep_runs")
    ctx.result("bad-d-program", proc.returncode == 1 and row and row[0][:2] == ("failed", 2)
               and row[0][2].startswith("[collect] d: dtc refused the program: "),
               f"exit status {proc.returncode}, {row}, {proc.stderr.strip()[-300:]}")
    proc = scion("sweep", "run-one", path, "--index", "10")
    ctx.result("bad-index", proc.returncode == 2 and "no run 10" in proc.stderr
               and "Traceback" not in proc.stderr, proc.stderr.strip()[:300])


def job_local(ctx):
    """A local sweep with a run whose QEMU goes away: the others finish, it is failed."""
    d = workdir(ctx)
    # The `poweroff` workload ends QEMU in the middle of the run, as a crash would.
    body = ("[axes]\npolicy = [\"lru\", \"2q\"]\nworkload = [\"loop\", \"crash\"]\n"
            "cache = [16]\nseed = [1, 2]\n[[exclude]]\nworkload = \"crash\"\npolicy = \"2q\"\n"
            "[[exclude]]\nworkload = \"crash\"\nseed = 2\n"
            + POLICIES.replace("[collect]\n", f"[collect]\nd = \"{D_READS}\"\n"
                               "record = \"bcache\"\nprofile = true\n")
            + "[workloads.crash]\ncommands = [\"poweroff\"]\n")
    path = sweep_file(ctx, d, "local", body)
    db = os.path.join(d, "local.db")
    proc = scion("sweep", "run", path, "-j", "2", "--db", db)
    ctx.result("run-exit-1-for-a-failure", proc.returncode == 1 and "4 done, 1 failed"
               in proc.stdout, f"exit status {proc.returncode}: {proc.stdout.strip()} "
               f"{proc.stderr.strip()[-400:]}")
    plan = plan_json(ctx, path)
    crash = next(r for r in plan["runs"] if r["config"]["workload"] == "crash")
    st = statuses(db, "local")
    ctx.result("all-recorded", len(st) == 5 and list(st.values()).count("done") == 4,
               f"statuses {st}")
    row = rows(db, "SELECT status, attempts, error, log_path, log_tail FROM sweep_runs "
               "WHERE run_id = ?", (crash["id"],))
    ok = (row and row[0][0] == "failed" and row[0][1] == 2 and "QEMU exited" in row[0][2]
          and os.path.isfile(row[0][3]) and "Scion shell" in (row[0][4] or ""))
    ctx.result("crash-failed-with-log", ok, f"the crashed run's row: {row}")
    tries = rows(db, "SELECT attempt, status FROM sweep_attempts WHERE run_id = ? "
                 "ORDER BY attempt", (crash["id"],))
    ctx.result("crash-retried-once", tries == [(1, "failed"), (2, "failed")], f"{tries}")
    figs = figures(db, "local")
    loops = [f for run_id, f in figs.items() if st.get(run_id) == "done"]
    ctx.result("figures", len(loops) == 4 and all(
        f["bcache.reads"] == LOOP_READS and f["bcache.hits"] + f["bcache.misses"] ==
        LOOP_READS for f in loops), f"figures {loops}")
    ctx.result("d-aggregations", len(loops) == 4 and all(
        f.get("d.@reads") == LOOP_READS and f.get("d.@by[0]") == LOOP_READS for f in loops),
        f"figures {loops}")
    records = [os.path.join(d, "local", "records", f"{r['index']}-{r['id']}")
               for r in plan["runs"] if r["config"]["workload"] == "loop"]
    metas = [os.path.join(r, "meta.json") for r in records]
    ctx.result("recordings", all(f.get("record.trace") == LOOP_READS for f in loops)
               and all(os.path.isfile(m) for m in metas), f"figures {loops}, files {metas}")
    profiles = rows(db, "SELECT c.complete, c.samples, m.name FROM sweep_runs r JOIN "
                    "collections c USING (collection_id) JOIN machines m USING (machine_id) "
                    "WHERE r.status = 'done'")
    ctx.result("profiles", len(profiles) == 4 and all(
        p[0] == 1 and p[1] > 0 and p[2].startswith("sweep local ") for p in profiles)
        and len({p[2] for p in profiles}) == 4, f"{profiles}")
    prov = rows(db, "SELECT DISTINCT git_commit, qemu_version, icount FROM sweep_runs")
    with open(row[0][3]) as f:
        argv = f.readline()
    ctx.result("provenance", len(prov) == 1 and len(prov[0][0]) >= 40 and "QEMU" in prov[0][1]
               and prov[0][2] == "shift=0,sleep=off" and "-icount shift=0,sleep=off" in argv,
               f"{prov}; {argv}")
    status = scion("sweep", "status", path, "--db", db, "--json")
    s = json.loads(status.stdout) if status.returncode == 0 else {}
    ctx.result("status", len(s.get("done", [])) == 4 and s.get("failed") == [crash["index"]]
               and not s.get("left"), f"{status.stdout.strip()[:400]} {status.stderr[:200]}")
    out = os.path.join(d, "report")
    rep = scion("sweep", "report", path, "--db", db, "--out", out)
    try:
        with open(os.path.join(out, "local.csv")) as f:
            table = list(csv.DictReader(f))
        with open(os.path.join(out, "local.html")) as f:
            page = f.read()
    except OSError as e:
        ctx.result("report", False, f"{e}; {rep.stderr.strip()}")
        return
    hits = {(r["policy"], r["figure"]): r for r in table if r["workload"] == "loop"}
    lru = hits.get(("lru", "bcache.hits"))
    lru_runs = {r[0] for r in rows(db, "SELECT run_id, config FROM sweep_runs")
                if json.loads(r[1])["policy"] == "lru" and st[r[0]] == "done"}
    want = [figs[run_id]["bcache.hits"] for run_id in lru_runs]
    ctx.result("report-csv", lru is not None and int(lru["n"]) == 2
               and abs(float(lru["mean"]) - sum(want) / len(want)) < 1e-9,
               f"lru row {lru}, hits of its runs {want}")
    plots = len({r["figure"] for r in table})
    ctx.result("report-html", page.count("<img") == plots == 7 and "Failed runs" in page
               and crash["id"] in page, f"{rep.stdout.strip()} ({len(page)} bytes)")


def job_icount(ctx):
    """One index run twice: identical instruction counts from the kernel's benchmarks."""
    d = workdir(ctx)
    path = sweep_file(ctx, d, "icount", "[axes]\nworkload = [\"bench\"]\n"
                      "[workloads.bench]\nbench = \"graft_*,dnlc\"\n")
    db = os.path.join(d, "icount.db")
    seen = []
    for force in ([], ["--force"]):
        proc = scion("sweep", "run-one", path, "--index", "0", "--db", db, *force)
        seen.append(figures(db, "icount"))
        ctx.result(f"run{len(seen)}", proc.returncode == 0 and proc.stdout.endswith("done\n"),
                   f"exit status {proc.returncode}: {proc.stdout.strip()} "
                   f"{proc.stderr.strip()[-300:]}")
    first = next(iter(seen[0].values()), {})
    ctx.result("identical-figures", len(first) >= 10 and seen[0] == seen[1],
               f"first {seen[0]}, second {seen[1]}")
    tries = rows(db, "SELECT COUNT(*) FROM sweep_attempts")
    ctx.result("two-attempts-recorded", tries == [(2,)], f"{tries}")
    # A run longer than the sweep's timeout is stopped, tried again, and failed.
    slow = sweep_file(ctx, d, "slow", "[axes]\nworkload = [\"long\"]\n[workloads.long]\n"
                      "commands = [\"bcache run random start=0 range=8000 n=1000000\"]\n",
                      timeout=SLOW_TIMEOUT)
    t0 = time.monotonic()
    proc = scion("sweep", "run-one", slow, "--index", "0", "--db", db)
    seconds = time.monotonic() - t0
    row = rows(db, "SELECT status, attempts, error FROM sweep_runs WHERE sweep = 'slow'")
    ctx.result("timeout", proc.returncode == 1 and row and row[0][:2] == ("failed", 2)
               and f"longer than its {SLOW_TIMEOUT} s" in row[0][2]
               and seconds < 2 * SLOW_TIMEOUT + 20, f"{row}, {seconds:.1f} s")


def group_members(pgid):
    """Live (not zombie) processes of a process group: [(pid, command)]."""
    out = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[2]) == pgid and fields[0] != "Z":
            out.append((int(pid), stat[stat.index("(") + 1:stat.rindex(")")]))
    return out


def job_resume(ctx):
    """SIGKILL a running sweep, resume it: no run done twice, none lost."""
    d = workdir(ctx)
    path = sweep_file(ctx, d, "resume", "[axes]\nworkload = [\"loop\"]\ncache = [16]\n"
                      "seed = [1, 2, 3, 4, 5, 6]\n" + POLICIES)
    db = os.path.join(d, "resume.db")
    proc = subprocess.Popen(SCION + ["sweep", "run", path, "-j", "1", "--db", db],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + 120
    before = {}
    while time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
        if os.path.exists(db):
            try:
                before = statuses(db, "resume")
            except sqlite3.Error:
                continue
            if len(before) >= 2:
                break
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    killed_ns = time.time_ns()
    before = statuses(db, "resume")
    time.sleep(0.5)
    left = group_members(proc.pid)
    ctx.result("killed-mid-sweep", 2 <= len(before) < 6 and not left,
               f"{len(before)} runs finished at the kill; processes left: {left}")
    again = scion("sweep", "run", path, "-j", "2", "--db", db)
    ctx.result("resumed", again.returncode == 0 and f"{len(before)} finished before"
               in again.stdout, f"{again.stdout.strip()} {again.stderr.strip()[-300:]}")
    after = statuses(db, "resume")
    ctx.result("none-lost", len(after) == 6 and set(after.values()) == {"done"}, f"{after}")
    done = rows(db, "SELECT run_id, COUNT(*) FROM sweep_attempts WHERE status = 'done' "
                "GROUP BY run_id")
    ctx.result("none-done-twice", len(done) == 6 and all(n == 1 for _, n in done), f"{done}")
    redone = rows(db, "SELECT run_id FROM sweep_attempts WHERE started_ns > ?", (killed_ns,))
    ctx.result("finished-not-rerun", not set(before) & {r[0] for r in redone},
               f"runs finished before the kill started again: {set(before) & set(redone)}")


def stored_figures(spec, sweep):
    """{run_id: {figure: value}} of a database of either kind, read as `sweep report` does."""
    with results.open_sweep_db(spec) as db:
        return {r["run_id"]: r["figures"] for r in results.runs(db, sweep)}


def job_slurm(ctx):
    """A sweep as one array job on a real single-node Slurm, its tasks writing to
    PostgreSQL, equals the same sweep run here into SQLite."""
    d = workdir(ctx)
    path = sweep_file(ctx, d, "slurm", "[axes]\npolicy = [\"lru\", \"2q\"]\n"
                      "workload = [\"loop\"]\ncache = [16, 32]\n" + POLICIES)
    local_db = os.path.join(d, "local.db")
    with contextlib.ExitStack() as stack:
        try:
            pg = stack.enter_context(PostgresServer())
            cluster = stack.enter_context(SlurmCluster())
        except (PostgresUnavailable, SlurmUnavailable) as e:
            ctx.result("servers", False, str(e))
            return
        slurm_db = pg.database("sweeps")
        sub = scion("sweep", "submit", path, "--slurm", "--max-parallel", "2", "--db", slurm_db,
                    env=cluster.env())
        ctx.result("submitted", sub.returncode == 0 and "array job" in sub.stdout,
                   f"{sub.stdout.strip()} {sub.stderr.strip()}")
        script = os.path.join(d, "slurm", "slurm.sbatch")
        with open(script) as f:
            ctx.result("array-script", "#SBATCH --array=0-3%2" in f.read(), script)
        seen_states, s = set(), {}
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            st = scion("sweep", "status", path, "--db", slurm_db, "--json", env=cluster.env())
            s = json.loads(st.stdout) if st.returncode == 0 else {}
            seen_states |= {k for k in ("running", "pending") if s.get(k)}
            if len(s.get("done", [])) + len(s.get("failed", [])) == 4:
                break
            time.sleep(1)
        ctx.result("array-finished", len(s.get("done", [])) == 4 and s.get("slurm_job")
                   and "squeue" in s.get("slurm_tools", []),
                   f"status {s}; {cluster.log_tail()}")
        ctx.result("status-saw-slurm", "running" in seen_states,
                   f"states seen from squeue: {seen_states}")
        outs = os.listdir(os.path.join(d, "slurm", "slurm"))
        ctx.result("task-outputs", sum(o.endswith(".out") for o in outs) == 4, f"{outs}")
        a = stored_figures(slurm_db, "slurm")
    local = scion("sweep", "run", path, "-j", "2", "--db", local_db)
    b = stored_figures(local_db, "slurm")
    ctx.result("same-as-local", local.returncode == 0 and len(a) == 4 and a == b,
               f"slurm {a}, local {b} ({local.stderr.strip()[-200:]})")
