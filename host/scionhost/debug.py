# SPDX-License-Identifier: BSD-2-Clause
"""`scion break` and `scion thread`: breakpoints that pause one thread
(KernInst's kernel debugging on Scion's probes; kernel/debug/pause.c).

`scion break FUNC[+OFF] [if PREDICATE]` runs, for as long as it runs, the
D program `PROBE /PREDICATE/ { pause(); }` (destructive, as with -w):
PROBE is fbt::FUNC:entry, or insn:kernel:FUNC:OFF for an instruction
inside. The thread that satisfies the predicate stops there, the rest
of the kernel runs on, and the kernel posts a channel event for it
(`scion events --follow` shows them); where it cannot sleep the hit is
counted and reported by `scion thread list`. `scion thread TID
regs|stack|continue` (TID `all` for continue) reads and resumes a paused
thread, and `scion thread TID step` lets it run one instruction and
pause again at the next (kernel/debug/step.c; it prints where, or the
one reason it cannot): the guest's `pause` command, whose text is for
people.
"""

import re
import sys

from .client import ScionError

FUNCTION = re.compile(r"^([A-Za-z_][A-Za-z0-9_.]*)(?:\+(0x[0-9a-fA-F]+|[0-9]+))?$")


def break_program(spec, predicate):
    """The D program of a breakpoint at spec (FUNC or FUNC+OFF) if predicate."""
    m = FUNCTION.match(spec)
    if not m:
        raise ScionError(f"break: '{spec}' is not FUNC or FUNC+OFF")
    func, off = m.group(1), m.group(2)
    probe = f"insn:kernel:{func}:{hex(int(off, 0))}" if off and int(off, 0) else \
        f"fbt::{func}:entry"
    pred = f" /{predicate}/" if predicate else ""
    return f"{probe}{pred} {{ pause(); }}"


def cmd_break(args):
    from . import commands
    words = args.condition
    if words and words[0] != "if":
        raise ScionError("break: give FUNC[+OFF] [if PREDICATE]")
    if words and len(words) == 1:
        raise ScionError("break: 'if' without a predicate")
    program = break_program(args.spec, " ".join(words[1:]))
    sys.stderr.write(f"scion: breakpoint: {program}\nscion: paused threads: `scion thread "
                     f"list`, `scion thread TID regs|stack|step|continue`; Ctrl-C removes the "
                     f"breakpoint\n")
    argv = ["--socket", args.socket, "--timeout", str(args.timeout), "--wait", str(args.wait),
            "trace", "-w", "-q", "-n", program]
    if args.duration is not None:
        argv += ["--duration", str(args.duration)]
    return commands.main(argv)


def cmd_thread(args):
    from . import commands
    if args.tid == "list":
        if args.action:
            raise ScionError("thread: `list` takes no action")
        return commands.shell(args, ["pause", "list"])
    if not args.action:
        raise ScionError("thread: give TID regs|stack|step|continue")
    if args.tid == "all" and args.action != "continue":
        raise ScionError("thread: only continue takes `all`")
    if args.tid != "all" and not args.tid.isdigit():
        raise ScionError(f"thread: '{args.tid}' is not a thread id")
    return commands.shell(args, ["pause", args.action, args.tid])


def add_debug(sub, subcommand):
    p = subcommand(sub, "break", "a breakpoint that pauses the thread hitting it: FUNC[+OFF] "
                   "[if PREDICATE] (D); runs until Ctrl-C or --duration", cmd_break)
    p.add_argument("spec", metavar="FUNC[+OFF]")
    p.add_argument("condition", nargs="*", metavar="if PREDICATE",
                   help="a D predicate, e.g. if arg0 == 2")
    p.add_argument("--duration", type=float, metavar="S", help="remove it after S seconds")
    p = subcommand(sub, "thread", "a thread paused by a breakpoint: TID "
                   "regs|stack|step|continue, all continue, or list", cmd_thread)
    p.add_argument("tid", metavar="TID", help="a thread id, `all` (continue) or `list`")
    p.add_argument("action", nargs="?", choices=["regs", "stack", "step", "continue"])
