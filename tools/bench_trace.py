# SPDX-License-Identifier: BSD-2-Clause
"""The tracing part of `make bench`: what one firing of a D program costs.

One boot under -icount shift=0,sleep=off with the control channel. The
kernel's benchmark trace_pf_sum measures the guest instructions one call
of pf_sum (tests/kernel/probe_fixture.S) takes, the least of 5 rounds of
1000 calls. It runs once with nothing enabled and once under each D
program below, each compiled and enabled on fbt:kernel:pf_sum:entry as
`scion trace` does it (host/scionhost/trace.py, the same flags; the
trace session's stream stays open meanwhile, and its totals must show no
drop); the difference is the cost of one firing: the jump probe, the
trace consumer, the predicate and actions, the buffer or aggregation
write. The figure comes as a record of the "bench" stream
(host/scionhost/bench.py), whose thread holds the channel while it
measures. The in-kernel benchmark probe_hit of the same boot gives the
probe alone (an empty handler), so the tracing framework's own share can
be read off beside it.

The same boot carries the program archive when `make bench` gives it:
then the kernel's benchmark syscall_getpid (a getpid round trip from user
mode) runs with nothing enabled and under each of SYSCALL_PROGRAMS on
syscall::getpid:entry, whose differences are what one firing of the
syscall provider costs a call, predicate false or aggregation updated.

Issue 27's providers are measured on their own operations
(tests/kernel/bench_providers.c): a spinlock and a mutex lock/unlock pair
and a context switch, each with nothing enabled (the figure *_unprobed:
the disabled sites' no-ops are inside it) and under a D program on
lockstat or sched probes (PROVIDER_PROGRAMS), the difference divided by
the firings an operation makes; and a CPU-bound loop with and without
profile-10000, the extra instructions divided by the extra timer
interrupts (each one fast interrupt and its firing), and as a share of
the loop."""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
import bench_boot  # noqa: E402  (sets the import paths of qemu/ and host/)
from scionhost import bench as kernel_bench  # noqa: E402
from scionhost import commands, trace  # noqa: E402

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
# 5000 firings of 24-byte records fit in one buffer: nothing is dropped (and the
# buffer is not drained while the benchmark holds the channel).
TRACE_FLAGS = ["-q", "-x", "bufsize=128k"]
# Programs run as native code unless the consumer says nojit (scion/dif_jit.h).
INTERPRETED = ["-x", "nojit"]

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


# The syscall provider under D (the in-kernel benchmark syscall_getpid: a getpid
# round trip from user mode, userland/bench_getpid in the program archive).
SYSCALL_PROGRAMS = [
    ("trace.syscall.getpid_count", "syscall::getpid:entry { @ = count(); }"),
    ("trace.syscall.getpid_other_pid", "syscall::getpid:entry /pid == 99999/ { @ = count(); }"),
]


# Issue 27's providers (tests/kernel/bench_providers.c): (figure, D program,
# benchmark, its figure, firings per operation). Each operation's cost with
# nothing enabled is reported too (the sites' disabled cost is inside it: one
# no-op each), then the difference per firing under the program.
PROVIDER_PROGRAMS = [
    ("trace.lockstat.spin_acquire_count", "lockstat:::spin-acquire { @ = count(); }",
     "trace_spin_pair", "trace.spin.pair", 1),
    ("trace.lockstat.spin_pair_count", "lockstat:::spin-acquire, lockstat:::spin-release "
     "{ @ = count(); }", "trace_spin_pair", "trace.spin.pair", 2),
    ("trace.lockstat.adaptive_pair_count", "lockstat:::adaptive-acquire, "
     "lockstat:::adaptive-release { @ = count(); }", "trace_mutex_pair", "trace.mutex.pair", 2),
    ("trace.sched.on_cpu_count", "sched:::on-cpu { @ = count(); }",
     "trace_switch", "trace.sched.switch", 1),
    ("trace.sched.on_off_enq_deq_by_tid", "sched:::on-cpu, sched:::off-cpu, sched:::enqueue, "
     "sched:::dequeue { @[tid] = count(); }", "trace_switch", "trace.sched.switch", 4),
]
PROFILE_PROGRAM = "profile-10000 { @ = count(); }"


def figures_of(c, selector, names):
    """Several figures of one run of selector's benchmarks."""
    items, _ = kernel_bench.run(c, selector)
    got = {f["figure"]: f["value"] for f in kernel_bench.figures(items)}
    missing = [n for n in names if n not in got]
    if missing:
        sys.exit(f"bench: benchmark {selector} reported no {', '.join(missing)}")
    return [got[n] for n in names]


def with_program(c, program, fn):
    """fn() while program is enabled as scion trace enables it."""
    args = commands.build_parser().parse_args(["trace", *TRACE_FLAGS, "-n", program])
    meta = trace.compile_program(args)
    stream, _, _ = trace.start(c, meta, args, lambda *chunk: None)
    try:
        return fn()
    finally:
        c.stream_close(stream)


def provider_figures(c):
    """The sched, lockstat and fast profile figures (tests/kernel/bench_providers.c)."""
    out, bases = [], {}
    for name, program, selector, base_name, per_op in PROVIDER_PROGRAMS:
        if selector not in bases:
            bases[selector] = call_cost(c, None, selector, base_name)
            out.append({"figure": base_name + "_unprobed", "value": bases[selector],
                        "unit": "guest instructions per operation (sites disabled: a no-op each)"})
        cost = call_cost(c, program, selector, base_name)
        out.append({"figure": name, "value": round((cost - bases[selector]) / per_op),
                    "unit": "guest instructions per firing", "program": program,
                    "firings_per_operation": per_op})
    names = ["trace.busy.loop", "trace.busy.interrupts"]
    cycles0, irqs0 = figures_of(c, "trace_busy", names)
    cycles1, irqs1 = with_program(c, PROFILE_PROGRAM,
                                  lambda: figures_of(c, "trace_busy", names))
    extra = irqs1 - irqs0
    out.append({"figure": "trace.profile.10000hz_interrupts_per_loop", "value": irqs1,
                "unit": f"interrupts during {cycles1} guest instructions ({irqs0} unprobed)"})
    out.append({"figure": "trace.profile.10000hz_per_firing",
                "value": round((cycles1 - cycles0) / extra) if extra > 0 else 0,
                "unit": "guest instructions per fast timer interrupt with its firing",
                "program": PROFILE_PROGRAM})
    out.append({"figure": "trace.profile.10000hz_overhead_permille",
                "value": round(1000 * (cycles1 - cycles0) / cycles0, 1),
                "unit": "per mille of a CPU-bound loop", "program": PROFILE_PROGRAM})
    return out


def figure(c, selector, name):
    """One figure of the kernel's benchmarks that selector runs."""
    items, _ = kernel_bench.run(c, selector)
    found = [f["value"] for f in kernel_bench.figures(items) if f["figure"] == name]
    if len(found) != 1:
        sys.exit(f"bench: benchmark {selector} reported {name} {len(found)} times")
    return found[0]


def call_cost(c, program=None, selector="trace_pf_sum", name="trace.pf_sum.call", flags=()):
    """Guest instructions per call of pf_sum (or what selector's benchmark reports as
    name), with program enabled (or nothing), given to scion trace with flags too."""
    if program is None:
        return figure(c, selector, name)
    args = commands.build_parser().parse_args(["trace", *TRACE_FLAGS, *flags, "-n", program])
    meta = trace.compile_program(args)
    stream, _, _ = trace.start(c, meta, args, lambda *chunk: None)
    try:
        cost = figure(c, selector, name)
    finally:
        totals = c.stream_close(stream)
    if totals["drops"]:
        sys.exit(f"bench: {program}: {totals['drops']} trace records dropped; a firing that "
                 "drops costs less than one that writes")
    return cost


def trace_bench(kernel, out_dir, programs=None):
    modules = [programs] if programs and os.path.isfile(programs) else None
    b, sock = bench_boot.boot("bench-trace", out_dir, kernel=kernel, smp=1, icount=True,
                              timeout=900, modules=modules)
    figures = []
    try:
        with bench_boot.session(b, sock) as c:
            base = call_cost(c)
            figures.append({"figure": "trace.pf_sum.call_unprobed", "value": base,
                            "unit": "guest instructions"})
            for name, program in PROGRAMS:
                cost = call_cost(c, program)
                figures.append({"figure": name, "value": cost - base,
                                "unit": "guest instructions per firing", "program": program})
            # The same programs in the interpreter (the DIF compiler's reference).
            for name, program in PROGRAMS:
                cost = call_cost(c, program, flags=INTERPRETED)
                figures.append({"figure": name.replace("firing.", "firing_interpreted."),
                                "value": cost - base, "unit": "guest instructions per firing",
                                "program": program, "flags": " ".join(INTERPRETED)})
            if modules:
                getpid = ("syscall_getpid", "syscall.getpid.round_trip")
                base = call_cost(c, None, *getpid)
                figures.append({"figure": "trace.syscall.getpid_untraced", "value": base,
                                "unit": "guest instructions per round trip"})
                for name, program in SYSCALL_PROGRAMS:
                    cost = call_cost(c, program, *getpid)
                    figures.append({"figure": name, "value": cost - base,
                                    "unit": "guest instructions per firing", "program": program})
            figures.extend(provider_figures(c))
            figures.append({"figure": "probe.hit.jump_empty_handler",
                            "value": figure(c, "probe_hit", "probe.hit.jump_empty_handler"),
                            "unit": "guest instructions per firing"})
    finally:
        bench_boot.power_off(b)
    return {
        "config": {"name": "trace", "smp": 1, "mem": "256M", "accel": "tcg, single-threaded "
                   "(implied by icount)", "icount": "shift=0,sleep=off",
                   "probe": PROBE + " (jump probe)", "calls": "best of 5 rounds of 1000",
                   "scion_trace_flags": " ".join(TRACE_FLAGS)},
        "figures": figures,
        "published": PUBLISHED,
        "log": os.path.relpath(b.log_path, ROOT),
    }


def print_trace(result):
    print(f"\ntracing: guest instructions one firing adds ({result['config']['probe']}; "
          "sched, lockstat and profile-10000 on their own operations):")
    for fig in result["figures"]:
        what = fig.get("program", "")
        print(f"  {fig['figure']:36} {fig['value']:>8}  {what}")
    for p in result["published"]:
        print(f"{p['system']}, {p['unit']}:")
        print("  " + ", ".join(f"{k} {v}" for k, v in p["figures"].items()))
    print("(published figures are nanoseconds on real hardware; ours are guest instructions, "
          "roughly 1 to 3 per cycle on a modern core)")
