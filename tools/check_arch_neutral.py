#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Check that the portable kernel names no machine.

kernel/ reaches the machine only through arch/<arch>/include/arch/*.h
and states its contracts in machine-neutral terms (scion/probe_arch.h,
scion/insn_summary.h, arch/elf.h); the x86 mechanics live under arch/x86/.
This tool reads every C, header and assembly file under the paths it
is given (default: kernel/) and reports each violation on one line:

  include   includes an architecture's own header: a path with an x86,
            amd64, i386 or sparc component (arch/x86/..., x86_*.h,
            <arch/x86.h>);
  ifdef     tests an architecture in a preprocessor condition (#if,
            #ifdef, #ifndef, #elif): __x86_64__, __amd64__, __i386__,
            ARCH_X86*, CONFIG_X86*, __sparc__, __sparc_v9__, ARCH_SPARC*,
            __aarch64__, __arm__, __riscv;
  reloc     names an R_X86_64_ (or R_SPARC_) relocation;
  register  names an x86 register: an unambiguous name (rax, eax, r8d,
            rip, rflags, cr3, xmm0, sil, ...) as a whole word anywhere in
            code, identifiers and strings alike (a register variable
            binds one with __asm__("rdi")), or any register, the short
            ones too, after a %% in a string, as inline assembly names
            them (%%al, %%gs, %%sp);
  opcode    names an x86 opcode or decoder constant: the x86 decoder's
            control-flow classes and registers (INSN_CF_*, INSN_RAX ...)
            or an x86-only mnemonic as a word (int3, iretq, sysretq,
            rdtsc, rdmsr, wrmsr, cpuid, swapgs, invlpg, ud2, nopl, ...);
  name      names a machine otherwise: any other identifier or word with
            x86, amd64, i386 or sparc in it (x86_enc_int3, X86_ENC_*,
            ELF_MACHINE_X86_64, "x86-64").

Comments are not read: a comment may say what a machine does (and
where its code is). String literals are read, since inline assembly
and register bindings live there. A short register name that is not
after %% (sp, ax, si, gs) is not reported: portable code may call its
stack pointer sp.

Usage: check_arch_neutral.py [--root DIR] [PATH ...]
Each violation: "arch-neutral: FILE:LINE: KIND: what" (FILE relative to
--root, by default the tree this tool is in). The last line is
"N passed, M failed" over the files read: a file fails with any
violation. Exit status 1 when a file fails.
"""

import argparse
import os
import re
import sys

SUFFIXES = (".c", ".h", ".S", ".s")

# Registers whose names never mean anything else in C.
UNAMBIGUOUS_REGS = (
    ["rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rsp", "rbp", "rip", "rflags",
     "eax", "ebx", "ecx", "edx", "esi", "edi", "esp", "ebp", "eip", "eflags",
     "sil", "dil", "spl", "bpl"]
    + [f"r{n}{s}" for n in range(8, 16) for s in ("", "d", "w", "b")]
    + [f"cr{n}" for n in (0, 2, 3, 4, 8)]
    + [f"dr{n}" for n in range(8)])
UNAMBIGUOUS_RE = re.compile(
    r"(?<![\w$])(?:" + "|".join(UNAMBIGUOUS_REGS) + r"|[xyz]mm\d{1,2})(?!\w)")
# Every register, the short ones included, as inline assembly names it: %%reg.
SHORT_REGS = ["ax", "bx", "cx", "dx", "si", "di", "sp", "bp", "al", "ah", "bl", "bh",
              "cl", "ch", "dl", "dh", "cs", "ds", "es", "fs", "gs", "ss"]
ASM_REG_RE = re.compile(r"%%(?:" + "|".join(SHORT_REGS + UNAMBIGUOUS_REGS) +
                        r"|[xyz]mm\d{1,2}|st\(\d\))(?!\w)")
RELOC_RE = re.compile(r"\bR_(?:X86_64|SPARC)_\w*")
OPCODE_RE = re.compile(
    r"\b(?:INSN_CF_\w+|INSN_R(?:AX|BX|CX|DX|SI|DI|SP|BP|8|9|1[0-5])|"
    r"int3|iretq|sysretq|sysexit|swapgs|rdtscp?|rdmsr|wrmsr|cpuid|invlpg|ud2|nopl|"
    r"lfence|mfence|sfence|cli|sti|hlt)\b")
NAME_RE = re.compile(r"(?<!\w)\w*(?:x86|X86|amd64|AMD64|i386|I386|sparc|SPARC)\w*")
ARCH_WORDS = r"(?:x86|amd64|i386|sparc)"
INCLUDE_RE = re.compile(r"^\s*#\s*include\s*[<\"]([^>\"]+)[>\"]")
INCLUDE_ARCH_RE = re.compile(r"(?:^|[/_.])" + ARCH_WORDS + r"\w*(?:[/_.]|$)", re.IGNORECASE)
COND_RE = re.compile(r"^\s*#\s*(?:if|ifdef|ifndef|elif)\b(.*)$")
ARCH_MACRO_RE = re.compile(
    r"\b(?:__x86_64__|__x86_64|__amd64__|__amd64|__i386__|__i386|_M_X64|_M_AMD64|"
    r"ARCH_X86\w*|CONFIG_X86\w*|__sparc__|__sparc|__sparc_v9__|__sparc64__|__sparcv9|"
    r"ARCH_SPARC\w*|CONFIG_SPARC\w*|__aarch64__|__arm__|__riscv\w*)\b")
PREPROCESSOR_ASM_RE = re.compile(r"\s*#\s*(?:include|if|ifdef|ifndef|elif|else|endif|define|undef)\b")


def strip_comments(text):
    """The text with /* */ and // comments blanked (newlines kept, so line
    numbers hold); string and character literals are kept as they are."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == "/" and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join("\n" if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c == "/" and text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def strip_asm_comments(text):
    """Assembly: C comments (it goes through cpp), and # line comments
    that are not preprocessor directives."""
    lines = strip_comments(text).split("\n")
    return "\n".join("" if l.lstrip().startswith("#") and not PREPROCESSOR_ASM_RE.match(l)
                     else l for l in lines)


def check_text(text, is_asm=False):
    """(line, kind, what) for every violation in one file's text."""
    code = strip_asm_comments(text) if is_asm else strip_comments(text)
    found = []
    for number, line in enumerate(code.split("\n"), 1):
        m = INCLUDE_RE.match(line)
        if m:
            if INCLUDE_ARCH_RE.search(m.group(1)):
                found.append((number, "include", f"includes <{m.group(1)}>, an architecture's own "
                              "header (reach the machine through arch/<arch>/include/arch/*.h)"))
            continue
        m = COND_RE.match(line)
        if m:
            for a in sorted(set(ARCH_MACRO_RE.findall(m.group(1)))):
                found.append((number, "ifdef", f"tests the architecture macro {a} in a "
                              "preprocessor condition (put the difference behind an arch hook)"))
        seen = set()
        for kind, regex, say in (
                ("reloc", RELOC_RE, "names the relocation {} (relocations are arch_elf_*'s)"),
                ("register", UNAMBIGUOUS_RE, "names the x86 register {}"),
                ("register", ASM_REG_RE, "names the x86 register {} in assembly"),
                ("opcode", OPCODE_RE, "names the x86 opcode or decoder constant {}"),
                ("name", NAME_RE, "names a machine: {}")):
            for word in sorted(set(regex.findall(line))):
                if any(word in s or s in word for s in seen):
                    continue	# one report per word: R_X86_64_PC32 is not also a "name"
                seen.add(word)
                found.append((number, kind, say.format(word)))
    return found


def walk(paths):
    for p in paths:
        if os.path.isfile(p):
            yield p
            continue
        for d, dirs, files in os.walk(p):
            dirs.sort()
            for f in sorted(files):
                if f.endswith(SUFFIXES):
                    yield os.path.join(d, f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                    help="paths are relative to this (default: the tree this tool is in)")
    ap.add_argument("paths", nargs="*", default=["kernel"])
    args = ap.parse_args()
    passed = failed = 0
    for path in walk(os.path.join(args.root, p) for p in args.paths):
        rel = os.path.relpath(path, args.root)
        with open(path, encoding="utf-8", errors="replace") as f:
            violations = check_text(f.read(), is_asm=path.endswith((".S", ".s")))
        for line, kind, what in violations:
            print(f"arch-neutral: {rel}:{line}: {kind}: {what}")
        if violations:
            failed += 1
        else:
            passed += 1
    if passed + failed == 0:
        print(f"arch-neutral: no C, header or assembly file under {' '.join(args.paths)}")
        failed = 1
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
