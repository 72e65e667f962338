# SPDX-License-Identifier: BSD-2-Clause
"""The adaptation loop benchmark's pictures and words (tools/bench_adapt.py):
adapt.png, the hit ratio over the run (requests on the x axis: the
workload is the same requests in both runs) of the live default, the
adaptive run, and per phase the best single pair in hindsight and the
optimum as steps, with the phase boundaries and the loop's switches;
and build/bench/adapt/report.md, the per-phase table, the policy
timeline and every decision with its reason. matplotlib is Debian's python3-matplotlib (qemu/deps.sh
bench)."""


def plot(path, rows, default, adaptive, timeline):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(12, 5.5))
    ax.plot(*default, color="tab:gray", lw=1, label="live default (lru+sequential)")
    ax.plot(*adaptive, color="tab:blue", lw=1.4, label="adaptive (the loop on)")
    for key, style, label in (("best", dict(color="tab:green", ls="--"), "best pair in hindsight"),
                              ("optimum", dict(color="tab:red", ls=":"), "optimum (MIN+oracle)")):
        xs, ys = [], []
        for r in rows:
            v = r[key] / r["requests"]
            xs += [r["first_request"], r["first_request"] + r["requests"]]
            ys += [v, v]
        ax.plot(xs, ys, lw=1.6, label=label, **style)
    top = 1.08
    for r in rows:
        ax.axvline(r["first_request"], color="black", lw=0.6, alpha=0.5)
        ax.text(r["first_request"] + 300, top - 0.02, f"{r['phase']}\nbest {r['best_policy']}",
                fontsize=7, va="top")
    for k, t in enumerate(timeline[1:]):
        ax.axvline(t["request"], color="tab:orange", lw=1, ls="-.")
        ax.annotate(f"{t['event']}: {t['policy']}", (t["request"], 0.03 + 0.12 * (k % 3)),
                    rotation=90, fontsize=7, color="tab:orange", ha="right", va="bottom")
    ax.set_ylim(0, top)
    ax.set_xlim(0, rows[-1]["first_request"] + rows[-1]["requests"])
    ax.set_xlabel("requests (demand reads) since the workload began")
    ax.set_ylabel("hit ratio (windows of 1024 requests)")
    ax.set_title("Scion's adaptation loop over a phased block-cache workload")
    ax.legend(loc="lower left", fontsize=8, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _pct(h, n):
    return f"{100 * h / n:.1f}%" if n else "-"


def markdown(rows, s, timeline, changes, cost, decisions, stalls=()):
    out = ["# The adaptation loop over a phased workload", "",
           "Produced by `make bench-adapt` (tools/bench_adapt.py); figures also in "
           "build/bench/results.json (\"adapt\"). Hit ratios of demand reads; the default "
           "is run (a), the loop off, recorded whole; best and optimum are that recording's "
           "phase replayed by build/host/scion-sim from an empty cache (every pair of "
           "lru/2q/clock x sequential/stride/recorded; the optimum is MIN with the oracle "
           "read-ahead); adaptive is run (b), the loop on, from the monitor stream.", "",
           "| phase | requests | live default | adaptive | best in hindsight | (which) | optimum |",
           "| --- | ---: | ---: | ---: | ---: | --- | ---: |"]
    for r in rows:
        n = r["requests"]
        out.append(f"| {r['phase']} | {n} | {_pct(r['default'], n)} | {_pct(r['adaptive'], n)} "
                   f"| {_pct(r['best'], n)} | {r['best_policy']} | {_pct(r['optimum'], n)} |")
    out.append(f"| **all** | {s['requests']} | {100 * s['default_hit_ratio']:.1f}% | "
               f"{100 * s['adaptive_hit_ratio']:.1f}% | {100 * s['best_hit_ratio']:.1f}% | "
               f"per phase | {100 * s['optimum_hit_ratio']:.1f}% |")
    out += ["", f"Adaptive over best in hindsight: **{s['adaptive_over_best']}** of the hits "
            f"(goal: within 5%, {'met' if s['within_5_percent_of_best'] else 'NOT met'}); "
            f"adaptive over the optimum: **{s['adaptive_over_optimum']}**.", "",
            "![hit ratio over the run](adapt.png)", "", "## Which policy ran when", "",
            "| from request | guest time (ms) | policy | event |", "| ---: | ---: | --- | --- |"]
    t0 = timeline[0]["ns"]
    for t in timeline:
        out.append(f"| {t['request']} | {(t['ns'] - t0) / 1e6:.1f} | {t['policy']} | "
                   f"{t['event']} |")
    out += ["", "## From a phase change to the switch", "",
            "Guest instructions are every CPU's busy time (cpu.busy) under icount "
            "shift=0: instructions, not the idle time the virtual clock skips while the "
            "host sends the next command.", "",
            "| change | switch to | requests | guest ns | guest instructions |",
            "| --- | --- | ---: | ---: | ---: |"]
    for c in changes:
        out.append(f"| {c['from_phase']} -> {c['to_phase']} | {c['switch'] or 'none'} | "
                   f"{c.get('requests', '-')} | {c.get('guest_ns', '-')} | "
                   f"{c.get('guest_instructions', '-')} |")
    out += ["", "## The loop's own cost", "",
            f"Simulations and decisions: the adapt thread's CPU time, "
            f"{cost['adapt_thread_instructions']} guest instructions (the monitor's "
            f"per-thread cpu source). Recording: {cost['recorded_requests']} recorded "
            f"requests x {cost['record_overhead_per_request']} instructions each "
            f"(record.bcache.overhead_per_request, measured in the same boot) plus the "
            f"recorder threads' CPU time, {cost['recorder_threads_instructions']} = "
            f"{cost['recording_instructions']}. The run: {cost['run_busy_instructions']} busy "
            f"guest instructions on all CPUs. Share: **{cost['share']}** (simulation "
            f"{cost['simulation_share']}, recording {cost['recording_share']}).", "",
            "## Every decision", ""]
    for n, d in enumerate(decisions, 1):
        out.append(f"{n}. {d['reason']}")
    if not decisions:
        out.append("(none)")
    if stalls:
        out += ["", f"Run (b) was booted {len(stalls) + 1} times: the monitor's measurement "
                "thread stopped making rounds in the boots before (" + "; ".join(stalls) + ")."]
    return "\n".join(out) + "\n"
