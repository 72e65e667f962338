# SPDX-License-Identifier: BSD-2-Clause
"""The tracing part of `make bench`: what one firing of a D program costs.

One boot under -icount shift=0,sleep=off with the control channel. The
guest's `bench trace_pf_sum` prints the guest instructions one call of
pf_sum (tests/kernel/probe_fixture.S) takes, the least of 5 rounds of 1000
calls. It runs once with nothing enabled and once under each D program
below, each enabled on fbt:kernel:pf_sum:entry by `scion trace` as a user
runs it; the difference is the cost of one firing: the jump probe, the
trace consumer, the predicate and actions, the buffer or aggregation
write. The in-kernel `bench probe_hit` of the same boot gives the probe
alone (an empty handler), so the tracing framework's own share can be read
off beside it."""

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "qemu"))
import harness  # noqa: E402

PROBE = "fbt:kernel:pf_sum:entry"
# (figure, D program): the enablings the issue names. pf_sum is called as
# pf_sum(i, 1), so the predicate arg1 == 2 never holds.
PROGRAMS = [
    ("trace.firing.no_actions", PROBE + " {}"),
    ("trace.firing.failing_predicate", PROBE + " /arg1 == 2/ { trace(arg0); }"),
    ("trace.firing.trace_timestamp", PROBE + " { trace(timestamp); }"),
    ("trace.firing.count_by_probefunc", PROBE + " { @[probefunc] = count(); }"),
    ("trace.firing.quantize_arg0", PROBE + " { @ = quantize(arg0); }"),
]
# 5000 firings of 24-byte records fit in one buffer: nothing is dropped.
TRACE_FLAGS = ["-q", "-x", "bufsize=128k"]
CALL = re.compile(r"^bench trace\.pf_sum\.call (\d+) cycles$", re.M)
FIGURE = re.compile(r"^bench (\S+) (\d+) (\S+)$", re.M)

# Published per-event costs of other tracers (results.json "published").
PUBLISHED = [{
    "system": "Linux kernel tracers (Gebai and Dagenais, 'Benchmarking and comparison of "
              "kernel and userspace tracers', 2016; ACM Computing Surveys 51(2), 2018)",
    "source": "https://www.slideshare.net/MohamadGebai/presentation-63013639 (slide 6)",
    "unit": "ns per event, average, 32-byte payload, Intel i7 3.40 GHz, Linux 4.5",
    "figures": {"no tracer (baseline)": 17, "LTTng": 92, "ftrace": 118, "perf": 120,
                "LTTng kprobe": 122},
}, {
    "system": "ftrace tracepoint benchmark (Linux CONFIG_TRACEPOINT_BENCHMARK, help text)",
    "source": "https://cateee.net/lkddb/web-lkddb/TRACEPOINT_BENCHMARK.html",
    "unit": "ns per event, hot cache, 128-byte string payload",
    "figures": {"min": 273, "avg": 288},
}]


def scion(sock, *args, timeout=300):
    argv = [sys.executable, os.path.join(ROOT, "host", "scion"), "--socket", sock, *args]
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout)


def call_cost(sock, program=None):
    """Guest instructions per call of pf_sum, with program enabled (or nothing)."""
    if program is None:
        r = scion(sock, "shell", "bench", "trace_pf_sum")
    else:
        r = scion(sock, "trace", *TRACE_FLAGS, "-n", program, "--run", "bench trace_pf_sum",
                  "--show-run")
    m = CALL.search(r.stdout)
    if r.returncode != 0 or not m:
        sys.exit(f"bench: trace benchmark failed ({program or 'nothing enabled'}): "
                 f"exit {r.returncode}: {r.stdout[-500:]}{r.stderr[-500:]}")
    return int(m[1])


def trace_bench(kernel, out_dir):
    sock = os.path.join(out_dir, "bench-trace.sock")
    boot = harness.Boot("bench-trace", out_dir, kernel=kernel, smp=1, icount=True,
                        timeout=900, control_socket=sock)
    figures = []
    try:
        boot.wait_for(r"scion> ")
        boot.wait_for(r"channel: control channel on COM2")
        base = call_cost(sock)
        figures.append({"figure": "trace.pf_sum.call_unprobed", "value": base,
                        "unit": "guest instructions"})
        for name, program in PROGRAMS:
            cost = call_cost(sock, program)
            figures.append({"figure": name, "value": cost - base,
                            "unit": "guest instructions per firing", "program": program})
        probe = scion(sock, "shell", "bench", "probe_hit")
        for fig, value, unit in FIGURE.findall(probe.stdout):
            if fig == "probe.hit.jump_empty_handler":
                figures.append({"figure": fig, "value": int(value),
                                "unit": "guest instructions per firing"})
        boot.command("poweroff", r"powering off")
    finally:
        boot.finish()
    return {
        "config": {"name": "trace", "smp": 1, "mem": "256M", "accel": "tcg, single-threaded "
                   "(implied by icount)", "icount": "shift=0,sleep=off",
                   "probe": PROBE + " (jump probe)", "calls": "best of 5 rounds of 1000",
                   "scion_trace_flags": " ".join(TRACE_FLAGS)},
        "figures": figures,
        "published": PUBLISHED,
        "log": os.path.relpath(boot.log_path, ROOT),
    }


def print_trace(result):
    print(f"\ntracing: guest instructions one firing adds ({result['config']['probe']}):")
    for fig in result["figures"]:
        what = fig.get("program", "")
        print(f"  {fig['figure']:36} {fig['value']:>8}  {what}")
    for p in result["published"]:
        print(f"{p['system']}, {p['unit']}:")
        print("  " + ", ".join(f"{k} {v}" for k, v in p["figures"].items()))
    print("(published figures are nanoseconds on real hardware; ours are guest instructions, "
          "roughly 1 to 3 per cycle on a modern core)")
