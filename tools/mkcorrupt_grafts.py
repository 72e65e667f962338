#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Write corrupted copies of a good graft, for tests of the graft loader.

    tools/mkcorrupt_grafts.py GOOD.graft OUTDIR

Each copy breaks one thing (a header field, a section, a symbol, a
relocation, the manifest) and must be refused by the kernel's loader
(kernel/graft/elf_load.c) with a one-line message. OUTDIR/expected.txt
lists `FILE<TAB>substring of the expected message`, one copy a line.
The host unit tests load every copy made from their fixture graft; the
in-kernel tests can load the same files.

GOOD.graft may be any graft built by `make grafts`: it needs a text
section, a relocation section for a loaded section, a global symbol
and the manifest with its relocation, which every graft has.
"""
import argparse
import os
import struct
import sys

EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
SHDR = struct.Struct("<IIQQQQIIQQ")
SYM = struct.Struct("<IBBHQQ")
RELA = struct.Struct("<QQq")

SHT_PROGBITS, SHT_SYMTAB, SHT_RELA, SHT_NOBITS, SHT_REL = 1, 2, 4, 8, 9
SHF_ALLOC, SHF_EXECINSTR = 0x2, 0x4
STB_GLOBAL = 1
SHN_UNDEF, SHN_LORESERVE = 0, 0xff00
R_X86_64_GOTPCREL = 9
MANIFEST = ".graft.manifest"
MANIFEST_ENTRY_OFFSET = 192     # offsetof(struct graft_manifest, entry)
MANIFEST_NAME_OFFSET = 16
GRAFT_NAME_MAX = 32
HUGE = 0xffffffffffff


class Graft:
    """The parts of a relocatable ELF64 object the corruptions touch."""

    def __init__(self, data):
        self.data = bytes(data)
        if len(data) < EHDR.size or data[:4] != b"\x7fELF":
            sys.exit("mkcorrupt_grafts: the good graft is not an ELF file")
        eh = EHDR.unpack_from(data)
        self.shoff, self.shnum, self.shstrndx = eh[6], eh[12], eh[13]
        self.sections = [SHDR.unpack_from(data, self.shoff + i * SHDR.size) for i in range(self.shnum)]
        names = self.sections[self.shstrndx]
        self.names = [self._string(names[4], s[0]) for s in self.sections]
        self.symtab = next(i for i, s in enumerate(self.sections) if s[1] == SHT_SYMTAB)

    def _string(self, table_offset, offset):
        start = table_offset + offset
        return self.data[start:self.data.index(b"\0", start)].decode("latin-1")

    def index(self, predicate, what):
        for i, s in enumerate(self.sections):
            if i and predicate(i, s):
                return i
        sys.exit(f"mkcorrupt_grafts: the good graft has no {what}")

    def named(self, name):
        return self.index(lambda i, s: self.names[i] == name, name)

    def header_offset(self, index):
        return self.shoff + index * SHDR.size

    def symbols(self):
        sh = self.sections[self.symtab]
        strings = self.sections[sh[6]]
        for i in range(1, sh[5] // SYM.size):
            sym = SYM.unpack_from(self.data, sh[4] + i * SYM.size)
            yield i, sh[4] + i * SYM.size, sym, self._string(strings[4], sym[0])

    def loaded_rela(self):
        """The first relocation section of a loaded section, and its first record's offset."""
        i = self.index(lambda i, s: s[1] == SHT_RELA and s[9] == RELA.size and s[5] >= RELA.size
                       and s[7] < self.shnum and self.sections[s[7]][2] & SHF_ALLOC,
                       "relocations for a loaded section")
        return i, self.sections[i][4]


def put(buf, fmt, offset, value):
    struct.pack_into("<" + fmt, buf, offset, value)


def corruptions(g):
    """(file name, expected message substring, function changing a bytearray copy)."""
    text = g.index(lambda i, s: s[1] == SHT_PROGBITS and s[2] & SHF_EXECINSTR and s[5] > 0, "text")
    manifest = g.named(MANIFEST)
    man_off = g.sections[manifest][4]
    rela, rela_record = g.loaded_rela()
    defined = next(((i, off) for i, off, sym, _ in g.symbols() if SHN_UNDEF < sym[3] < SHN_LORESERVE),
                   None)
    global_sym = next(((off, name) for i, off, sym, name in g.symbols()
                       if sym[1] >> 4 == STB_GLOBAL and SHN_UNDEF < sym[3] < SHN_LORESERVE and name),
                      None)
    manifest_rela = g.index(lambda i, s: s[1] == SHT_RELA and s[7] == manifest, "manifest relocation")
    if defined is None or global_sym is None:
        sys.exit("mkcorrupt_grafts: the good graft has no defined global symbol")

    def truncate(b):
        del b[len(b) // 2:]

    def bad_shoff(b):
        put(b, "Q", 40, len(b) - 8)

    def huge_section(b):
        put(b, "Q", g.header_offset(text) + 32, HUGE)

    def overlapping(b):
        t = g.sections[text]
        if t[4] + g.sections[manifest][5] <= len(b):
            put(b, "Q", g.header_offset(manifest) + 24, t[4])
        else:
            put(b, "Q", g.header_offset(text) + 24, man_off)

    def bad_reloc_offset(b):
        put(b, "Q", rela_record, 0x7fffff00)

    def bad_symbol_index(b):
        info = struct.unpack_from("<Q", b, rela_record + 8)[0]
        put(b, "Q", rela_record + 8, (0xfffff0 << 32) | (info & 0xffffffff))

    def bad_section_index(b):
        put(b, "H", defined[1] + 6, g.shnum + 7)

    def unsupported_reloc(b):
        info = struct.unpack_from("<Q", b, rela_record + 8)[0]
        put(b, "Q", rela_record + 8, (info & ~0xffffffff) | R_X86_64_GOTPCREL)

    def no_manifest(b):
        put(b, "I", g.header_offset(manifest), g.sections[manifest][0] + 1)

    def bad_magic(b):
        put(b, "I", man_off, 0xdeadbeef)

    def bad_abi(b):
        put(b, "I", man_off + 4, 99)

    def unterminated_name(b):
        b[man_off + MANIFEST_NAME_OFFSET:man_off + MANIFEST_NAME_OFFSET + GRAFT_NAME_MAX] = \
            b"a" * GRAFT_NAME_MAX

    def unexported_symbol(b):
        put(b, "H", global_sym[0] + 6, SHN_UNDEF)

    def rel_section(b):
        put(b, "I", g.header_offset(rela) + 4, SHT_REL)

    def entry_outside_text(b):
        record = g.sections[manifest_rela][4]
        put(b, "q", record + 16, 0x100000)

    def bad_shstrndx(b):
        put(b, "H", 62, g.shnum + 1)

    def not_elf(b):
        b[0:4] = b"GRFT"

    return [
        ("truncated.graft", "lies outside the file", truncate),
        ("bad-shoff.graft", "section header table", bad_shoff),
        ("bad-shstrndx.graft", "section name table index", bad_shstrndx),
        ("not-elf.graft", "not an ELF file", not_elf),
        ("huge-section.graft", "size 0xffffffffffff lies outside the file", huge_section),
        ("overlapping.graft", "overlap in the file", overlapping),
        ("rel-section.graft", "SHT_REL relocations are not supported", rel_section),
        ("bad-reloc-offset.graft", "lies beyond the end of the section", bad_reloc_offset),
        ("bad-symbol-index.graft", "is outside the symbol table", bad_symbol_index),
        ("bad-section-index.graft", "is not a section", bad_section_index),
        ("unsupported-reloc.graft", "unsupported relocation type 9 (R_X86_64_GOTPCREL)", unsupported_reloc),
        ("unexported-symbol.graft", f"undefined symbol '{global_sym[1]}' is not exported to grafts",
         unexported_symbol),
        ("no-manifest.graft", "no .graft.manifest section", no_manifest),
        ("bad-magic.graft", "manifest magic 0xdeadbeef", bad_magic),
        ("bad-abi.graft", "manifest ABI version 99 does not match", bad_abi),
        ("unterminated-name.graft", "manifest name is not NUL-terminated", unterminated_name),
        ("entry-outside-text.graft", "does not lie in the graft's text", entry_outside_text),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("good", help="a graft the loader accepts")
    ap.add_argument("outdir")
    args = ap.parse_args()
    with open(args.good, "rb") as f:
        g = Graft(f.read())
    os.makedirs(args.outdir, exist_ok=True)
    lines = []
    for name, expected, corrupt in corruptions(g):
        b = bytearray(g.data)
        corrupt(b)
        if bytes(b) == g.data:
            sys.exit(f"mkcorrupt_grafts: {name} changed nothing")
        with open(os.path.join(args.outdir, name), "wb") as f:
            f.write(b)
        lines.append(f"{name}\t{expected}\n")
    tmp = os.path.join(args.outdir, f"expected.txt.{os.getpid()}.tmp")
    with open(tmp, "w") as f:
        f.writelines(lines)
    os.replace(tmp, os.path.join(args.outdir, "expected.txt"))


if __name__ == "__main__":
    main()
