# SPDX-License-Identifier: BSD-2-Clause
"""The structural analysis from the shell: `analysis` covers every
function, `cfg` shows a function's blocks, `insn` decodes one instruction
with its free registers, and bad arguments get one-line errors."""


from common import poweroff, shell_boot


def job_shell_commands(ctx):
    boot = shell_boot(ctx, "analysis")
    try:
        m = boot.command("analysis", r"analysis: (\d+) functions, (\d+) analysed, (\d+) not")
        ctx.result("every-function-analysed", m.group(1) == m.group(2) and m.group(3) == "0",
                   m.group(0))
        boot.command("cfg cfg_fix_switch", r"7 blocks, \d+ instructions, 0 calls, 1 jump tables")
        ctx.result("cfg-jump-table", True)
        boot.command("cfg cfg_fix_loop", r"block 1 .*-> 2 1 .*live-in: .*rax.*rdi")
        ctx.result("cfg-loop-edges", True)
        # cfg_fix_call+0x9 is the add after the call: rcx is free there, rbx is not.
        m = boot.command("insn cfg_fix_call+0x9", r"free before: ([^\r\n]*)\r?\n")
        free = m.group(1).split()
        ctx.result("insn-free-registers", "rcx" in free and "rbx" not in free and "rax" not in free,
                   f"free before the add: {free}")
        boot.command("insn thread_create", r"reads: .*\n\s+writes:")
        ctx.result("insn-decodes", True)
        checks = [
            ("cfg-unknown", "cfg no_such_function", r"cfg: no function 'no_such_function'"),
            ("cfg-usage", "cfg", r"cfg: usage: cfg <function>"),
            ("insn-outside-text", "insn 0x1000", r"insn: 0x1000 is not in kernel text"),
            ("insn-bad-offset", "insn thread_create+zz", r"insn: 'thread_create\+zz' is not an"),
            ("insn-unknown", "insn nope+0x4", r"insn: 'nope\+0x4' is not a kernel function"),
            ("insn-mid-instruction", "insn cfg_fix_call+0x2",
             r"live registers: unknown \(not an instruction boundary"),
        ]
        for label, line, expect in checks:
            boot.command(line, expect)
            ctx.result(label, True)
    finally:
        poweroff(ctx, boot)
