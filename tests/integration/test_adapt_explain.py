# SPDX-License-Identifier: BSD-2-Clause
"""The adaptation loop's decisions as data (kernel/adapt/decisions.c, the
ADAPT_DECISIONS and ADAPT_ROWS ops) and `scion adapt explain N`, which
replays a decision's simulations on the host from its recording.

The workload and grafts are test_adapt.py's (2q, clock, bad-victim on 32
buffers, hot set and scans alternating) with the loop in dry-run. What is
asserted:
- `scion adapt decisions --json` lists the decision the log names, with
  its recording, the flag's ratio under the rule, "would-install" 2q;
- its rows are every candidate (lru, 2q, clock, bad-victim) and both
  optima, and bad-victim's row has aborts;
- `scion adapt explain N --json` downloads the recording, replays every
  row on the host simulator and finds the same hits, misses, requests and
  aborts for every row (exit 0), and its text table says so;
- a host simulator that disagrees on one row gets that row marked and
  exit status 1; no simulator, one line;
- the channel's events have one per decision's outcome;
- bad input is one line `scion: ...` and a nonzero exit: a decision not
  kept (9999), not a number (abc), its recording deleted from the store."""

import json
import os
import re

from common import graft_path, poweroff
from test_adapt import GRAFTS, Driver, cmd
from test_channel import channel_boot, scion


def job_explain(ctx):
    boot, sock = channel_boot(ctx, "explain", smp=2, single_thread_tcg=True,
                              modules=[graft_path(ctx, n) for n in GRAFTS])
    try:
        cmd(boot, "bcache reset 32")
        cmd(boot, "adapt rule bcache.hit_ratio < 0.60 for 1s")
        cmd(boot, "adapt tune min-reads=50 watch-reads=1000 dwell-ms=500")
        d = Driver(boot)
        start = len(boot.output)
        cmd(boot, "adapt dry-run")
        m = d.until(r"adapt: #(\d+) decide: dry-run: would install (\S+)", start, seconds=30)
        ctx.result("dry-run-decides", m is not None, boot.output[start:][-3000:])
        cmd(boot, "adapt off")
        n = int(m[1]) if m else 1

        rc, out, err = scion(ctx, sock, "adapt", "decisions", "--json")
        listed = json.loads(out) if rc == 0 else []
        mine = [x for x in listed if x["decision"] == n]
        dec = mine[0] if mine else {}
        ctx.result("decisions-list", rc == 0 and dec.get("outcome") == "would-install" and
                   dec.get("chosen") == "2q" and
                   re.fullmatch(r"rec\d+", dec.get("recording") or "") is not None and
                   dec.get("threshold") == "0.600" and dec.get("ratio", "1") < "0.600" and
                   dec.get("reason") == "beats the live policy by the margin",
                   f"exit {rc}: {out}{err}")
        rc_text, text_out, err_text = scion(ctx, sock, "adapt", "decisions")
        ctx.result("decisions-text", rc_text == 0 and
                   re.search(rf"^\s*{n}\s.*would-install\s+2q", text_out, re.M) is not None,
                   text_out + err_text)

        rc, out, err = scion(ctx, sock, "adapt", "explain", str(n), "--json", timeout=300)
        got = json.loads(out) if out.strip().startswith("{") else {}
        rows = got.get("rows", [])
        policies = {r["policy"]: r for r in rows}
        want = ["evict=lru ", "evict=2q ", "evict=clock ", "evict=bad-victim ", "evict=min "]
        ctx.result("rows-every-candidate-and-optimum",
                   all(any(p.startswith(w) for p in policies) for w in want) and
                   sum(1 for r in rows if r["role"] == "optimum") == 2 and
                   rows and rows[0]["role"] == "live", json.dumps(rows, indent=1)[:3000])
        bad = [r for r in rows if r["policy"].startswith("evict=bad-victim ")]
        ctx.result("bad-victim-aborts", bad and bad[0]["aborts"] > 0 and
                   bad[0]["host"]["aborts"] == bad[0]["aborts"], repr(bad))
        same = [(r["policy"], all(r[k] == r["host"][k] for k in
                                  ("hits", "misses", "requests", "aborts"))) for r in rows]
        ctx.result("host-table-equals-kernel", rc == 0 and rows and all(s for _, s in same) and
                   got.get("same") is True, f"exit {rc}: {err}\n{json.dumps(rows)[:3000]}")
        ctx.result("requests-are-the-recordings", rows and
                   all(r["requests"] == dec.get("requests") for r in rows),
                   f"{dec.get('requests')}: {[r['requests'] for r in rows]}")

        rc, out, err = scion(ctx, sock, "adapt", "explain", str(n), timeout=300)
        lines = out.splitlines()
        ctx.result("explain-text", rc == 0 and
                   f"{len(rows)} of {len(rows)} rows the same on the host" in out and
                   not any(l.startswith("*") for l in lines), out + err)

        # A host simulator that disagrees (2q's hits changed): the row marked, exit 1.
        fake = os.path.join(ctx.log_dir, f"{ctx.job}-fake-sim")
        with open(fake, "w") as f:
            f.write("#!/bin/sh\n"
                    f"'{os.path.join(ctx.build, 'host', 'scion-sim')}' \"$@\" | "
                    "sed -E 's/^(evict=2q readahead=[a-z]+ +)[0-9]+/\\1 1/'\n")
        os.chmod(fake, 0o755)
        rc, out, err = scion(ctx, sock, "adapt", "explain", str(n), env={"SCION_SIM": fake},
                             timeout=300)
        marked = [l for l in out.splitlines() if l.startswith("*")]
        ctx.result("difference-marked-exit-1", rc == 1 and len(marked) == 1 and
                   "evict=2q " in marked[0] and "1 differ (marked *)" in out, out + err)
        rc, out, err = scion(ctx, sock, "adapt", "explain", str(n),
                             env={"SCION_SIM": os.path.join(ctx.log_dir, "no-such-sim")})
        ctx.result("no-simulator-one-line", rc == 1 and not out and
                   re.fullmatch(r"scion: adapt explain: \S+no-such-sim: no simulator; .*\n", err)
                   is not None, f"exit {rc}: {out}{err}")

        # The channel's events: one per decision's outcome.
        rc, out, err = scion(ctx, sock, "events")
        ctx.result("event-per-decision", rc == 0 and re.search(
            rf"adapt: decision {n} would-install 2q \(\d+ rows\)", out) is not None, out + err)

        for arg, pattern in (("9999", r"scion: adapt explain: no decision 9999: decisions "
                                      r"\d+ to \d+ are kept"),
                             ("abc", r"scion: adapt explain: 'abc' is not a decision number")):
            rc, out, err = scion(ctx, sock, "adapt", "explain", arg)
            ctx.result(f"bad-input-{arg}", rc != 0 and not out and
                       len(err.strip().splitlines()) == 1 and re.match(pattern, err),
                       f"exit {rc}: {out}{err}")

        # The recording gone from the store: one line.
        rec = dec.get("recording") or "rec0"
        cmd(boot, f"record delete {rec}")
        rc, out, err = scion(ctx, sock, "adapt", "explain", str(n))
        ctx.result("recording-gone-one-line", rc == 1 and not out and
                   len(err.strip().splitlines()) == 1 and
                   err.startswith(f"scion: adapt explain: {rec} cannot be read from the "
                                  "kernel's store"), f"exit {rc}: {out}{err}")
    finally:
        poweroff(ctx, boot)
