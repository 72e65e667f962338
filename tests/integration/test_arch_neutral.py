# SPDX-License-Identifier: BSD-2-Clause
"""kernel/ names no machine (tools/check_arch_neutral.py), no QEMU: the
check over the tree, one result per file it fails; and its self-test,
which feeds it a temporary tree with one violation of each kind it
knows (each must be reported with its file, line and kind) and clean
files written to look like violations (a register in a comment, a
stack pointer called sp, a printf format), which must pass."""

import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "check_arch_neutral.py")
VIOLATION = re.compile(r"^arch-neutral: (\S+?):(\d+): (\w+): (.+)$")
CLOSING = re.compile(r"^(\d+) passed, (\d+) failed$")

# name -> (file under kernel/, its text, the line and kind the tool must report)
DIRTY = {
    "include-arch-dir": ("probe/a.c", "#include <scion/probe.h>\n#include <arch/x86/x86_internal.h>\n",
                         2, "include"),
    "include-x86-header": ("probe/b.c", '#include "x86_encodings.h"\n', 1, "include"),
    "include-arch-x86-h": ("core/c.c", "#include <arch/x86.h>\n", 1, "include"),
    "ifdef": ("core/d.c", "int f(void)\n{\n#ifdef __x86_64__\n\treturn 1;\n#endif\n}\n", 3, "ifdef"),
    "if-defined": ("core/e.h", "#if defined(CONFIG_FOO) || defined(__sparc__)\n#endif\n", 1, "ifdef"),
    "elif-arch": ("core/f.h", "#if 0\n#elif ARCH_X86_64\n#endif\n", 2, "ifdef"),
    "register-identifier": ("analysis/g.c", "void f(struct trap_frame *t)\n{\n\tt->rax = 0;\n}\n",
                            3, "register"),
    "register-binding": ("probe/h.c", 'register long r __asm__("rdi") = 0;\n', 1, "register"),
    "register-inline-asm": ("smp/i.c", 'void f(void) { __asm__ volatile("movq %%gs:8, %0" ::); }\n',
                            1, "register"),
    "register-printk": ("shell/j.c", 'void f(void) { printk("r12d is free\\n"); }\n', 1, "register"),
    "register-assembly": ("poke/k.S", "\t.text\n\tmovq %rsp, %rbp\n", 2, "register"),
    "reloc": ("graft/l.c", "int f(unsigned t) { return t == R_X86_64_PC32; }\n", 1, "reloc"),
    "decoder-class": ("probe/m.c", "int f(int cf) { return cf == INSN_CF_INT3; }\n", 1, "opcode"),
    "decoder-register": ("probe/n.c", "unsigned r = INSN_RAX;\n", 1, "opcode"),
    "mnemonic": ("probe/o.c", 'const char *name = "int3";\n', 1, "opcode"),
    "generated-encoding": ("probe/p.c", "int b(void) { return x86_enc_jmp_rel32[0]; }\n", 1, "name"),
    "machine-name": ("graft/q.c", 'const char *m = "not x86-64";\n', 1, "name"),
}

# Clean files written to look like violations: they must pass.
CLEAN = {
    "comments": ("core/clean1.c",
                 "/* On x86 rax holds the result; R_X86_64_PC32; #ifdef __x86_64__; int3 */\n"
                 "// %%gs:8 is the per-CPU base (arch/x86/include/arch/percpu.h)\n"
                 "int f(void) { return 0; }\n"),
    "short-names": ("core/clean2.c",
                    "struct frame { unsigned long sp, bp, ax; };\n"
                    "int g(struct frame *fr) { unsigned long si = fr->sp; return (int)si; }\n"),
    "formats-and-words": ("core/clean3.c",
                          'void h(int d) { printk("%ds, %dl, client raxis interrupt\\n", d, d); }\n'
                          "int32_t registry; unsigned cli_count; int sti_like;\n"),
    "assembly-comments": ("poke/clean4.S", "# save rax first\n\t.text\n\tret\t/* no rax here */\n"),
    "neutral-contract": ("probe/clean5.c",
                         "#include <scion/probe_arch.h>\n#include <arch/probe.h>\n"
                         "#ifdef CONFIG_PROBES\n#endif\n"
                         "int f(int c) { return c == INSN_CLASS_RETURN && PROBE_SITE_BREAKPOINT; }\n"),
}


def run(root, paths=()):
    proc = subprocess.run([sys.executable, TOOL, "--root", root, *paths], capture_output=True,
                          text=True, timeout=120)
    return proc, proc.stdout.strip().splitlines()


def job_kernel_names_no_machine(ctx):
    proc, lines = run(ctx.root)
    closing = CLOSING.match(lines[-1]) if lines else None
    bad = {}
    for line in lines:
        m = VIOLATION.match(line)
        if m:
            bad.setdefault(m.group(1), []).append(line)
    for path, found in sorted(bad.items()):
        ctx.result(f"clean/{path}", False, "\n    ".join(found))
    ctx.result("kernel-is-arch-neutral", proc.returncode == 0 and closing is not None and
               closing.group(2) == "0" and int(closing.group(1)) > 100,
               f"exit status {proc.returncode}: {lines[-1] if lines else proc.stderr}")


def job_self_test(ctx):
    with tempfile.TemporaryDirectory() as tmp:
        for rel, text, *_ in list(DIRTY.values()) + list(CLEAN.values()):
            path = os.path.join(tmp, "kernel", rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        proc, lines = run(tmp)
    reported = {}
    for line in lines:
        m = VIOLATION.match(line)
        if m:
            reported.setdefault(m.group(1), []).append((int(m.group(2)), m.group(3), line))
    for name, (rel, _, line, kind) in DIRTY.items():
        got = reported.get(os.path.join("kernel", rel), [])
        ctx.result(f"caught/{name}", any(l == line and k == kind for l, k, _ in got),
                   f"expected line {line} kind {kind} for kernel/{rel}; got {got or 'nothing'}")
    for name, (rel, _) in CLEAN.items():
        got = reported.get(os.path.join("kernel", rel), [])
        ctx.result(f"passes/{name}", not got, "\n    ".join(g[2] for g in got))
    closing = CLOSING.match(lines[-1]) if lines else None
    want = (len(CLEAN), len(DIRTY))
    ctx.result("closing-line", closing is not None and
               (int(closing.group(1)), int(closing.group(2))) == want and proc.returncode == 1,
               f"want '{want[0]} passed, {want[1]} failed' and status 1; got "
               f"'{lines[-1] if lines else ''}' and status {proc.returncode}")
    one_line = all(VIOLATION.match(l) for l in lines[:-1])
    ctx.result("one-line-per-violation", one_line and len(lines) > len(DIRTY),
               "\n    ".join(lines))
