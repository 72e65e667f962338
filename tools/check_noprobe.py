#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Check that the code a probe hit runs lies in .text.noprobe.

A probe in code that the breakpoint handler or a patch's handler call
itself runs would recurse forever, so that code must be unprobeable. It
is kept unprobeable by placement (the Makefile moves the probe
machinery's objects into .text.noprobe; single functions use
__noprobe), and this tool proves the placement complete from the linked
image: every function reachable by direct calls and jumps from the probe
entry points, and every function on a path from the trap stubs to the
breakpoint handler, must lie between __noprobe_start and __noprobe_end.
Indirect calls (the consumers' own handlers) are not followed: a probe
hit inside a handler is only counted as missed.

It also proves that no kernel code sets the direction flag (std): a jump
patch whose site does not read the status flags restores only the
interrupt flag after its call (arch/x86/patch_emit.c), which is right
only while DF is clear wherever a probe can be.

Usage: check_noprobe.py KERNEL.elf
Last line: "noprobe: N functions checked, M outside .text.noprobe".
"""

import re
import subprocess
import sys

# Where probe context begins: the breakpoint handler, the C function a
# jump patch calls, and the NMI handler (an NMI may arrive anywhere).
ENTRY_POINTS = ("probe_breakpoint", "probe_dispatch_frame", "handle_nmi")
TRAP_STUBS = "trap_stubs"

HEADER = re.compile(r"^([0-9a-f]+) <([^>]+)>:$")
SETS_DF = re.compile(r"^\s*[0-9a-f]+:\s+std\s*$")
BRANCH = re.compile(r"^\s*([0-9a-f]+):\s+(call|jmp|j[a-z]+)\s+[0-9a-f]+ <([^>+]+)(\+0x[0-9a-f]+)?>")


def symbols(elf):
    """Function name -> address, and the noprobe bounds."""
    out = subprocess.run(["nm", elf], check=True, capture_output=True, text=True).stdout
    addr = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3:
            addr[parts[2]] = int(parts[0], 16)
    return addr, addr["__noprobe_start"], addr["__noprobe_end"]


def call_graph(elf):
    """Function -> set of functions it calls or jumps to directly; and the
    functions that set the direction flag."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", elf], check=True,
                         capture_output=True, text=True).stdout
    graph, current, set_df = {}, None, set()
    for line in out.splitlines():
        m = HEADER.match(line)
        if m:
            current = m.group(2)
            graph.setdefault(current, set())
            continue
        if SETS_DF.match(line):
            set_df.add(current)
        m = BRANCH.match(line)
        if m and current and m.group(3) != current:
            graph[current].add(m.group(3))
    return graph, set_df


def reachable(graph, roots):
    seen, work = set(), list(roots)
    while work:
        f = work.pop()
        if f in seen:
            continue
        seen.add(f)
        work.extend(graph.get(f, ()))
    return seen


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    elf = sys.argv[1]
    addr, start, end = symbols(elf)
    graph, set_df = call_graph(elf)
    missing = [f for f in ENTRY_POINTS + (TRAP_STUBS,)
               if not any(g == f or g.startswith(f + ".") for g in graph)]
    # Clones keep the name with a suffix (handle_nmi.constprop.0).
    roots = set()
    for f in ENTRY_POINTS:
        roots |= {g for g in graph if g == f or g.startswith(f + ".")}
    must = reachable(graph, roots)
    # On the way in: functions the stubs reach that can reach the handler.
    into = reachable(graph, [TRAP_STUBS])
    for f in into:
        if reachable(graph, [f]) & roots:
            must.add(f)
    bad = sorted(f for f in must if f in addr and not start <= addr[f] < end)
    for f in missing:
        print(f"noprobe: {f} not found in {elf}")
    for f in bad:
        print(f"noprobe: {f} runs in probe context but lies outside .text.noprobe")
    for f in sorted(set_df):
        print(f"noprobe: {f} sets the direction flag (std), which jump patches assume clear")
    print(f"noprobe: {len(must)} functions checked, {len(bad) + len(missing)} outside .text.noprobe")
    sys.exit(1 if bad or missing or set_df else 0)


if __name__ == "__main__":
    main()
