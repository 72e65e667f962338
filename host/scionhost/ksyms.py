# SPDX-License-Identifier: BSD-2-Clause
"""The running kernel's functions, named on the host from build/kernel.syms.

The build writes kernel.syms beside the kernel (`nm --defined-only -n -S`:
"ADDRESS [SIZE] TYPE NAME" lines, the Makefile's KSYMS rule); the
handshake refuses a kernel of another build, so the list is the running
kernel's. Its functions are the text symbols with a size between
__text_start and __init_text_end: exactly what tools/gen_symtab.py puts in
the kernel's own table, so lookup() names an address as the kernel's
SYMBOLIZE op would (the last function starting at or before it, by
address then name, that still holds it) without asking it. Code outside
the kernel's text (probe patches, grafts) is the kernel's to name.
"""

import bisect
import os

TEXT_TYPES = "tTwW"


class KernelSymbols:
    """path's functions; lookup(addr) -> (name, start) or None; in_text(addr)."""

    def __init__(self, path):
        rows, markers = [], {}
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 4:
                    addr, size, kind, name = int(parts[0], 16), int(parts[1], 16), parts[2], parts[3]
                elif len(parts) == 3:
                    addr, size, kind, name = int(parts[0], 16), 0, parts[1], parts[2]
                else:
                    continue
                if name in ("__text_start", "__init_text_end"):
                    markers[name] = addr
                if kind in TEXT_TYPES and size:
                    rows.append((addr, name, size))
        self.text = (markers.get("__text_start", 0), markers.get("__init_text_end", 0))
        self.functions = sorted(r for r in rows if self.text[0] <= r[0] < self.text[1])
        self._starts = [r[0] for r in self.functions]

    def in_text(self, addr):
        return self.text[0] <= addr < self.text[1]

    def lookup(self, addr):
        """(name, start) of the function holding addr, or None."""
        i = bisect.bisect_right(self._starts, addr)
        if not i:
            return None
        start, name, size = self.functions[i - 1]
        return (name, start) if addr - start < size else None


def load(path):
    """KernelSymbols of path, or None when there is no such file (a tree not built)."""
    return KernelSymbols(path) if os.path.exists(path) else None
