# SPDX-License-Identifier: BSD-2-Clause
"""The graft build's sandboxing step (arch/x86/tools/sfi_x86.py) on the host, no
QEMU: each rewriting rule on small snippets (exact output), the one-line
refusals, assembled snippets decoded by objdump (bundles, return points,
the R_X86_64_32S mask relocations, the note), the instruction table
against arch/x86/opcodes.map, the constants against
arch/x86/include/arch/sfi.h, and every graft that `make grafts` built.

The checks of assembled code (check_object) are a small second opinion
written from the scheme's rules, not the kernel's verifier: they look at
objdump's text. Run alone: python3 tests/integration/test_sfi_rewrite.py
[--build DIR]; it ends with `N passed, M failed` like `make test`."""

import glob
import importlib.util
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_spec = importlib.util.spec_from_file_location("sfi_x86", os.path.join(ROOT, "arch", "x86", "tools", "sfi_x86.py"))
sfi = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sfi)

BUNDLE = 1 << sfi.SFI_BUNDLE_SHIFT
NOTE_START = f".pushsection {sfi.NOTE_SECTION}"


def rewrite_body(src, path="snippet.s"):
    """The rewriter's output for src without its first line (the bundle
    mode), the pad that ends the code at a bundle boundary (checked by
    job_rules' code-ends-on-a-bundle) and the note, whitespace
    normalised, and its errors."""
    out, errors = sfi.rewrite(path, src)
    lines = out.splitlines()[1:]
    if any(line.strip().startswith(NOTE_START) for line in lines):
        lines = lines[:next(i for i, l in enumerate(lines) if l.strip().startswith(NOTE_START))]
    if lines and lines[-1].strip() == f".p2align {sfi.SFI_BUNDLE_SHIFT}":
        lines = lines[:-1]
    return [" ".join(line.split()) for line in lines], errors


def expect_rewrite(ctx, name, src, want):
    got, errors = rewrite_body(src)
    want = [" ".join(line.split()) for line in want.strip("\n").splitlines()]
    ok = got == want and not errors
    ctx.result(name, ok, "" if ok else f"errors {errors}\n  got:  {got}\n  want: {want}")


LOCK, UNLOCK = ".bundle_lock", ".bundle_unlock"
RET = ["popq %r14", LOCK, "andq $__sfi_text_mask, %r14", "orq $__sfi_text_base, %r14",
       "jmp *%r14", UNLOCK]
MASKED_JUMP = RET[1:]


def guard(delta):
    return [LOCK, f"leaq {delta}(%rsp), %r14", "andq $0x7fff, %r14", "orq %r15, %r14",
            "movq %r14, %rsp", UNLOCK]


def job_rules(ctx):
    text = "\t.text\n"
    # Stores through a register: lea into %r14d, the store on %r15 + %r14.
    expect_rewrite(ctx, "store-register", text + "\tmovl %eax, (%rdi)\n", "\n".join(
        [".text", LOCK, "leal (%rdi), %r14d", "movl %eax, (%r15,%r14)", UNLOCK]))
    expect_rewrite(ctx, "store-register-disp-index", text + "\tmovb $3, 771(%rsp,%rax)\n",
                   "\n".join([".text", LOCK, "leal 771(%rsp,%rax), %r14d",
                              "movb $3, (%r15,%r14)", UNLOCK]))
    # A symbol in the address: leaq (R_X86_64_32S) and a 32-bit mov.
    expect_rewrite(ctx, "store-symbol", text + "\taddq $1, seen(,%rax,8)\n", "\n".join(
        [".text", LOCK, "leaq seen(,%rax,8), %r14", "movl %r14d, %r14d",
         "addq $1, (%r15,%r14)", UNLOCK]))
    expect_rewrite(ctx, "store-absolute", text + "\tmovl %eax, counter+4\n", "\n".join(
        [".text", LOCK, "leaq counter+4, %r14", "movl %r14d, %r14d",
         "movl %eax, (%r15,%r14)", UNLOCK]))
    # Left alone: the stack, rip-relative data, reads, addresses.
    kept = ["movq %rax, 8(%rsp)", "movb $0, (%rsp)", "movl %eax, fixture_calls(%rip)",
            "movl (%rdi), %eax", "cmpl $1, (%rdi)", "testb $1, 8(%rax)", "btl $3, (%rax)",
            "addl (%rax), %ebx", "imulq seen(%rip), %rax", "movzbl (%rax), %eax",
            "movslq 4(%rdi), %rax", "cmovbe 8(%rdi), %eax", "leaq 16(%rax), %r9",
            "pushq 8(%rax)", "pushq $.LC0", "movq $.LC0, %rdi", "divl 4(%rsp)",
            "sete %al", "movabsq $2066035336255469781, %rax", "cltq", "ud2", "nop",
            "lock addl $1, counter(%rip)", "xchgl %eax, %ebx"]
    for insn in kept:
        expect_rewrite(ctx, f"kept/{insn}", text + "\t" + insn + "\n", ".text\n" + insn)
    # Every kind of store GCC may write is masked.
    writers = {
        "incl (%rax)": "incl", "decq (%rax)": "decq", "negq (%rax)": "negq",
        "notw (%rax)": "notw", "sete (%rax)": "sete", "sarl (%rax)": "sarl",
        "shll %cl, (%rax)": "shll %cl,", "rorq $3, (%rax)": "rorq $3,",
        "orb $1, (%rax)": "orb $1,", "andl %edx, (%rax)": "andl %edx,",
        "xorq %rdx, (%rax)": "xorq %rdx,", "subw $2, (%rax)": "subw $2,",
        "adcl $0, (%rax)": "adcl $0,", "sbbl %ecx, (%rax)": "sbbl %ecx,",
        "btsl $3, (%rax)": "btsl $3,", "btrq $63, (%rax)": "btrq $63,",
        "btcw $1, (%rax)": "btcw $1,", "shldq $3, %rdx, (%rax)": "shldq $3, %rdx,",
        "xchgl %edx, (%rax)": "xchgl %edx,", "lock xaddq %rdx, (%rax)": "lock xaddq %rdx,",
        "lock cmpxchgl %edx, (%rax)": "lock cmpxchgl %edx,", "popq (%rax)": "popq",
        "movw $1, (%rax)": "movw $1,", "movq %rdx, (%rax)": "movq %rdx,",
    }
    for insn, head in writers.items():
        expect_rewrite(ctx, f"masked/{insn}", text + "\t" + insn + "\n", "\n".join(
            [".text", LOCK, "leal (%rax), %r14d", f"{head} (%r15,%r14)", UNLOCK]))
    expect_rewrite(ctx, "masked/xchg-memory-first", text + "\txchgl (%rax), %edx\n", "\n".join(
        [".text", LOCK, "leal (%rax), %r14d", "xchgl (%r15,%r14), %edx", UNLOCK]))
    # Returns.
    expect_rewrite(ctx, "ret", text + "\tret\n", "\n".join([".text"] + RET))
    expect_rewrite(ctx, "rep-ret", text + "\trep ret\n", "\n".join([".text"] + RET))
    expect_rewrite(ctx, "rep;ret", text + "\trep; ret\n", "\n".join([".text"] + RET))
    # Indirect branches.
    expect_rewrite(ctx, "call-indirect-register", text + "\tcall *%rax\n", "\n".join(
        [".text", "movq %rax, %r14", "pushq $.Lsfi_ret0"] + MASKED_JUMP +
        [".p2align 5", ".Lsfi_ret0:"]))
    expect_rewrite(ctx, "call-indirect-memory", text + "\tcall *ops(,%rax,8)\n", "\n".join(
        [".text", "movq ops(,%rax,8), %r14", "pushq $.Lsfi_ret0"] + MASKED_JUMP +
        [".p2align 5", ".Lsfi_ret0:"]))
    expect_rewrite(ctx, "jmp-indirect", text + "\tjmp *8(%rdi)\n", "\n".join(
        [".text", "movq 8(%rdi), %r14"] + MASKED_JUMP))
    expect_rewrite(ctx, "jmp-indirect-r14", text + "\tjmp *%r14\n", "\n".join(
        [".text"] + MASKED_JUMP))
    # Direct calls: inside the graft push + jmp to a bundle-aligned return
    # point; into the API a real call after the API stack probe. Local jumps stay.
    local = "\t.text\n\t.type helper, @function\nhelper:\n\tret\n"
    expect_rewrite(ctx, "call-local", local + "\tcall helper\n\tcall helper\n", "\n".join(
        [".text", ".type helper, @function", ".p2align 5", "helper:"] + RET +
        ["pushq $.Lsfi_ret0", "jmp helper", ".p2align 5", ".Lsfi_ret0:",
         "pushq $.Lsfi_ret1", "jmp helper", ".p2align 5", ".Lsfi_ret1:"]))
    expect_rewrite(ctx, "call-api", text + "\tcall graft_log\n", "\n".join(
        [".text", LOCK, "testb %al, -0x4000(%rsp)", "call graft_log", UNLOCK]))
    expect_rewrite(ctx, "jumps-local", text + ".L2:\n\tjne .L2\n\tjmp .L2\n",
                   ".text\n.L2:\njne .L2\njmp .L2")
    # The stack pointer moves only through the guard.
    expect_rewrite(ctx, "sub-rsp", text + "\tsubq $1032, %rsp\n", "\n".join(
        [".text"] + guard(-1032)))
    expect_rewrite(ctx, "add-rsp", text + "\taddq $8, %rsp\n", "\n".join(
        [".text"] + guard(8)))
    expect_rewrite(ctx, "add-negative-rsp", text + "\taddq $-128, %rsp\n", "\n".join(
        [".text"] + guard(-128)))
    # Functions start bundles; other labels and data pass through.
    expect_rewrite(ctx, "function-label", "\t.text\n\t.globl f\n\t.type f, @function\nf:\n.L3:\n"
                   "\tnop\n", ".text\n.globl f\n.type f, @function\n.p2align 5\nf:\n.L3:\nnop")
    data = ("\t.section .rodata.str1.1,\"aMS\",@progbits,1\n.LC0:\n\t.string \"ret; cli\"\n"
            "\t.data\nx:\n\t.quad f\n\t.section .graft.manifest,\"a\"\n\t.long 1\n"
            "\t.section .note.GNU-stack,\"\",@progbits\n")
    expect_rewrite(ctx, "data-sections", data, data)
    expect_rewrite(ctx, "pushsection", "\t.text\n\t.pushsection .data\nx:\n\t.long 1\n"
                   "\t.popsection\n\tret\n", "\n".join(
                       [".text", ".pushsection .data", "x:", ".long 1", ".popsection"] + RET))
    # Code leaves each executable section at a bundle boundary, so the
    # loader's ud2 fill after it starts on one.
    out, _ = sfi.rewrite("snippet.s", text + "\tnop\n\t.pushsection .data\n\t.long 1\n"
                         "\t.popsection\n\tnop\n")
    body = [" ".join(l.split()) for l in out.splitlines()[1:]]
    body = body[:next(i for i, l in enumerate(body) if l.startswith(NOTE_START))]
    ctx.result("code-ends-on-a-bundle", body == [
        ".text", "nop", ".p2align 5", ".pushsection .data", ".long 1", ".popsection", "nop",
        ".p2align 5"], body)

    # The output's frame: bundle mode first, the note last.
    out, _ = sfi.rewrite("snippet.s", text)
    lines = [" ".join(line.split()) for line in out.splitlines()]
    ctx.result("bundle-mode-first", lines[0].startswith(".bundle_align_mode 5"), lines[0])
    ctx.result("note-last", lines[-1] == ".popsection" and
               any(l.startswith(f".pushsection {sfi.NOTE_SECTION},\"\",@note") for l in lines),
               "\n".join(lines[-10:]))


REFUSALS = [
    # (instruction, a substring of the message)
    ("cli", "privileged"), ("sti", "privileged"), ("hlt", "privileged"),
    ("inb %dx, %al", "privileged"), ("outb %al, %dx", "privileged"),
    ("int $0x80", "privileged"), ("int3", "privileged"), ("syscall", "privileged"),
    ("iretq", "privileged"), ("lgdt (%rax)", "privileged"), ("lidt (%rax)", "privileged"),
    ("wrmsr", "privileged"), ("rdmsr", "privileged"), ("std", "privileged"),
    ("popfq", "privileged"), ("ljmp *(%rax)", "privileged"), ("lcall *(%rax)", "privileged"),
    ("movq %cr3, %rax", "general registers"), ("movq %rax, %dr7", "general registers"),
    ("movw %ax, %ds", "general registers"), ("movaps %xmm0, (%rax)", "general registers"),
    ("rep movsb", "string"), ("rep stosq", "string"), ("repne scasb", "string"),
    ("movsq", "string"), ("stosb", "string"), ("lodsb", "string"), ("scasb", "string"),
    ("cmpsb", "string"), ("movsl", "string"),
    ("movl %fs:0, %eax", "segment"), ("movl %eax, %gs:8", "segment"),
    ("leave", "stack frame"), ("enter $16, $0", "stack frame"),
    ("movq %rbp, %rsp", "stack frame"), ("andq $-16, %rsp", "stack frame"),
    ("leaq -8(%rbp), %rsp", "stack frame"), ("subq %rax, %rsp", "stack frame"),
    ("subl $8, %esp", "stack frame"), ("subq $32768, %rsp", "does not fit"), ("pushq %rsp", "stack frame"),
    ("popq %rsp", "stack frame"), ("xchgq %rax, %rsp", "stack frame"),
    ("movq %rax, %r14", "%r14 or %r15"), ("movl $1, %r15d", "%r14 or %r15"),
    ("popq %r15", "%r14 or %r15"), ("leaq 8(%rax), %r14", "%r14 or %r15"),
    ("addb $1, %r14b", "%r14 or %r15"), ("jmp *%r15", "%r15"),
    ("jmp graft_log", "tail call"), ("je graft_log", "tail call"),
    ("ret $8", "immediate"), ("prefetcht0 (%rax)", "not known"),
    ("movbe %eax, (%rdi)", "not known"), ("vmovdqu (%rax), %ymm0", "general registers"),
    ("movabsq %rax, 0x1234", "absolute"), ("movl %eax, (%eax)", "32-bit addressing"),
    ("addr32 movl %eax, (%rax)", "prefix"), ("notrack jmp *%rax", "prefix"),
    ("lock", "prefix without"), ("jmp .L9+4", "expression"),
    ("btsq %rax, (%rdi)", "register bit offset"), ("btrl %eax, 8(%rdi)", "register bit offset"),
    ("lock btcq %rcx, (%rdx)", "register bit offset"),
]


def job_refusals(ctx):
    line_format = re.compile(r"^snippet\.s:(\d+)( \([^)]*\))?: error: (.+): '(.*)'$")
    for insn, fragment in REFUSALS:
        _, errors = sfi.rewrite("snippet.s", "\t.text\n.L9:\n\t" + insn + "\n")
        m = line_format.match(errors[0]) if len(errors) == 1 else None
        ok = (m is not None and m.group(1) == "3" and fragment in m.group(3)
              and m.group(4) == insn and "\n" not in errors[0])
        ctx.result(f"refused/{insn}", ok, f"errors {errors}, wanted one line naming "
                   f"snippet.s:3 and '{insn}' with '{fragment}'")
    # Context: the function and the C file GCC named.
    _, errors = sfi.rewrite("x.s", "\t.file \"x.c\"\n\t.text\n\t.type f, @function\nf:\n\tcli\n")
    ctx.result("refusal-names-function-and-source",
               errors == ["x.s:5 (in f, from x.c): error: privileged, I/O, system or "
                          "flag-control instruction is not allowed in a sandboxed graft: 'cli'"],
               f"{errors}")
    # Data or our own directives in the text break the linear decode.
    for directive in (".byte 0x90", ".long 7", ".bundle_lock", ".code32"):
        _, errors = sfi.rewrite("snippet.s", "\t.text\n\t" + directive + "\n")
        ctx.result(f"refused/{directive}", len(errors) == 1 and "snippet.s:2:" in errors[0],
                   f"{errors}")
    # Every error is reported, one line each, and the tool exits 1 writing nothing.
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = os.path.join(tmp, "bad.s"), os.path.join(tmp, "bad.sfi.s")
        with open(src, "w") as f:
            f.write("\t.text\n\tcli\n\tret\n\trep stosq\n")
        proc = subprocess.run([sys.executable, os.path.join(ROOT, "arch", "x86", "tools", "sfi_x86.py"), src,
                               "-o", dst], capture_output=True, text=True)
        lines = proc.stderr.splitlines()
        ctx.result("cli-exit-status", proc.returncode == 1 and not os.path.exists(dst),
                   f"status {proc.returncode}, output written: {os.path.exists(dst)}")
        ctx.result("cli-one-line-per-error", len(lines) == 2 and lines[0].startswith(f"{src}:2")
                   and lines[1].startswith(f"{src}:4"), proc.stderr)


# ---- Assembled code ------------------------------------------------------------
INSN = re.compile(r"^\s*([0-9a-f]+):\t((?:[0-9a-f]{2} )+)\s*\t?(.*)$")
RELOC = re.compile(r"^([0-9a-f]+): (R_X86_64_\w+)$")


def disassemble(obj):
    """[(section, offset, bytes, text, {offset: (type, symbol)})] of every
    executable section, from objdump -dr -w."""
    out = subprocess.run(["objdump", "-dr", "-w", obj], capture_output=True, text=True,
                         check=True).stdout
    insns, relocs, section = [], {}, None
    for line in out.splitlines():
        if line.startswith("Disassembly of section "):
            section = line[len("Disassembly of section "):].rstrip(":")
        m = INSN.match(line)
        if m and section:
            # -w: "TEXT[\tOFFSET: TYPE\tSYMBOL]...": the relocations on the line.
            text, *tail = m.group(3).split("\t")
            for kind, symbol in zip(tail[0::2], tail[1::2]):
                r = RELOC.match(kind.strip())
                if r:
                    relocs[(section, int(r.group(1), 16))] = (r.group(2), symbol.strip())
            raw = bytes.fromhex(m.group(2).replace(" ", ""))
            text = " ".join(text.split("#")[0].split())
            insns.append((section, int(m.group(1), 16), raw, text))
    return insns, relocs


def function_symbols(obj):
    out = subprocess.run(["readelf", "-sW", obj], capture_output=True, text=True,
                         check=True).stdout
    return [(int(f[1], 16), f[7]) for f in (l.split() for l in out.splitlines())
            if len(f) >= 8 and f[3] == "FUNC"]


def note_ok(obj):
    out = subprocess.run(["readelf", "-x", sfi.NOTE_SECTION, obj], capture_output=True,
                         text=True).stdout
    # namesz 6, descsz 4, type 1, "Scion\0" padded, version 1 (little-endian).
    return "06000000 04000000 01000000 5363696f" in out and "6e000000 01000000" in out


def check_object(obj):
    """Problems with obj as sandboxed code, by the rules of sfi.h."""
    insns, relocs = disassemble(obj)
    problems = []
    bundle = lambda off: off // BUNDLE  # noqa: E731
    interior = set()        # offsets inside guarded sequences (no branch may land there)
    for i, (sec, off, raw, text) in enumerate(insns):
        where = f"{sec}+{off:#x} '{text}'"
        if bundle(off) != bundle(off + len(raw) - 1):
            problems.append(f"{where} crosses a bundle boundary")
        prev = insns[i - 3:i] if i >= 3 else [None] * (3 - i) + insns[:i]
        same = lambda k: prev[k] is not None and bundle(prev[k][1]) == bundle(off)  # noqa: E731
        mnem = text.split()[0] if text else ""
        if text.startswith("ret"):
            problems.append(f"{where}: ret")
        if mnem == "call" and "*" in text:
            problems.append(f"{where}: indirect call")
        if mnem == "call" and relocs.get((sec, off + 1)):      # out of the graft: the API
            ok = same(2) and prev[2][3] == f"test %al,-{sfi.SFI_API_STACK:#x}(%rsp)"
            if not ok:
                problems.append(f"{where}: API call not after the API stack probe in its bundle")
            interior.add(off)
        if "(%r15,%r14" in text and not mnem.startswith("lea"):
            ok = same(2) and re.search(r"^(lea|mov)\S* .*,%r14d$", prev[2][3])
            if not ok:
                problems.append(f"{where}: store not preceded by a 32-bit write of %r14 in its bundle")
            interior.add(off)
        if text == "jmp *%r14":
            ok = (same(1) and same(2) and prev[1][2][:3] == b"\x49\x81\xe6"
                  and prev[2][2][:3] == b"\x49\x81\xce"
                  and relocs.get((sec, prev[1][1] + 3)) == ("R_X86_64_32S", sfi.TEXT_MASK_SYMBOL)
                  and relocs.get((sec, prev[2][1] + 3)) == ("R_X86_64_32S", sfi.TEXT_BASE_SYMBOL))
            if not ok:
                problems.append(f"{where}: not after and/or imm32 (R_X86_64_32S) in its bundle")
            else:
                interior.update((prev[2][1], off))
        elif "jmp" in mnem and "*" in text:
            problems.append(f"{where}: indirect jump not through %r14")
        if text.endswith(",%rsp") and mnem not in ("push", "pop", "call"):
            ok = (text == "mov %r14,%rsp" and same(0) and same(1) and same(2)
                  and prev[0][3].startswith("lea ") and prev[0][3].endswith("(%rsp),%r14")
                  and prev[1][3] == f"and ${sfi.SFI_STACK_MASK:#x},%r14"
                  and prev[2][3] == "or %r15,%r14")
            if not ok:
                problems.append(f"{where}: %rsp written outside the stack guard")
            else:
                interior.update((prev[1][1], prev[2][1], off))
        if mnem == "push" and text.startswith("push $"):
            rel = relocs.get((sec, off + 1))
            if rel and rel[1].startswith(sec + "+"):
                target = int(rel[1].split("+", 1)[1], 16)
                if target % BUNDLE:
                    problems.append(f"{where}: return point {target:#x} is not a bundle start")
    for sec, off, raw, text in insns:
        m = re.match(r"^j\w+ ([0-9a-f]+) <", text)
        if m and (sec, off + len(raw) - 4) not in relocs and int(m.group(1), 16) in interior:
            problems.append(f"{sec}+{off:#x} '{text}' lands inside a guarded sequence")
    for value, name in function_symbols(obj):
        if value % BUNDLE:
            problems.append(f"function {name} at {value:#x} is not at a bundle start")
    if not note_ok(obj):
        problems.append(f"no {sfi.NOTE_SECTION} note with scheme version 1")
    return problems


def assemble(ctx, name, src, tmp):
    path = os.path.join(tmp, name + ".s")
    out, errors = sfi.rewrite(path, src)
    with open(path, "w") as f:
        f.write(out)
    proc = subprocess.run(["as", path, "-o", path[:-2] + ".o"], capture_output=True, text=True)
    ctx.result(f"{name}/assembles", not errors and proc.returncode == 0,
               f"{errors} {proc.stderr.strip()}")
    return path[:-2] + ".o" if proc.returncode == 0 else None


def job_assembled(ctx):
    body = ["\t.text", "\t.globl f", "\t.type f, @function", "f:", "\tsubq $24, %rsp",
            "\tmovl %eax, (%rdi)", "\tcall g", "\tcall graft_log", "\tcall *%rax",
            "\tcall *ops(,%rax,8)", "\taddq $1, seen(,%rax,8)", "\tjmp *%rdx", "\taddq $24, %rsp",
            "\tret", "\t.type g, @function", "g:"]
    # Every alignment of every guarded sequence: k one-byte nops before each.
    for k in range(BUNDLE):
        body += ["\tnop"] * k + [f".Lk{k}:", "\tmovq $1, 8(%rax,%rbx,4)", "\tsubq $8, %rsp",
                                 "\taddq $8, %rsp", "\tje .Lk0", "\tcall g", "\tcall *%rcx",
                                 "\tret"]
    body += ["\t.section .bss", "seen:", "\t.zero 64", "\t.section .rodata", "ops:", "\t.quad g"]
    with tempfile.TemporaryDirectory() as tmp:
        obj = assemble(ctx, "snippet", "\n".join(body) + "\n", tmp)
        if not obj:
            return
        problems = check_object(obj)
        ctx.result("snippet/sandboxed", not problems, "\n    ".join(problems[:20]))
        insns, relocs = disassemble(obj)
        ands = [(o, r) for s, o, r, t in insns if r[:3] == b"\x49\x81\xe6" and
                relocs.get((s, o + 3)) == ("R_X86_64_32S", sfi.TEXT_MASK_SYMBOL)]
        ors = [(o, r) for s, o, r, t in insns if r[:3] == b"\x49\x81\xce" and
               relocs.get((s, o + 3)) == ("R_X86_64_32S", sfi.TEXT_BASE_SYMBOL)]
        jumps = [o for s, o, r, t in insns if t == "jmp *%r14"]
        ctx.result("snippet/mask-relocations", len(ands) == len(ors) == len(jumps) == 4 + 2 * BUNDLE
                   and all(len(r) == 7 for _, r in ands + ors),
                   f"{len(ands)} and, {len(ors)} or (imm32, R_X86_64_32S), {len(jumps)} jmp *%r14")
        pushes = [relocs.get((s, o + 1)) for s, o, r, t in insns if t.startswith("push $")]
        ctx.result("snippet/return-points", len(pushes) == 3 + 2 * BUNDLE and all(
            p and p[0] == "R_X86_64_32S" and int(p[1].split("+")[1], 16) % BUNDLE == 0
            for p in pushes), f"{pushes[:5]}")
        api = [relocs.get((s, o + 1)) for s, o, r, t in insns if t.startswith("call ")]
        ctx.result("snippet/api-call", api == [("R_X86_64_PLT32", "graft_log-0x4")], f"{api}")
        # The checker itself must see a bad object: the same code unsandboxed.
        raw = os.path.join(tmp, "raw.s")
        with open(raw, "w") as f:
            f.write("\n".join(body) + "\n")
        subprocess.run(["as", raw, "-o", raw[:-2] + ".o"], check=True)
        ctx.result("checker-sees-unsandboxed-code", len(check_object(raw[:-2] + ".o")) > 10,
                   "check_object found (almost) nothing wrong with unsandboxed code")


# ---- The table and the constants ------------------------------------------------
MAP_OPERAND = re.compile(r"^([A-Z][A-Za-z]*|rAX|eAX)(?::(r|w|rw))?$")


def job_table_and_constants(ctx):
    """Which operand a mnemonic writes, against the decoder's opcode map:
    for every map form with a memory-capable operand (E, M, O) whose
    mnemonic the rewriter knows, the rewriter masks it iff the map says
    it is written."""
    checked, mismatches = set(), []
    with open(os.path.join(ROOT, "arch", "x86", "opcodes.map")) as f:
        for line in f:
            words = line.split("#", 1)[0].split()
            if len(words) < 3 or line.startswith("["):
                continue
            mnemonic, rest = words[1], words[2:]
            if "x" in rest or any(w.startswith("pfx=") for w in rest):
                continue
            operands = [MAP_OPERAND.match(w) for w in rest if MAP_OPERAND.match(w)]
            name = {"cmovcc": "cmove", "setcc": "sete"}.get(mnemonic, mnemonic)
            kind = sfi.TABLE.get(name)
            if kind is None:
                continue
            for i, m in enumerate(operands):
                if not re.match(r"^[EMO][a-z]*$", m.group(1)):
                    continue
                written = (m.group(2) or "r") != "r" and "noaccess" not in rest
                # AT&T reverses Intel's order: Intel's first operand is AT&T's last.
                masked = kind == sfi.BOTH or (kind == sfi.DEST and i == 0)
                checked.add(name)
                if written != masked:
                    mismatches.append(f"{words[0]} {mnemonic} {' '.join(rest)}")
    ctx.result("table-agrees-with-opcodes-map", not mismatches and len(checked) >= 30,
               f"{len(checked)} mnemonics checked; mismatches: {mismatches}")
    with open(os.path.join(ROOT, "arch", "x86", "include", "arch", "sfi.h")) as f:
        header = f.read()
    defines = dict(re.findall(r"^#define\s+(SFI_\w+)\s+(.+?)\s*(?:/\*.*)?$", header, re.M))
    value = lambda n: eval(re.sub(r"(\d)u(ll)?\b", r"\1", defines[n]))  # noqa: E731
    ctx.result("bundle-shift-agrees-with-sfi.h", value("SFI_BUNDLE_SHIFT") == sfi.SFI_BUNDLE_SHIFT,
               f"sfi.h {defines.get('SFI_BUNDLE_SHIFT')}, rewriter {sfi.SFI_BUNDLE_SHIFT}")
    ctx.result("stack-mask-agrees-with-sfi.h", value("SFI_STACK_SIZE") - 1 == sfi.SFI_STACK_MASK,
               f"sfi.h SFI_STACK_SIZE {defines.get('SFI_STACK_SIZE')}, rewriter "
               f"SFI_STACK_MASK {sfi.SFI_STACK_MASK:#x}")
    ctx.result("api-stack-agrees-with-sfi.h", value("SFI_API_STACK") == sfi.SFI_API_STACK,
               f"sfi.h SFI_API_STACK {defines.get('SFI_API_STACK')}, rewriter "
               f"SFI_API_STACK {sfi.SFI_API_STACK:#x}")


# ---- Every graft -----------------------------------------------------------------
def job_grafts(ctx):
    sources = sorted(glob.glob(os.path.join(ROOT, "grafts", "*.c")) +
                     glob.glob(os.path.join(ROOT, "grafts", "bad", "*.c")))
    ctx.result("grafts-found", len(sources) >= 10, f"{len(sources)} graft sources")
    for src in sources:
        rel = os.path.relpath(src, os.path.join(ROOT, "grafts"))[:-2]
        built = os.path.join(ctx.build, "grafts", rel + ".graft")
        trusted = os.path.join(ctx.build, "grafts", "trusted", rel + ".graft")
        gcc_output = os.path.join(ctx.build, "grafts", rel + ".s")
        if not all(os.path.isfile(p) for p in (built, trusted, gcc_output)):
            ctx.result(f"{rel}/built", False, f"{built} or its trusted copy missing (make grafts)")
            continue
        with open(gcc_output) as f:
            _, errors = sfi.rewrite(gcc_output, f.read())
        ctx.result(f"{rel}/rewrites", not errors, "\n    ".join(errors))
        problems = check_object(built)
        ctx.result(f"{rel}/sandboxed", not problems, "\n    ".join(problems[:10]))
        _, relocs = disassemble(trusted)
        masks = [r for r in relocs.values() if r[1] in (sfi.TEXT_MASK_SYMBOL, sfi.TEXT_BASE_SYMBOL)]
        ctx.result(f"{rel}/trusted-copy-unsandboxed", not note_ok(trusted) and not masks,
                   f"{trusted} has the note or masked branches")


if __name__ == "__main__":
    import argparse

    class Context:
        def __init__(self, build):
            self.build = os.path.join(ROOT, build)
            self.results = []

        def result(self, name, ok, detail=""):
            self.results.append((name, bool(ok), detail))

    ap = argparse.ArgumentParser(description="the sandboxing step's tests, without make test")
    ap.add_argument("--build", default="build")
    ctx = Context(ap.parse_args().build)
    for job in (job_rules, job_refusals, job_assembled, job_table_and_constants, job_grafts):
        job(ctx)
    for name, ok, detail in ctx.results:
        if not ok:
            print(f"FAILED {name}: {detail}")
    failed = sum(not ok for _, ok, _ in ctx.results)
    print(f"{len(ctx.results) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
