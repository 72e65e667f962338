# SPDX-License-Identifier: BSD-2-Clause
"""The syscall and proc providers, the process built-ins, copyin and
copyinstr, and `scion trace -p`, on user processes.

userland/sys_count.c makes a known sequence of system calls (its opening
comment lists them): 5 getpid, 3 write, a read of fd 999 (EBADF), an
openat of "/hello" from its stack, an openat of a never-touched page, an
io_setup (which Scion does not implement), a fork whose child execs
/hello, and exit_group(3). One boot with the program archive and the
control channel (one CPU):

  - `scion trace -p PID` on a background `run sys_count 15000 &` counts
    `syscall:::entry /pid == $target/` by execname and probefunc: exactly
    5 getpid, 3 write, 1 read, 2 openat, 1 io_setup, 1 fork, 1 wait4, 1
    exit_group; and the trace ends by itself when the process exits;
  - one session over `run sys_count`: read's return gives errno 9 (and
    arg0 -9); copyinstr of openat's path gives "/hello"; copyinstr of the
    untouched page is D's invalid address error, not a kernel fault;
    io_setup's entry fires (arg0 7) and its return has errno 38 (ENOSYS);
    proc:::create gives the child's pid in the parent (and the kernel's
    spawn in pid 0), proc:::exec the path in the child, exec-failure
    ENOENT (2) for a missing program, exec-success the new name, proc:::exit reason and code for both (1 0 for hello, 1 3
    for sys_count), signal-send SIGCHLD to the parent; pid, ppid, uid,
    tid and curpsinfo agree;
  - `scion trace -l` lists syscall::NAME:entry and :return for every
    name of the generated table (build/gen/linux_syscalls.c), io_setup
    among them, and the six proc probes;
  - with nothing enabled afterwards, `text verify` shows every site
    restored.

And on the host alone (job target_compile): -p's program for -n and for
-s (through cpp too) gets the proc:::exit clause after the user's own,
$target is the pid given, a compile error names the script and its line
(not the copy the clause was added to), and without -p $target is
refused."""

import os
import re
import subprocess
import sys
import tempfile

from common import poweroff
from test_channel import channel_boot, scion

PROMPT = r"\nscion> "
COUNT = ('syscall:::entry /pid == $target/ { @[execname, probefunc] = count(); }')
# What sys_count makes after musl's start-up (its opening comment), by name.
EXACT = {"getpid": 5, "write": 3, "read": 1, "openat": 2, "io_setup": 1, "fork": 1,
         "wait4": 1, "exit_group": 1}

SESSION = r'''
syscall::read:return /execname == "sys_count"/
{ printf("read returned %d errno %d\n", (int)arg0, errno); }
syscall::getpid:return /execname == "sys_count"/
{ @ok["getpid errno 0"] = sum(errno == 0 && arg0 == pid); }
syscall::openat:entry /execname == "sys_count" && arg2 == 0/
{ printf("openat path %s\n", copyinstr(arg1)); }
syscall::openat:entry /execname == "sys_count" && arg2 != 0/
{ printf("untouched %s\n", copyinstr(arg1)); }
syscall::io_setup:entry /execname == "sys_count"/
{ printf("io_setup entry arg0 %d\n", arg0); }
syscall::io_setup:return /execname == "sys_count"/
{ printf("io_setup return %d errno %d\n", (int)arg0, errno); }
proc:::create
{ printf("create child %d by pid %d\n", arg0, pid); }
proc:::exec
{ printf("exec %s by %s pid %d\n", stringof(arg0), execname, pid); }
proc:::exec-failure
{ printf("exec-failure %d by %s pid %d\n", arg0, execname, pid); }
proc:::exec-success
{ printf("exec-success %s pid %d ppid %d psargs %s\n", execname, pid, ppid,
         curpsinfo->pr_psargs); }
proc:::exit /execname == "sys_count" || execname == "hello"/
{ printf("exit %s pid %d reason %d code %d uid %d same %d\n", execname, pid, arg0, arg1, uid,
         pid == curpsinfo->pr_pid && ppid == curpsinfo->pr_ppid &&
         execname == curpsinfo->pr_fname && tid != 0); }
proc:::signal-send /arg1 == 17/
{ printf("signal-send %d to %d by %s\n", arg1, arg0, execname); }
'''


def background_pid(boot, command):
    """Start command in the background from the guest shell: its pid ("[PID] /PATH")."""
    start = boot.mark()
    boot.command(command, PROMPT, timeout=60)
    m = re.search(r"\[(\d+)\] /", boot.output[start:])
    return int(m.group(1)) if m else None


def counts(out):
    """printa's default lines of @[execname, probefunc]: {(execname, probefunc): count}."""
    return {(m[1], m[2]): int(m[3]) for m in re.finditer(r"^\s+(\S+)\s+(\S+)\s+(\d+)$", out, re.M)}


def linux_names(ctx):
    """Every name of Linux's table, as tools/gen_syscalls.py wrote it."""
    with open(os.path.join(ctx.build, "gen", "linux_syscalls.c")) as f:
        return set(re.findall(r'\] = "(\w+)",', f.read()))


def listed(out):
    """`scion trace -l` rows: {(provider, function, name)}."""
    rows = set()
    for line in out.splitlines()[1:]:
        parts = line.split()
        if len(parts) >= 4 and parts[0].isdigit():
            rows.add((parts[1], parts[-2], parts[-1]))
    return rows


def job_proc_trace(ctx):
    boot, sock = channel_boot(ctx, "proc-trace", programs=True, smp=1, single_thread_tcg=True)
    try:
        names = linux_names(ctx)
        rc, out, err = scion(ctx, sock, "trace", "-l", "-n", "syscall:::", timeout=120)
        rows = listed(out)
        want = {("syscall", n, k) for n in names for k in ("entry", "return")}
        ctx.result("syscall-probes-listed", rc == 0 and len(names) > 300 and rows == want and
                   ("syscall", "io_setup", "entry") in rows,
                   f"exit {rc}: {len(rows)} rows for {len(names)} names; missing "
                   f"{sorted(want - rows)[:10]}, extra {sorted(rows - want)[:10]}\n{err}")
        rc, out, err = scion(ctx, sock, "trace", "-l", "-n", "proc:::", timeout=120)
        kinds = {r[2] for r in listed(out) if r[0] == "proc"}
        ctx.result("proc-probes-listed", kinds == {"create", "exec", "exec-success",
                                                   "exec-failure", "exit", "signal-send"},
                   f"exit {rc}: {sorted(kinds)}\n{out[-1500:]}{err}")
        # -p: $target, exact counts, and the end at the process's exit.
        # 15 s of sleep first: time for `scion trace` to start, even on a loaded host.
        pid = background_pid(boot, "run sys_count 15000 &")
        ctx.result("background-pid", pid is not None, boot.output[-400:])
        rc, out, err = scion(ctx, sock, "trace", "-q", "-p", str(pid), "-n", COUNT, timeout=120)
        got = counts(out)
        mine = {f: n for (e, f), n in got.items() if e == "sys_count"}
        wrong = {f: (mine.get(f), n) for f, n in EXACT.items() if mine.get(f) != n}
        ctx.result("p-exact-counts", rc == 0 and not wrong and
                   all(e == "sys_count" for e, _ in got),
                   f"exit {rc}; (got, want) where they differ: {wrong}\n{out}{err}")
        ctx.result("p-ends-at-exit", rc == 0 and ("sys_count", "exit_group") in got,
                   f"exit {rc}\n{out}{err}")
        rc, out, err = scion(ctx, sock, "trace", "-q", "-p", "99999", "-n", COUNT)
        ctx.result("p-no-such-process", rc != 0 and "no such process" in err, f"exit {rc}: {err}")

        # One session over a foreground run: errno, copyinstr, ENOSYS, the proc probes.
        rc, out, err = scion(ctx, sock, "trace", "-q", "-n", SESSION, "--run", "run sys_count",
                             timeout=180)
        text = out + err
        ctx.result("errno-ebadf", "read returned -9 errno 9" in out, text)
        ctx.result("getpid-errno-0", re.search(r"getpid errno 0\s+5$", out, re.M), text)
        ctx.result("copyinstr-path", "openat path /hello" in out, text)
        ctx.result("copyinstr-untouched-page-faults-in-d",
                   "untouched" not in out and re.search(r"invalid address \(0x[0-9a-f]+\)", err),
                   text)
        ctx.result("enosys-traced", "io_setup entry arg0 7" in out and
                   "io_setup return -38 errno 38" in out, text)
        spawn = re.search(r"create child (\d+) by pid 0$", out, re.M)
        fork = re.search(r"create child (\d+) by pid (\d+)$", out.replace(
            spawn.group(0) if spawn else "\0", ""), re.M)
        ctx.result("create-spawn-and-fork", spawn and fork and fork.group(2) == spawn.group(1),
                   text)
        parent = spawn.group(1) if spawn else "?"
        child = fork.group(1) if fork else "?"
        ctx.result("exec", f"exec /hello by sys_count pid {child}" in out, text)
        ctx.result("exec-failure", f"exec-failure 2 by sys_count pid {child}" in out, text)
        ctx.result("exec-success", f"exec-success hello pid {child} ppid {parent} "
                   "psargs hello from-sys-count" in out, text)
        ctx.result("exit-child", f"exit hello pid {child} reason 1 code 0 uid 0 same 1" in out,
                   text)
        ctx.result("exit-parent", f"exit sys_count pid {parent} reason 1 code 3 uid 0 same 1"
                   in out, text)
        ctx.result("signal-send-sigchld", f"signal-send 17 to {parent} by hello" in out, text)
        ctx.result("no-kernel-fault", "panic" not in boot.output and
                   "killed by" not in boot.output, boot.output[-2000:])
        rc, out, err = scion(ctx, sock, "text", "verify")
        ctx.result("text-restored", rc == 0, out + err)
    finally:
        poweroff(ctx, boot)


def job_target_compile(ctx):
    sys.path.insert(0, os.path.join(ctx.root, "host"))
    from scionhost import commands, trace

    def compile_with(argv, target):
        args = commands.build_parser().parse_args(["trace", *argv])
        return trace.compile_program(args, target=target)

    meta = compile_with(["-n", "BEGIN { trace($target); }"], 4321)
    probes = [c["probes"] for c in meta["clauses"]]
    ctx.result("n-target-clause", probes == [["BEGIN"], ["proc:::exit"]], f"{probes}")
    # The object holds the pid: the constant 4321 as the trace() value (an LDI or a table entry).
    ctx.result("n-target-value", (4321).to_bytes(2, "little").hex() in meta["object_hex"],
               meta["object_hex"][:400])
    with tempfile.TemporaryDirectory() as d:
        script = os.path.join(d, "t.d")
        with open(script, "w") as f:
            f.write("#define WHO $target\nsyscall:::entry /pid == WHO/ { @[probefunc] = count(); }")
        meta = compile_with(["-C", "-s", script], 99)
        probes = [c["probes"] for c in meta["clauses"]]
        ctx.result("s-target-clause", probes == [["syscall:::entry"], ["proc:::exit"]],
                   f"{probes}")
        with open(script, "w") as f:
            f.write("BEGIN\n{\n\ttrace(nosuch);\n}\n")
        r = subprocess.run([sys.executable, os.path.join(ctx.root, "host", "scion"), "trace",
                            "-p", "5", "-s", script], capture_output=True, text=True)
        ctx.result("s-errors-name-the-script", r.returncode == 1 and
                   f"failed to compile script {script}: line 3:" in r.stderr, r.stderr)
    dtc = os.path.join(ctx.build, "host", "dtc")
    r = subprocess.run([dtc, "-n", "BEGIN { trace($target); }"], capture_output=True, text=True)
    ctx.result("no-p-refused", r.returncode == 1 and "give the process with -p PID" in r.stderr,
               r.stderr)
