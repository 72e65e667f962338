#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Generate the SPARC V9 decoder's tables from arch/sparc64/opcodes.map.

The map is the readable source of opcode knowledge (its header explains
the notation). Each line becomes one or more struct sparc_form
(arch/sparc64/sparc64_forms.h): a (mask, value) pair over the 32-bit
instruction word, its mnemonic, control-flow class, operand roles and
effects. Condition wildcards and condition-code selectors are expanded
here, and a form whose second operand depends on the i bit is split into
its i=0 and i=1 encodings, each with the reserved bits it must have zero,
so that validity is entirely in the tables. Forms are bucketed by op and
op2/op3 and sorted most specific first; the decoder takes the first form
of its bucket that matches.

Outputs: the C tables (--source) and a header (--header) with the
mnemonic enumeration and the instruction fields' positions.
"""
import argparse
import sys

# Instruction fields: name -> (low bit, width).
FIELDS = {
    "op": (30, 2), "op2": (22, 3), "op3": (19, 6), "rd": (25, 5), "rs1": (14, 5), "i": (13, 1),
    "rs2": (0, 5), "opf": (5, 9), "x": (12, 1), "a": (29, 1), "cond": (25, 4), "bpcc": (20, 2),
    "p": (19, 1), "rcond": (25, 3), "b28": (28, 1), "mcond": (14, 4), "cc2": (18, 1),
    "mcc": (11, 2), "mrcond": (10, 3), "opfcc": (11, 3), "opflow": (5, 6), "opf5": (5, 5),
    "fcmpcc": (25, 2), "hi3": (27, 3), "imm22": (0, 22), "simm13": (0, 13), "lo13": (0, 13),
    "asi": (5, 8), "b13": (13, 1), "b7_12": (7, 6), "d16hi": (20, 2), "d16lo": (0, 14),
    "disp30": (0, 30), "disp22": (0, 22), "disp19": (0, 19), "simm11": (0, 11),
    "simm10": (0, 10), "shcnt": (0, 6), "swtrap": (0, 8), "b3_4": (3, 2),
}

ICC = ["n", "e", "le", "l", "leu", "cs", "neg", "vs", "a", "ne", "g", "ge", "gu", "cc", "pos", "vc"]
FCC = ["n", "ne", "lg", "ul", "l", "ug", "g", "u", "a", "e", "ue", "ge", "uge", "le", "ule", "o"]
RCOND_BRANCH = {1: "z", 2: "lez", 3: "lz", 5: "nz", 6: "gz", 7: "gez"}
RCOND_MOVE = {1: "e", 2: "lez", 3: "lz", 5: "ne", 6: "gz", 7: "gez"}
COND_ALWAYS, COND_NEVER = 8, 0

CC_BITS = {"icc": 0x01, "xcc": 0x02, "fcc0": 0x04, "fcc1": 0x08, "fcc2": 0x10, "fcc3": 0x20}

# Condition-code selectors: each choice fixes some fields and names the cc it reads.
CC_SELECT = {
    "cc:bp": [({"bpcc": 0}, "icc"), ({"bpcc": 2}, "xcc")],
    "cc:fbp": [({"bpcc": n}, f"fcc{n}") for n in range(4)],
    "cc:mov": [({"cc2": 1, "mcc": 0}, "icc"), ({"cc2": 1, "mcc": 2}, "xcc")] +
              [({"cc2": 0, "mcc": n}, f"fcc{n}") for n in range(4)],
    "cc:fmov": [({"opfcc": 4}, "icc"), ({"opfcc": 6}, "xcc")] +
               [({"opfcc": n}, f"fcc{n}") for n in range(4)],
    "cc:tcc": [({"mcc": 0}, "icc"), ({"mcc": 2}, "xcc")],
    "cc:fcmp": [({"fcmpcc": n}, f"fcc{n}") for n in range(4)],  # written, not read
}

CF = {"bicc": None, "fbcc": None, "tcc": None, "bpr": "BRANCH_REG", "call": "CALL",
      "call_ind": "CALL_INDIRECT", "jmp_ind": "JMP_INDIRECT", "ret": "RET", "return": "RETURN",
      "done_retry": "DONE_RETRY", "illtrap": "ILLTRAP"}
MEM = {"ld": "LOAD", "st": "STORE", "atomic": "ATOMIC", "prefetch": "PREFETCH", "flush": "FLUSH"}
WIN = {"save": "SAVE", "restore": "RESTORE", "return": "RETURN", "flushw": "FLUSHW",
       "saved": "SAVED", "restored": "RESTORED"}
DISP = {"disp30": "30", "disp22": "22", "disp19": "19", "disp16": "16"}
# Operands whose meaning depends on i: the immediate kind for i=1, and the
# bits that must be zero for each value of i.
SPLIT = {
    "src2": ("SIMM13", [(5, 8)], []),
    "addr": ("SIMM13", [(5, 8)], []),
    "addr/ign": ("SIMM13", [], []),
    "src2/ign": ("SIMM13", [], []),
    "src2/11": ("SIMM11", [(5, 6)], []),
    "src2/10": ("SIMM10", [], []),
    "src2/11~": ("SIMM11", [], []),
    "shcnt32": ("SHCNT", [(5, 7)], [(5, 7)]),
    "shcnt64": ("SHCNT", [(5, 7)], [(6, 6)]),
    "trapno": ("SWTRAP", [], []),
    "addr/asi": ("SIMM13", [], []),
    "asi": ("NONE", [], []),
}
PLAIN_OPERANDS = {"rd:w", "rd:r", "rd:rw", "rd2:w", "rd2:r", "rs1", "rs2", "frd", "frs1", "frs2",
                  "imm22", "const22", "simm13", "disp30", "disp22", "disp19", "disp16"}


class MapError(Exception):
    pass


def field_bits(name, value):
    if name not in FIELDS:
        raise MapError(f"unknown field '{name}'")
    lo, width = FIELDS[name]
    if value < 0 or value >= 1 << width:
        raise MapError(f"{name}={value} does not fit in {width} bits")
    return ((1 << width) - 1) << lo, value << lo


def parse_line(text):
    toks = text.split()
    if len(toks) < 2:
        raise MapError("want SPEC MNEMONIC ...")
    spec = {}
    for item in toks[0].split(","):
        name, _, val = item.partition("=")
        spec[name] = val if val == "*" else int(val, 0)
    entry = {"spec": spec, "mnemonic": toks[1], "operands": [], "cf": None, "ccr": 0, "ccw": 0,
             "y": "", "mem": "NONE", "mem_size": 0, "win": "NONE", "priv": False,
             "block": False, "quad": False, "asireg": "", "ccsel": None}
    for tok in toks[2:]:
        if tok in CC_SELECT:
            entry["ccsel"] = tok
        elif tok in PLAIN_OPERANDS or tok in SPLIT:
            entry["operands"].append(tok)
        elif tok == "priv":
            entry["priv"] = True
        elif tok == "block":
            entry["block"] = True
        elif tok == "quad":
            entry["quad"] = True
        elif "=" in tok:
            key, _, val = tok.partition("=")
            if key == "cf":
                if val not in CF:
                    raise MapError(f"unknown cf '{val}'")
                entry["cf"] = val
            elif key in ("ccr", "ccw"):
                for cc in val.split("+"):
                    if cc not in CC_BITS:
                        raise MapError(f"unknown condition code '{cc}'")
                    entry[key] |= CC_BITS[cc]
            elif key == "y":
                if val not in ("r", "w", "rw"):
                    raise MapError(f"y={val}")
                entry["y"] = val
            elif key == "asireg":
                if val not in ("r", "w"):
                    raise MapError(f"asireg={val}")
                entry["asireg"] = val
            elif key == "mem":
                kind, _, size = val.partition(":")
                if kind not in MEM:
                    raise MapError(f"unknown memory kind '{kind}'")
                entry["mem"], entry["mem_size"] = MEM[kind], int(size or 0)
            elif key == "win":
                if val not in WIN:
                    raise MapError(f"unknown window kind '{val}'")
                entry["win"] = WIN[val]
            else:
                raise MapError(f"unknown attribute '{tok}'")
        else:
            raise MapError(f"unknown operand or attribute '{tok}'")
    return entry


def expand(entry):
    """Condition wildcards, cc selectors and the i split -> concrete forms."""
    forms = [dict(entry, spec=dict(entry["spec"]), ccname=None)]
    # cc selectors
    if entry["ccsel"]:
        out = []
        for f in forms:
            for fixed, cc in CC_SELECT[entry["ccsel"]]:
                g = dict(f, spec=dict(f["spec"]))
                for k, v in fixed.items():
                    if k in g["spec"] and g["spec"][k] != v:
                        break
                    g["spec"][k] = v
                else:
                    if entry["ccsel"] == "cc:fcmp":
                        g["ccw"] = f["ccw"] | CC_BITS[cc]
                    else:
                        g["ccr"] = f["ccr"] | CC_BITS[cc]
                    g["ccname"] = cc
                    out.append(g)
        forms = out
    # condition wildcards
    out = []
    for f in forms:
        wild = [k for k, v in f["spec"].items() if v == "*"]
        if not wild:
            out.append(f)
            continue
        if len(wild) > 1:
            raise MapError("more than one wildcard")
        key = wild[0]
        mn = f["mnemonic"]
        if "{rb}" in mn or "{rm}" in mn:
            names = RCOND_BRANCH if "{rb}" in mn else RCOND_MOVE
            choices = [(v, mn.replace("{rb}", n).replace("{rm}", n)) for v, n in names.items()]
            fp = False
        else:
            if "{cond}" in mn:
                fp = (f["ccname"] or "").startswith("fcc")
                tmpl = "{fcc}" if fp else "{icc}"
                mn = mn.replace("{cond}", tmpl)
            fp = "{fcc}" in mn
            table = FCC if fp else ICC
            choices = [(v, mn.replace("{icc}", n).replace("{fcc}", n)) for v, n in enumerate(table)]
        for v, name in choices:
            g = dict(f, spec=dict(f["spec"]), mnemonic=name)
            g["spec"][key] = v
            g["condval"] = v
            out.append(g)
    forms = out
    # the i split
    out = []
    for f in forms:
        split = [o for o in f["operands"] if o in SPLIT]
        if len(split) > 1:
            raise MapError("two operands that depend on i")
        if not split:
            f["imm"] = "NONE"
            f["zero"] = []
            f["ival"] = f["spec"].get("i")
            out.append(f)
            continue
        kind, zero0, zero1 = SPLIT[split[0]]
        ivals = [f["spec"]["i"]] if "i" in f["spec"] else [0, 1]
        for iv in ivals:
            g = dict(f, spec=dict(f["spec"]))
            g["spec"]["i"] = iv
            g["ival"] = iv
            g["imm"] = kind if iv else "NONE"
            g["zero"] = zero1 if iv else zero0
            out.append(g)
    return out


def cf_of(f):
    cf = f["cf"]
    if cf is None:
        return "NONE"
    if cf in ("bicc", "fbcc"):
        v = f.get("condval")
        prefix = "F" if cf == "fbcc" else ""
        if v == COND_ALWAYS:
            return "BRANCH_ALWAYS"
        if v == COND_NEVER:
            return "BRANCH_NEVER"
        return prefix + "BRANCH"
    if cf == "tcc":
        v = f.get("condval")
        return "TRAP_ALWAYS" if v == COND_ALWAYS else "NONE" if v == COND_NEVER else "TRAP"
    return CF[cf]


def encode(f):
    mask = value = 0
    for name, v in f["spec"].items():
        m, val = field_bits(name, v)
        if mask & m & ~0:
            overlap = mask & m
            if (value & overlap) != (val & overlap):
                raise MapError(f"fields disagree at {name}")
        mask |= m
        value |= val
    for lo, width in f["zero"]:
        m = ((1 << width) - 1) << lo
        if value & m & mask:
            raise MapError("a reserved field is fixed non-zero")
        mask |= m
    return mask, value


def bucket_of(spec):
    op = spec.get("op")
    if op is None:
        raise MapError("every form fixes op")
    if op == 0:
        if "op2" not in spec:
            raise MapError("op=0 forms fix op2")
        return spec["op2"]
    if op == 1:
        return 8
    if "op3" not in spec:
        raise MapError("op=2/3 forms fix op3")
    return 9 + (op - 2) * 64 + spec["op3"]


NBUCKETS = 9 + 128


def c_ident(mn):
    return "SPARC_MN_" + mn.upper().replace(",", "_")


def operand_flags(f):
    ops = f["operands"]
    flags = []
    if "rd:w" in ops: flags.append("INSN_OPD_RD_W")
    if "rd:r" in ops: flags.append("INSN_OPD_RD_R")
    if "rd:rw" in ops: flags += ["INSN_OPD_RD_R", "INSN_OPD_RD_W"]
    if "rd2:w" in ops: flags += ["INSN_OPD_RD_W", "INSN_OPD_PAIR"]
    if "rd2:r" in ops: flags += ["INSN_OPD_RD_R", "INSN_OPD_PAIR"]
    split = [o for o in ops if o in SPLIT]
    if "rs1" in ops or (split and split[0] in ("src2", "src2/ign", "addr", "addr/ign", "addr/asi",
                                               "shcnt32", "shcnt64", "trapno")):
        flags.append("INSN_OPD_RS1")
    if "rs2" in ops or (split and f["ival"] == 0 and split[0] != "asi"):
        flags.append("INSN_OPD_RS2")
    if split and split[0] in ("addr", "addr/ign", "addr/asi"):
        flags.append("INSN_OPD_ADDR")
    if split and split[0] in ("addr/asi", "asi"):
        flags.append("INSN_OPD_ASI")
    if f["mem"] != "NONE" and not (split and split[0] in ("addr", "addr/ign", "addr/asi")):
        flags.append("INSN_OPD_ADDR_RS1")
    if "imm22" in ops: flags.append("INSN_OPD_IMM22")
    if "const22" in ops: flags.append("INSN_OPD_CONST22")
    if "simm13" in ops: flags.append("INSN_OPD_SIMM13")
    return " | ".join(dict.fromkeys(flags)) or "0"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("map")
    ap.add_argument("--source", required=True)
    ap.add_argument("--header", required=True)
    args = ap.parse_args()

    forms, block_asis, quad_asis, reserved, errors = [], [], [], [], []
    section = None
    with open(args.map) as fh:
        for lineno, raw in enumerate(fh, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            if line.startswith("["):
                section = line.strip("[]")
                continue
            try:
                if section in ("block-asi", "quad-asi"):
                    asis = block_asis if section == "block-asi" else quad_asis
                    asis += [int(t, 0) for t in line.split()]
                    continue
                if section == "reserved":
                    spec_text, _, reason = line.partition(" ")
                    reason = reason.strip()
                    if not (reason.startswith('"') and reason.endswith('"')) or '\\' in reason:
                        raise MapError("a reserved line is SPEC \"reason\"")
                    spec = {k: int(v, 0) for k, v in
                            (item.split("=") for item in spec_text.split(","))}
                    mask, value = encode({"spec": spec, "zero": []})
                    reserved.append((mask, value, reason, lineno))
                    continue
                for f in expand(parse_line(line)):
                    f["mask"], f["value"] = encode(f)
                    f["bucket"] = bucket_of(f["spec"])
                    f["lineno"] = lineno
                    forms.append(f)
            except (MapError, ValueError) as e:
                errors.append(f"{args.map}:{lineno}: {e}")
    # Two forms some word matches must differ in specificity, so that the
    # most specific one is the answer (an alias beside its general form);
    # equally specific overlapping forms would make the order of lines matter.
    by_bucket = {}
    for f in forms:
        by_bucket.setdefault(bucket_of(f["spec"]), []).append(f)
    for group in by_bucket.values():
        for a_i, a in enumerate(group):
            for b in group[a_i + 1:]:
                common = a["mask"] & b["mask"]
                if (a["value"] ^ b["value"]) & common:
                    continue
                if bin(a["mask"]).count("1") == bin(b["mask"]).count("1"):
                    errors.append(f"{args.map}:{b['lineno']}: {b['mnemonic']} overlaps "
                                  f"{a['mnemonic']} (line {a['lineno']}) and is no more specific")
    if errors:
        sys.stderr.write("\n".join(errors) + "\n")
        sys.exit(1)

    mnemonics = sorted({f["mnemonic"] for f in forms})
    mn_index = {m: i for i, m in enumerate(mnemonics)}
    buckets = [[] for _ in range(NBUCKETS)]
    for f in forms:
        buckets[f["bucket"]].append(f)
    ordered = []
    ranges = []
    for b in buckets:
        b.sort(key=lambda f: (-bin(f["mask"]).count("1"), f["lineno"]))
        ranges.append((len(ordered), len(b)))
        ordered += b

    forms_for_enc = ordered
    with open(args.header, "w") as h:
        h.write("/* SPDX-License-Identifier: BSD-2-Clause */\n")
        h.write("/* Generated from arch/sparc64/opcodes.map by gen_sparc64_opcodes.py: do not edit.\n"
                " * The mnemonics of the SPARC V9 decoder and the instruction fields' positions. */\n")
        h.write("#ifndef SPARC64_OPCODES_H\n#define SPARC64_OPCODES_H\n\n")
        h.write("enum sparc_mnemonic {\n")
        for m in mnemonics:
            h.write(f"\t{c_ident(m)},\n")
        h.write(f"\tSPARC_MN_COUNT\n}};\n\n")
        for name, (lo, width) in sorted(FIELDS.items()):
            h.write(f"#define SPARC_F_{name.upper()}_SHIFT {lo}\n")
            h.write(f"#define SPARC_F_{name.upper()}_MASK 0x{(1 << width) - 1:x}u\n")
        h.write(f"#define SPARC_FIELD(w, f) (((w) >> SPARC_F_##f##_SHIFT) & SPARC_F_##f##_MASK)\n")
        # Encoding helpers for the patch emitter (arch/sparc64/patch/): each
        # form's fixed bits, named by its mnemonic (SPARC_ENC_BA, then
        # SPARC_ENC_BA_2 for the second form of the same mnemonic, in map
        # order), so C never writes an opcode number inline.
        h.write("\n/* Fixed bits of each form: OR the operand fields in. */\n")
        seen = {}
        for f in sorted(forms_for_enc, key=lambda f: f["lineno"]):
            ident = c_ident(f["mnemonic"]).replace("SPARC_MN_", "SPARC_ENC_", 1)
            n = seen.get(ident, 0) + 1
            seen[ident] = n
            name = ident if n == 1 else f"{ident}_{n}"
            h.write(f"#define {name} 0x{f['value']:08x}u\t/* mask 0x{f['mask']:08x}, line {f['lineno']} */\n")
        h.write(f"\n#define SPARC_FORM_BUCKETS {NBUCKETS}\n")
        h.write(f"#define SPARC_BUCKET_OP1 8\n#define SPARC_BUCKET_OP2 9\n"
                f"#define SPARC_BUCKET_OP3 (9 + 64)\n")
        h.write("\n#endif\n")

    with open(args.source, "w") as c:
        c.write("// SPDX-License-Identifier: BSD-2-Clause\n")
        c.write("// Generated from arch/sparc64/opcodes.map by gen_sparc64_opcodes.py: do not edit.\n")
        c.write("#include <arch/insn.h>\n#include \"sparc64_forms.h\"\n\n")
        c.write(f"const char *const sparc_mnemonics[SPARC_MN_COUNT] = {{\n")
        for m in mnemonics:
            c.write(f"\t\"{m}\",\n")
        c.write("};\n\n")
        c.write(f"const struct sparc_form sparc_forms[{len(ordered)}] = {{\n")
        for f in ordered:
            y = {"": "0", "r": "SPARC_Y_R", "w": "SPARC_Y_W", "rw": "SPARC_Y_R | SPARC_Y_W"}[f["y"]]
            flags = [y] if y != "0" else []
            if f["priv"]: flags.append("SPARC_PRIV")
            if f["block"]: flags.append("SPARC_BLOCK")
            if f["quad"]: flags.append("SPARC_QUAD")
            if f["asireg"]: flags.append("SPARC_ASI_" + f["asireg"].upper())
            disp = next((DISP[o] for o in f["operands"] if o in DISP), "NONE")
            c.write(f"\t{{ 0x{f['mask']:08x}u, 0x{f['value']:08x}u, {c_ident(f['mnemonic'])}, "
                    f"INSN_CF_{cf_of(f)}, {operand_flags(f)}, 0x{f['ccr']:02x}, 0x{f['ccw']:02x}, "
                    f"INSN_MEM_{f['mem']}, {f['mem_size']}, INSN_WIN_{f['win']}, "
                    f"SPARC_IMM_{f['imm']}, SPARC_DISP_{disp}, {' | '.join(flags) or '0'} }},"
                    f"\t/* line {f['lineno']} */\n")
        c.write("};\n\n")
        c.write("const struct sparc_bucket sparc_buckets[SPARC_FORM_BUCKETS] = {\n")
        for first, count in ranges:
            c.write(f"\t{{ {first}, {count} }},\n")
        c.write("};\n\n")
        reserved.sort(key=lambda r: (-bin(r[0]).count("1"), r[3]))
        c.write(f"const struct sparc_reserved sparc_reserved[{len(reserved) + 1}] = {{\n")
        for mask, value, reason, lineno in reserved:
            c.write(f"\t{{ 0x{mask:08x}u, 0x{value:08x}u, {reason} }},\t/* line {lineno} */\n")
        c.write("\t{ 0, 0, NULL },\n};\n\n")
        c.write("/* SPARC_BLOCK: 64-byte block transfers; SPARC_QUAD: 16-byte quad loads. */\n")
        c.write("const uint8_t sparc_asi_kinds[256] = {\n")
        kinds = {}
        for a in block_asis:
            kinds.setdefault(a, []).append("SPARC_BLOCK")
        for a in quad_asis:
            kinds.setdefault(a, []).append("SPARC_QUAD")
        for a in sorted(kinds):
            if not 0 <= a < 256:
                sys.exit(f"{args.map}: ASI 0x{a:x} out of range")
            c.write(f"\t[0x{a:02x}] = {' | '.join(kinds[a])},\n")
        c.write("};\n")


if __name__ == "__main__":
    main()
