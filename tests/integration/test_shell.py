# SPDX-License-Identifier: BSD-2-Clause
"""The console shell under bad input: random bytes, control characters,
over-long lines and wrong arguments give one-line errors and the shell
goes on."""

import random

from common import PROMPT, poweroff, shell_boot


def job_random_bytes(ctx):
    boot = shell_boot(ctx, "garbage")
    try:
        garbage = random.Random(20261122).randbytes(10 * 1024)
        boot.send(garbage)
        # Ctrl-C drops whatever partial line the garbage left behind.
        boot.command("\x03\nhelp", r"help \[command\]\s+list commands", timeout=120)
        ctx.result("help-after-10KB-of-garbage", True)
        boot.command("console", r"console input bytes dropped \(queue full\): \d+")
    finally:
        poweroff(ctx, boot)


def job_command_errors(ctx):
    boot = shell_boot(ctx, "errors")
    try:
        checks = [
            ("unknown-command", "frobnicate now", r"scion: unknown command 'frobnicate'; type 'help'"),
            ("extra-argument", "cpus please", r"cpus: takes no arguments"),
            ("missing-argument", "syms", r"syms: usage: syms <glob>"),
            ("no-match", "syms zzz_nothing*", r"0 functions match 'zzz_nothing\*'"),
            ("bad-address", "syms 0xzz", r"syms: '0xzz' is not an address"),
            ("too-many-words", " ".join(["w"] * 20), r"scion: too many words \(at most 16\)"),
            ("unterminated-quote", "syms 'kernel_main", r"scion: unterminated quote"),
            ("long-line", "x" * 400, r"scion: line longer than 255 characters discarded"),
            ("control-bytes-dropped", "up\x01\x02time\x7f\x7fme", r"up \d+\.\d+ s"),
            ("ctrl-c-cancels", "cpus\x03", r"\^C\n" + PROMPT),
            ("syms-glob", "syms thread_c*", r"thread_create\n"),
            ("syms-address", "syms 0xffffffff80100000", r"(is in no function|is \S+\+0x)"),
        ]
        for label, line, expect in checks:
            boot.command(line, expect)
            ctx.result(label, True)
        boot.command("uptime", r"up \d+")
        boot.command("\x1b[A", r"up \d+")   # arrow up recalls the last command
        ctx.result("history-recall", True)
    finally:
        poweroff(ctx, boot)
