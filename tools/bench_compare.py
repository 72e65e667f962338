#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The system call and file system benchmarks side by side: Linux and
Scion running the same static binaries (userland/bench_syscalls.c,
userland/bench_fs.c) in the same QEMU under -icount shift=0,sleep=off.
This module is the one reader of those programs' output and the one
writer of the "syscalls" and "fs" sections of build/bench/results.json
(KINDS: one section per program, the same shape); tools/bench_linux.py
fills the "linux" columns, tools/bench_scion.py the "scion" ones with the
same calls, each naming its section (kind="fs"; "syscalls" when unsaid).

Both programs print, one line per row (bench_syscalls' opening comment
says why):

    bench: NAME VALUE insns/op (min of K batches of N; median MEDIAN)
    bench: error NAME: WHAT          (a row it could not measure)
    bench: done                      (the last line)

The results file's section:

    "syscalls": {
      "program": "userland/bench_syscalls.c", "unit": ..., "rows": [NAME, ...],
      "systems": {
        "linux": {"config": {...}, "figures": [FIGURE, ...], "log": PATH},
        "scion": {... the same shape ...}
      },
      "unavailable": {"linux": "why there is no Linux column"}   (only then)
    }
    FIGURE = {"figure": NAME, "value": VALUE, "unit": "guest instructions",
              "median": MEDIAN, "batches": K, "batch": N}

tools/bench_scion.py fills the Scion column: it runs bench_syscalls on
Scion (one CPU, the same QEMU flags) through `scion exec`, takes the
program's output and calls
    figures = bench_compare.parse(text)            # raises ParseError
    bench_compare.set_system(section, "scion", config, figures, log)
(tools/bench.py) or bench_compare.store(results_path, "scion", ...)
(alone). A column that is absent prints as n/a.

    tools/bench_compare.py [RESULTS]          the table from a results file
    tools/bench_compare.py --linux LOG [--scion LOG]   from console logs
"""

import argparse
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_RESULTS = os.path.join(ROOT, "build", "bench", "results.json")
SECTION = "syscalls"
PROGRAM = "userland/bench_syscalls.c"
SYSTEMS = ["linux", "scion"]
# The rows in the program's order: the table's order.
ROWS = ["getpid_round_trip", "pipe_write_read_1byte", "fork_exit_wait", "execve_small_program",
        "page_fault_anon_first_touch", "context_switch_pipe"]
# bench_fs prints each row and its twin NAME_cpu (the thread's own CPU clock).
FS_OPS = ["fs_open_existing", "fs_create", "fs_write_4k", "fs_fsync_4k", "fs_unlink"]
FS_ROWS = [r for op in FS_OPS for r in (op, op + "_cpu")]
# Each section of the results file: its program, rows and table title.
KINDS = {
    "syscalls": {"program": PROGRAM, "rows": ROWS,
                 "title": "system calls, the same static binary on each kernel"},
    "fs": {"program": "userland/bench_fs.c", "rows": FS_ROWS,
           "title": "file operations on ext2, the same static binary on each kernel",
           "note": "NAME is the TSC over the timed window; NAME_cpu is the calling "
                   "thread's CPU clock over the same window, less the clock's own cost. "
                   "A row that waits for the disk (fsync on both; create and unlink on "
                   "Scion, which writes metadata synchronously) is virtual time on the "
                   "TSC, since sleep=off jumps the clock while the guest idles; its _cpu "
                   "twin counts the instructions the thread ran (README, File "
                   "operations beside Linux)"},
}
UNIT = ("guest instructions per operation, user and kernel (the guest TSC under "
        "-icount shift=0,sleep=off), the minimum of K batches of N operations")

# The twin of userland/include/bench_report.h's row and the programs' error() formats.
ROW_RE = re.compile(r"^bench: ([a-z0-9_]+) ([0-9]+) insns/op "
                    r"\(min of ([0-9]+) batches of ([0-9]+); median ([0-9]+)\)$", re.M)
ERROR_RE = re.compile(r"^bench: error ([a-z0-9_]+): (.*)$", re.M)
DONE_RE = re.compile(r"^bench: done$", re.M)


class ParseError(Exception):
    """The program's output is not a complete run."""


def parse(text, kind=SECTION):
    """The figures of one complete run of kind's program (bench_syscalls,
    bench_fs) from console text (other lines, a kernel's among them, are
    skipped; '\\r' is dropped). The text must hold that program's run
    alone: the caller cuts a console that has both."""
    text = text.replace("\r", "")
    prog = os.path.splitext(os.path.basename(KINDS[kind]["program"]))[0]
    errors = [f"{m.group(1)}: {m.group(2)}" for m in ERROR_RE.finditer(text)]
    if errors:
        raise ParseError(f"{prog} could not measure " + "; ".join(errors))
    if not DONE_RE.search(text):
        raise ParseError(f"{prog} did not finish (no 'bench: done' line)")
    figures = [{"figure": m.group(1), "value": int(m.group(2)), "unit": "guest instructions",
                "median": int(m.group(5)), "batches": int(m.group(3)), "batch": int(m.group(4))}
               for m in ROW_RE.finditer(text)]
    missing = [r for r in KINDS[kind]["rows"] if r not in {f["figure"] for f in figures}]
    if missing:
        raise ParseError(f"{prog} printed no row {', '.join(missing)}")
    return figures


def empty_section(kind=SECTION):
    return {"program": KINDS[kind]["program"], "unit": UNIT, "rows": list(KINDS[kind]["rows"]),
            "systems": {}}


def set_system(section, system, config, figures, log):
    section["systems"][system] = {"config": config, "figures": figures, "log": log}
    section.get("unavailable", {}).pop(system, None)
    if not section.get("unavailable", True):
        del section["unavailable"]


def set_unavailable(section, system, why):
    section["systems"].pop(system, None)
    section.setdefault("unavailable", {})[system] = why


def load_section(path, kind=SECTION):
    """The section of a results file (a fresh one if there is none)."""
    if os.path.exists(path):
        with open(path) as f:
            section = json.load(f).get(kind)
        if section:
            return section
    return empty_section(kind)


def save_section(path, section, kind=SECTION):
    """Put the section into a results file, keeping everything else in it."""
    results = {}
    if os.path.exists(path):
        with open(path) as f:
            results = json.load(f)
    results[kind] = section
    with open(path, "w") as f:
        json.dump(results, f, indent=2)
        f.write("\n")


def store(path, system, config, figures, log, kind=SECTION):
    """One system's column into the results file, the other column kept."""
    section = load_section(path, kind)
    set_system(section, system, config, figures, log)
    save_section(path, section, kind)


def store_unavailable(path, system, why, kind=SECTION):
    """Why system has no column in kind's section of the results file."""
    section = load_section(path, kind)
    set_unavailable(section, system, why)
    save_section(path, section, kind)


def run_column(prog, system, out_dir, column, errors):
    """The ending both column scripts share (bench_linux.py, bench_scion.py):
    column() -> {kind: (config, figures, log) or the one-line reason there
    is none} (or a bare (config, figures, log): the syscalls section's)
    becomes system's columns of OUT_DIR/results.json, the other columns
    kept, and the tables are printed; an exception of the errors tuple ends
    the program with "prog: WHY", and so does any kind without a column."""
    try:
        columns = column()
    except errors as e:
        sys.exit(f"{prog}: {e}")
    if isinstance(columns, tuple):
        columns = {SECTION: columns}
    path = os.path.join(out_dir, "results.json")
    failed = []
    for kind, got in columns.items():
        if isinstance(got, str):
            store_unavailable(path, system, got, kind)
            failed.append(f"no {kind} column: {got}")
        else:
            store(path, system, *got, kind=kind)
        print_table(load_section(path, kind))
    print(f"\nresults in {os.path.relpath(path)}")
    if failed:
        sys.exit(f"{prog}: " + "; ".join(failed))


def print_table(section, out=sys.stdout):
    kind = next((k for k, v in KINDS.items() if v["program"] == section.get("program")), SECTION)
    systems = section.get("systems", {})
    values = {s: {f["figure"]: f["value"] for f in systems[s]["figures"]}
              for s in SYSTEMS if s in systems}
    rows = list(section.get("rows", KINDS[kind]["rows"]))
    for s in values:
        rows += [r for r in values[s] if r not in rows]
    print(f"\n{KINDS[kind]['title']} ({KINDS[kind]['program']}; "
          f"guest instructions per operation, min of batches):", file=out)
    header = f"  {'row':30}" + "".join(f"{s:>10}" for s in SYSTEMS) + f"{'scion/linux':>13}  goal"
    print(header, file=out)
    met = compared = 0
    for r in rows:
        cells = [values.get(s, {}).get(r) for s in SYSTEMS]
        line = f"  {r:30}" + "".join(f"{'n/a' if v is None else v:>10}" for v in cells)
        linux, scion = cells
        if linux and scion is not None:
            compared += 1
            met += scion <= linux
            line += f"{scion / linux:>13.2f}  {'met' if scion <= linux else 'not met'}"
        else:
            line += f"{'n/a':>13}  n/a"
        print(line, file=out)
    if compared:
        print(f"  goal (Scion at or below Linux): met on {met} of {compared} rows", file=out)
    if "note" in KINDS[kind]:
        print(f"  note: {KINDS[kind]['note']}", file=out)
    for s in SYSTEMS:
        if s in systems:
            cfg = systems[s]["config"]
            said = [cfg[k] for k in ("kernel", "qemu", "flags") if k in cfg]
            print(f"  {s}: {'; '.join(map(str, said))}; log {systems[s].get('log', '?')}",
                  file=out)
        else:
            why = section.get("unavailable", {}).get(s, "not measured")
            print(f"  {s}: n/a ({why})", file=out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="?", default=DEFAULT_RESULTS,
                    help="a results file (default build/bench/results.json)")
    ap.add_argument("--linux", metavar="LOG", help="a console log of the program on Linux")
    ap.add_argument("--scion", metavar="LOG", help="a console log of the program on Scion")
    ap.add_argument("--kind", choices=sorted(KINDS), default=SECTION,
                    help="which program's output the logs hold (a log of one run of it)")
    args = ap.parse_args()
    if args.linux or args.scion:
        section = empty_section(args.kind)
        for system, log in (("linux", args.linux), ("scion", args.scion)):
            if log:
                with open(log, errors="replace") as f:
                    try:
                        figures = parse(f.read(), args.kind)
                    except ParseError as e:
                        sys.exit(f"bench_compare: {log}: {e}")
                # Linux's console has both programs' rows: keep this kind's.
                figures = [g for g in figures if g["figure"] in KINDS[args.kind]["rows"]]
                set_system(section, system, {"kernel": system}, figures, log)
        print_table(section)
    else:
        if not os.path.exists(args.results):
            sys.exit(f"bench_compare: no {args.results} (run make bench or make bench-linux)")
        with open(args.results) as f:
            results = json.load(f)
        present = [k for k in KINDS if k in results]
        for kind in present or [SECTION]:
            print_table(load_section(args.results, kind))


if __name__ == "__main__":
    main()
