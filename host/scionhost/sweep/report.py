# SPDX-License-Identifier: BSD-2-Clause
"""`scion sweep report`: a sweep's finished runs as one table and plots.

Runs are grouped by every axis but seed; each group's figure is the mean,
the standard deviation, the least and the greatest over its seeds (n
runs; failed runs are counted apart and left out). OUT/NAME.csv holds
one row per group and figure; OUT/NAME.html the same table and, per
figure, a bar chart of the means with the spread (least to greatest) by
workload and policy, as PNGs embedded in the page (matplotlib, imported
only here, so the rest of `scion` works without it).
"""

import base64
import csv
import html
import io
import os
import statistics

GROUP_COLUMNS = ("n", "failed", "mean", "stdev", "min", "max")


def summarize(runs, axes):
    """[(group dict, figure, {n, failed, mean, stdev, min, max})] in plan order."""
    keys = [a for a in axes if a != "seed"]
    groups, order = {}, []
    for r in runs:
        key = tuple(r["config"].get(a) for a in keys)
        if key not in groups:
            groups[key] = {"failed": 0, "figures": {}}
            order.append(key)
        g = groups[key]
        if r["status"] != "done":
            g["failed"] += 1
            continue
        for name, value in r["figures"].items():
            g["figures"].setdefault(name, []).append(value)
    rows = []
    for key in order:
        g = groups[key]
        for name in sorted(g["figures"]):
            vs = g["figures"][name]
            rows.append((dict(zip(keys, key)), name, {
                "n": len(vs), "failed": g["failed"], "mean": statistics.fmean(vs),
                "stdev": statistics.stdev(vs) if len(vs) > 1 else 0.0,
                "min": min(vs), "max": max(vs)}))
    return keys, rows


def write_csv(path, keys, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(list(keys) + ["figure"] + list(GROUP_COLUMNS))
        for group, name, s in rows:
            w.writerow([group[k] for k in keys] + [name] + [s[c] for c in GROUP_COLUMNS])


def plot(name, rows):
    """A PNG (bytes) of one figure's means and spreads: workloads along x, a bar per policy."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    labels, bars = [], {}
    for group, fig, s in rows:
        if fig != name:
            continue
        workload = " ".join(f"{k}={v}" for k, v in group.items() if k != "policy")
        if workload not in labels:
            labels.append(workload)
        bars.setdefault(str(group.get("policy", "default")), {})[workload] = s
    fig, ax = plt.subplots(figsize=(max(4, 1.2 * len(labels) * len(bars)), 3.2))
    width = 0.8 / max(1, len(bars))
    for i, (policy, by_label) in enumerate(bars.items()):
        xs = [k + i * width for k, lab in enumerate(labels) if lab in by_label]
        st = [by_label[lab] for lab in labels if lab in by_label]
        means = [s["mean"] for s in st]
        err = [[s["mean"] - s["min"] for s in st], [s["max"] - s["mean"] for s in st]]
        ax.bar(xs, means, width, yerr=err, capsize=3, label=policy)
    ax.set_xticks([k + 0.4 - width / 2 for k in range(len(labels))])
    ax.set_xticklabels(labels, fontsize=7, rotation=15)
    ax.set_title(name, fontsize=9)
    ax.legend(fontsize=7, title="policy", title_fontsize=7)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    plt.close(fig)
    return buf.getvalue()


def write_html(path, plan_name, keys, rows, runs):
    e = html.escape
    done = sum(1 for r in runs if r["status"] == "done")
    provenance = sorted({(r["git_commit"], r["qemu_version"], r["icount"]) for r in runs})
    out = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>sweep {e(plan_name)}"
           f"</title></head><body><h1>Sweep {e(plan_name)}</h1>",
           f"<p>{len(runs)} runs finished: {done} done, {len(runs) - done} failed. "
           "Figures: mean, standard deviation, least and greatest over the seeds.</p><ul>"]
    out += [f"<li>commit {e(c)}, {e(q)}, icount {e(i)}</li>" for c, q, i in provenance]
    out.append("</ul><table border='1' cellspacing='0' cellpadding='3'><tr>"
               + "".join(f"<th>{e(h)}</th>" for h in list(keys) + ["figure"]
                         + list(GROUP_COLUMNS)) + "</tr>")
    for group, name, s in rows:
        cells = [group[k] for k in keys] + [name] + [
            s[c] if c in ("n", "failed") else f"{s[c]:.6g}" for c in GROUP_COLUMNS]
        out.append("<tr>" + "".join(f"<td>{e(str(c))}</td>" for c in cells) + "</tr>")
    out.append("</table>")
    for name in sorted({r[1] for r in rows}):
        png = base64.b64encode(plot(name, rows)).decode()
        out.append(f"<h2>{e(name)}</h2><img alt='{e(name)}' src='data:image/png;base64,"
                   f"{png}'>")
    failed = [r for r in runs if r["status"] != "done"]
    if failed:
        out.append("<h2>Failed runs</h2><ul>" + "".join(
            f"<li>run {r['run_index']} ({e(r['run_id'])}): {e(r['error'] or '')} "
            f"(log {e(r['log_path'])})</li>" for r in failed) + "</ul>")
    out.append("</body></html>\n")
    with open(path, "w") as f:
        f.write("\n".join(out))


def report(plan, runs, out_dir):
    """Write OUT/NAME.csv and OUT/NAME.html; returns their paths and the row count."""
    os.makedirs(out_dir, exist_ok=True)
    keys, rows = summarize(runs, list(plan.axes))
    csv_path = os.path.join(out_dir, plan.name + ".csv")
    html_path = os.path.join(out_dir, plan.name + ".html")
    write_csv(csv_path, keys, rows)
    write_html(html_path, plan.name, keys, rows, runs)
    return csv_path, html_path, len(rows)
