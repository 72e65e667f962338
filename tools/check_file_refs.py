#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Find file names in comments and documents that name no file.

A comment that still names a file after it was renamed or removed sends
a reader nowhere. This reads the comments of every
tracked C, assembly, linker script, Python, shell and make file (string
literals skipped, so code is not mistaken for prose) and the whole text
of every Markdown file but its fenced examples, takes each word that looks like a source file
name (a name ending in .c .h .S .py .ld .mk .map .md .sh .d), and
resolves it:

  - as a path from the root of the tree, from the file's folder, or from
    that folder's parent (tests/d/good/A.d naming bad/B.d);
  - as an include path: scion/X.h, arch/X.h, graft/X.h under the
    include folders the build uses;
  - a bare name (no folder) anywhere in the tree;
  - in Markdown, also as the tail of a path in the tree (the layout
    section names files under the folder it is describing);
  - a file the build generates into build/gen (found in the make files);
  - a document beside the checkout that the README names (../shared/X).

Not checked: placeholders (NAME.c, OTHER.d: an all-capital stem), globs,
paths into build/, and a file of another project named with it
("libdtrace's dt_parser.c", "QEMU's tcg.c").

Usage: check_file_refs.py [--root DIR] [FILE...]   (default: every tracked file)
Prints one line per name that resolves nowhere, FILE:LINE: NAME, then
`N passed, M failed` (files read without a stale name, files with one).
"""
import argparse
import glob
import os
import re
import subprocess
import sys

SOURCE_EXTENSIONS = r"(?:c|h|S|py|ld|mk|map|md|sh|d)"
FILE_NAME = re.compile(r"(?<![\w./$<*@%-])((?:\.{1,2}/)*(?:[\w.-]+/)*[\w-]+\." + SOURCE_EXTENSIONS
                       + r")(?![\w/*(])")
OTHER_PROJECT = re.compile(r"\b(?:libdtrace|illumos|Linux|QEMU|OpenBIOS|GRUB|NetBSD|FreeBSD|"
                           r"HelenOS|xv6|binutils|glibc|musl)'s\s+$")
INCLUDE_ROOTS = ("kernel/include", "grafts/include")
# Comments, with the string literals around them matched first so that a
# "//" or "#" inside a string is not taken for one.
C_LIKE = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|(/\*.*?\*/|//[^\n]*)', re.S)
HASH_LIKE = re.compile(r'("""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\')|"(?:\\.|[^"\\\n])*"|'
                       r'\'(?:\\.|[^\'\\\n])*\'|(#[^\n]*)')
C_SUFFIXES = (".c", ".h", ".S", ".ld", ".d")
HASH_SUFFIXES = (".py", ".sh", ".mk", ".map")


def comments(path, text):
    """(line, text) of each comment of the file; Markdown is all comment."""
    name = os.path.basename(path)
    if name.endswith(".md"):
        for m in re.finditer(r"```.*?```|((?:[^`]|`(?!``))+)", text, re.S):
            if m.group(1):
                yield text.count("\n", 0, m.start()) + 1, m.group(1)
        return
    if name.endswith(C_SUFFIXES):
        pattern = C_LIKE
    elif name.endswith(HASH_SUFFIXES) or name == "Makefile" or "." not in name:
        pattern = HASH_LIKE
    else:
        return
    for m in pattern.finditer(text):
        for group in m.groups():
            if group:
                yield text.count("\n", 0, m.start()) + 1, group


class Tree:
    """What a name may resolve to in one checkout."""

    def __init__(self, root, files):
        self.root = root
        self.files = set(files)
        self.basenames = {os.path.basename(f) for f in files}
        self.arch_includes = sorted({f.split("/include/")[0] + "/include"
                                     for f in files if re.match(r"arch/[^/]+/include/arch/", f)})
        self.generated = set()
        self.external = set()
        for f in files:
            if f == "Makefile" or f.endswith(".mk"):
                self.generated |= set(re.findall(r"\$\(BUILD\)/gen/([\w./-]+\.\w+)",
                                                 self.read(f)))
        self.generated |= {os.path.basename(g) for g in self.generated}
        if "README.md" in self.files:
            for doc in re.findall(r"\.\./shared/([\w./-]+)", self.read("README.md")):
                self.external |= {"../shared/" + doc, doc}

    def read(self, path):
        try:
            with open(os.path.join(self.root, path), encoding="utf-8") as f:
                return f.read()
        except (OSError, UnicodeDecodeError):
            return ""

    def resolves(self, name, where):
        if name in self.external or name in self.generated:
            return True
        here = os.path.dirname(where)
        bases = ["", here, os.path.dirname(here)]
        bases += list(INCLUDE_ROOTS) + self.arch_includes
        for base in bases:
            if os.path.normpath(os.path.join(base, name)) in self.files:
                return True
        if "/" not in name and name in self.basenames:
            return True
        if where.endswith(".md") and "/" in name:
            return any(f.endswith("/" + name) for f in self.files)
        return False


def skipped(name, before):
    stem = os.path.basename(name).rsplit(".", 1)[0]
    return (name.startswith(("build/", "/")) or (stem.isupper() and stem.isalpha())
            or OTHER_PROJECT.search(before) is not None)


def stale_names(tree, path):
    """(line, name) of each file name in path's comments that resolves nowhere."""
    for line, comment in comments(path, tree.read(path)):
        for m in FILE_NAME.finditer(comment):
            name = m.group(1)
            if skipped(name, comment[max(0, m.start() - 40):m.start()]):
                continue
            if not tree.resolves(name, path):
                yield line + comment.count("\n", 0, m.start()), name


def tracked_files(root):
    out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                         cwd=root, capture_output=True, text=True, check=True).stdout
    return [f for f in out.split("\n") if f and os.path.isfile(os.path.join(root, f))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("files", nargs="*", help="check only these (paths from the root)")
    args = ap.parse_args()
    tree = Tree(args.root, tracked_files(args.root))
    passed = failed = 0
    for path in args.files or sorted(tree.files):
        stale = list(stale_names(tree, path))
        for line, name in stale:
            print(f"{path}:{line}: names {name}, which is not a file of the tree")
        if stale:
            failed += 1
        else:
            passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
