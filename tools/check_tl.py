#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Check that the code the sparc64 kernel runs at trap level above zero
lies where probe requests are refused (issue 25; DTrace's criticism of
KernInst).

A probe in code that runs at TL > 0 (the trap table, the spill/fill and
MMU-miss handlers, and what they branch to or call) can take the machine
down, so all of it must lie in the TL > 0 range, __tl1_start ..
__tl1_end (arch/sparc64/kernel.ld puts the trap table and the .text.tl1
section there, inside the no-probe range), where every probe request is
refused with the reason that the code runs at TL > 0
(arch/sparc64/probe_site.c, arch_probe_refusal). This
tool proves the placement complete from the linked image, as
check_noprobe.py does for x86's probe context, but follows instructions,
not just functions, because the trap level is a machine state: from every
trap-table entry (1024 of 32 bytes: traps taken at TL 0 and at TL > 0)
and every function in __tl1_start .. __tl1_end, all entered at TL > 0,
it follows every instruction and direct branch, jump and call (into the
callee, at the caller's trap level), with SPARC's delay slots (a slot runs
before its transfer takes effect; an annulled conditional branch runs it
only when taken; ba,a and bn,a never), and tracks the trap level through
`wrpr ..., %tl` (a constant 0 drops to TL 0, where the trap code calls C;
a constant above 0 raises it; anything else may be either). Code reached
only at TL 0 is not followed into calls. done and retry leave the trap
level; illtrap ends a path; a trap instruction comes back to the next one.

It fails when an instruction reachable at TL > 0 lies outside the
TL > 0 range, and when an indirect transfer is reachable at TL > 0
(jmpl, or a ret/retl/return not inside a function the walk called: the
target is a register) unless JUSTIFIED below lists it with the reason
(there are none today: the trap code only branches and calls directly).

Instructions come from sparc64-linux-gnu-objdump -d -z (every word shown,
zero words included), symbols from sparc64-linux-gnu-nm.

Usage: check_tl.py [-v] KERNEL.elf   (-v: list the functions reached at TL > 0)
Last line: "tl: N instructions in F functions reachable at TL > 0 from E entry
points, M outside the TL > 0 range, K indirect transfers not justified".
"""

import bisect
import re
import subprocess
import sys

CROSS = "sparc64-linux-gnu-"
TRAP_TABLE = "trap_table"
TRAP_ENTRY_SIZE = 32
TRAP_ENTRIES = 1024		# 512 for traps taken at TL 0, 512 at TL > 0

# Indirect transfers allowed at TL > 0: "function+0xoffset" -> why it is safe.
JUSTIFIED = {}

LINE = re.compile(r"^\s*([0-9a-f]+):\t(?:[0-9a-f]{2} ){4}\t(\S+)\s*(.*)$")
HEADER = re.compile(r"^([0-9a-f]+) <([^>]+)>:$")
TARGET = re.compile(r"\b([0-9a-f]+) <[^>]+>\s*$")
ALWAYS, NEVER = ("b", "ba", "fb", "fba"), ("bn", "fbn")
RETURNS = ("ret", "retl", "return")
TL_POS, TL_ZERO = 1, 0


def symbols(elf):
    """Every symbol name -> address, and function-like symbols in address order."""
    out = subprocess.run([CROSS + "nm", "-n", elf], check=True, capture_output=True,
                         text=True).stdout
    addr, code = {}, []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3:
            addr[parts[2]] = int(parts[0], 16)
            if parts[1] in "tTW":
                code.append((int(parts[0], 16), parts[2]))
    return addr, code


def disassemble(elf):
    """address -> (mnemonic, operands, direct target or None), and function starts."""
    out = subprocess.run([CROSS + "objdump", "-d", "-z", elf], check=True, capture_output=True,
                         text=True).stdout
    insns, funcs = {}, {}
    for line in out.splitlines():
        m = HEADER.match(line)
        if m:
            funcs[int(m.group(1), 16)] = m.group(2)
            continue
        m = LINE.match(line)
        if not m:
            continue
        ops = m.group(3).split("!")[0].strip()
        t = TARGET.search(m.group(3))
        insns[int(m.group(1), 16)] = (m.group(2), ops, int(t.group(1), 16) if t else None)
    return insns, funcs


def tl_after(mnemonic, ops, tl):
    """The trap levels possible after an instruction run at tl."""
    if mnemonic != "wrpr" or not ops.endswith("%tl"):
        return {tl}
    args = [a.strip() for a in ops.split(",")][:-1]
    # objdump writes `wrpr %g0, N, %tl` as `wrpr N, %tl`: the value is N xor 0.
    if len(args) == 1 and re.fullmatch(r"(0x)?[0-9a-f]+", args[0]):
        return {TL_ZERO if int(args[0], 0) == 0 else TL_POS}
    if args in (["%g0"], ["%g0", "%g0"]):
        return {TL_ZERO}
    return {TL_ZERO, TL_POS}


def is_cti(mnemonic, target):
    base = mnemonic.split(",")[0]
    return (target is not None and (base.startswith("b") or base.startswith("fb") or base == "call")) \
        or base in ("jmp", "jmpl", "call") + RETURNS


class Walk:
    def __init__(self, insns, namer):
        self.insns, self.namer = insns, namer
        self.seen = set()		# (addr, tl, called)
        self.at_tl = set()		# addresses run at TL > 0
        self.indirect = {}		# addr -> text, reached at TL > 0
        self.problems = []

    def push(self, work, addr, tls, called):
        for tl in tls:
            if (addr, tl, called) not in self.seen:
                self.seen.add((addr, tl, called))
                work.append((addr, tl, called))

    def run(self, roots):
        work = []
        for addr in roots:
            self.push(work, addr, {TL_POS}, False)
        while work:
            addr, tl, called = work.pop()
            self.step(work, addr, tl, called)

    def step(self, work, addr, tl, called):
        if addr not in self.insns:
            if tl == TL_POS:
                self.problems.append(f"tl: {self.namer(addr)} reached at TL > 0 is not code")
            return
        if tl == TL_POS:
            self.at_tl.add(addr)
        mnemonic, ops, target = self.insns[addr]
        base, flags = mnemonic.split(",")[0], mnemonic.split(",")[1:]
        if base in ("done", "retry", "illtrap", "unimp"):
            return
        if not is_cti(mnemonic, target):
            self.push(work, addr + 4, tl_after(base, ops, tl), called)
            return
        annul = "a" in flags
        conditional = base not in ALWAYS + NEVER and base not in ("call", "jmp", "jmpl") + RETURNS
        slot = addr + 4
        runs_slot = not (annul and (base in ALWAYS or base in NEVER))
        after = {tl}
        if runs_slot:
            if tl == TL_POS:
                self.at_tl.add(slot)
            if slot in self.insns:
                s_mn, s_ops, s_target = self.insns[slot]
                if is_cti(s_mn, s_target) and tl == TL_POS:
                    self.problems.append(f"tl: a transfer in the delay slot at {self.namer(slot)}")
                after = tl_after(s_mn.split(",")[0], s_ops, tl)
        untaken = {tl} if annul else after
        if base == "call" and target is not None:
            if TL_POS in after:		# the callee runs at TL > 0
                self.push(work, target, {TL_POS}, True)
            self.push(work, addr + 8, after, called)
        elif base in ("call", "jmpl", "jmp") or (base in RETURNS and not called):
            # Through a register: `call %r` and `jmpl X, %rd` link and come back,
            # `jmp X` and a return the walk did not call into do not.
            if tl == TL_POS or TL_POS in after:
                self.indirect[addr] = f"{mnemonic} {ops}".strip()
            links = base == "call" or (base == "jmpl" and not ops.endswith("%g0"))
            if links:
                self.push(work, addr + 8, after, called)
        elif base in RETURNS:
            return			# back to a caller the walk followed
        elif base in NEVER:
            self.push(work, addr + 8, untaken, called)
        else:
            self.push(work, target, after, called)
            if conditional:
                self.push(work, addr + 8, untaken, called)


def main():
    args = sys.argv[1:]
    verbose = "-v" in args
    args = [a for a in args if a != "-v"]
    if len(args) != 1:
        sys.exit(__doc__)
    elf = args[0]
    addr, code = symbols(elf)
    for need in ("__noprobe_start", "__noprobe_end", "__tl1_start", "__tl1_end", TRAP_TABLE):
        if need not in addr:
            print(f"tl: {need} not found in {elf}")
            print("tl: 0 instructions in 0 functions reachable at TL > 0 from 0 entry points, "
                  "1 outside the TL > 0 range, 0 indirect transfers not justified")
            sys.exit(1)
    lo, hi = addr["__tl1_start"], addr["__tl1_end"]
    insns, funcs = disassemble(elf)
    starts = sorted(funcs)

    def func_of(a):
        i = bisect.bisect_right(starts, a) - 1
        return funcs[starts[i]] if i >= 0 else "?"

    def namer(a):
        i = bisect.bisect_right(starts, a) - 1
        return f"{funcs[starts[i]]}+0x{a - starts[i]:x}" if i >= 0 else f"0x{a:x}"

    table = addr[TRAP_TABLE]
    roots = {table + i * TRAP_ENTRY_SIZE for i in range(TRAP_ENTRIES)}
    roots |= {a for a, _ in code if addr["__tl1_start"] <= a < addr["__tl1_end"]}
    roots = sorted(roots)
    walk = Walk(insns, namer)
    walk.run(roots)

    outside = sorted(a for a in walk.at_tl if not lo <= a < hi)
    bad_funcs = {}
    for a in outside:
        bad_funcs.setdefault(func_of(a), a)
    for f, a in sorted(bad_funcs.items(), key=lambda x: x[1]):
        print(f"tl: {f} runs at TL > 0 (first at {namer(a)}) but lies outside the TL > 0 range")
    unjustified = 0
    for a, text in sorted(walk.indirect.items()):
        where = namer(a)
        if where in JUSTIFIED:
            print(f"tl: indirect `{text}` at {where} at TL > 0: justified: {JUSTIFIED[where]}")
        else:
            unjustified += 1
            print(f"tl: indirect `{text}` at {where} reachable at TL > 0: refused (not justified)")
    for p in walk.problems:
        print(p)
    per_func = {}
    for a in walk.at_tl:
        per_func[func_of(a)] = per_func.get(func_of(a), 0) + 1
    if verbose:
        for f, n in sorted(per_func.items()):
            print(f"tl: reachable: {f} ({n} instructions)")
    nfuncs = len(per_func)
    print(f"tl: {len(walk.at_tl)} instructions in {nfuncs} functions reachable at TL > 0 from "
          f"{len(roots)} entry points, {len(outside)} outside the TL > 0 range, {unjustified} "
          f"indirect transfers not justified")
    sys.exit(1 if outside or unjustified or walk.problems else 0)


if __name__ == "__main__":
    main()
