# SPDX-License-Identifier: BSD-2-Clause
"""`scion coverage`: self-removing block coverage of kernel functions, as an
lcov tracefile.

The kernel arms a counting splice at every basic block of the functions
named (kernel/coverage/coverage.c), takes each out soon after its block
first runs, and lists the blocks with what became of them (the
COVERAGE_* ops; records in scion/chan_reply.h). This side runs the
workload meanwhile (a guest shell command, or a wait), then maps each
block's addresses to source lines with the kernel's DWARF line table
(pyelftools) and writes the tracefile: per source file, FN/FNDA for the
functions (their entry block's count), DA for every line that has code in
a block that was armed (its count: the largest of those blocks' counts,
0 for a block the run never reached). Blocks no splice could go to are
left out, and counted. Debian's `genhtml` renders the file.
"""

import bisect
import json
import os
import sys
import time
from collections import defaultdict

from . import frame, replies
from .client import ScionError
from .layouts import C

STATE_NAMES = {C.COVERAGE_ARMED: "armed", C.COVERAGE_HIT: "hit", C.COVERAGE_MISSED: "missed",
               C.COVERAGE_UNPROBED: "unprobed"}
SUMMARY_KEYS = ("running", "functions", "blocks", "armed", "hit", "missed", "unprobed",
                "refused", "reaps", "elapsed_ns")


def start(client, globs):
    return replies.request_struct(client, frame.OP_COVERAGE_START, "chan_coverage_summary",
                                  " ".join(globs).encode())


def stop(client):
    return replies.request_struct(client, frame.OP_COVERAGE_STOP, "chan_coverage_summary")


def blocks(client):
    """The last run's blocks: dicts of start, end, hits, state (a name), function."""
    out = []
    for r in replies.request_list(client, frame.OP_COVERAGE_BLOCKS, "chan_coverage_block"):
        if r["state"] not in STATE_NAMES:
            raise ScionError(f"coverage: a block in state {r['state']}, which this host does "
                             f"not know")
        out.append({"start": r["start"], "end": r["end"], "hits": r["hits"],
                    "state": STATE_NAMES[r["state"]],
                    "function": r["function"].split(b"\0", 1)[0].decode()})
    return out


def line_rows(elf_path, ranges):
    """(address, file, line) of every line-table row inside one of ranges
    (sorted, non-overlapping [start, end) pairs), by address."""
    from elftools.elf.elffile import ELFFile    # python3-pyelftools
    starts = [r[0] for r in ranges]
    rows = []
    with open(elf_path, "rb") as f:
        dwarf = ELFFile(f).get_dwarf_info()
        for cu in dwarf.iter_CUs():
            program = dwarf.line_program_for_CU(cu)
            if program is None:
                continue
            header = program.header
            v5 = header.version >= 5
            top = cu.get_top_DIE().attributes
            comp_dir = top["DW_AT_comp_dir"].value.decode() if "DW_AT_comp_dir" in top else ""
            dirs = [d.decode() for d in header.include_directory]
            names = {}
            for entry in program.get_entries():
                state = entry.state
                if state is None or state.end_sequence or not state.line:
                    continue
                k = bisect.bisect_right(starts, state.address) - 1
                if k < 0 or state.address >= ranges[k][1]:
                    continue
                if state.file not in names:
                    names[state.file] = file_name(header.file_entry, dirs, comp_dir, state.file,
                                                  v5)
                rows.append((state.address, names[state.file], state.line))
    rows.sort()
    return rows


def file_name(entries, dirs, comp_dir, index, v5):
    """A line-table file index as an absolute path (DWARF 5 counts from 0, earlier from 1
    with directory 0 the compilation's)."""
    entry = entries[index if v5 else index - 1]
    d = entry.dir_index
    if v5:
        base = dirs[d]
    else:
        base = dirs[d - 1] if d else comp_dir
    path = os.path.join(base, entry.name.decode())
    return os.path.normpath(os.path.join(comp_dir, path))


def tracefile(block_list, rows, test_name="scion"):
    """The lcov tracefile's text for the blocks and their line rows."""
    armed = [b for b in block_list if b["state"] != "unprobed"]
    armed.sort(key=lambda b: b["start"])
    starts = [b["start"] for b in armed]
    lines = defaultdict(dict)            # file -> line -> count
    functions = defaultdict(dict)        # file -> function -> (line, count)
    entry_of = {}
    for b in armed:
        entry_of.setdefault(b["function"], b)
    for addr, path, line in rows:
        k = bisect.bisect_right(starts, addr) - 1
        if k < 0 or addr >= armed[k]["end"]:
            continue
        b = armed[k]
        count = b["hits"] if b["state"] == "hit" else 0
        lines[path][line] = max(lines[path].get(line, 0), count)
        first = entry_of[b["function"]]
        if b is first and b["function"] not in functions[path]:
            functions[path][b["function"]] = (line, count)
    out = [f"TN:{test_name}"]
    for path in sorted(lines):
        out.append(f"SF:{path}")
        fns = functions.get(path, {})
        for name, (line, _) in sorted(fns.items(), key=lambda kv: kv[1][0]):
            out.append(f"FN:{line},{name}")
        for name, (_, count) in sorted(fns.items(), key=lambda kv: kv[1][0]):
            out.append(f"FNDA:{count},{name}")
        out.append(f"FNF:{len(fns)}")
        out.append(f"FNH:{sum(1 for _, c in fns.values() if c)}")
        for line in sorted(lines[path]):
            out.append(f"DA:{line},{lines[path][line]}")
        out.append(f"LF:{len(lines[path])}")
        out.append(f"LH:{sum(1 for c in lines[path].values() if c)}")
        out.append("end_of_record")
    return "\n".join(out) + "\n", sum(len(v) for v in lines.values()), \
        sum(1 for v in lines.values() for c in v.values() if c)


def default_kernel_elf():
    from .trace import ksyms_path
    return os.path.join(os.path.dirname(os.path.abspath(ksyms_path())), "kernel.elf")


def run_workload(client, args):
    if args.run:
        status, body = client.request(frame.OP_SHELL, args.run.encode(), timeout=args.run_timeout)
        text = body.decode("utf-8", "replace")
        sys.stderr.write(text if text.endswith("\n") or not text else text + "\n")
        if status < 0:
            raise ScionError(f"coverage: the workload `{args.run}` failed "
                             f"({frame.errno_name(status)})")
    elif args.duration:
        time.sleep(args.duration)


def cmd_coverage(args):
    from .commands import session
    elf = args.kernel or default_kernel_elf()
    if not os.path.exists(elf):
        raise ScionError(f"coverage: no kernel ELF at {elf} (give --kernel)")
    with session(args) as client:
        first = start(client, args.functions)
        try:
            run_workload(client, args)
        finally:
            last = stop(client)
        block_list = blocks(client)
    ranges = [(b["start"], b["end"]) for b in sorted(block_list, key=lambda b: b["start"])
              if b["state"] != "unprobed"]
    text, nlines, hit_lines = tracefile(block_list, line_rows(elf, ranges))
    with open(args.output, "w") as f:
        f.write(text)
    summary = {k: last[k] for k in SUMMARY_KEYS}
    summary.update(armed_at_start=first["armed"], lines=nlines, lines_hit=hit_lines,
                   output=args.output)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        blocks_in = last["hit"] + last["missed"]
        share = 100.0 * last["hit"] / blocks_in if blocks_in else 0.0
        print(f"coverage: {last['hit']} of {blocks_in} blocks reached ({share:.1f} %) in "
              f"{last['functions']} functions; {hit_lines} of {nlines} lines; "
              f"{last['unprobed']} blocks unprobed, {last['refused']} functions refused; "
              f"{last['reaps']} reaps; wrote {args.output}")
    return 0


def add_coverage(sub, subcommand):
    p = subcommand(sub, "coverage", "self-removing block coverage of kernel functions, written "
                   "as an lcov tracefile (genhtml renders it)", cmd_coverage, json_flag=True)
    p.add_argument("functions", nargs="+", metavar="FUNC",
                   help="kernel function globs; `kernel` for every function")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--run", metavar="CMD", help="a guest shell command to run meanwhile")
    how.add_argument("--duration", type=float, default=0.0, metavar="S",
                     help="seconds to let the kernel run meanwhile")
    p.add_argument("--run-timeout", type=float, default=600.0, metavar="S",
                   help="seconds the --run command may take (default 600)")
    p.add_argument("-o", "--output", required=True, metavar="FILE.info",
                   help="the lcov tracefile to write")
    p.add_argument("--kernel", metavar="ELF",
                   help="the running kernel's ELF, for its line table (default: kernel.elf "
                        "beside $SCION_KSYMS or build/kernel.syms)")
    return p
