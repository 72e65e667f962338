# SPDX-License-Identifier: BSD-2-Clause
"""Comments and documents name only files that exist (tools/check_file_refs.py):
the tree itself, and the checker on a small tree made to hold every kind of
name it must resolve and every kind it must report."""

import os
import re
import subprocess
import sys
import tempfile

TOOL = os.path.join(os.path.dirname(__file__), "..", "..", "tools", "check_file_refs.py")
SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed$", re.M)

# A small tree: path -> text. Lines that must be reported say STALE in the
# file's own comment syntax; every other name resolves by one of the rules.
FIXTURE = {
    "Makefile": "# $(BUILD)/gen/made_here.c comes from gen.py\n",
    "README.md": ("See ../shared/GUIDE.md and `kernel/core/main.c`; the layout names\n"
                  "include/scion/api.h under kernel/. STALE kernel/core/gone.c\n"
                  "```\nexample --file script.d\n```\n"),
    "kernel/include/scion/api.h": "/* scion/api.h: what kernel/core/main.c declares */\n",
    "arch/toy/include/arch/cpu.h": "/* arch/cpu.h for toy */\n",
    "kernel/core/main.c": ('/* main.c, api.h, arch/cpu.h, scion/api.h, made_here.c,\n'
                           ' * GUIDE.md, NAME.c (a placeholder), QEMU\'s tcg.c */\n'
                           'static const char *s = "// not a comment: fake.c";\n'
                           '/* STALE: missing.h */\n'
                           '// STALE: ../core/renamed.c\n'),
    "tests/d/good/a.d": "/* see bad/b.d */\n",
    "tests/d/bad/b.d": "/* STALE: c/d.d */\n",
    "tools/gen.py": ('"""Writes made_here.c; reads README.md. STALE: tools/old_gen.py"""\n'
                     'x = "# not a comment: fake.py"  # STALE: fake_too.py\n'),
}


def run(root):
    proc = subprocess.run([sys.executable, TOOL, "--root", root], capture_output=True,
                          text=True, timeout=300)
    return proc, SUMMARY.search(proc.stdout)


def job_file_references(ctx):
    """Every file name in the tree's comments and Markdown resolves."""
    proc, summary = run(ctx.root)
    ctx.result("tree-names-existing-files", proc.returncode == 0 and summary is not None
               and summary.group(2) == "0" and int(summary.group(1)) > 500,
               proc.stdout[-3000:] + proc.stderr)


def job_file_references_checker(ctx):
    """The checker reports exactly the stale names of a made-up tree."""
    with tempfile.TemporaryDirectory() as root:
        for path, text in FIXTURE.items():
            os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(root, path), "w") as f:
                f.write(text)
        subprocess.run(["git", "init", "-q", root], check=True)
        proc, summary = run(root)
    reported = sorted(re.findall(r"^(\S+):(\d+): names (\S+),", proc.stdout, re.M))
    expected = sorted([
        ("README.md", "2", "kernel/core/gone.c"),
        ("kernel/core/main.c", "4", "missing.h"),
        ("kernel/core/main.c", "5", "../core/renamed.c"),
        ("tests/d/bad/b.d", "1", "c/d.d"),
        ("tools/gen.py", "1", "tools/old_gen.py"),
        ("tools/gen.py", "2", "fake_too.py"),
    ])
    ctx.result("reports-exactly-the-stale-names", reported == expected,
               f"reported {reported}, expected {expected}")
    ctx.result("summary-counts-files", summary is not None and summary.groups() == ("4", "4")
               and proc.returncode == 1, proc.stdout)
