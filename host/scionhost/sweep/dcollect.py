# SPDX-License-Identifier: BSD-2-Clause
"""A sweep's D program ([collect] d = "..."): compiled by dtc against the
run's kernel (its kernel.syms and kernel.ctf beside the kernel image),
enabled over the control channel for the workload (TRACE_START, as
`scion trace` does), and its aggregations read at the end as figures.

The consumer is `scion trace -x oformat=json`'s (djson.py), so the
values are the ones dtrace would print; each aggregation entry with one
value (count, sum, min, max, avg, stddev) is the figure
"d.@NAME[KEY,...]" ("d.@NAME" without keys). Quantizations have no
single value and are left out. A program dtc refuses fails the run with
dtc's first line.
"""

import contextlib
import io
import json
import os
import types

from .. import trace
from ..djson import JsonConsumer

SWITCH_MS = 100


class DError(Exception):
    """dtc refused the program: its first line."""


def options():
    return types.SimpleNamespace(cpp=False, x=["oformat=json"], quiet=True, macro_args=[],
                                 switch_ms=SWITCH_MS)


def compile_program(program, kernel):
    """dtc's JSON for program against kernel's symbols and types (beside it)."""
    os.environ["SCION_KSYMS"] = os.path.join(os.path.dirname(kernel), "kernel.syms")
    said = io.StringIO()
    try:
        with contextlib.redirect_stderr(said):
            return trace.run_dtc(options(), program, None, [])
    except SystemExit:
        lines = said.getvalue().strip().splitlines()
        raise DError("[collect] d: dtc refused the program: "
                     + (lines[0] if lines else "no message")) from None


class Session:
    """The program enabled on a client until stop(), which returns its figures."""

    def __init__(self, client, meta):
        self.client, self.meta = client, meta
        self.snaps = trace.Snapshots()
        self.stream, _, self.epids = trace.start(client, meta, options(), self.snaps.on_chunk)

    def stop(self):
        self.client.stream_close(self.stream)
        out = io.StringIO()
        consumer = JsonConsumer(self.meta, self.epids, lambda pid: ("?", "?", "?", str(pid)),
                                lambda addr, return_address=False: None, out, io.StringIO(),
                                True)
        for records, aggs, status in self.snaps.take():
            consumer.snapshot(records, aggs, status)
        consumer.finish()
        figures = {}
        for line in out.getvalue().splitlines():
            entry = json.loads(line)
            if entry.get("type") != "aggregation" or "value" not in entry:
                continue
            keys = ",".join(str(k) for k in entry["keys"])
            figures[f"d.{entry['name']}" + (f"[{keys}]" if keys else "")] = entry["value"]
        return figures
