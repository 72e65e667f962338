# SPDX-License-Identifier: BSD-2-Clause
"""Every SDT site is checked against its probe's declared argument types
(kernel/include/scion/sdt_types.h) when the kernel compiles, no QEMU:
fragments of kernel C compiled with the kernel's own flags. A site that
passes what the list declares compiles; a site that passes an integer
for a declared pointer, a pointer of another struct, a pointer for a
declared integer, too few or too many arguments, or names a probe the
list does not have, does not, and the compiler's error names the
probe's prototype. A test's own probe declared with SDT_TYPES_DEFINE
compiles."""

import os
import shlex
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PRELUDE = "#include <scion/sdt.h>\n#include <scion/thread.h>\n#include <scion/cpu.h>\n"

# name -> (the body of void f(struct thread *t, struct cpu *c, struct spinlock *l), compiles?)
CASES = {
    "declared-types": ("SDT_PROBE4_P(sched, on__cpu, t->tid, c->index, t, c);", True),
    "lock-pointer": ("SDT_PROBE2_P(lockstat, spin__spin, l, 5);", True),
    "no-arguments": ("SDT_PROBE0_P(proc, exec__success);", True),
    "sdt-provider": ("SDT_PROBE2(thread__switch, t->tid, 3);", True),
    "integer-for-pointer": ("SDT_PROBE4_P(sched, on__cpu, t->tid, c->index, t->tid, c);", False),
    "other-struct-pointer": ("SDT_PROBE4_P(sched, on__cpu, t->tid, c->index, c, c);", False),
    "pointer-for-integer": ("SDT_PROBE4_P(sched, on__cpu, t, c->index, t, c);", False),
    "too-few": ("SDT_PROBE2_P(sched, on__cpu, t->tid, c->index);", False),
    "too-many": ("SDT_PROBE3_P(lockstat, spin__acquire, l, 1, 2);", False),
    "undeclared-probe": ("SDT_PROBE1_P(sched, no__such, t->tid);", False),
    "own-probe-defined": (None, True),
}

OWN = ("SDT_TYPES_DEFINE(sdt, test__own, struct thread *t, uint64_t n)\n"
       "void f(struct thread *t) { SDT_PROBE2(test__own, t, 7); }\n")


def kernel_cflags(ctx):
    out = subprocess.run(["make", "-s", "--no-print-directory", "print-KERNEL_CFLAGS"],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return shlex.split(out)


def compile_fragment(cflags, text):
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "site.c")
        with open(src, "w") as f:
            f.write(text)
        r = subprocess.run(["gcc"] + cflags + ["-fsyntax-only", src], cwd=ROOT,
                           capture_output=True, text=True)
        return r.returncode == 0, r.stderr


def job_sites_checked(ctx):
    cflags = kernel_cflags(ctx)
    for name, (body, ok) in CASES.items():
        if body is None:
            text = PRELUDE + OWN
        else:
            text = (PRELUDE + "void f(struct thread *t, struct cpu *c, struct spinlock *l);\n"
                    "void f(struct thread *t, struct cpu *c, struct spinlock *l)\n{\n\t(void)t; (void)c; (void)l;\n"
                    f"\t{body}\n}}\n")
        compiled, err = compile_fragment(cflags, text)
        named = ok or "sdt_types__" in err
        ctx.result(name, compiled == ok and named,
                   f"expected {'to compile' if ok else 'an error naming sdt_types__'}: {err}")
