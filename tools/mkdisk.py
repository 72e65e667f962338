#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Write Scion's test disk image: a raw image whose every 512-byte sector
holds a pattern the kernel can verify (kernel/dev/blk_pattern.c,
scion/blk_pattern.h):

    bytes 0..7     b"SCIONBLK"                       struct blk_pattern_header
    bytes 8..15    the sector number, little-endian 64-bit
    bytes 16..511  byte i = (sector * 31 + i) & 0xff

The output is the same for the same size, every time. The header's
layout and the constants come from the build's description of
blk_pattern.h (host/scionhost/layouts.py; make sets SCION_LAYOUTS); the
byte formula is blk_pattern.c's, and the kernel checks every sector it
reads against it.

    tools/mkdisk.py OUT [--size 32M]
"""

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "host"))
from scionhost.layouts import C, layout  # noqa: E402

SECTOR_SIZE = 512               # the disk's (virtio-blk's) sector
HEADER = layout("blk_pattern_header", "magic", "sector")
MAGIC = C.BLK_PATTERN_MAGIC.encode()
HEADER_BYTES = C.BLK_PATTERN_HEADER_BYTES
MULTIPLIER = C.BLK_PATTERN_MULTIPLIER
SUFFIXES = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
MAX_SIZE = 4 << 30


def parse_size(text):
    m = re.fullmatch(r"([0-9]+)([KMG]?)", text)
    if not m:
        raise argparse.ArgumentTypeError(f"{text!r}: give a size like 32M, 512K or 1G")
    size = int(m.group(1)) * SUFFIXES[m.group(2)]
    if size == 0 or size % SECTOR_SIZE or size > MAX_SIZE:
        raise argparse.ArgumentTypeError(
            f"{text!r}: the size must be a non-zero multiple of {SECTOR_SIZE} bytes, "
            f"at most {MAX_SIZE >> 30}G")
    return size


def fill_for(residue):
    """Bytes 16..511 of a sector whose number * 31 is residue modulo 256."""
    return bytes((residue + i) & 0xff for i in range(HEADER_BYTES, SECTOR_SIZE))


def sector_bytes(sector, fills):
    return HEADER.pack(magic=MAGIC, sector=sector) + fills[(sector * MULTIPLIER) & 0xff]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--size", type=parse_size, default=parse_size("32M"),
                    help="image size (default 32M)")
    args = ap.parse_args()
    fills = [fill_for(r) for r in range(256)]
    tmp = f"{args.out}.{os.getpid()}.tmp"
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    chunk_sectors = 2048
    with open(tmp, "wb") as f:
        for first in range(0, args.size // SECTOR_SIZE, chunk_sectors):
            last = min(first + chunk_sectors, args.size // SECTOR_SIZE)
            f.write(b"".join(sector_bytes(s, fills) for s in range(first, last)))
    os.replace(tmp, args.out)


if __name__ == "__main__":
    try:
        main()
    except OSError as e:
        sys.exit(f"mkdisk: {e}")
