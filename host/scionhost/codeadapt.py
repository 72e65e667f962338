# SPDX-License-Identifier: BSD-2-Clause
"""`scion codeadapt`: versions of kernel functions installed by entry
splices (KernInst's code adaptations; kernel/codeadapt/).

    scion codeadapt specialize FUNC ARG [--value K | --run CMD | --duration S] [--pid P]
    scion codeadapt version FUNC FILE.c --entry NAME [--pid P]
    scion codeadapt outline FUNC [--ms N] [--cold C]
    scion codeadapt list [--json]
    scion codeadapt remove ID|all

`specialize` takes the value of FUNC's argument ARG (0-based) to build
for: --value, or the most frequent value of a histogram the D program
`fbt::FUNC:entry { @[argARG] = count(); }` gathers while --run's guest
command runs (or for --duration seconds). It compiles FUNC's clone with
that value constant from the kernel's own source (clone.py), sends it
with CODEADAPT_LOAD, and the kernel splices "argARG == K -> the clone"
at FUNC's entry. `version` compiles the user's own body of FUNC instead.
--pid limits either to one process's calls. `outline` has the kernel
count FUNC's blocks for --ms while it runs and install a copy with the
blocks that ran at most --cold times out of line
(kernel/codeadapt/outline.c). The kernel's lines are for people; what
this prints comes from its structured replies.
"""

import json
import os

from . import clone, frame, replies
from .client import ScionError
from .layouts import C, layout

LOAD = layout("chan_codeadapt_load_request")
OUTLINE = layout("chan_codeadapt_outline_request")
REMOVE = layout("chan_codeadapt_remove_request")
KINDS = {C.CODEADAPT_OUTLINE: "outline", C.CODEADAPT_SPECIALIZE: "specialize",
         C.CODEADAPT_VERSION: "version"}
STATES = {C.CODEADAPT_INSTALLED: "installed", C.CODEADAPT_DRAINING: "draining"}


def _text(raw):
    return raw.split(b"\0", 1)[0].decode("utf-8", "replace")


def adaptations(client):
    """Every adaptation: dicts with the kernel's fields, kind and state as names."""
    out = []
    for r in replies.request_list(client, frame.OP_CODEADAPT_LIST, "chan_codeadapt_info"):
        out.append({"id": r["id"], "kind": KINDS.get(r["kind"], str(r["kind"])),
                    "state": STATES.get(r["state"], str(r["state"])),
                    "function": _text(r["function"]), "function_addr": r["function_addr"],
                    "arg": r["arg"], "arg_bytes": r["arg_bytes"], "value": r["value"],
                    "tid": r["tid"], "pid": r["pid"], "version": r["version"],
                    "version_size": r["version_size"], "taken": r["taken"],
                    "source": _text(r["source"])})
    return out


def load(client, image, function, kind, arg=-1, arg_bytes=8, value=0, pid=0):
    """Install image (a version's object) for function; the adaptation's id."""
    body = LOAD.pack(kind=kind, arg=arg, value=value & (2**64 - 1), pid=pid,
                     arg_bytes=arg_bytes, function=function.encode()) + image
    status, reply = client.request(frame.OP_CODEADAPT_LOAD, body)
    line = reply.decode("utf-8", "replace").strip()
    if status < 0:
        raise ScionError(line or f"codeadapt: {frame.errno_name(status)}")
    return status


def remove(client, ident):
    status, reply = client.request(frame.OP_CODEADAPT_REMOVE, REMOVE.pack(id=ident))
    if status < 0:
        raise ScionError(reply.decode("utf-8", "replace").strip() or
                         f"codeadapt remove: {frame.errno_name(status)}")


def histogram(client, elf, function, arg, args):
    """{value: count} of FUNC's argument arg while the workload runs."""
    from .coverage import run_workload
    from .sweep import dcollect
    program = f"fbt:kernel:{function}:entry {{ @h[arg{arg}] = count(); }}"
    meta = dcollect.compile_program(program, elf)
    session = dcollect.Session(client, meta)
    try:
        run_workload(client, args)
    finally:
        figures = session.stop()
    counts = {}
    for key, n in figures.items():
        if key.startswith("d.@h[") and key.endswith("]"):
            counts[int(key[5:-1])] = int(n)
    return counts


def kernel_elf(args):
    from .coverage import default_kernel_elf
    elf = args.kernel or default_kernel_elf()
    if not os.path.exists(elf):
        raise ScionError(f"codeadapt: no kernel ELF at {elf} (give --kernel)")
    return elf


def cmd_specialize(args):
    from .commands import session
    elf = kernel_elf(args)
    desc = clone.describe(elf, args.function)
    if not 0 <= args.arg < len(desc["params"]):
        raise ScionError(f"codeadapt: {args.function} has {len(desc['params'])} arguments; "
                         f"there is no argument {args.arg}")
    width = desc["params"][args.arg][1]
    if width not in (4, 8):
        raise ScionError(f"codeadapt: argument {args.arg} of {args.function} is {width} "
                         f"bytes; the guard compares 4 or 8")
    with session(args) as client:
        share, counts = None, None
        value = args.value
        if value is None:
            if not args.run and not args.duration:
                raise ScionError("codeadapt: give --value K, or --run CMD / --duration S "
                                 "to find the frequent value")
            counts = histogram(client, elf, args.function, args.arg, args)
            if not counts:
                raise ScionError(f"codeadapt: {args.function} was not called while the "
                                 f"workload ran")
            value = max(counts, key=lambda v: (counts[v], -abs(v)))
            share = counts[value] / sum(counts.values())
            if share < args.min_share:
                raise ScionError(f"codeadapt: the most frequent value of argument {args.arg}, "
                                 f"{value}, is only {100 * share:.1f} % of the calls")
        value &= (1 << (8 * width)) - 1
        source = clone.clone_source(desc, args.function, args.arg, value)
        name = f"spec-{args.function}"[:31].lower().replace("_", "-")
        image = clone.build(elf, source, name, args.function, keep=args.keep)
        ident = load(client, image, args.function, C.CODEADAPT_SPECIALIZE, args.arg, width,
                     value, args.pid)
    result = {"id": ident, "function": args.function, "arg": args.arg, "value": value,
              "share": share, "histogram": counts, "object_bytes": len(image)}
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        seen = f" ({100 * share:.1f} % of {sum(counts.values())} calls)" if counts else ""
        print(f"codeadapt: {ident}: {args.function} specialized on argument {args.arg} == "
              f"{value}{seen}")
    return 0


def cmd_version(args):
    from .commands import session
    elf = kernel_elf(args)
    if not os.path.exists(args.file):
        raise ScionError(f"codeadapt: no file {args.file}")
    name = f"ver-{args.function}"[:31].lower().replace("_", "-")
    entry = clone.version_entry(args.entry)
    image = clone.build(elf, clone.version_source(args.file, entry), name, args.function,
                        keep=args.keep, entry=entry)
    with session(args) as client:
        ident = load(client, image, args.function, C.CODEADAPT_VERSION, pid=args.pid)
    print(json.dumps({"id": ident}) if args.json else
          f"codeadapt: {ident}: {args.function} -> {args.entry} from {args.file}")
    return 0


def outline(client, function, ms, cold=0):
    """Count, outline and install FUNC: {id, hot, cold, bytes}."""
    return replies.request_struct(client, frame.OP_CODEADAPT_OUTLINE,
                                  "chan_codeadapt_outline_reply",
                                  OUTLINE.pack(ms=ms, cold=cold, function=function.encode()))


def cmd_outline(args):
    from .commands import session
    if not 1 <= args.ms <= C.OUTLINE_MAX_MS:
        raise ScionError(f"codeadapt: count for 1 to {C.OUTLINE_MAX_MS} ms, not {args.ms}")
    with session(args) as client:
        r = outline(client, args.function, args.ms, args.cold)
    if args.json:
        print(json.dumps(r, indent=2))
    else:
        print(f"codeadapt: {r['id']}: {args.function} outlined: {r['hot']} hot blocks, "
              f"{r['cold']} cold out of line, {r['bytes']} bytes")
    return 0


def cmd_list(args):
    from .commands import session
    with session(args) as client:
        rows = adaptations(client)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    for a in rows:
        guard = []
        if a["arg"] >= 0:
            guard.append(f"arg{a['arg']} == {a['value']}")
        if a["pid"]:
            guard.append(f"pid {a['pid']}")
        elif a["tid"]:
            guard.append(f"thread {a['tid']}")
        print(f"{a['id']:4} {a['kind']:10} {a['function']:24} if "
              f"{' && '.join(guard) or 'always':22} {a['source']} ({a['version_size']} bytes) "
              f"taken {a['taken']} {a['state']}")
    print(f"codeadapt: {len(rows)} adaptation{'' if len(rows) == 1 else 's'}")
    return 0


def cmd_remove(args):
    from .commands import session
    ident = 0 if args.id == "all" else int(args.id, 0)
    if ident <= 0 and args.id != "all":
        raise ScionError(f"codeadapt: '{args.id}' is not an adaptation id")
    with session(args) as client:
        remove(client, ident)
    print(f"codeadapt: {args.id} removed")
    return 0


def add_codeadapt(sub, subcommand):
    p = subcommand(sub, "codeadapt", "versions of kernel functions installed by entry "
                   "splices: specialize, version, list, remove")
    cmds = p.add_subparsers(dest="codeadapt_command", required=True, metavar="COMMAND")
    s = subcommand(cmds, "specialize", "compile FUNC's clone for the frequent value of an "
                   "argument and install it behind 'arg == K'", cmd_specialize, json_flag=True)
    s.add_argument("function", metavar="FUNC")
    s.add_argument("arg", type=int, metavar="ARG", help="the argument, from 0")
    how = s.add_mutually_exclusive_group()
    how.add_argument("--value", type=lambda v: int(v, 0), metavar="K")
    how.add_argument("--run", metavar="CMD", help="a guest shell command to histogram over")
    how.add_argument("--duration", type=float, default=0.0, metavar="S")
    s.add_argument("--run-timeout", type=float, default=600.0, metavar="S")
    s.add_argument("--min-share", type=float, default=0.0, metavar="F",
                   help="refuse when the frequent value has a smaller share of calls")
    v = subcommand(cmds, "version", "compile FILE.c's function NAME as FUNC's version",
                   cmd_version, json_flag=True)
    v.add_argument("function", metavar="FUNC")
    v.add_argument("file", metavar="FILE.c")
    v.add_argument("--entry", required=True, metavar="NAME")
    for q in (s, v):
        q.add_argument("--pid", type=int, default=0, metavar="P",
                       help="only this process's calls")
        q.add_argument("--kernel", metavar="ELF", help="the booted kernel's ELF")
        q.add_argument("--keep", metavar="DIR", help="keep the generated source and objects")
    o = subcommand(cmds, "outline", "count FUNC's blocks while the kernel runs and install a "
                   "copy with the cold ones out of line", cmd_outline, json_flag=True)
    o.add_argument("function", metavar="FUNC")
    o.add_argument("--ms", type=int, default=1000, metavar="N",
                   help="milliseconds to count (default 1000)")
    o.add_argument("--cold", type=int, default=0, metavar="C",
                   help="a block that ran at most C times is cold (default 0)")
    subcommand(cmds, "list", "every adaptation, with its guard and calls taken", cmd_list,
               json_flag=True)
    r = subcommand(cmds, "remove", "take adaptations out (the text is restored)", cmd_remove)
    r.add_argument("id", metavar="ID|all")
