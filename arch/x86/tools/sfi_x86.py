#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The graft build's sandboxing step: GCC's AT&T assembly in, sandboxed
assembly out, following the scheme of arch/x86/include/arch/sfi.h.

    arch/x86/tools/sfi_x86.py IN.s -o OUT.s

The input is `gcc -S` output for one graft, compiled with -ffixed-r14
-ffixed-r15 -fno-jump-tables -fno-optimize-sibling-calls (arch/x86/arch.mk).
The output assembles into an object whose text the loader's verifier
(arch/x86/sfi_verify.c) accepts: the verifier alone makes the guarantee,
so this step only has to be complete for what GCC emits and to refuse,
with one line naming IN.s:LINE and the instruction, anything it does not
understand. Invariants of the output:
  - `.bundle_align_mode 5`: no instruction crosses a 32-byte bundle;
    every guarded sequence is inside one .bundle_lock/.bundle_unlock;
  - every function label and every return point of a call inside the
    graft is a bundle start (a masked return reaches only those): such a
    call is `pushq $RET ; jmp f` with RET the next bundle start, while a
    call to the graft API stays a real call (the API returns by ret),
    right after the API stack probe `testb %al, -SFI_API_STACK(%rsp)` in
    its bundle;
  - every store is to [%rsp + disp], rip-relative, or [%r15 + %r14]
    right after a 32-bit write of %r14 in the same bundle (`leal MEM,
    %r14d`, or `leaq MEM, %r14 ; movl %r14d, %r14d` when MEM names a
    symbol);
  - every indirect branch and every return jumps through %r14 after
    `and $__sfi_text_mask` and `or $__sfi_text_base`, two symbols the
    loader resolves to the graft's text region (R_X86_64_32S);
  - %rsp changes only by push/pop/call or the stack guard;
  - a note section .note.scion.sfi (scheme version 1) marks the object
    as sandboxed.
Directives, labels and non-executable sections pass through unchanged.
"""
import argparse
import os
import re
import sys

# Constants of arch/x86/include/arch/sfi.h (tests/integration/
# test_sfi_rewrite.py checks that they agree with the header).
SFI_BUNDLE_SHIFT = 5
SFI_STACK_MASK = 0x7fff
SFI_API_STACK = 0x4000
SCHEME_VERSION = 1

TEXT_MASK_SYMBOL = "__sfi_text_mask"
TEXT_BASE_SYMBOL = "__sfi_text_base"
NOTE_SECTION = ".note.scion.sfi"
NOTE_TYPE_SCHEME = 1
RETURN_LABEL = ".Lsfi_ret"      # local labels of return points: .Lsfi_ret0, ...
SCRATCH = "%r14"
STACK_MESSAGE = "variable-size or realigned stack frame is not supported in a sandboxed graft"


class SfiError(Exception):
    """One refusal; str() is the one line the build prints."""

    def __init__(self, where, message, text):
        super().__init__(f"{where}: error: {message}: '{' '.join(text.split())}'")


# ---- The instruction table ----------------------------------------------------
# How each mnemonic uses its operands, by AT&T position (last = destination):
#   DEST      the last operand is written (register or memory), others read
#   DEST_REG  the last operand is a written register (with one operand: read)
#   BOTH      every operand is written (xchg, xadd)
#   READ      every operand is only read (memory included)
#   NOADDR    memory operands are only addresses (nop)
#   NONE      no explicit operands, nothing written that the sandbox cares about
# Anything not in the table is refused: a mnemonic whose effect on memory
# is not known here could be a store.
DEST, DEST_REG, BOTH, READ, NOADDR, NONE = "dest", "dest_reg", "both", "read", "noaddr", "none"

SIZES = ("", "b", "w", "l", "q")
CONDITIONS = ("o", "no", "b", "c", "nae", "ae", "nb", "nc", "e", "z", "ne", "nz", "be", "na",
              "a", "nbe", "s", "ns", "p", "pe", "np", "po", "l", "nge", "ge", "nl", "le",
              "ng", "g", "nle")


def _build_table():
    table = {}

    def sized(kind, *bases):
        for base in bases:
            for size in SIZES:
                table[base + size] = kind

    sized(DEST, "mov", "add", "sub", "and", "or", "xor", "adc", "sbb", "shl", "sal", "shr",
          "sar", "rol", "ror", "rcl", "rcr", "inc", "dec", "neg", "not", "cmpxchg", "bts",
          "btr", "btc", "shld", "shrd", "bswap", "pop")
    sized(BOTH, "xchg", "xadd")
    sized(READ, "cmp", "test", "bt", "push", "mul", "div", "idiv")
    sized(DEST_REG, "imul", "lea", "bsf", "bsr", "popcnt", "lzcnt", "tzcnt")
    sized(NOADDR, "nop")
    for ext in ("bw", "bl", "bq", "wl", "wq"):
        table["movz" + ext] = DEST_REG
        table["movs" + ext] = DEST_REG
    table["movslq"] = DEST_REG
    for name in ("movzx", "movsx", "movsxd"):
        table[name] = DEST_REG
    table["movabsq"] = table["movabs"] = DEST
    for cond in CONDITIONS:
        table["set" + cond] = DEST
        for size in ("", "w", "l", "q"):
            table["cmov" + cond + size] = DEST_REG
    for name in ("cbtw", "cwtl", "cltq", "cwtd", "cltd", "cqto", "cbw", "cwde", "cdqe",
                 "cwd", "cdq", "cqo", "ud2", "lfence", "mfence", "sfence", "pause",
                 "clc", "stc", "cmc"):
        table[name] = NONE
    return table


TABLE = _build_table()
JCC = {"j" + cond for cond in CONDITIONS}
CALLS = {"call", "callq"}
JUMPS = {"jmp", "jmpq"}
RETURNS = {"ret", "retq"}
PREFIXES = {"lock", "rep", "repe", "repz", "repne", "repnz", "notrack", "bnd", "data16",
            "addr32", "rex64", "cs", "ds", "es", "fs", "gs", "ss"}
# The rep prefix GCC may put on ret for old AMD branch predictors.
RET_PREFIXES = {"rep", "repz", "repe"}

# Refused by class, for a message that says why (anything unknown is refused too).
STRING_OPS = {base + size for base in ("movs", "stos", "lods", "scas", "cmps", "ins", "outs")
              for size in SIZES} | {"movsd", "cmpsd", "xlat", "xlatb"}
PRIVILEGED = {"cli", "sti", "hlt", "in", "inb", "inw", "inl", "out", "outb", "outw", "outl",
              "int", "int1", "int3", "into", "syscall", "sysenter", "sysexit", "sysret",
              "sysretq", "iret", "iretw", "iretl", "iretq", "lgdt", "lidt", "lldt", "ltr",
              "sgdt", "sidt", "sldt", "str", "lmsw", "smsw", "clts", "invlpg", "invd",
              "wbinvd", "wrmsr", "rdmsr", "rdpmc", "swapgs", "std", "cld", "popf", "popfq",
              "popfw", "pushf", "pushfq", "pushfw", "ljmp", "lcall", "lret", "lretq",
              "monitor", "mwait", "rdtsc", "rdtscp", "cpuid", "xgetbv", "xsetbv"}
FRAME_OPS = {"leave", "leaveq", "enter", "enterq"}
DATA_DIRECTIVES = {".byte", ".short", ".value", ".word", ".hword", ".2byte", ".long", ".int",
                   ".4byte", ".quad", ".8byte", ".octa", ".ascii", ".asciz", ".string",
                   ".zero", ".skip", ".space", ".fill", ".float", ".double", ".inst"}

# ---- Operands -----------------------------------------------------------------
REG_FAMILIES = {
    "rsp": {"%rsp", "%esp", "%sp", "%spl"},
    "r14": {"%r14", "%r14d", "%r14w", "%r14b"},
    "r15": {"%r15", "%r15d", "%r15w", "%r15b"},
}
GPR64 = {"%rax", "%rbx", "%rcx", "%rdx", "%rsi", "%rdi", "%rbp", "%rsp"} | {
    f"%r{n}" for n in range(8, 16)}
# Registers that are not general registers: vector, x87, mask, segment, control, debug.
NON_GPR = re.compile(r"%(x|y|z)mm\d|%mm\d|%st\b|%st\(|%k[0-7]\b|%(c|d|e|f|g|s)s\b|%cr\d|%db?\d|%dr\d|%tr\d")
SEGMENT_OVERRIDE = re.compile(r"^%[c-gs]s\s*:")
MEMORY = re.compile(r"^(?P<disp>[^()]*)\((?P<inside>[^()]*)\)$")
LABEL = re.compile(r"^\s*([A-Za-z_.$][\w.$@]*|\d+)\s*:(?!:)")
NUMBER = re.compile(r"^(-?(0x[0-9a-fA-F]+|\d+))?$")
SYMBOL = re.compile(r"^[A-Za-z_.$][\w.$@]*$")


def split_operands(text):
    """Operands at parenthesis depth 0, separated by commas."""
    ops, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            ops.append(text[start:i].strip())
            start = i + 1
    tail = text[start:].strip()
    if tail or ops:
        ops.append(tail)
    return ops


def strip_comment(text):
    """An instruction's text without a trailing # comment (outside quotes)."""
    quoted = False
    for i, ch in enumerate(text):
        if ch == '"':
            quoted = not quoted
        elif ch == "#" and not quoted:
            return text[:i].rstrip()
    return text.rstrip()


def is_register(op):
    return op.startswith("%") and "(" not in op and ":" not in op


def is_memory(op):
    """A memory operand: disp(base,index,scale) or a bare absolute address."""
    return not (op.startswith("$") or op.startswith("*") or is_register(op))


def in_family(op, family):
    return op in REG_FAMILIES[family]


class Memory:
    """A parsed memory operand; base/index are register names or None."""

    def __init__(self, text):
        self.text = text
        self.base = self.index = None
        self.disp = text
        m = MEMORY.match(text)
        if m:
            self.disp = m.group("disp")
            parts = [p.strip() for p in m.group("inside").split(",")]
            self.base = parts[0] or None
            self.index = parts[1] if len(parts) > 1 and parts[1] else None

    def symbolic(self):
        """Whether the displacement needs a relocation (names a symbol)."""
        return not NUMBER.match(self.disp.strip())

    def registers(self):
        return [r for r in (self.base, self.index) if r]

    def stack_relative(self):
        """[%rsp + disp]: the stack, which the stack guard keeps in the window."""
        return self.base == "%rsp" and self.index is None

    def rip_relative(self):
        """The verifier checks that the bytes lie in the graft's data region."""
        return self.base == "%rip"


# ---- The rewriter -------------------------------------------------------------
class Rewriter:
    def __init__(self, path, lines):
        self.path = path
        self.lines = lines
        self.out = []
        self.errors = []
        self.return_points = 0
        self.function = None
        self.source = None
        self.defined, self.functions = self._collect_symbols()

    def _collect_symbols(self):
        """Every label the file defines, and which of them are functions."""
        defined, functions = set(), set()
        for line in self.lines:
            rest = line
            while True:
                m = LABEL.match(rest)
                if not m:
                    break
                defined.add(m.group(1))
                rest = rest[m.end():]
            words = rest.split(None, 1)
            if len(words) == 2 and words[0] in (".set", ".equ", ".type", ".comm", ".lcomm"):
                args = [a.strip() for a in words[1].split(",")]
                if words[0] in (".set", ".equ", ".comm", ".lcomm"):
                    defined.add(args[0])
                elif len(args) > 1 and args[1] in ("@function", "%function", "STT_FUNC"):
                    functions.add(args[0])
        return defined, functions

    def where(self, lineno):
        context = []
        if self.function:
            context.append(f"in {self.function}")
        if self.source:
            context.append(f"from {self.source}")
        return f"{self.path}:{lineno}" + (f" ({', '.join(context)})" if context else "")

    def emit(self, text):
        self.out.append(text)

    def locked(self, *insns):
        """A guarded sequence: one bundle, so no branch lands inside it."""
        self.emit("\t.bundle_lock")
        for insn in insns:
            self.emit("\t" + insn)
        self.emit("\t.bundle_unlock")

    def masked_jump(self):
        self.locked(f"andq\t${TEXT_MASK_SYMBOL}, {SCRATCH}",
                    f"orq\t${TEXT_BASE_SYMBOL}, {SCRATCH}",
                    f"jmp\t*{SCRATCH}")

    def return_point(self):
        """A new local label for a return address, and what lands on it."""
        label = f"{RETURN_LABEL}{self.return_points}"
        self.return_points += 1
        return label

    def land(self, label):
        self.emit(f"\t.p2align {SFI_BUNDLE_SHIFT}")
        self.emit(f"{label}:")

    # -- Sections -------------------------------------------------------------
    def run(self):
        self.emit(f"\t.bundle_align_mode {SFI_BUNDLE_SHIFT}\t# sandboxed: arch/x86/include/arch/sfi.h")
        self.code_since_switch = False     # instructions emitted since the last section switch
        executable = True          # gas starts in .text
        stack = []                 # whether each .pushsection's outer section is executable
        previous = executable
        for lineno, raw in enumerate(self.lines, 1):
            line = raw.rstrip("\n")
            rest = line
            while True:        # labels first; a function label starts a bundle
                m = LABEL.match(rest)
                if not m:
                    break
                name = m.group(1)
                if executable and name in self.functions:
                    self.function = name
                    self.emit(f"\t.p2align {SFI_BUNDLE_SHIFT}")
                self.emit(f"{name}:")
                rest = rest[m.end():]
            body = rest.strip()
            if not body or body.startswith("#"):
                if rest is line:
                    self.emit(line)
                continue
            if body.startswith("."):
                words = body.split(None, 1)
                directive, args = words[0], (words[1] if len(words) > 1 else "")
                new = section_change(directive, args)
                leaving = new is not None or directive in (".popsection", ".previous")
                if leaving and executable and self.code_since_switch:
                    # Code ends at a bundle boundary, so the loader's ud2 fill
                    # after it starts on one too (a verifier-decodable tail).
                    self.emit(f"\t.p2align {SFI_BUNDLE_SHIFT}")
                if leaving:
                    self.code_since_switch = False
                if new is not None:
                    previous, executable = executable, new
                    if directive == ".pushsection":
                        stack.append(previous)
                elif directive == ".popsection" and stack:
                    previous, executable = executable, stack.pop()
                elif directive == ".previous":
                    previous, executable = executable, previous
                elif directive == ".file" and self.source is None:
                    self.source = args.strip().strip('"')
                if executable:
                    if directive in DATA_DIRECTIVES:
                        self.fail(lineno, "data in an executable section breaks the verifier's "
                                  "linear decode", body)
                        continue
                    if directive.startswith(".bundle") or directive.startswith(".code"):
                        self.fail(lineno, "the sandboxing step owns bundling and code size", body)
                        continue
                self.emit(line if rest is line else "\t" + body)
                continue
            if not executable:
                self.emit(line if rest is line else "\t" + body)
                continue
            pending = ""        # "rep; ret": a prefix alone belongs to the next statement
            for statement in strip_comment(body).split(";"):
                statement = (pending + " " + statement).strip()
                pending = ""
                if statement and all(w in PREFIXES for w in statement.split()):
                    pending = statement
                    continue
                if statement:
                    self.code_since_switch = True
                    try:
                        self.instruction(lineno, statement)
                    except SfiError as e:
                        self.errors.append(str(e))
            if pending:
                self.fail(lineno, "a prefix without an instruction", pending)
        if executable and self.code_since_switch:
            self.emit(f"\t.p2align {SFI_BUNDLE_SHIFT}")
        self.emit_note()
        return self.out

    def fail(self, lineno, message, text):
        self.errors.append(str(SfiError(self.where(lineno), message, text)))

    def emit_note(self):
        """The loader tells a sandboxed graft from a trusted one by this note."""
        self.emit(f"\t.pushsection {NOTE_SECTION},\"\",@note")
        self.emit("\t.p2align 2")
        self.emit("\t.long 6\t\t# name size (\"Scion\" and NUL)")
        self.emit("\t.long 4\t\t# descriptor size")
        self.emit(f"\t.long {NOTE_TYPE_SCHEME}\t\t# type: SFI scheme")
        self.emit("\t.asciz \"Scion\"")
        self.emit("\t.p2align 2")
        self.emit(f"\t.long {SCHEME_VERSION}\t\t# scheme version")
        self.emit("\t.popsection")

    # -- Instructions ---------------------------------------------------------
    def instruction(self, lineno, text):
        def refuse(message):
            raise SfiError(self.where(lineno), message, text)

        words = text.split(None, 1)
        prefixes = []
        while words and words[0] in PREFIXES:
            prefixes.append(words[0])
            words = words[1].split(None, 1) if len(words) > 1 else []
        if not words:
            refuse("a prefix without an instruction")
        mnemonic = words[0]
        operands = split_operands(words[1]) if len(words) > 1 else []

        if mnemonic in RETURNS and set(prefixes) <= RET_PREFIXES:
            if operands:
                refuse("ret with an immediate (callee-popped arguments) is not supported")
            # A return goes through the same mask as any indirect branch.
            self.emit(f"\tpopq\t{SCRATCH}")
            self.masked_jump()
            return
        if any(p != "lock" for p in prefixes):
            if set(prefixes) & {"rep", "repe", "repz", "repne", "repnz"}:
                refuse("string instructions are not allowed in a sandboxed graft")
            refuse(f"prefix '{[p for p in prefixes if p != 'lock'][0]}' is not allowed "
                   "in a sandboxed graft")
        if mnemonic in STRING_OPS:
            refuse("string instructions are not allowed in a sandboxed graft")
        if mnemonic in FRAME_OPS:
            refuse(STACK_MESSAGE)
        if mnemonic in PRIVILEGED:
            refuse("privileged, I/O, system or flag-control instruction is not allowed "
                   "in a sandboxed graft")
        for op in operands:
            if SEGMENT_OVERRIDE.match(op.lstrip("*")):
                refuse("segment overrides are not allowed in a sandboxed graft")
            if NON_GPR.search(op):
                refuse("only general registers are allowed in a sandboxed graft "
                       "(no vector, x87, segment, control or debug registers)")
        for op in operands:
            for reg in Memory(op.lstrip("*")).registers() if is_memory(op.lstrip("*")) else ():
                if reg != "%rip" and reg not in GPR64:
                    refuse("32-bit addressing (an address-size prefix) is not allowed")

        if mnemonic in CALLS or mnemonic in JUMPS or mnemonic in JCC:
            self.branch(mnemonic, operands, prefixes, refuse)
            return
        kind = TABLE.get(mnemonic)
        if kind is None:
            refuse("instruction not known to the sandboxing step (it could be a store)")
        self.plain(mnemonic, kind, operands, prefixes, text, refuse)

    def branch(self, mnemonic, operands, prefixes, refuse):
        if len(operands) != 1 or prefixes:
            refuse("unexpected branch form")
        target = operands[0]
        if target.startswith("*"):
            if mnemonic in JCC:
                refuse("unexpected branch form")
            source = target[1:]
            if in_family(source, "r15"):
                refuse("an indirect branch through %r15 is not supported")
            if source != SCRATCH:
                self.emit(f"\tmovq\t{source}, {SCRATCH}")
            if mnemonic in CALLS:
                label = self.return_point()
                self.emit(f"\tpushq\t${label}")
                self.masked_jump()
                self.land(label)
            else:
                self.masked_jump()
            return
        if not SYMBOL.match(target):
            refuse("a direct branch to an expression is not supported")
        local = target in self.defined
        if mnemonic in CALLS:
            if local:
                # push + jmp so that the return lands at a bundle start.
                label = self.return_point()
                self.emit(f"\tpushq\t${label}")
                self.emit(f"\tjmp\t{target}")
                self.land(label)
            else:
                # The graft API returns with its own ret; the probe checks its stack room.
                self.locked(f"testb\t%al, -{SFI_API_STACK:#x}(%rsp)", f"call\t{target}")
            return
        if not local:
            refuse(f"a jump to '{target}', which this file does not define (a tail call into "
                   "the graft API), is not supported: compile with -fno-optimize-sibling-calls")
        self.emit(f"\t{mnemonic}\t{target}")

    def plain(self, mnemonic, kind, operands, prefixes, text, refuse):
        if kind == NONE and operands:
            refuse("unexpected operands")
        memories = [i for i, op in enumerate(operands) if is_memory(op)]
        if len(memories) > 1:
            refuse("more than one memory operand")
        if any(op.startswith("*") for op in operands):
            refuse("'*' outside an indirect branch")
        if kind == DEST:
            written = {len(operands) - 1} if operands else set()
        elif kind == DEST_REG:
            written = {len(operands) - 1} if len(operands) >= 2 else set()
            if written and is_memory(operands[-1]):
                refuse("unexpected memory destination")
        elif kind == BOTH:
            written = set(range(len(operands)))
        else:
            written = set()
        if mnemonic.startswith("movabs") and memories:
            refuse("a 64-bit absolute memory operand cannot be masked")
        if (re.match(r"^bt[src][wlq]?$", mnemonic) and memories and operands
                and is_register(operands[0])):
            # The bit offset in a register reaches far past the masked address.
            refuse("a bit test-and-modify of memory with a register bit offset is not "
                   "supported (it writes up to 2^60 bytes away from its operand)")
        if mnemonic.startswith("push") and operands and in_family(operands[0], "rsp"):
            refuse(STACK_MESSAGE)

        for i in written:
            op = operands[i]
            if not is_register(op):
                continue
            if in_family(op, "r14") or in_family(op, "r15"):
                refuse("writes %r14 or %r15, which the sandbox reserves (compile with "
                       "-ffixed-r14 -ffixed-r15)")
            if in_family(op, "rsp"):
                self.stack_adjust(mnemonic, operands, refuse)
                return

        store = next((i for i in memories if i in written), None)
        if store is None:
            self.emit("\t" + text)
            return
        mem = Memory(operands[store])
        if mem.stack_relative() and not mnemonic.startswith("pop"):
            self.emit("\t" + text)
            return
        if mem.rip_relative():
            self.emit("\t" + text)
            return
        if mnemonic.startswith("pop") and "%rsp" in mem.registers():
            refuse("pop to a %rsp-based address is not supported")
        # The store's address cut to 32 bits, then rebased on the window:
        # a pointer to the graft's data or stack reaches the same bytes.
        masked = list(operands)
        masked[store] = "(%r15,%r14)"
        store_insn = " ".join(prefixes + [mnemonic]) + "\t" + ", ".join(masked)
        if mem.symbolic():
            # gas gives `leal sym(...), %r14d` an R_X86_64_32 relocation,
            # which a symbol in the top 2 GiB overflows: compute the address
            # with leaq (R_X86_64_32S, like the original store), then cut it.
            self.locked(f"leaq\t{operands[store]}, {SCRATCH}",
                        f"movl\t%r14d, %r14d", store_insn)
        else:
            self.locked(f"leal\t{operands[store]}, %r14d", store_insn)

    def stack_adjust(self, mnemonic, operands, refuse):
        """subq/addq $N, %rsp: the new %rsp goes through the stack guard."""
        if (mnemonic not in ("subq", "addq", "sub", "add") or len(operands) != 2
                or operands[1] != "%rsp" or not re.match(r"^\$-?(0x[0-9a-fA-F]+|\d+)$",
                                                          operands[0])):
            refuse(STACK_MESSAGE)
        amount = int(operands[0][1:], 0)
        delta = -amount if mnemonic.startswith("sub") else amount
        if abs(delta) > SFI_STACK_MASK:
            # The guard would wrap %rsp around inside the window's stack.
            refuse(f"a stack frame of {abs(delta)} bytes does not fit the sandbox's "
                   f"{SFI_STACK_MASK + 1}-byte stack")
        self.locked(f"leaq\t{delta}(%rsp), {SCRATCH}",
                    f"andq\t${SFI_STACK_MASK:#x}, {SCRATCH}",
                    f"orq\t%r15, {SCRATCH}",
                    f"movq\t{SCRATCH}, %rsp")


def section_change(directive, args):
    """Whether the section a directive switches to is executable (None: no switch)."""
    if directive == ".text":
        return True
    if directive in (".data", ".bss"):
        return False
    if directive in (".section", ".pushsection"):
        parts = split_operands(args)
        name = parts[0].strip('"') if parts else ""
        if len(parts) > 1 and parts[1].startswith('"'):
            return "x" in parts[1].strip('"')
        return name == ".text" or name.startswith(".text.")
    return None


def rewrite(path, text):
    """(sandboxed assembly, [error lines]) for the assembly text of path."""
    rewriter = Rewriter(path, text.splitlines())
    out = rewriter.run()
    return "\n".join(out) + "\n", rewriter.errors


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("input", help="gcc -S output (AT&T syntax)")
    ap.add_argument("-o", "--output", required=True, help="the sandboxed assembly")
    args = ap.parse_args()
    with open(args.input, encoding="utf-8") as f:
        text = f.read()
    out, errors = rewrite(args.input, text)
    for line in errors:
        print(line, file=sys.stderr)
    if errors:
        return 1
    tmp = args.output + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(out)
    os.replace(tmp, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
