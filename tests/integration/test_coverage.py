# SPDX-License-Identifier: BSD-2-Clause
"""`scion coverage` (host/scionhost/coverage.py, kernel/coverage/): on the CFG
fixtures, whose blocks are known (tests/kernel/cfg_fixtures.S), a scripted
input (`cfgfix cfg_fix_returns 2`) reaches exactly its blocks: the lcov
tracefile counts exactly the fixture's source lines of those blocks and
none of the others, the function entries (FN/FNDA) are right, Debian's
genhtml renders the file, and `text verify` finds the text as booted.
Bad requests get one line each and leave no run on: a glob that matches
nothing, a second start while one is on, a stop with none on, a start
with a NUL in it. Then every function of the kernel (`kernel`) while a
block-cache workload runs: most blocks armed, the splices of the blocks
reached taken out while the workload still runs (reaps), the workload's
own functions reached, the text as booted afterwards."""

import json
import os
import re
import subprocess
import tempfile

from common import poweroff
from test_channel import channel_boot, scion
from scionhost import frame
from scionhost.client import Client

FIXTURES = os.path.join("tests", "kernel", "cfg_fixtures.S")
# cfg_fix_returns's ten instructions after its label, and which of them
# cfg_fix_returns(2) runs: x == 1?, x == 2?, then "return 2".
RETURNS_RUN = [True, True, True, True, False, False, False, False, True, True]


def fixture_lines(root, label, count):
    """The source lines of the count instructions after label: in cfg_fixtures.S."""
    lines = open(os.path.join(root, FIXTURES)).read().split("\n")
    at = lines.index(f"{label}:") + 2              # 1-based number of the first instruction
    return list(range(at, at + count))


def parse_tracefile(text):
    """{path: {"DA": {line: count}, "FN": {name: line}, "FNDA": {name: count}}}."""
    files, cur = {}, None
    for line in text.splitlines():
        if line.startswith("SF:"):
            cur = files.setdefault(line[3:], {"DA": {}, "FN": {}, "FNDA": {}})
        elif line.startswith("DA:"):
            n, c = line[3:].split(",")[:2]
            cur["DA"][int(n)] = int(c)
        elif line.startswith("FN:"):
            n, name = line[3:].split(",", 1)
            cur["FN"][name] = int(n)
        elif line.startswith("FNDA:"):
            c, name = line[5:].split(",", 1)
            cur["FNDA"][name] = int(c)
    return files


def check_text(ctx, boot, name):
    """`text verify`: every splice gone, the text byte for byte as booted."""
    m = boot.command("text verify", r"text: (identical|\d+ ranges? differ)", timeout=120)
    ctx.result(name, m.group(1) == "identical", f"text verify: {m.group(0)}")


def check_fixtures(ctx, boot, sock, tmp):
    info = os.path.join(tmp, "fixtures.info")
    rc, out, err = scion(ctx, sock, "coverage", "cfg_fix_returns", "cfg_fix_loop", "--run",
                         "cfgfix cfg_fix_returns 2", "-o", info, "--json",
                         env={"SCION_KSYMS": ctx.ksyms}, timeout=180)
    ctx.result("fixtures-run", rc == 0, f"exit {rc}: {out}{err}")
    if rc:
        return
    summary = json.loads(out)
    ctx.result("fixtures-summary", (summary["functions"], summary["blocks"], summary["hit"],
                                    summary["missed"], summary["unprobed"], summary["running"])
               == (2, 8, 3, 5, 0, 0), f"summary {summary}")
    ctx.result("fixtures-workload-ran", "cfgfix: 2" in err, f"stderr: {err}")
    files = parse_tracefile(open(info).read())
    source = os.path.normpath(os.path.join(ctx.root, FIXTURES))
    got = files.get(source)
    ctx.result("fixtures-source-file", got is not None, f"files {sorted(files)}")
    if not got:
        return
    returns = fixture_lines(ctx.root, "cfg_fix_returns", len(RETURNS_RUN))
    loop = fixture_lines(ctx.root, "cfg_fix_loop", 7)
    want = {line: ran for line, ran in zip(returns, RETURNS_RUN)}
    want.update({line: False for line in loop})
    seen = {line: count > 0 for line, count in got["DA"].items()}
    ctx.result("fixtures-exact-lines", seen == want,
               f"lines reached {sorted(l for l, r in seen.items() if r)}, want "
               f"{sorted(l for l, r in want.items() if r)}; lines listed {sorted(seen)}, "
               f"want {sorted(want)}")
    ctx.result("fixtures-functions",
               got["FN"] == {"cfg_fix_returns": returns[0], "cfg_fix_loop": loop[0]} and
               got["FNDA"].get("cfg_fix_returns", 0) >= 1 and got["FNDA"].get("cfg_fix_loop") == 0,
               f"FN {got['FN']} FNDA {got['FNDA']}")
    html = os.path.join(tmp, "html")
    p = subprocess.run(["genhtml", "-q", "-o", html, info], capture_output=True, text=True,
                       timeout=120)
    ctx.result("fixtures-genhtml", p.returncode == 0 and
               os.path.exists(os.path.join(html, "index.html")),
               f"genhtml exit {p.returncode}: {p.stdout}{p.stderr}")
    check_text(ctx, boot, "fixtures-text-verify")


def check_bad_requests(ctx, sock, tmp):
    rc, out, err = scion(ctx, sock, "coverage", "no_such_function_*", "-o",
                         os.path.join(tmp, "none.info"), env={"SCION_KSYMS": ctx.ksyms})
    ctx.result("bad-glob", rc == 1 and err.strip() == "scion: coverage start: no kernel "
               "function matches", f"exit {rc}: {out}{err}")
    with Client(sock, timeout=120) as client:
        answers = [client.request(frame.OP_COVERAGE_START, b"cfg_fix_loop"),
                   client.request(frame.OP_COVERAGE_START, b"cfg_fix_loop"),
                   client.request(frame.OP_COVERAGE_STOP, b""),
                   client.request(frame.OP_COVERAGE_STOP, b""),
                   client.request(frame.OP_COVERAGE_START, b"cfg_fix\0loop"),
                   client.request(frame.OP_COVERAGE_START, b""),
                   client.request(frame.OP_COVERAGE_STOP, b"x")]
    statuses = [status for status, _ in answers]
    texts = [body.decode("utf-8", "replace") for _, body in answers]
    ctx.result("bad-requests", statuses[0] == 0 and statuses[2] == 0 and
               all(s < 0 for k, s in enumerate(statuses) if k not in (0, 2)) and
               "a coverage run is on" in texts[1] and "no coverage run is on" in texts[3] and
               "a NUL" in texts[4] and
               all("\n" not in t.strip() for t, s in zip(texts, statuses) if s < 0),
               f"statuses {statuses}, texts {texts}")


def check_whole_kernel(ctx, boot, sock, tmp):
    info = os.path.join(tmp, "kernel.info")
    rc, out, err = scion(ctx, sock, "coverage", "kernel", "--run", "bcache run seq n=200",
                         "-o", info, "--json", env={"SCION_KSYMS": ctx.ksyms}, timeout=900)
    ctx.result("kernel-run", rc == 0, f"exit {rc}: {out}{err}")
    if rc:
        return
    s = json.loads(out)
    ctx.result("kernel-armed", s["functions"] > 1000 and s["armed_at_start"] > s["blocks"] // 2
               and s["hit"] + s["missed"] + s["unprobed"] == s["blocks"],
               f"summary {s}")
    ctx.result("kernel-reaped", s["reaps"] >= 1 and s["hit"] > 100, f"summary {s}")
    files = parse_tracefile(open(info).read())
    reached = {name for f in files.values() for name, count in f["FNDA"].items() if count}
    bcache = sorted(name for name in reached if name.startswith("bcache_"))
    ctx.result("kernel-workload-functions", "bcache_read" in reached and len(bcache) >= 3,
               f"{len(reached)} functions reached; of the block cache's: {bcache}")
    check_text(ctx, boot, "kernel-text-verify")


def job_coverage(ctx):
    boot, sock = channel_boot(ctx, "coverage", single_thread_tcg=True)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            check_fixtures(ctx, boot, sock, tmp)
            check_bad_requests(ctx, sock, tmp)
            check_whole_kernel(ctx, boot, sock, tmp)
    finally:
        poweroff(ctx, boot)
