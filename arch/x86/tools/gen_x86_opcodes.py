#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Generate the decoder's opcode tables from arch/x86/opcodes.map.

The map is the readable source of opcode knowledge (its header explains
the notation); this turns each line into a struct x86_opcode
(arch/x86/x86_opcodes.h), grouped by map and opcode byte so that the
decoder finds an opcode's candidate forms by two array lookups.
"""
import argparse
import re
import sys

MAPS = {"one": 0, "0f": 1, "0f38": 2, "0f3a": 3, "vex0f-imm8": 4, "encode": 5,
        "sfi-refusals": 6}
SIZES = {"": "NONE", "b": "B", "w": "W", "d": "D", "q": "Q", "v": "V", "y": "Y", "z": "Z",
         "p": "P", "s": "S", "x": "X"}
IMM = {"Ib": "B", "Iw": "W", "Iz": "Z", "Iv": "V", "Jb": "JB", "Jz": "JZ"}
FIXED = {  # fixed register operands: register number, size
    "AL": (0, "B"), "CL": (1, "B"), "DX": (2, "W"), "rAX": (0, "V"), "eAX": (0, "Z"),
}
REGS = ["rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
        "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"]
FLAGS = {"c": 0, "p": 1, "a": 2, "z": 3, "s": 4, "o": 5, "d": 6}
CF = {"jmp": "JMP", "jcc": "JCC", "loop": "LOOP", "xbegin": "XBEGIN", "call": "CALL",
      "jmp_ind": "JMP_INDIRECT", "call_ind": "CALL_INDIRECT", "ret": "RET",
      "ret_far": "RET_FAR", "jmp_far": "JMP_FAR", "call_far": "CALL_FAR", "iret": "IRET",
      "syscall": "SYSCALL", "sysret": "SYSRET", "int": "INT", "int3": "INT3", "hlt": "HLT",
      "ud": "UD"}
KEYWORDS = {"i64": "I64", "d64": "D64", "f64": "F64", "string": "STRING",
            "noaccess": "NOACCESS", "modrm": "MODRM", "regonly": "REGONLY", "x": "UNKNOWN",
            "nop90": "NOP90", "zeroidiom": "ZERO_IDIOM"}
# sfi=WRITES: the memory a form admitted in a sandboxed graft may write (arch/x86/opcodes.map).
SFI_WRITES = {"none": "NONE", "op": "OPERAND", "pair": "PAIR", "stack": "STACK"}
# Control transfers a sandboxed graft may hold; the verifier checks their targets.
SFI_CF = {"NONE", "JMP", "JCC", "CALL", "JMP_INDIRECT", "CALL_INDIRECT", "UD"}
CONDITIONS = ["o", "no", "b", "ae", "e", "ne", "be", "a", "s", "ns", "p", "np", "l", "ge", "le", "g"]
SPEC = re.compile(r"^([0-9a-f]{2})(?:-([0-9a-f]{2}))?(?:/([0-7]))?(?::(mem|reg|[0-9a-f]{2}))?$")


class MapError(Exception):
    pass


def flag_mask(letters):
    mask = 0
    for ch in letters:
        if ch not in FLAGS:
            raise MapError(f"unknown flag letter '{ch}'")
        mask |= 1 << FLAGS[ch]
    return mask


def parse_operand(tok, entry):
    name, _, acc = tok.partition(":")
    access = {"": 1, "r": 1, "w": 2, "rw": 3}.get(acc)
    if access is None:
        raise MapError(f"bad access '{acc}' in operand '{tok}'")
    if name in IMM:
        slot = "imm1" if entry["imm1"] == "NONE" else "imm2"
        if entry[slot] != "NONE":
            raise MapError("more than two immediates")
        entry[slot] = IMM[name]
        return
    if name in ("Ob", "Ov"):
        entry["imm1"] = "MOFFS"
        entry["mem"] |= access
        return
    if name in FIXED:
        reg, size = FIXED[name]
        if access & 1:
            entry["imp_read"] |= 1 << reg
        if access & 2:
            add_implicit_write(entry, 1 << reg, size)
        return
    if name in ("ES", "CS", "SS", "DS", "FS", "GS"):
        return
    kind, size = name[0], name[1:]
    if size not in SIZES:
        raise MapError(f"unknown operand size in '{tok}'")
    desc = lambda k: f"X86_OPK_{k} | X86_SZ_{SIZES[size]} << 2 | {access} << 6"
    # operand letter -> (slot in struct x86_opcode, kind); all but Z live in ModRM
    slots = {"Z": ("op_opc", "GPR"), "G": ("op_reg", "GPR"), "E": ("op_rm", "GPR"),
             "R": ("op_rm", "GPR"), "M": ("op_rm", "MEM")}
    slots.update({k: ("op_reg", "OTHER") for k in "SCDVP"})
    slots.update({k: ("op_rm", "OTHER") for k in "WUHQN"})
    if kind in "XY":        # string operands: memory at rsi / rdi
        entry["mem"] |= access
    elif kind in slots:
        slot, opkind = slots[kind]
        entry[slot] = desc(opkind)
        entry["modrm"] |= kind != "Z"
    else:
        raise MapError(f"unknown operand '{tok}'")


def add_implicit_write(entry, bit, size):
    """Sort an implicit write by what it does to the rest of the register:
    8/16-bit writes keep it (so they read it too), 32/64-bit writes replace
    it, and operand-sized writes decide at decode time."""
    if size in ("B", "W"):
        entry["imp_read"] |= bit
        entry["imp_written"] |= bit
    elif size in ("D", "Q"):
        entry["imp_written"] |= bit
    else:
        entry["imp_written_v"] |= bit


def parse_attribute(tok, entry):
    if tok in KEYWORDS:
        entry["attrs"].add(KEYWORDS[tok])
        return
    key, _, value = tok.partition("=")
    if key == "f":
        for part in value.split(","):
            kind, _, letters = part.partition(":")
            if letters == "cc":
                entry["attrs"].add("FLAGS_CC")
                continue
            mask = flag_mask(letters)
            if kind == "r":
                entry["flags_read"] |= mask
            elif kind == "w":
                entry["flags_written"] |= mask
            elif kind == "m":      # written only for a nonzero count
                entry["flags_maybe"] |= mask
                entry["flags_written"] |= mask
            else:
                raise MapError(f"bad flag spec '{part}'")
    elif key == "imp":
        for part in value.split(","):
            m = re.fullmatch(r"(\w+):(r|w|rw)/([bwdqv])", part)
            if not m or m.group(1) not in REGS:
                raise MapError(f"bad implicit register '{part}'")
            bit = 1 << REGS.index(m.group(1))
            if "r" in m.group(2):
                entry["imp_read"] |= bit
            if "w" in m.group(2):
                add_implicit_write(entry, bit, SIZES[m.group(3)])
    elif key == "cf":
        if value not in CF:
            raise MapError(f"unknown control flow class '{value}'")
        entry["cf"] = CF[value]
    elif key == "sfi":
        if value not in SFI_WRITES:
            raise MapError(f"unknown sfi write extent '{value}' (none, op, pair or stack)")
        entry["sfi"] = SFI_WRITES[value]
    elif key == "nosfi":
        entry["nosfi"] = value
    elif key == "pfx":
        prefixes = value.split(",")
        if any(v not in ("66", "f3", "f2", "np") for v in prefixes):
            raise MapError(f"unknown prefix in '{value}'")
        entry["prefixes"] = [v.upper() for v in prefixes]
    else:
        raise MapError(f"unknown attribute '{tok}'")


ENCODE = re.compile(r"^([a-z][a-z0-9_]*)\s+((?:[0-9a-f]{2}\s*)+)(?:/([0-7]))?$")


REFUSAL = re.compile(r"^([a-z][a-z0-9]*)\s+(\S.*)$")


def parse(path):
    entries, mapname, encodings, refusals = [], None, [], {}
    for lineno, raw in enumerate(open(path), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            if line.startswith("["):
                mapname = line.strip("[]")
                if mapname not in MAPS:
                    raise MapError(f"unknown map '{mapname}'")
                continue
            if mapname is None:
                raise MapError("opcode before the first [map] line")
            if mapname == "sfi-refusals":
                m = REFUSAL.match(line)
                if not m or m.group(1) in refusals:
                    raise MapError(f"bad or repeated refusal line '{line}'")
                refusals[m.group(1)] = m.group(2)
                continue
            if mapname == "encode":
                m = ENCODE.match(line)
                if not m:
                    raise MapError(f"bad encoding line '{line}'")
                encodings.append((m.group(1), [int(b, 16) for b in m.group(2).split()],
                                  None if m.group(3) is None else int(m.group(3))))
                continue
            toks = line.split()
            m = SPEC.match(toks[0])
            if not m or len(toks) < 2:
                raise MapError(f"bad opcode spec '{toks[0]}'")
            lo = int(m.group(1), 16)
            hi = int(m.group(2), 16) if m.group(2) else lo
            for op in range(lo, hi + 1):
                mnemonic = toks[1]
                if mnemonic.endswith("cc") and mnemonic != "cc":    # jcc, setcc, cmovcc
                    mnemonic = mnemonic[:-2] + CONDITIONS[op & 15]
                entry = {"map": MAPS[mapname], "op": op, "mnemonic": mnemonic, "attrs": set(),
                         "match": "ANY", "reg": 0, "prefix": "ANY", "imm1": "NONE",
                         "imm2": "NONE", "cf": "NONE", "op_reg": "0", "op_rm": "0",
                         "op_opc": "0", "mem": 0, "imp_written_v": 0, "flags_read": 0, "flags_maybe": 0,
                         "sfi": None, "nosfi": None, "operands": [],
                         "flags_written": 0, "imp_read": 0, "imp_written": 0, "modrm": False,
                         "line": lineno}
                if m.group(3) is not None:
                    entry["match"], entry["reg"] = "REG", int(m.group(3))
                    if m.group(4) == "mem":
                        entry["match"] = "REG_MEM"
                    elif m.group(4) == "reg":
                        entry["match"] = "REG_REG"
                elif m.group(4) == "mem":
                    entry["match"] = "MEM"
                elif m.group(4) == "reg":
                    entry["match"] = "REGFORM"
                elif m.group(4):
                    entry["match"], entry["reg"] = "MODRM", int(m.group(4), 16)
                for tok in toks[2:]:
                    if "=" in tok or tok in KEYWORDS:
                        parse_attribute(tok, entry)
                    else:
                        entry["operands"].append(tok)
                        parse_operand(tok, entry)
                if entry["match"] != "ANY" or "MODRM" in entry["attrs"]:
                    entry["modrm"] = True
                for prefix in entry.pop("prefixes", ["ANY"]):
                    entries.append(dict(entry, prefix=prefix))
        except MapError as e:
            sys.exit(f"{path}:{lineno}: {e}")
    return entries, encodings, refusals


SEGMENT_OPERANDS = ("ES", "CS", "SS", "DS", "FS", "GS")


def operand_kind(tok):
    name = tok.partition(":")[0]
    return None if name in FIXED or name in SEGMENT_OPERANDS else name[0]


def writes_modrm_memory(e):
    """Whether the form's ModRM operand is memory it writes (when mod != 3)."""
    if e["match"] in ("REG_REG", "REGFORM") or "NOACCESS" in e["attrs"]:
        return False
    return any(operand_kind(t) in "EM" and ":" in t and "w" in t.partition(":")[2]
               for t in e["operands"] if operand_kind(t))


def refusal_key(e):
    """Why a form is refused in a sandboxed graft: its nosfi= key, or one its
    shape implies; None when nothing does (the map must then say)."""
    if e["nosfi"]:
        return e["nosfi"]
    if "STRING" in e["attrs"]:
        return "string"
    cf = {"RET": "return", "RET_FAR": "far", "JMP_FAR": "far", "CALL_FAR": "far",
          "IRET": "interrupt", "INT": "interrupt", "INT3": "interrupt", "SYSCALL": "interrupt",
          "SYSRET": "interrupt", "HLT": "privileged", "LOOP": "unused",
          "XBEGIN": "transaction"}.get(e["cf"])
    if cf:
        return cf
    names = [t.partition(":")[0] for t in e["operands"]]
    if any(n in SEGMENT_OPERANDS or operand_kind(n) == "S" for n in names):
        return "segment"
    if any(operand_kind(n) in ("C", "D") for n in names if operand_kind(n)):
        return "privileged"
    if e["map"] == MAPS["one"] and 0xd8 <= e["op"] <= 0xdf:
        return "x87"
    if "UNKNOWN" in e["attrs"]:
        return "vector"
    return None


def check_sfi(e, refusals, path):
    """A form admitted in a sandboxed graft must be one whose every effect the
    verifier can bound: sfi=WRITES must match its operands. Every other legacy
    form must carry a reason for its refusal."""
    where = f"{path}:{e['line']}: {e['mnemonic']}"
    if "I64" in e["attrs"]:
        if e["sfi"]:
            return (f"{where}: invalid in 64-bit mode, yet sfi")
        return None
    if not e["sfi"]:
        key = refusal_key(e)
        if key is None:
            return (f"{where}: neither sfi=WRITES nor a reason to refuse it (nosfi=KEY)")
        if key not in refusals:
            return (f"{where}: refusal '{key}' is not in [sfi-refusals]")
        e["refusal"] = key
        return None
    if e["nosfi"]:
        return (f"{where}: both sfi and nosfi")
    bad = [a for a in ("UNKNOWN", "STRING") if a in e["attrs"]]
    if bad or e["mem"] or e["cf"] not in SFI_CF:
        return (f"{where}: sfi, but its effects are not bounded ({bad}, mem {e['mem']}, "
                 f"cf {e['cf']})")
    if any(operand_kind(t) in "SCDVPWUHQN" for t in e["operands"] if operand_kind(t)):
        return (f"{where}: sfi, but an operand is not a general register or memory")
    writes = writes_modrm_memory(e)
    if writes and e["sfi"] not in ("OPERAND", "PAIR"):
        return (f"{where}: writes its memory operand, so sfi=op or sfi=pair")
    if not writes and e["sfi"] in ("OPERAND", "PAIR"):
        return (f"{where}: sfi={e['sfi'].lower()}, but it writes no memory operand")
    pushes = e["imp_written_v"] & (1 << REGS.index("rsp")) or e["imp_written"] & (1 << REGS.index("rsp"))
    if (e["sfi"] == "STACK") != bool(pushes and e["mnemonic"] in ("push", "call")):
        return (f"{where}: sfi=stack is for push and call, which write below %rsp")
    return None


def check(entries, path, refusals):
    errors = [m for m in (check_sfi(e, refusals, path) for e in entries
                          if e["map"] <= MAPS["0f3a"]) if m]
    if errors:
        sys.exit("\n".join(errors))
    by_key = {}
    for e in entries:
        by_key.setdefault((e["map"], e["op"]), []).append(e)
    for (mp, op), group in by_key.items():
        # Having a ModRM byte is a property of the opcode: one form saying so is enough.
        if any(e["modrm"] for e in group):
            for e in group:
                e["modrm"] = True
        seen = set()
        for e in group:
            key = (e["match"], e["reg"], e["prefix"])
            if key in seen:
                sys.exit(f"{path}:{e['line']}: map {mp} opcode {op:02x}: duplicate form")
            seen.add(key)


def byte_form(e):
    """Every sized operand in a ModRM or opcode slot is a byte (add Eb, Gb;
    setcc Eb): the operand size is 1. movzx Gv, Eb is not one: its
    destination has the operand size; only its source is a byte register
    (%al, %ah; and %esp stays %esp, not %ah)."""
    sizes = [e[slot].split("X86_SZ_")[1].split(" ")[0] for slot in ("op_reg", "op_rm", "op_opc")
             if e[slot] != "0"]
    return bool(sizes) and all(size == "B" for size in sizes)


def render(entries, refusals):
    vex_imm8 = [0] * 32
    for e in entries:
        if e["map"] == MAPS["vex0f-imm8"]:
            vex_imm8[e["op"] // 8] |= 1 << (e["op"] % 8)
    entries = [e for e in entries if e["map"] != MAPS["vex0f-imm8"]]
    mnemonics = sorted({e["mnemonic"] for e in entries})
    order = sorted(entries, key=lambda e: (e["map"], e["op"], e["line"]))
    index = [[0] * 257 for _ in range(4)]
    pos = 0
    for mp in range(4):
        for op in range(256):
            index[mp][op] = pos
            while pos < len(order) and order[pos]["map"] == mp and order[pos]["op"] == op:
                pos += 1
        index[mp][256] = pos
    out = ["/* Generated by arch/x86/tools/gen_x86_opcodes.py from arch/x86/opcodes.map: do not edit. */",
           '#include "x86_opcodes.h"', '#include <arch/insn.h>', "",
           "const char *const x86_mnemonics[] = {"]
    out += [f'\t"{m}",' for m in mnemonics]
    reasons = [""] + sorted(refusals)
    out += ["};", f"const unsigned x86_mnemonic_count = {len(mnemonics)};", "",
            "const char *const x86_sfi_refusals[] = {"]
    out += ["\t\"\","] + [f'\t"{refusals[k]}",' for k in reasons[1:]]
    out += ["};", "", "const struct x86_opcode x86_opcodes[] = {"]
    for e in order:
        attrs = set(e["attrs"])
        if e["sfi"]:
            attrs.add("SFI")
        if byte_form(e):
            attrs.add("BYTE")
        if e["modrm"]:
            attrs.add("MODRM")
        attr = " | ".join(f"X86_A_{a}" for a in sorted(attrs)) or "0"
        out.append(
            f"\t{{ /* {('one', '0f', '0f38', '0f3a')[e['map']]} {e['op']:02x}, line {e['line']} */ "
            f".mnemonic = {mnemonics.index(e['mnemonic'])}, .attrs = {attr}, "
            f".match = X86_MATCH_{e['match']}, .reg = 0x{e['reg']:02x}, "
            f".prefix = X86_PFX_{e['prefix']}, .imm1 = X86_IMM_{e['imm1']}, "
            f".imm2 = X86_IMM_{e['imm2']}, .cf = INSN_CF_{e['cf']}, .op_reg = {e['op_reg']}, "
            f".op_rm = {e['op_rm']}, .op_opc = {e['op_opc']}, .mem = {e['mem']}, "
            f".flags_read = 0x{e['flags_read']:02x}, .flags_maybe = 0x{e['flags_maybe']:02x}, "
            f".flags_written = 0x{e['flags_written']:02x}, .imp_read = 0x{e['imp_read']:04x}, "
            f".imp_written = 0x{e['imp_written']:04x}, "
            f".imp_written_v = 0x{e['imp_written_v']:04x}, "
            f".sfi_write = INSN_SFI_WRITE_{e['sfi'] or 'NONE'}, "
            f".sfi_refusal = {reasons.index(e['refusal']) if e.get('refusal') else 0} }},")
    out += ["};", "", "const uint16_t x86_opcode_index[4][257] = {"]
    for mp in range(4):
        out.append("\t{")
        for i in range(0, 257, 16):
            out.append("\t\t" + ", ".join(str(v) for v in index[mp][i:i + 16]) + ",")
        out.append("\t},")
    out.append("};")
    out += ["", "const uint8_t x86_vex_map1_imm8[32] = {",
            "\t" + ", ".join(f"0x{b:02x}" for b in vex_imm8) + ",", "};"]
    return "\n".join(out) + "\n"


def render_encodings(encodings):
    head = ["/* Generated by arch/x86/tools/gen_x86_opcodes.py from arch/x86/opcodes.map: do not edit. */",
            "#ifndef X86_ENCODINGS_H", "#define X86_ENCODINGS_H", "", "#include <stdint.h>", ""]
    body = ["/* Generated by arch/x86/tools/gen_x86_opcodes.py from arch/x86/opcodes.map: do not edit. */",
            '#include "x86_encodings.h"', ""]
    for name, data, ext in encodings:
        up = name.upper()
        head.append(f"extern const uint8_t x86_enc_{name}[{len(data)}];")
        head.append(f"#define X86_ENC_{up}_LEN {len(data)}")
        if ext is not None:
            head.append(f"#define X86_ENC_{up}_EXT {ext}")
        body.append(f"const uint8_t x86_enc_{name}[{len(data)}] = {{ " +
                    ", ".join(f"0x{b:02x}" for b in data) + " };")
    head += ["", "#endif"]
    return "\n".join(head) + "\n", "\n".join(body) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("map")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--encodings", help="directory for x86_encodings.{h,c}")
    args = ap.parse_args()
    entries, encodings, refusals = parse(args.map)
    check(entries, args.map, refusals)
    with open(args.output, "w") as f:
        f.write(render(entries, refusals))
    if args.encodings:
        header, body = render_encodings(encodings)
        with open(f"{args.encodings}/x86_encodings.h", "w") as f:
            f.write(header)
        with open(f"{args.encodings}/x86_encodings.c", "w") as f:
            f.write(body)


if __name__ == "__main__":
    main()
