# SPDX-License-Identifier: BSD-2-Clause
"""Building versions of kernel functions for code adaptations
(kernel/codeadapt/, scion/codeadapt.h): an ELF relocatable the kernel
links with graft_code_load and installs behind an entry splice.

A specialized clone is compiled from the kernel's own source: a generated
file includes the translation unit that defines the function (found in
the kernel's DWARF), then defines

    unsigned long scion_clone(T0 a0, ..., Tn an)
        { return (unsigned long)FUNC(a0, ..., (Tk)K, ..., an); }

with `flatten`, so GCC inlines FUNC (and what it calls inside its file)
with argument k constant. Each Ti is the unsigned type of argument i's
width, so the clone reads each register as FUNC would and is entered with
FUNC's own registers (the splice jumps; FUNC's caller gets the clone's
return). A process's own version is the user's C file compiled the same
way, its function named with --entry.

The object is linked with `ld -r --gc-sections` from the entry, so only
what the version reaches is left, and refused when that includes
writable data: its file's static variables would be copies of their own
(one line names them). Every symbol left undefined is given its address
in the booted kernel's ELF as an absolute symbol; one the kernel does not
define globally is refused. The object's manifest (graft/manifest.h)
names the function as its point.
"""

import os
import re
import shlex
import subprocess
import tempfile

from .client import ScionError

ENTRY = "scion_clone"
UNSIGNED = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "unsigned long"}
STORAGE_WORDS = re.compile(r"\b(static|inline|__inline__|extern)\b")


def source_root(elf):
    """The source tree the kernel at elf was built from (it holds kernel/ and Makefile)."""
    d = os.path.dirname(os.path.abspath(elf))
    while d != "/":
        if os.path.isdir(os.path.join(d, "kernel")) and os.path.exists(os.path.join(d, "Makefile")):
            return d
        d = os.path.dirname(d)
    raise ScionError(f"codeadapt: no source tree above {elf}")


def _strip(die):
    """Through typedefs and qualifiers to the type that has a size."""
    while die is not None and die.tag in ("DW_TAG_typedef", "DW_TAG_const_type",
                                          "DW_TAG_volatile_type", "DW_TAG_restrict_type",
                                          "DW_TAG_atomic_type"):
        if "DW_AT_type" not in die.attributes:
            return None
        die = die.get_DIE_from_attribute("DW_AT_type")
    return die


def _width(die, what):
    """Bytes of a scalar type DIE (None: void); a ScionError for a struct or union."""
    t = _strip(die)
    if t is None:
        return None
    if t.tag in ("DW_TAG_structure_type", "DW_TAG_union_type", "DW_TAG_array_type"):
        raise ScionError(f"codeadapt: {what} is passed by value as a "
                         f"{t.tag[7:].replace('_type', '')}: not in one register")
    if t.tag == "DW_TAG_base_type":
        enc = t.attributes.get("DW_AT_encoding")
        if enc and enc.value == 4:     # DW_ATE_float
            raise ScionError(f"codeadapt: {what} is floating point")
    if t.tag == "DW_TAG_pointer_type":
        return 8
    size = t.attributes.get("DW_AT_byte_size")
    if not size:
        raise ScionError(f"codeadapt: {what} has a type without a size")
    return size.value


def describe(elf, function):
    """FUNC as its DWARF says: {tu, comp_dir, params: [(name, width)], returns: width|None}."""
    from elftools.elf.elffile import ELFFile    # python3-pyelftools
    with open(elf, "rb") as f:
        ef = ELFFile(f)
        sym = None
        for s in ef.get_section_by_name(".symtab").iter_symbols():
            if s.name == function and s["st_info"]["type"] == "STT_FUNC" and s["st_size"]:
                sym = s
                break
        if sym is None:
            raise ScionError(f"codeadapt: no kernel function {function} in {elf}")
        addr = sym["st_value"]
        dwarf = ef.get_dwarf_info()
        offset = dwarf.get_aranges().cu_offset_at_addr(addr)
        if offset is None:
            raise ScionError(f"codeadapt: {function} has no debug information")
        cu = dwarf.get_CU_at(offset)
        top = cu.get_top_DIE()
        for die in cu.iter_DIEs():
            if die.tag != "DW_TAG_subprogram" or "DW_AT_low_pc" not in die.attributes:
                continue
            if die.attributes["DW_AT_low_pc"].value != addr:
                continue
            origin = die
            if "DW_AT_abstract_origin" in die.attributes:
                origin = die.get_DIE_from_attribute("DW_AT_abstract_origin")
            params = []
            for child in origin.iter_children():
                if child.tag == "DW_TAG_unspecified_parameters":
                    raise ScionError(f"codeadapt: {function} takes variable arguments")
                if child.tag != "DW_TAG_formal_parameter":
                    continue
                name = child.attributes["DW_AT_name"].value.decode()
                params.append((name, _width(child.get_DIE_from_attribute("DW_AT_type"),
                                            f"{function}'s argument {name}")))
            returns = None
            if "DW_AT_type" in origin.attributes:
                returns = _width(origin.get_DIE_from_attribute("DW_AT_type"),
                                 f"{function}'s result")
            return {"tu": top.attributes["DW_AT_name"].value.decode(),
                    "comp_dir": top.attributes["DW_AT_comp_dir"].value.decode(),
                    "params": params, "returns": returns, "addr": addr}
    raise ScionError(f"codeadapt: {function}'s definition is not in its unit's debug information")


# The clone's copy of the file may inline what the kernel keeps out of line.
NO_NOINLINE = "#include <scion/compiler.h>\n#undef __noinline\n#define __noinline\n"


def manifest(name, function):
    return f"""
#include <graft/manifest.h>
static const struct graft_manifest scion_clone_manifest
	__attribute__((used, retain, section(GRAFT_MANIFEST_SECTION), aligned(8))) = {{
	.magic = GRAFT_MANIFEST_MAGIC, .abi = GRAFT_ABI_VERSION, .version = 1,
	.name = "{name}", .point = "{function}", .signature = "version",
	.entry = (unsigned long)&{ENTRY},
}};
"""


def clone_source(desc, function, arg, value):
    """The C text of FUNC's clone with argument arg fixed at value."""
    params = desc["params"]
    if not 0 <= arg < len(params):
        raise ScionError(f"codeadapt: {function} has {len(params)} arguments; there is no "
                         f"argument {arg}")
    if len(params) > 6:
        raise ScionError(f"codeadapt: {function} takes {len(params)} arguments; a clone takes "
                         f"the six passed in registers")
    decl = ", ".join(f"{UNSIGNED[w]} a{i}" for i, (_, w) in enumerate(params)) or "void"
    args = ", ".join(f"({UNSIGNED[params[i][1]]}){value}ul" if i == arg else f"a{i}"
                     for i in range(len(params)))
    call = f"{function}({args})"
    body = f"return (unsigned long){call};" if desc["returns"] else f"{call};\n\treturn 0;"
    tu = os.path.join(desc["comp_dir"], desc["tu"])
    return (f"/* Generated by scion codeadapt: {function} with argument {arg} "
            f"({params[arg][0]}) = {value}. */\n{NO_NOINLINE}#include \"{tu}\"\n"
            f"__attribute__((used, noinline, flatten)) unsigned long {ENTRY}({decl})\n"
            f"{{\n\t{body}\n}}\n")


def version_source(path, entry):
    """The C text of a version the user wrote (path), entered at entry."""
    return f"#include \"{os.path.abspath(path)}\"\n#define {ENTRY} {entry}\n"


def version_entry(entry):
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", entry):
        raise ScionError(f"codeadapt: '{entry}' is not a C function name")
    return entry


def kernel_symbols(elf):
    """{name: address} of the kernel's global functions and objects."""
    from elftools.elf.elffile import ELFFile
    out = {}
    with open(elf, "rb") as f:
        for s in ELFFile(f).get_section_by_name(".symtab").iter_symbols():
            if s["st_info"]["bind"] in ("STB_GLOBAL", "STB_WEAK") and \
                    s["st_info"]["type"] in ("STT_FUNC", "STT_OBJECT", "STT_NOTYPE") and \
                    s["st_shndx"] != "SHN_UNDEF":
                out[s.name] = s["st_value"]
    return out


def _run(cmd, cwd, what):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if r.returncode:
        lines = [l for l in (r.stderr or r.stdout).splitlines() if "error" in l] or \
            (r.stderr or r.stdout).splitlines() or ["no message"]
        raise ScionError(f"codeadapt: {what} failed: {lines[0]}")
    return r.stdout


def _writable_symbols(obj):
    from elftools.elf.elffile import ELFFile
    with open(obj, "rb") as f:
        ef = ELFFile(f)
        writable = {i for i, s in enumerate(ef.iter_sections())
                    if s["sh_flags"] & 0x1 and s["sh_flags"] & 0x2 and s["sh_size"]}
        if not writable:
            return []
        names = sorted({s.name for s in ef.get_section_by_name(".symtab").iter_symbols()
                        if isinstance(s["st_shndx"], int) and s["st_shndx"] in writable and
                        s["st_info"]["type"] == "STT_OBJECT"})
        return names or ["(unnamed data)"]


def _undefined(obj):
    """The undefined symbols the object's relocations use."""
    from elftools.elf.elffile import ELFFile
    from elftools.elf.relocation import RelocationSection
    with open(obj, "rb") as f:
        ef = ELFFile(f)
        symtab = ef.get_section_by_name(".symtab")
        used = set()
        for sec in ef.iter_sections():
            if isinstance(sec, RelocationSection):
                for r in sec.iter_relocations():
                    sym = symtab.get_symbol(r["r_info_sym"])
                    if sym["st_shndx"] == "SHN_UNDEF" and sym.name:
                        used.add(sym.name)
        return sorted(used)


def build(elf, source, name, function, keep=None, entry=ENTRY):
    """Compile and link source (a clone's or a version's C text, whose function entry
    is the version) into an object; its bytes."""
    root = source_root(elf)
    cflags = [f for f in shlex.split(_run(["make", "-s", "--no-print-directory",
                                           "print-KERNEL_CFLAGS"], root, "make"))
              if f not in ("-Werror", "-g") and not f.startswith("-gctf")]
    work = keep or tempfile.mkdtemp(prefix="scion-clone-")
    os.makedirs(work, exist_ok=True)
    src, obj, linked = (os.path.join(work, n) for n in ("clone.c", "clone.o", "clone_gc.o"))
    with open(src, "w") as f:
        f.write(source + manifest(name, function))
    gcc = os.environ.get("SCION_CROSS", "") + "gcc"
    ld = os.environ.get("SCION_CROSS", "") + "ld"
    _run([gcc] + cflags + ["-g0", "-ffunction-sections", "-fdata-sections", "-w", "-c", src,
                           "-o", obj], root, "compiling the version")
    _run([ld, "-r", "--gc-sections", "-e", entry, "-o", linked, obj], root, "linking it")
    data = _writable_symbols(linked)
    if data:
        raise ScionError(f"codeadapt: {function}'s version uses its file's own variables "
                         f"({', '.join(data[:4])}): a copy would not share them")
    syms = kernel_symbols(elf)
    missing = [u for u in _undefined(linked) if u not in syms]
    if missing:
        raise ScionError(f"codeadapt: the version needs {', '.join(missing[:4])}, which the "
                         f"kernel does not define globally")
    final = os.path.join(work, "clone_final.o")
    defs = [f"--defsym={u}=0x{syms[u]:x}" for u in _undefined(linked)]
    _run([ld, "-r", "-o", final, linked] + defs, root, "giving the kernel's addresses")
    with open(final, "rb") as f:
        image = f.read()
    if not keep:
        for p in (src, obj, linked, final):
            os.unlink(p)
        os.rmdir(work)
    return image
