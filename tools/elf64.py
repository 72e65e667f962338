# SPDX-License-Identifier: BSD-2-Clause
"""The section headers of a little-endian ELF64 file, for the build tools
that edit an object or image in place (text_hash.py, sfi_nops.py)."""
import collections
import struct

Section = collections.namedtuple("Section", "index name type flags offset size info")
SHF_EXECINSTR = 0x4
SHT_RELA = 4
RELA_SIZE = 24


def sections(data):
    """[Section] of the ELF64 image in data (bytes or bytearray)."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    heads = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strtab = heads[shstrndx][4]
    out = []
    for i, h in enumerate(heads):
        name = data[strtab + h[0]:data.index(b"\0", strtab + h[0])].decode()
        out.append(Section(i, name, h[1], h[2], h[4], h[5], h[7]))
    return out


def relocated_offsets(data, secs):
    """{section index: offsets its SHT_RELA sections relocate}."""
    out = {}
    for s in secs:
        if s.type == SHT_RELA:
            out.setdefault(s.info, set()).update(
                struct.unpack_from("<Q", data, s.offset + k)[0] for k in range(0, s.size, RELA_SIZE))
    return out
