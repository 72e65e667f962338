#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Write the FNV-1a hash of a linked kernel's .text into its .text_hash section.

The kernel checks its text against this hash at boot, so `text verify`
compares the live text with the image as it was built, not just with a
copy taken after boot. Edits the ELF file in place.
"""
import struct
import sys

import elf64

FNV_OFFSET = 0xcbf29ce484222325
FNV_PRIME = 0x100000001b3


def fnv1a(data):
    h = FNV_OFFSET
    for b in data:
        h = ((h ^ b) * FNV_PRIME) & 0xffffffffffffffff
    return h


def main():
    path = sys.argv[1]
    with open(path, "r+b") as f:
        image = bytearray(f.read())
        secs = {s.name: (s.offset, s.size) for s in elf64.sections(image)}
        if ".text" not in secs or ".text_hash" not in secs or secs[".text_hash"][1] != 8:
            sys.exit(f"text_hash: {path} lacks .text or an 8-byte .text_hash section")
        off, size = secs[".text"]
        digest = fnv1a(image[off:off + size])
        f.seek(secs[".text_hash"][0])
        # In the image's own byte order (EI_DATA: 1 little-endian, 2 big-endian).
        f.write(struct.pack("<Q" if image[5] == 1 else ">Q", digest))


if __name__ == "__main__":
    main()
