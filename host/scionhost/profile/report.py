# SPDX-License-Identifier: BSD-2-Clause
"""The nightly analysis's report: one self-contained HTML file (plots are
PNG images embedded as base64; no script, no external file), readable
in any browser and mailable as it is.

It holds, in order: the summary (anomalies by kind, interval decisions,
missing references, gaps, incomplete collections); the reference days;
the anomaly table with each anomaly's decomposition; one plot per
system resource (its window means over the day against the expected
value and the band of each bucket, anomalous periods shaded); one
stacked plot per decomposed anomaly (the per-thread rates around it,
the named threads first); the interval table with its evidence. Every
number in the tables is the JSON's (results.json) value, and each table
row and figure carries its key in data- attributes, so a test can match
the report against the JSON.
"""

import base64
import html
import io

import numpy as np

STYLE = """body{font-family:sans-serif;margin:1.5em;max-width:70em}
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:2px 6px;
font-size:90%;text-align:left}th{background:#eee}figure{margin:0 0 1em}figcaption{font-size:90%}
.num{text-align:right}"""


def esc(x):
    return html.escape("" if x is None else str(x))


def png(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=80)
    import matplotlib.pyplot as plt
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode()


def hours_axis(ax):
    ax.set_xlim(0, 24)
    ax.set_xticks(range(0, 25, 3))
    ax.set_xlabel("hour of the day")
    ax.grid(alpha=.3)


def resource_plot(plt, r, windows, window_s, anomalies):
    fig, ax = plt.subplots(figsize=(9, 2.4))
    x = (np.arange(len(windows)) + 0.5) * window_s / 3600
    edges = np.array([b["bucket"] for b in r["buckets"]] + [len(r["buckets"])]) * 24 / len(
        r["buckets"])
    exp = np.array([np.nan if b["expected"] is None else b["expected"] for b in r["buckets"]])
    low = np.array([np.nan if b["low"] is None else b["low"] for b in r["buckets"]])
    high = np.array([np.nan if b["high"] is None else b["high"] for b in r["buckets"]])
    ax.fill_between(edges, np.append(low, low[-1]), np.append(high, high[-1]), step="post",
                    color="tab:green", alpha=.2, label="band")
    ax.step(edges, np.append(exp, exp[-1]), where="post", color="tab:green", lw=1,
            label="expected")
    ax.plot(x, windows, color="tab:blue", lw=.8, label="this day")
    for a in anomalies:
        t0 = int(a["start"][11:13]) + int(a["start"][14:16]) / 60
        ax.axvspan(t0, t0 + a["duration_s"] / 3600, color="tab:red", alpha=.25)
    hours_axis(ax)
    ax.set_title(f"{r['name']} ({r['display_unit']})", fontsize=10, loc="left")
    ax.legend(fontsize=7, loc="upper left", ncol=3)
    fig.tight_layout()
    return png(fig)


def stacked_plot(plt, a, threads, window_s):
    per_thread = threads.get(a["decomposition"]["by"], {})
    w0 = max(int((a["start_ns"] % 86400e9) / 1e9 / window_s) - 3600 // window_s, 0)
    w1 = min(int((a["end_ns"] % 86400e9 or 86400e9) / 1e9 / window_s) + 3600 // window_s,
             86400 // window_s)
    order = [c["thread"] for c in a["decomposition"]["contributions"]]
    shown = order[:max(len(a["threads"]), 5)]
    rest = [t for t in per_thread if t not in shown]
    x = (np.arange(w0, w1) + 0.5) * window_s / 3600
    layers = [np.nan_to_num(per_thread[t][w0:w1]) if t in per_thread else np.zeros(w1 - w0)
              for t in shown]
    labels = [f"{t} (named)" if t in a["threads"] else t for t in shown]
    if rest:
        layers.append(np.nansum([np.nan_to_num(per_thread[t][w0:w1]) for t in rest], axis=0))
        labels.append(f"{len(rest)} others")
    fig, ax = plt.subplots(figsize=(9, 2.6))
    ax.stackplot(x, layers, labels=labels, alpha=.85)
    t0 = (a["start_ns"] % int(86400e9)) / 3600e9
    ax.axvspan(t0, t0 + a["duration_s"] / 3600, color="tab:red", alpha=.15)
    ax.set_xlim(x[0], x[-1])
    ax.set_xlabel("hour of the day")
    ax.grid(alpha=.3)
    ax.set_title(f"anomaly {a['id']}: {a['resource']} {a['start'][11:16]}-{a['end'][11:16]}, "
                 f"{a['kind']}: per-thread {a['decomposition']['by']}", fontsize=10, loc="left")
    ax.legend(fontsize=7, loc="upper left", ncol=4)
    fig.tight_layout()
    return png(fig)


def table(rows, headers, key_attr=None):
    out = ["<table><tr>" + "".join(f"<th>{esc(h)}</th>" for h in headers) + "</tr>"]
    for row in rows:
        attrs = f' data-key="{esc(row[0])}"' if key_attr else ""
        out.append(f"<tr{attrs}>" + "".join(f'<td data-value="{esc(v)}">{esc(v)}</td>'
                                            for v in row[1:]) + "</tr>")
    return "\n".join(out) + "</table>"


def write(path, results, today, window_s):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    s = results["summary"]
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>Scion nightly analysis: "
             f"{esc(results['machine'])} {esc(results['day'])}</title><style>{STYLE}</style>"
             f"</head><body>",
             f"<h1>{esc(results['machine'])}, {esc(results['day'])}</h1>",
             f"<p>{s['anomalies']} anomalies ({esc(', '.join(f'{k}: {v}' for k, v in sorted(s['by_kind'].items())) or 'none')}); "
             f"intervals: {esc(', '.join(f'{k}: {v}' for k, v in sorted(s['intervals'].items())))}; "
             f"windows of {window_s} s, buckets of {results['bucket_s'] // 60} min; "
             f"missing references: {esc(', '.join(s['missing_references']) or 'none')}; "
             f"samples lost in gaps: {s['samples_lost']}; incomplete collections: "
             f"{esc(', '.join(map(str, s['incomplete_collections'])) or 'none')}. "
             f"Next day's configuration: {esc(results['config']['file'])}.</p>",
             "<h2>References</h2>",
             table([(None, r["target"], r["role"], r["day"], r["weight"], r["available"],
                     r["coverage"]) for r in results["references"]],
                   ["for", "role", "day", "weight", "available", "coverage"]),
             "<h2 id='anomalies'>Anomalies</h2>",
             table([(a["id"], a["id"], a["resource"], a["start"], a["end"], a["direction"],
                     a["mean_excess"], a["relative"], a["band_units"], a["kind"],
                     ", ".join(a["threads"])) for a in results["anomalies"]],
                   ["id", "resource", "start", "end", "direction", "mean excess", "relative",
                    "band units", "kind", "threads"], key_attr=True)]
    for a in results["anomalies"]:
        contrib = a["decomposition"]["contributions"]
        if contrib:
            parts.append(f"<h3>Anomaly {a['id']}: {esc(a['resource'])}, per-thread "
                         f"{esc(a['decomposition']['by'])} ({esc(a['unit'])})</h3>")
            parts.append(table([(c["thread"], c["thread"], c["observed"], c["expected"],
                                 c["contribution"], c["named"]) for c in contrib],
                               ["thread", "observed", "expected", "contribution", "named"],
                               key_attr=True))
    parts.append("<h2>Resources</h2>")
    by_resource = {}
    for a in results["anomalies"]:
        by_resource.setdefault(a["resource"], []).append(a)
    for r in results["resources"]:
        if "buckets" not in r:
            continue
        img = resource_plot(plt, r, today["system"][r["name"]], window_s,
                            by_resource.get(r["name"], []))
        parts.append(f"<figure class='resource' data-resource='{esc(r['name'])}' "
                     f"data-mean='{esc(r['mean'])}' data-expected-mean='{esc(r['expected_mean'])}'"
                     f" data-anomalies='{r['anomalies']}'><img alt='{esc(r['name'])}' "
                     f"src='data:image/png;base64,{img}'><figcaption>{esc(r['name'])}: mean "
                     f"{esc(r['mean'])} {esc(r['display_unit'])}, expected {esc(r['expected_mean'])}"
                     f", {r['anomalies']} anomalies, {r['samples']} samples</figcaption></figure>")
    decomposed = [a for a in results["anomalies"] if a["decomposition"]["contributions"]]
    if decomposed:
        parts.append("<h2>Anomalies by thread</h2>")
        for a in decomposed:
            img = stacked_plot(plt, a, today["threads"] or {}, window_s)
            parts.append(f"<figure class='anomaly' data-anomaly='{a['id']}'><img alt='anomaly "
                         f"{a['id']}' src='data:image/png;base64,{img}'><figcaption>anomaly "
                         f"{a['id']}: {esc(a['kind'])}, {esc(', '.join(a['threads']))}"
                         f"</figcaption></figure>")
    parts.append("<h2 id='intervals'>Intervals</h2>")
    parts.append(table([(r["name"], r["name"], r["interval"]["current_ms"],
                         r["interval"]["recommended_ms"], r["interval"]["decision"],
                         r["interval"]["evidence"].get("reason")) for r in results["resources"]],
                       ["resource", "current ms", "recommended ms", "decision", "evidence"],
                       key_attr=True))
    if results["gaps"]:
        parts.append("<h2>Gaps</h2>")
        parts.append(table([(None, g["start"], g["end"], g["cpu"], g["lost"], g["reason"])
                            for g in results["gaps"]], ["from", "to", "cpu", "lost", "reason"]))
    parts.append("</body></html>\n")
    with open(path, "w") as f:
        f.write("\n".join(parts))
