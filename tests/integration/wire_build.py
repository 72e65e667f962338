# SPDX-License-Identifier: BSD-2-Clause
"""A host program built against the kernel's wire descriptors, for the jobs
that check them (test_layouts.py's wire_byte_order, test_sparc64_wire.py's
descriptors): tools/gen_layouts.py --c-wire over the wire headers (the
Makefile's WIRE_HEADERS) into a scratch folder, then the program compiled
against scion/chan_wire.h and that generated header, every _Static_assert
of it checked by the compiler."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The headers whose structures cross the wire, as the Makefile's WIRE_HEADERS lists them.
WIRE_HEADERS = tuple(f"kernel/include/scion/{h}" for h in (
    "chan_proto.h", "chan_reply.h", "monitor_rec.h", "recfmt.h", "dof.h", "profile_config.h"))


def build_wire_program(ctx, work, name, source, extra_sources=(), compiled_result="compiles",
                       extra_flags=()):
    """Generate the descriptors into work, write source to work/NAME.c and compile
    it (with extra_sources, repository paths, and extra_flags); reports "generated"
    and compiled_result. Returns the program's path, or None when a step failed."""
    header = os.path.join(work, "chan_wire_layouts.h")
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "gen_layouts.py"),
                           "--c-wire", *[os.path.join(ROOT, h) for h in WIRE_HEADERS],
                           "-o", header], capture_output=True, text=True)
    ctx.result("generated", proc.returncode == 0, proc.stderr[-1000:])
    if proc.returncode:
        return None
    src, exe = os.path.join(work, f"{name}.c"), os.path.join(work, name)
    with open(src, "w") as f:
        f.write(source)
    proc = subprocess.run(["gcc", "-std=gnu11", "-Wall", "-Wextra", "-Werror", *extra_flags,
                           "-I", os.path.join(ROOT, "kernel", "include"), "-I", work,
                           "-o", exe, src, *[os.path.join(ROOT, s) for s in extra_sources]],
                          capture_output=True, text=True)
    ctx.result(compiled_result, proc.returncode == 0, proc.stderr[-2000:])
    return None if proc.returncode else exe
