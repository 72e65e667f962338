# SPDX-License-Identifier: BSD-2-Clause
"""ELF reading for the build tools, on Debian's python3-pyelftools: the
section headers of an object or image that a tool edits in place
(text_hash.py, sfi_nops.py), the offsets its relocations touch, and the
symbols of a linked kernel (gen_symtab.py).

pyelftools is a pure-Python package; when the python3 on PATH is not
Debian's (a pyenv or venv interpreter), Debian's copy is used from its
dist-packages, so `make deps` (qemu/deps.sh) is all a machine needs.
"""
import collections
import io
import sys

try:
    from elftools.elf.elffile import ELFFile
except ImportError:
    sys.path.append("/usr/lib/python3/dist-packages")
    try:
        from elftools.elf.elffile import ELFFile
    except ImportError:
        sys.exit("elf64: pyelftools is missing: `make deps` installs python3-pyelftools")
from elftools.elf.relocation import RelocationSection

Section = collections.namedtuple("Section", "index name type flags offset size info")
Symbol = collections.namedtuple("Symbol", "name value size type bind section")
SHF_EXECINSTR = 0x4


def _elf(data):
    return ELFFile(io.BytesIO(bytes(data)))


def sections(data):
    """[Section] of the ELF image in data (bytes or bytearray); type is the
    section type's name (SHT_PROGBITS, SHT_RELA, ...)."""
    return [Section(i, s.name, s["sh_type"], s["sh_flags"], s["sh_offset"], s["sh_size"],
                    s["sh_info"]) for i, s in enumerate(_elf(data).iter_sections())]


def relocated_offsets(data, secs=None):
    """{section index: offsets its relocation sections relocate}."""
    out = {}
    for s in _elf(data).iter_sections():
        if isinstance(s, RelocationSection):
            out.setdefault(s["sh_info"], set()).update(r["r_offset"] for r in s.iter_relocations())
    return out


def symbols(path):
    """[Symbol] of the ELF file's symbol tables, undefined ones left out; type
    and bind as readelf names them (FUNC, OBJECT, NOTYPE; LOCAL, GLOBAL, WEAK)."""
    with open(path, "rb") as f:
        elf = ELFFile(f)
        out = []
        for table in elf.iter_sections():
            if table["sh_type"] not in ("SHT_SYMTAB", "SHT_DYNSYM"):
                continue
            for sym in table.iter_symbols():
                if sym["st_shndx"] == "SHN_UNDEF" or not sym.name:
                    continue
                out.append(Symbol(sym.name, sym["st_value"], sym["st_size"],
                                  sym["st_info"]["type"][len("STT_"):],
                                  sym["st_info"]["bind"][len("STB_"):], sym["st_shndx"]))
        return out
