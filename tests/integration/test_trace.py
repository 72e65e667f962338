# SPDX-License-Identifier: BSD-2-Clause
"""`scion trace`: D programs run on a booted Scion, their output compared
with expected files.

Every tests/trace/NAME.d runs as `scion trace -s NAME.d` against a guest
and must print exactly tests/trace/NAME.out on stdout (and NAME.err on
stderr when that file exists), and exit with status 0 unless it says
otherwise. Directives in the script's leading comments:

    /* run: GUEST COMMAND */      run it while tracing, then stop
    /* flags: -q -x bufsize=64 */ more scion trace arguments
    /* args: A B */               macro arguments $1 $2
    /* status: N */               the exit status expected
    /* smp: 2 */                  run on the two-CPU guest (default one CPU)
    /* graft: FILE NAME */        load build/grafts/FILE.graft, install NAME for
                                  the run, remove it afterwards

Output that changes from build to build (stack() frames, %a of a PC)
is checked against NAME.out.re instead of NAME.out: one Python regular
expression a line, each matching the whole of the corresponding line of
stdout, with as many lines as stdout has. Exact NAME.out files are the
default; use .out.re only where exact output cannot be expected.

SCION_TRACE_UPDATE=1 rewrites the expected files from what the runs
print (read the diff before committing it); it leaves NAME.out.re files
alone."""

import json
import os
import re
import shlex

from common import graft_path, poweroff
from test_channel import channel_boot, scion

DIRECTIVE = re.compile(r"^\s*/\*\s*(run|flags|args|status|smp|graft):\s*(.*?)\s*\*/\s*$")


def scripts(ctx):
    folder = os.path.join(ctx.root, "tests", "trace")
    return sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".d"))


def directives(path):
    found = {"run": None, "flags": "", "args": "", "status": "0", "smp": "1", "graft": None}
    with open(path) as f:
        for line in f:
            m = DIRECTIVE.match(line)
            if not m:
                break
            found[m[1]] = m[2]
    return found


def expected(path, suffix):
    try:
        with open(path[:-2] + suffix) as f:
            return f.read()
    except FileNotFoundError:
        return None


def lines_match(patterns, out):
    """out matches NAME.out.re's patterns: line for line, each in full."""
    want, got = patterns.splitlines(), out.splitlines()
    return len(want) == len(got) and all(re.fullmatch(w, g) for w, g in zip(want, got))


# dtrace's default record line: CPU (%3d), ID (%6d), FUNCTION:NAME; an error line's "(ID N: probe)".
RECORD_LINE = re.compile(r"^(\s*\d+) +(\d+)( +)(\S*):(\S+)(?= |$)", re.M)
ERROR_PROBE = re.compile(r"\(ID (\d+): ([^)]+)\)")


class ProbeNames:
    """Probe IDs of one guest to full names, from `scion probe list --json`
    (the PROBE_LIST op's records)."""

    def __init__(self, ctx, sock):
        self.ctx, self.sock, self.names = ctx, sock, {}

    def lookup(self, probe_id, spec):
        if probe_id not in self.names:
            rc, out, _ = scion(self.ctx, self.sock, "probe", "list", "--json", spec)
            for row in (json.loads(out) if rc == 0 else []):
                self.names[row["id"]] = row["probe"]
        return self.names.get(probe_id, f"unknown-{probe_id}")

    def canonical(self, text):
        """text with each probe ID written as {id:PROBE} (the widths dtrace pads with kept out)."""
        def record(m):
            name = self.lookup(int(m[2]), f"*:*:{m[4]}:{m[5]}")
            return f"{m[1]} {{id:{name}}}{m[3]}{m[4]}:{m[5]}"
        def error(m):
            return f"(ID {{id:{self.lookup(int(m[1]), m[2])}}}: {m[2]})"
        return ERROR_PROBE.sub(error, RECORD_LINE.sub(record, text))


# A consumer's drop report: "dtrace: 36 dynamic variable drops", "dtrace: 38 drops on CPU 0".
DROP_REPORT = re.compile(r"^dtrace: (\d+) (.*drops?\b.*)$")


def sum_drop_reports(err):
    """err with each kind of drop reported once, as its total, where the
    first report of that kind stood: dtrace reports drops per poll of the
    buffers, and where the polls fall in a run is timing, the total is not."""
    lines, totals = [], {}
    for line in err.splitlines(keepends=True):
        m = DROP_REPORT.match(line.rstrip("\n"))
        if not m:
            lines.append(line)
            continue
        kind = re.sub(r"\bdrop\b", "drops", m[2])
        if kind not in totals:
            lines.append(kind)
            totals[kind] = 0
        totals[kind] += int(m[1])
    def report(kind):
        n = totals[kind]
        words = re.sub(r"\bdrops\b", "drop", kind) if n == 1 else kind
        return f"dtrace: {n} {words}\n"
    return "".join(report(line) if line in totals else line for line in lines)


# `graft points` rows: name, kind, installed count, budget in us.
POINT_ROW = re.compile(r"^(\S+)\s+(?:method|event)\s+(\d+)\s+(\d+) us", re.M)


def widen_budgets(ctx, sock):
    """Give the points with grafts installed a budget of 1 s for the run:
    the budget is guest time, which under TCG passes with the host's, so a
    loaded host could abort a graft the script expects to commit. Returns
    the budgets to restore."""
    rc, out, _ = scion(ctx, sock, "shell", "graft", "points")
    budgets = {m[1]: m[3] for m in POINT_ROW.finditer(out) if int(m[2]) > 0}
    for point in budgets:
        scion(ctx, sock, "shell", "graft", "budget", point, "1000000")
    return budgets


def run_scripts(ctx, smp):
    chosen = [p for p in scripts(ctx) if directives(p)["smp"] == str(smp)]
    if not chosen:
        return
    boot, sock = channel_boot(ctx, f"trace-smp{smp}", smp=smp, single_thread_tcg=True)
    update = os.environ.get("SCION_TRACE_UPDATE") == "1"
    probes = ProbeNames(ctx, sock)
    try:
        for path in chosen:
            d = directives(path)
            name = os.path.basename(path)[:-2]
            argv = ["trace", *shlex.split(d["flags"]), "-s", path]
            if d["run"]:
                argv += ["--run", d["run"]]
            argv += shlex.split(d["args"])
            graft = d["graft"].split() if d["graft"] else None
            if graft:
                scion(ctx, sock, "graft", "load", graft_path(ctx, graft[0]))
                scion(ctx, sock, "graft", "install", graft[1])
                budgets = widen_budgets(ctx, sock)
            rc, out, err = scion(ctx, sock, *argv, timeout=120)
            if graft:
                scion(ctx, sock, "graft", "remove", graft[1])
                for point, us in budgets.items():
                    scion(ctx, sock, "shell", "graft", "budget", point, us)
            # The script's path as the harness gave it: the expected files name it relatively.
            err = err.replace(path, f"tests/trace/{name}.d")
            out, err = probes.canonical(out), sum_drop_reports(probes.canonical(err))
            want_out, want_err = expected(path, ".out"), expected(path, ".err")
            want_re = expected(path, ".out.re")
            if update and want_re is None:
                with open(path[:-2] + ".out", "w") as f:
                    f.write(out)
                if err or want_err is not None:
                    with open(path[:-2] + ".err", "w") as f:
                        f.write(err)
                want_out, want_err = out, err if (err or want_err is not None) else None
            elif update and (err or want_err is not None):
                with open(path[:-2] + ".err", "w") as f:
                    f.write(err)
                want_err = err
            out_ok = lines_match(want_re, out) if want_re is not None else out == want_out
            if want_re is not None:
                want_out = want_re
            ok = (rc == int(d["status"]) and out_ok and
                  (want_err is None or err == want_err))
            ctx.result(name, ok, f"exit {rc} (want {d['status']})\n--- stdout\n{out}"
                       f"--- expected\n{want_out}--- stderr\n{err}"[:3000])
        rc, out, err = scion(ctx, sock, "text", "verify")
        ctx.result("text-restored", rc == 0, out + err)
    finally:
        poweroff(ctx, boot)


def job_trace_one_cpu(ctx):
    run_scripts(ctx, 1)


def job_trace_two_cpus(ctx):
    run_scripts(ctx, 2)


def job_trace_hostile_objects(ctx):
    """Corrupt trace objects sent straight to TRACE_START: each is refused
    with one line or, when the corruption still makes a valid object,
    runs and closes; the kernel keeps running and its text is intact."""
    import json
    import random
    import subprocess
    from scionhost import frame, trace
    from scionhost.client import Client

    src = ("BEGIN { x = 1; self->y = 2; a[1, \"k\"] = 3; @c[probefunc] = count(); "
           "@q = quantize(x); printf(\"%d %s\\n\", x + self->y, strjoin(\"a\", \"b\")); } "
           "fbt::bcache_read:entry /arg0 > 5/ { @l = lquantize(arg0, 0, 100, 10); trace(arg0); "
           "@w = quantize(arg0, 3); @lw = lquantize(arg0, 0, 100, 10, arg0); }")
    dtc = os.path.join(ctx.build, "host", "dtc")
    meta = json.loads(subprocess.run([dtc, "-n", src], capture_output=True, text=True,
                                     check=True).stdout)
    good = bytes.fromhex(meta["object_hex"])
    rng = random.Random(7)
    cases = [b"", b"\0" * 8, good[:4], good[:len(good) // 2], good[:-1], good + b"\0",
             b"XDOF" + good[4:], good[:4] + b"\x09\x00" + good[6:]]
    for _ in range(150):
        data = bytearray(good)
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        cases.append(bytes(data))
    boot, sock = channel_boot(ctx, "trace-hostile", smp=2, single_thread_tcg=True)
    try:
        refused = started = 0
        bad_lines = []
        with Client(sock, timeout=60, wait=60) as client:
            for data in cases:
                body = trace.START_REQUEST.pack(bufsize=0, switch_ms=100) + data
                status, reply = client.request(frame.OP_TRACE_START, body)
                if status < 0:
                    refused += 1
                    text = reply.decode("utf-8", "replace")
                    if "\n" in text.strip() or not text.startswith("trace start: "):
                        bad_lines.append(text)
                    continue
                started += 1
                stream = trace.START_REPLY.unpack(reply)["stream"]
                client.watch_stream(stream, lambda *a: None)
                client.stream_close(stream)
        ctx.result("corrupt-objects-refused-with-one-line",
                   refused >= 100 and not bad_lines,
                   f"{refused} refused, {started} ran; malformed answers: {bad_lines[:3]}")
        rc, out, err = scion(ctx, sock, "trace", "-q", "-n",
                             'BEGIN { printf("still tracing\\n"); exit(0); }')
        ctx.result("traces-afterwards", rc == 0 and out.strip() == "still tracing", out + err)
        rc, out, err = scion(ctx, sock, "text", "verify")
        ctx.result("text-restored", rc == 0, out + err)
    finally:
        poweroff(ctx, boot)
