# SPDX-License-Identifier: BSD-2-Clause
"""`scion exec` (the EXEC and EXEC_RESUME ops, kernel/proc/exec_op.c and
chanout.c; host/scionhost/execute.py) against a booted Scion whose
archive holds a few programs and one executable that is not an ELF.

job_exec: a program's output arrives on the host's stdout in order,
its children's too; the exit status is the program's (3 for
`hello --exit=3`), 128 + 11 with a one-line report for jump_kernel,
which SIGSEGV kills after its first line (which still arrives); a
missing program, a file that is not an ELF, too many arguments and
malformed requests (an argv frame short of a NUL, bytes after the last
string, no request header, unknown flags) each give one line and a
failing status, and the kernel goes on serving; --detach prints the pid
at once, and the guest's `ps` then lists the program running (an
endless loop, killed from the shell and gone) or, for one that ends,
no longer lists it.

job_exec_suspended: a process made suspended is listed as stopped and
writes nothing until EXEC_RESUME starts it, then runs to its end with
its output and status as usual; resuming it again, a process that runs
already or no process at all is refused in one line; closing the stream
of a suspended process kills it (it never ran). In the same boot,
`scion trace -c CMD` (host/scionhost/trace.py) traces a program from its
first instruction: the probe on the function that starts a process's
thread fires exactly once, the program's writes are counted, its output
is printed, and the trace ends by itself when the program does; a trace
that ends first (exit() in D) kills the program it started."""

import os
import re
import time

from common import poweroff
from test_channel import channel_boot, scion
from scionhost import client, execute, frame, trace

PROGRAMS = ["hello", "jump_kernel", "spin", "procs", "args"]
NOT_ELF = b"#!/bin/sh\necho this is a shell script, not an ELF\n"


def newc_entry(name, mode, data, ino):
    """One cpio newc entry (header, name, data, each padded to 4 bytes)."""
    namez = name.encode() + b"\0"
    fields = [ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(namez), 0]
    head = b"070701" + "".join(f"{v:08x}" for v in fields).encode() + namez
    head += b"\0" * (-len(head) % 4)
    return head + data + b"\0" * (-len(data) % 4)


def make_archive(ctx):
    """PROGRAMS from build/userland, the script `notelf` (0755) and etc/motd, as one .cpio."""
    entries = []
    for ino, name in enumerate(PROGRAMS, 1):
        with open(os.path.join(ctx.userland, name), "rb") as f:
            entries.append(newc_entry(name, 0o100755, f.read(), ino))
    entries.append(newc_entry("notelf", 0o100755, NOT_ELF, len(PROGRAMS) + 1))
    # What procs execs to see EACCES: a directory and a file without x bits.
    entries.append(newc_entry("etc", 0o040755, b"", len(PROGRAMS) + 2))
    with open(os.path.join(ctx.root, "userland", "root", "etc", "motd"), "rb") as f:
        entries.append(newc_entry("etc/motd", 0o100644, f.read(), len(PROGRAMS) + 3))
    entries.append(newc_entry("TRAILER!!!", 0, b"", 0))
    path = os.path.join(ctx.log_dir, f"{ctx.job}.cpio")
    os.makedirs(ctx.log_dir, exist_ok=True)
    with open(path, "wb") as f:
        f.write(b"".join(entries))
    return path


def one_line(err):
    lines = [ln for ln in err.splitlines() if ln.strip()]
    return lines[0] if len(lines) == 1 else None


def ps_rows(ctx, sock):
    """The guest's `ps` as {pid: (state, name)} (people's text, only to check it here)."""
    rc, out, err = scion(ctx, sock, "shell", "ps")
    return {int(m.group(1)): (m.group(2), m.group(3)) for m in
            re.finditer(r"^ *(\d+) +\d+ +(\w+) +\d+ +\d+ +\d+ (\S+)$", out, re.M)}


def job_exec(ctx):
    boot, sock = channel_boot(ctx, "exec", smp=2, programs=make_archive(ctx))
    try:
        rc, out, err = scion(ctx, sock, "exec", "hello", "one", "two words")
        ctx.result("output-in-order", rc == 0 and out == "hello from user space (argv[0] = hello)\n"
                   "hello: argv[1] = one\nhello: argv[2] = two words\n" and err == "",
                   f"exit {rc}: {out!r} {err!r}")
        rc, out, err = scion(ctx, sock, "exec", "hello", "--exit=3")
        ctx.result("exit-status-3", rc == 3 and "argv[1] = --exit=3" in out, f"exit {rc}: {out!r}")
        rc, out, err = scion(ctx, sock, "exec", "jump_kernel")
        ctx.result("killed-by-sigsegv", rc == 128 + 11 and
                   out.startswith("jump_kernel: calling 0xffffffff80100000") and
                   re.fullmatch(r"scion: exec: jump_kernel: pid \d+ killed by SIGSEGV "
                                r"\(signal 11\)\n", err),
                   f"exit {rc}: {out!r} {err!r}")
        rc, out, err = scion(ctx, sock, "exec", "/procs")
        ctx.result("children-output", rc == 0 and re.search(r"^procs: \d+ passed, 0 failed$",
                                                            out, re.M), f"exit {rc}: {out[-600:]!r}")

        for name, argv, want in (
                ("missing-program", ["nosuch"], r"scion: exec: /nosuch: no such program in the "
                 r"boot archive"),
                ("not-an-elf", ["notelf"], r"scion: exec: /notelf: not an ELF executable"),
                ("too-many-args", ["hello"] + [str(i) for i in range(40)],
                 r"scion: exec: 41 arguments: give 1 to 32")):
            rc, out, err = scion(ctx, sock, "exec", *argv)
            line = one_line(err)
            ctx.result(name, rc == 1 and out == "" and line and re.match(want, line),
                       f"exit {rc}: {out!r} {err!r}")

        req = execute.REQUEST
        with client.Client(sock, timeout=60) as c:
            for name, body, want in (
                    ("frame-no-nul", req.pack(argc=2) + b"hello\0one", r"exec: bad argv frame: "
                     r"argument 2 of 2 has no NUL"),
                    ("frame-trailing-bytes", req.pack(argc=1) + b"hello\0junk",
                     r"exec: bad argv frame: 4 bytes after the 1 arguments"),
                    ("frame-empty-name", req.pack(argc=1) + b"\0", r"exec: give a program name"),
                    ("frame-short", b"\1\0", r"exec: give a struct chan_exec_request"),
                    ("frame-zero-args", req.pack(argc=0), r"exec: 0 arguments: give 1 to 32"),
                    ("frame-bad-flags", req.pack(argc=1, flags=0x100) + b"hello\0",
                     r"exec: flags 0x100:")):
                status, text = c.request(frame.OP_EXEC, body)
                text = text.decode("utf-8", "replace")
                ctx.result(name, status < 0 and re.match(want, text) and "\n" not in text.strip(),
                           f"status {status}: {text!r}")
        rc, out, err = scion(ctx, sock, "exec", "hello", "still", "serving")
        ctx.result("serving-after-bad-input", rc == 0 and "argv[2] = serving" in out,
                   f"exit {rc}: {out!r} {err!r}")

        rc, out, err = scion(ctx, sock, "exec", "--detach", "spin")
        ctx.result("detach-prints-pid", rc == 0 and re.fullmatch(r"\d+\n", out), f"exit {rc}: {out!r}")
        if rc == 0 and re.fullmatch(r"\d+\n", out):
            pid = int(out)
            ctx.result("detached-listed", ps_rows(ctx, sock).get(pid) == ("alive", "spin"),
                       f"ps: {ps_rows(ctx, sock)}")
            scion(ctx, sock, "shell", "kill", str(pid), "9")
            gone = any(pid not in ps_rows(ctx, sock) for _ in range(20) if not time.sleep(0.2))
            ctx.result("detached-killed-gone", gone, f"ps: {ps_rows(ctx, sock)}")
        rc, out, err = scion(ctx, sock, "exec", "--detach", "hello", "--exit=5")
        if rc == 0 and out.strip().isdigit():
            pid = int(out)
            ended = any(pid not in ps_rows(ctx, sock) for _ in range(20) if not time.sleep(0.2))
            ctx.result("detached-ends", ended, f"ps: {ps_rows(ctx, sock)}")
        else:
            ctx.result("detached-ends", False, f"exit {rc}: {out!r} {err!r}")
        ctx.result("no-process-left", ps_rows(ctx, sock) == {}, f"ps: {ps_rows(ctx, sock)}")
    finally:
        poweroff(ctx, boot)


def job_exec_suspended(ctx):
    boot, sock = channel_boot(ctx, "suspended", smp=1, single_thread_tcg=True,
                              programs=make_archive(ctx))
    try:
        out = []
        with client.Client(sock, timeout=60) as c:
            ex = execute.Execution(c, ["hello", "resumed"], suspended=True,
                                   on_output=lambda fd, data: out.append((fd, data)))
            rows = ps_rows_channel(c)
            ctx.result("listed-stopped", rows.get(ex.pid) == ("stopped", "hello"), f"ps: {rows}")
            c.pump(1.0)
            ctx.result("silent-while-suspended", out == [] and ex.status is None,
                       f"output {out!r}, status {ex.status}")
            ex.resume()
            deadline = time.monotonic() + 60
            while not ex.poll() and time.monotonic() < deadline:
                pass
            st = ex.finish() if ex.status else None
            text = b"".join(d for fd, d in out).decode()
            ctx.result("runs-after-resume", st and st["how"] == execute.EXITED and
                       st["code"] == 0 and text.endswith("hello: argv[1] = resumed\n") and
                       all(fd == 1 for fd, _ in out), f"status {st}, output {out!r}")

            for name, pid, want in (("resume-twice", ex.pid, r"no such process"),
                                    ("resume-none", 99999, r"no such process")):
                status, body = c.request(frame.OP_EXEC_RESUME, execute.RESUME.pack(pid=pid))
                ctx.result(name, status < 0 and re.search(want, body.decode()),
                           f"status {status}: {body!r}")
            spin = execute.Execution(c, ["spin"], detach=True)
            status, body = c.request(frame.OP_EXEC_RESUME, execute.RESUME.pack(pid=spin.pid))
            ctx.result("resume-running", status < 0 and
                       b"not suspended (it runs already)" in body, f"status {status}: {body!r}")
            # The SIGNAL op: 0 asks whether a process lives; a bad signal or pid is refused.
            alive = trace.target_alive(c, spin.pid)
            status, body = c.request(frame.OP_SIGNAL, execute.SIGNAL.pack(pid=spin.pid, sig=99))
            ctx.result("signal-bad-number", alive and status < 0 and b"not a signal" in body,
                       f"alive {alive}, status {status}: {body!r}")
            status, body = c.request(frame.OP_SIGNAL, b"\0" * 3)
            ctx.result("signal-bad-length", status < 0 and b"struct chan_signal_request" in body,
                       f"status {status}: {body!r}")
            status, body = c.request(frame.OP_SIGNAL, execute.SIGNAL.pack(pid=spin.pid, sig=9))
            gone = status == 0
            for _ in range(25):
                if not trace.target_alive(c, spin.pid):
                    break
                time.sleep(0.2)
            else:
                gone = False
            ctx.result("signal-kills", gone and not trace.target_alive(c, 99999),
                       f"SIGKILL status {status}; spin still alive after 5 s: {not gone}")

            never = execute.Execution(c, ["hello", "never"], suspended=True,
                                      on_output=lambda fd, data: out.append((fd, data)))
            out.clear()
            c.stream_close(never.stream)
            gone = False
            for _ in range(25):
                rows = ps_rows_channel(c)
                if never.pid not in rows and spin.pid not in rows:
                    gone = True
                    break
                time.sleep(0.2)
            ctx.result("closed-while-suspended-killed", gone and out == [],
                       f"ps: {rows}, output {out!r}")
        trace_command(ctx, sock)
    finally:
        poweroff(ctx, boot)


RWINFO = r'''
struct callinfo {
	uint64_t ts;		/* timestamp of last syscall entry */
	uint64_t elapsed;	/* total elapsed time in nanoseconds */
	uint64_t calls;		/* number of calls made */
	size_t maxbytes;	/* maximum byte count argument */
};
struct callinfo i[string];

syscall::writev:entry
/pid == $target/
{
	i[probefunc].ts = timestamp;
	i[probefunc].calls++;
	i[probefunc].maxbytes = arg2 > i[probefunc].maxbytes ? arg2 : i[probefunc].maxbytes;
	@fbt = count();
}

syscall::writev:return
/i[probefunc].ts != 0 && pid == $target/
{
	i[probefunc].elapsed += timestamp - i[probefunc].ts;
}

END
{
	printf("writev %d %d %d ", i["writev"].calls, i["writev"].maxbytes,
	    i["writev"].elapsed > 0);
	printa("%@d\n", @fbt);
}
'''


def trace_command(ctx, sock):
    env = {"SCION_KSYMS": ctx.ksyms}
    program = ("fbt::user_thread_main:entry { @starts = count(); } "
               "fbt::sys_writev:entry { @writes = count(); } "
               "END { printa(\"starts %@d\\n\", @starts); printa(\"writev %@d\\n\", @writes); }")
    rc, out, err = scion(ctx, sock, "trace", "-q", "-n", program, "-c", "hello 'two words'",
                         env=env, timeout=120)
    ctx.result("trace-c", rc == 0 and "hello: argv[1] = two words\n" in out and
               re.search(r"^starts 1$", out, re.M) and re.search(r"^writev [1-9]\d*$", out, re.M),
               f"exit {rc}: {out!r} {err!r}")
    # The DTrace guide's rwinfo example, structs as associative-array values, on writev.
    rc, out, err = scion(ctx, sock, "trace", "-q", "-n", RWINFO, "-c", "hello 'two words'",
                         env=env, timeout=120)
    m = re.search(r"^writev (\d+) (\d+) (\d+) (\d+)$", out, re.M)
    ctx.result("trace-c-struct-values", rc == 0 and m is not None and
               int(m.group(1)) == int(m.group(4)) > 0 and int(m.group(2)) >= 1 and
               m.group(3) == "1", f"exit {rc}: {out!r} {err!r}")
    rc, out, err = scion(ctx, sock, "trace", "-q", "-n",
                         "profile:::tick-1s { printf(\"stop\\n\"); exit(0); }", "-c", "spin",
                         env=env, timeout=120)
    rows = ps_rows(ctx, sock)
    ctx.result("trace-c-kills-at-end", rc == 0 and "stop" in out and
               "spin" not in [n for _, n in rows.values()], f"exit {rc}: {out!r} {err!r}; ps {rows}")
    rc, out, err = scion(ctx, sock, "trace", "-n", "BEGIN {}", "-c", "nosuch", env=env)
    ctx.result("trace-c-missing", rc == 1 and one_line(err) and "/nosuch: no such program" in err,
               f"exit {rc}: {err!r}")


def ps_rows_channel(c):
    """`ps` through a session already open (people's text, only to check it here)."""
    status, body = c.request(frame.OP_SHELL, b"ps")
    return {int(m.group(1)): (m.group(2), m.group(3)) for m in
            re.finditer(r"^ *(\d+) +\d+ +(\w+) +\d+ +\d+ +\d+ (\S+)$", body.decode(), re.M)}
