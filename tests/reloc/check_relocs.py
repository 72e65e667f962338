#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""A port's graft relocations against GNU ld's.

    check_relocs.py --arch sparc64|x86 --driver build/host/reloc-ARCH [--work DIR]

For each input (tests/reloc/graft_like.c in each code model the port's
grafts may use, and the port's cases file, tests/reloc/sparc64_cases.S
say, which writes out every relocation type the port applies) the
port's cross compiler makes an
object; GNU ld links it at an address of the code model, each allocated
section alone in an output section and every undefined symbol defined
near it (--defsym); then every relocation record of the object goes
through the port's own arch_elf_reloc_apply (the driver, built from
arch/sparc64/elf_reloc.c, say) with the place, symbol value and addend the link
gave it, and the field it writes must equal the bytes ld wrote there.
A type the compiler or assembler used that the port does not apply is
a failure, and so is any type the cases file names but no object
carried. Then the edges: for each range-checked type, a value just
inside its range is applied and one just outside is refused.

One line per input (`reloc ARCH/INPUT: OK (N relocations)` or FAILED
with the first mismatches), one per edge, then `N passed, M failed`.
"""

import argparse
import os
import subprocess
import sys
import tempfile

from elftools.elf.elffile import ELFFile
from elftools.elf.relocation import RelocationSection
from elftools.elf.sections import SymbolTableSection

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.join(ROOT, "tests", "reloc")

# What each port compiles grafts like, where a graft may lie in each code
# model, and the types its cases file must show.
PORTS = {
    "sparc64": {
        "cross": "sparc64-linux-gnu-",
        "cflags": ["-O2", "-ffreestanding", "-fno-pic", "-fno-pie", "-mno-fpu",
                   "-fno-asynchronous-unwind-tables", "-fno-merge-constants", "-fno-common"],
        "models": {"medlow": 0x40100000, "medmid": 0x0000_0a00_0010_0000,
                   "medany": 0x0000_1234_0010_0000},
        "cases_base": 0x40100000,
        "names": {1: "R_SPARC_8", 2: "R_SPARC_16", 3: "R_SPARC_32", 5: "R_SPARC_DISP16",
                  6: "R_SPARC_DISP32", 7: "R_SPARC_WDISP30", 8: "R_SPARC_WDISP22",
                  9: "R_SPARC_HI22", 11: "R_SPARC_13", 12: "R_SPARC_LO10", 23: "R_SPARC_UA32",
                  32: "R_SPARC_64", 34: "R_SPARC_HH22", 35: "R_SPARC_HM10", 36: "R_SPARC_LM22",
                  40: "R_SPARC_WDISP16", 41: "R_SPARC_WDISP19", 46: "R_SPARC_DISP64",
                  33: "R_SPARC_OLO10", 50: "R_SPARC_H44", 51: "R_SPARC_M44", 52: "R_SPARC_L44", 54: "R_SPARC_UA64",
                  55: "R_SPARC_UA16"},
        # (name, type, place, symbol + addend, applies): one inside, one outside each range
        "edges": [
            ("wdisp30-reach", 7, 0x40000000, 0x40000000 + (1 << 31) - 4, True),
            ("wdisp30-beyond", 7, 0x40000000, 0x40000000 + (1 << 31), False),
            ("wdisp22-reach", 8, 0x40000000, 0x40000000 + (1 << 23) - 4, True),
            ("wdisp22-beyond", 8, 0x40000000, 0x40000000 + (1 << 23), False),
            ("wdisp22-back", 8, 0x40800000, 0x40000000, True),
            ("wdisp22-back-beyond", 8, 0x40800004, 0x40000000, False),
            ("wdisp19-beyond", 41, 0x40000000, 0x40000000 + (1 << 20), False),
            ("wdisp16-reach", 40, 0x40000000, 0x40000000 + (1 << 17) - 4, True),
            ("wdisp16-beyond", 40, 0x40000000, 0x40000000 + (1 << 17), False),
            ("wdisp30-misaligned", 7, 0x40000000, 0x40000002, False),
            ("hi22-4g", 9, 0, (1 << 32) - 1, True),
            ("hi22-above-4g", 9, 0, 1 << 32, False),
            ("h44-below", 50, 0, (1 << 44) - 1, True),
            ("h44-above", 50, 0, 1 << 44, False),
            ("simm13-max", 11, 0, 4095, True),
            ("simm13-over", 11, 0, 4096, False),
            ("simm13-min", 11, 0, -4096, True),
            ("simm13-under", 11, 0, -4097, False),
            ("disp32-beyond", 6, 0x40000000, 0x40000000 + (1 << 31), False),
            ("data32-unsigned", 3, 0, (1 << 32) - 1, True),
            ("data32-above", 3, 0, 1 << 32, False),
            ("olo10-fits", 33 | 0x10 << 8, 0, 0x3ff, True),
            ("olo10-over", 33 | 0xc01 << 8, 0, 0x3ff, False),
            ("olo10-negative", 33 | 0xfffff0 << 8, 0, 0, True),
        ],
        "refused": [(13, "R_SPARC_GOT10"), (22, "R_SPARC_RELATIVE"), (56, "R_SPARC_TLS_GD_HI22"),
                    (80, "R_SPARC_GOTDATA_HIX22")],
    },
    "x86": {
        "cross": "",
        "cflags": ["-O2", "-ffreestanding", "-fno-pic", "-fno-pie", "-mcmodel=kernel",
                   "-mno-red-zone", "-mgeneral-regs-only", "-fno-asynchronous-unwind-tables",
                   "-fno-merge-constants", "-fno-common", "-fcf-protection=none"],
        "models": {"kernel": 0xffffffff_c0100000},
        "cases_base": 0xffffffff_c0100000,
        "names": {1: "R_X86_64_64", 2: "R_X86_64_PC32", 4: "R_X86_64_PLT32", 10: "R_X86_64_32",
                  11: "R_X86_64_32S", 24: "R_X86_64_PC64"},
        "edges": [
            ("pc32-reach", 2, 0xffffffff_80000000, 0xffffffff_80000000 + (1 << 31) - 1, True),
            ("pc32-beyond", 2, 0xffffffff_80000000, 0xffffffff_80000000 + (1 << 31), False),
            ("32-max", 10, 0, (1 << 32) - 1, True),
            ("32-over", 10, 0, 1 << 32, False),
            ("32s-top", 11, 0, 0xffffffff_80000000, True),
            ("32s-below-top", 11, 0, 0xffffffff_7fffffff, False),
        ],
        "refused": [(9, "R_X86_64_GOTPCREL"), (8, "R_X86_64_RELATIVE")],
    },
}

FIELD_WIDTHS = {}   # filled from the driver: type -> bytes


class Failure(Exception):
    pass


def run(argv, **kw):
    p = subprocess.run(argv, capture_output=True, text=True, **kw)
    if p.returncode:
        raise Failure(f"{' '.join(argv[:3])} ...: exit {p.returncode}: {p.stderr.strip()[:400]}")
    return p.stdout


def undefined_symbols(obj):
    with open(obj, "rb") as f:
        elf = ELFFile(f)
        tab = elf.get_section_by_name(".symtab")
        return sorted({s.name for s in tab.iter_symbols()
                       if s.name and s["st_shndx"] == "SHN_UNDEF"})


def allocated_sections(elf):
    return [(i, s) for i, s in enumerate(elf.iter_sections())
            if s["sh_flags"] & 0x2 and s["sh_size"] and s.name]


def link(port, obj, base, work):
    """Link obj at base: each allocated section in an output section of
    its own; undefined symbols just below base. Returns (output path,
    {undefined name: address})."""
    with open(obj, "rb") as f:
        elf = ELFFile(f)
        sections = allocated_sections(elf)
    undefined = undefined_symbols(obj)
    # small_value: what simm13, 8- and 16-bit data fields can hold.
    addresses = {name: (0x55 if name == "small_value" else base - 0x1000 + 0x40 * i)
                 for i, name in enumerate(undefined)}
    script = os.path.join(work, os.path.basename(obj) + ".ld")
    with open(script, "w") as f:
        f.write(f"SECTIONS {{\n  . = {base:#x};\n")
        for i, s in sections:
            f.write(f"  .out{i} : {{ *({s.name}) }}\n")
        f.write("  /DISCARD/ : { *(.comment) *(.note*) *(.eh_frame) }\n}\n")
    out = obj + ".linked"
    argv = [port["cross"] + "ld", "-o", out, "-T", script, "-e", "0", "--no-relax", "-static",
            "--no-warn-rwx-segments", "-z", "noexecstack", obj]
    for name, addr in addresses.items():
        argv += ["--defsym", f"{name}={addr:#x}"]
    run(argv)
    return out, addresses


def relocation_lines(obj, linked, addresses):
    """Every RELA record of obj as (description, driver line, expected field bytes)."""
    rows = []
    with open(obj, "rb") as fo, open(linked, "rb") as fl:
        eo, el = ELFFile(fo), ELFFile(fl)
        out_addr = {}
        for i, s in allocated_sections(eo):
            out = el.get_section_by_name(f".out{i}")
            if out is None:
                raise Failure(f"{obj}: section {s.name} missing from the link")
            out_addr[i] = (out["sh_addr"], out.data())
        symtab = eo.get_section_by_name(".symtab")
        for rel in eo.iter_sections():
            if not isinstance(rel, RelocationSection) or not rel.is_RELA():
                continue
            target = rel["sh_info"]
            if target not in out_addr:
                continue            # a relocation of a discarded section
            addr, linked_bytes = out_addr[target]
            original = eo.get_section(target).data()
            for r in rel.iter_relocations():
                sym = symtab.get_symbol(r["r_info_sym"])
                if sym["st_shndx"] == "SHN_UNDEF":
                    value = addresses[sym.name]
                elif sym["st_shndx"] == "SHN_ABS":
                    value = sym["st_value"]
                else:
                    value = out_addr[sym["st_shndx"]][0] + sym["st_value"]
                rtype = r["r_info_type"]
                off = r["r_offset"]
                rows.append((rtype, addr + off, value, r["r_addend"], original, linked_bytes, off,
                             f"{rel.name}+{off:#x} type {rtype} to {sym.name or 'section'}"))
    return rows


def drive(driver, lines):
    out = run([driver], input="".join(lines), timeout=60)
    return out.splitlines()


def widths(driver, types):
    """The driver says unsupported for a type it does not apply; for the
    rest, the width is found by asking with 1 to 8 field bytes."""
    for t in types:
        if t in FIELD_WIDTHS:
            continue
        FIELD_WIDTHS[t] = None
        for w in (4, 8, 2, 1):
            line = f"{t:x} 0 0 0 {'00' * w}\n"
            if drive(driver, [line])[0] != "unsupported":
                FIELD_WIDTHS[t] = w
                break


def check_object(driver, obj, linked, addresses):
    rows = relocation_lines(obj, linked, addresses)
    widths(driver, {r[0] for r in rows})
    problems, lines, expect = [], [], []
    for rtype, place, sym, addend, original, linked_bytes, off, what in rows:
        w = FIELD_WIDTHS[rtype]
        if w is None:
            problems.append(f"{what}: the port does not apply type {rtype}")
            continue
        lines.append(f"{rtype:x} {place:x} {sym & (2**64 - 1):x} {addend & (2**64 - 1):x} "
                     f"{original[off:off + w].hex()}\n")
        expect.append((what, linked_bytes[off:off + w].hex()))
    for (what, want), got in zip(expect, drive(driver, lines) if lines else []):
        if got.split()[0] != "ok" or got.split()[2] != want:
            problems.append(f"{what}: ours {got!r}, ld's {want}")
    return rows, problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", choices=sorted(PORTS), required=True)
    ap.add_argument("--driver", required=True, help="build/host/reloc-ARCH")
    ap.add_argument("--work", help="keep the objects here (default: a temporary folder)")
    args = ap.parse_args()
    port = PORTS[args.arch]
    passed = failed = 0

    def report(name, ok, detail=""):
        nonlocal passed, failed
        passed += ok
        failed += not ok
        print(f"reloc {args.arch}/{name}: {'OK' if ok else 'FAILED'}{(' ' + detail) if detail else ''}")

    gcc = port["cross"] + "gcc"
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or tmp
        os.makedirs(work, exist_ok=True)
        inputs = [(f"graft_like-{m}", "graft_like.c", [f"-mcmodel={m}"], base)
                  for m, base in port["models"].items()]
        inputs.append((f"{args.arch}_cases", f"{args.arch}_cases.S", [], port["cases_base"]))
        seen = set()
        for name, src, flags, base in inputs:
            obj = os.path.join(work, name + ".o")
            try:
                run([gcc] + port["cflags"] + flags + ["-c", os.path.join(HERE, src), "-o", obj])
                linked, addresses = link(port, obj, base, work)
                rows, problems = check_object(args.driver, obj, linked, addresses)
            except Failure as e:
                report(name, False, str(e))
                continue
            seen |= {r[0] & 0xff if args.arch == "sparc64" else r[0] for r in rows}
            report(name, not problems and bool(rows),
                   f"({len(rows)} relocations)" if not problems else
                   f"{len(problems)} of {len(rows)}: " + "; ".join(problems[:4]))
        missing = sorted(set(port["names"]) - seen)
        report("every-type-exercised", not missing,
               "" if not missing else "no object carried " +
               ", ".join(port["names"][t] for t in missing))

        widths(args.driver, {e[1] for e in port["edges"]} | {t for t, _ in port["refused"]})
        for name, rtype, place, target, applies in port["edges"]:
            w = FIELD_WIDTHS[rtype] or 4
            got = drive(args.driver, [f"{rtype:x} {place:x} {target & (2**64 - 1):x} 0 "
                                      f"{'00' * w}\n"])[0]
            ok = got.startswith("ok") if applies else got.startswith("refused")
            report(f"edge/{name}", ok, "" if ok else f"got {got!r}")
        for rtype, label in port["refused"]:
            got = drive(args.driver, [f"{rtype:x} 0 0 0 00000000\n"])[0]
            report(f"refused/{label}", got == "unsupported", "" if got == "unsupported" else
                   f"got {got!r}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
