#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The last step of a sandboxed graft's build: the padding gas writes in
bundle mode, as one-byte nops, becomes multi-byte nops.

    arch/x86/tools/sfi_nops.py OBJ

In `.bundle_align_mode`, gas pads with runs of 0x90 wherever a locked
sequence (a guarded store, a masked branch, the API stack probe and its
call) would cross a bundle boundary, and a graft runs through most of
that padding: each 0x90 is an instruction. This rewrites each run, in
place in the relocatable object, as the fewest nops of the lengths the
SDM recommends (the nop_lenN encodings of arch/x86/opcodes.map), never
across a bundle boundary. It changes no byte that is not padding: a
run is a sequence of whole `nop` instructions (as objdump decodes the
section) with no relocation in it, and its first byte stays an
instruction start, so a label placed before the padding still lands on
a nop. The loader's verifier checks the result like any graft code.
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "tools"))  # elf64.py, shared by every arch's tools

import elf64  # noqa: E402
from sfi_x86 import SFI_BUNDLE_SHIFT  # noqa: E402

BUNDLE = 1 << SFI_BUNDLE_SHIFT
ONE_BYTE_NOP = b"\x90"
INSN = re.compile(r"^\s*([0-9a-f]+):\t([0-9a-f ]+?)\s*\t")


def nop_encodings():
    """{length: bytes} from the [encode] table of opcodes.map."""
    nops, section = {1: ONE_BYTE_NOP}, None
    with open(os.path.join(ROOT, "arch", "x86", "opcodes.map")) as f:
        for line in f:
            words = line.split("#", 1)[0].split()
            if words and words[0].startswith("["):
                section = words[0]
            elif section == "[encode]" and words and words[0].startswith("nop_len"):
                nops[int(words[0][len("nop_len"):])] = bytes(int(b, 16) for b in words[1:])
    if any(len(v) != k for k, v in nops.items()) or sorted(nops) != list(range(1, len(nops) + 1)):
        sys.exit("sfi_nops: opcodes.map's nop_lenN encodings are not one of each length")
    return nops


def one_byte_nops(obj, section):
    """Offsets of the one-byte nop instructions objdump finds in section."""
    out = subprocess.run(["objdump", "-d", "-w", "-j", section, obj], capture_output=True,
                         text=True, check=True).stdout
    return [int(m.group(1), 16) for m in map(INSN.match, out.splitlines())
            if m and m.group(2) == "90"]


def runs(offsets):
    """Maximal runs [start, end) of consecutive offsets, cut at bundle boundaries."""
    out = []
    for off in offsets:
        if out and out[-1][1] == off and off % BUNDLE:
            out[-1][1] = off + 1
        else:
            out.append([off, off + 1])
    return out


def compact(obj):
    nops = nop_encodings()
    longest = max(nops)
    with open(obj, "rb") as f:
        data = bytearray(f.read())
    secs = elf64.sections(data)
    relocated = elf64.relocated_offsets(data, secs)
    for sec in secs:
        if not sec.flags & elf64.SHF_EXECINSTR or not sec.size:
            continue
        touched = relocated.get(sec.index, set())
        for start, end in runs(one_byte_nops(obj, sec.name)):
            if end - start < 2 or any(start <= r < end for r in touched):
                continue
            for at in range(start, end, longest):
                n = min(longest, end - at)
                data[sec.offset + at:sec.offset + at + n] = nops[n]
    with open(obj + ".tmp", "wb") as f:
        f.write(data)
    os.replace(obj + ".tmp", obj)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("object", help="a relocatable object assembled in bundle mode")
    args = ap.parse_args()
    compact(args.object)
    return 0


if __name__ == "__main__":
    sys.exit(main())
