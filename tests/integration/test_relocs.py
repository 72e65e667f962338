# SPDX-License-Identifier: BSD-2-Clause
"""Every port's graft relocations against GNU ld, no QEMU
(tests/reloc/check_relocs.py): objects shaped like grafts, in each code
model the port's grafts may use, and a file naming every relocation type
the port applies, are linked by ld and relocated by the port's own
arch_elf_reloc_apply (build/host/reloc-PORT); every field must be ld's,
every type the compilers used must be applied, and values just inside
and just outside each range must be applied and refused."""

import glob
import os
import re
import sys

from common import run_host_checker

RESULT = re.compile(r"^reloc (\S+): (OK.*|FAILED.*)$")


def ports(ctx):
    return sorted(os.path.basename(os.path.dirname(p))
                  for p in glob.glob(os.path.join(ctx.root, "arch", "*", "elf_reloc.c")))


def job_against_ld(ctx):
    script = os.path.join(ctx.root, "tests", "reloc", "check_relocs.py")
    for port in ports(ctx):
        run_host_checker(ctx, f"reloc-{port}", ["--arch", port, "--driver",
                                                os.path.join(ctx.build, "host", f"reloc-{port}")],
                         RESULT, timeout=300, program=[sys.executable, script])
