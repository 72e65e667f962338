# SPDX-License-Identifier: BSD-2-Clause
"""Aggregation space (kernel/trace/session.c, aggbuf.c, kernel/mm/vbuf.c):
the default holds a quantize() per kernel function without drops; an
aggsize larger than the old 1 MiB ceiling is taken (and past the 4 MiB
a physical block holds); one larger than memory allows is refused with
one line naming the largest that fits, and the kernel goes on; drops are
still reported when a buffer does fill."""

import re

from common import poweroff
from test_channel import channel_boot, scion

PER_FUNCTION = "fbt:::return { @[probefunc] = quantize(1); } tick-1s { exit(0); }"


def job_aggregation_space(ctx):
    boot, sock = channel_boot(ctx, "aggsize", smp=2, single_thread_tcg=True)
    try:
        rc, out, err = scion(ctx, sock, "trace", "-q", "-n", PER_FUNCTION, timeout=300)
        rows = len(re.findall(r"Distribution", out))
        ctx.result("quantize-per-function-no-drops", rc == 0 and rows > 20 and "drop" not in err,
                   f"exit {rc}, {rows} functions\n{err}")

        rc, out, err = scion(ctx, sock, "trace", "-q", "-x", "aggsize=16m", "-n",
                             "BEGIN { @[\"a\"] = count(); exit(0); }", timeout=120)
        ctx.result("aggsize-16m-taken", rc == 0 and re.search(r"^\s+a\s+1$", out, re.M) and
                   "lowered" not in err, f"exit {rc}\n{out}{err}")

        rc, out, err = scion(ctx, sock, "trace", "-q", "-x", "aggsize=512m", "-n",
                             "BEGIN { @[\"a\"] = count(); exit(0); }", timeout=120)
        m = re.search(r"trace start: aggsize=524288k needs \d+ MiB for 2 CPUs .*; \d+ MiB of "
                      r"memory are spare: at most aggsize=(\d+)k fits", err)
        ctx.result("aggsize-past-memory-refused", rc != 0 and m is not None and
                   err.count("\n") == 1, f"exit {rc}\n{err}")
        if m:
            fits = m.group(1)
            rc, out, err = scion(ctx, sock, "trace", "-q", "-x", f"aggsize={fits}k", "-n",
                                 "BEGIN { @[\"a\"] = count(); exit(0); }", timeout=120)
            ctx.result("what-fits-is-taken", rc == 0 and "a" in out, f"exit {rc}\n{out}{err}")

        # A small buffer still fills and says so.
        rc, out, err = scion(ctx, sock, "trace", "-q", "-x", "aggsize=4k", "-n",
                             "fbt:::entry { @[probefunc] = count(); } tick-100ms { exit(0); }",
                             timeout=120)
        ctx.result("drops-reported", rc == 0 and re.search(r"dtrace: \d+ aggregation drops?", err),
                   f"exit {rc}\n{err}")
        rc, out, err = scion(ctx, sock, "shell", "testpoint", "2", "40")
        ctx.result("kernel-fine", "= 42" in out, out + err)
    finally:
        poweroff(ctx, boot)
