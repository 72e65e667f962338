# SPDX-License-Identifier: BSD-2-Clause
"""The user programs on Linux: the same static musl binaries Scion runs
(build/userland/, make userland) run here, on the host, from the program
archive unpacked into a temporary folder (cpio -idm) that each takes as
argv[1]. Every test program must end with `NAME: N passed, 0 failed` and
exit 0 -- they state Linux's answers, which the kernel must then give;
the hostile ones must die of SIGSEGV (jump_kernel, exec_stack,
stack_overflow) or report EAGAIN and reap every child (fork_bomb, as an
unprivileged user with `ulimit -u`, since root has no process limit).
The binaries' ELF types: static executables, and static PIEs without an
interpreter (what the kernel's loader must take)."""

import os
import re
import shutil
import signal
import struct
import subprocess
import tempfile

CHECKED = ["args", "args-pie", "sys_basic", "files", "memory", "procs", "pipes", "signals",
           "sighandler", "bad_sigreturn",
           "bad_pointers", "tty_lines", "polls"]
KILLED = {"jump_kernel": signal.SIGSEGV, "exec_stack": signal.SIGSEGV,
          "stack_overflow": signal.SIGSEGV}
CLOSING = r"^{}: (\d+) passed, (\d+) failed$"
FORK_BOMB_LIMIT = 150
NOBODY = 65534


def unpack(ctx, tmp):
    with open(ctx.programs_archive, "rb") as f:
        subprocess.run(["cpio", "-idm", "--quiet"], stdin=f, cwd=tmp, check=True, timeout=60)


def checked(ctx, tmp, name, argv_tail=None, **kw):
    proc = subprocess.run([os.path.join(tmp, name), tmp] + (argv_tail or []),
                          capture_output=True, text=True, timeout=60, cwd=tmp, **kw)
    closing = re.findall(CLOSING.format(name.replace("-pie", "")), proc.stdout, re.M)
    ok = proc.returncode == 0 and len(closing) == 1 and closing[0][1] == "0"
    ctx.result(name, ok, f"exit {proc.returncode}, closing lines {closing}:\n    " +
               "\n    ".join((proc.stdout + proc.stderr).strip().splitlines()[-12:]))


def elf_type(path):
    """(e_type, has PT_INTERP) of an ELF64 file."""
    with open(path, "rb") as f:
        data = f.read()
    e_type, = struct.unpack_from("<H", data, 16)
    phoff, = struct.unpack_from("<Q", data, 32)
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    interp = any(struct.unpack_from("<I", data, phoff + i * phentsize)[0] == 3
                 for i in range(phnum))
    return e_type, interp


def job_on_linux(ctx):
    if not os.path.isfile(ctx.programs_archive):
        ctx.result("archive", False, f"{ctx.programs_archive} is missing (make userland)")
        return
    tmp = tempfile.mkdtemp(prefix="scion-userland-")
    try:
        os.chmod(tmp, 0o755)
        unpack(ctx, tmp)
        for name in CHECKED:
            checked(ctx, tmp, name)
        hello = subprocess.run([os.path.join(tmp, "hello-pie"), "x", "--exit=42"],
                               capture_output=True, text=True, timeout=30)
        ctx.result("hello-pie", hello.returncode == 42 and
                   "hello from user space" in hello.stdout, f"{hello.returncode} {hello.stdout!r}")
        for name, sig in KILLED.items():
            proc = subprocess.run([os.path.join(tmp, name)], capture_output=True, timeout=60)
            ctx.result(name, proc.returncode == -sig, f"exit status {proc.returncode}, expected "
                       f"killed by {sig.name}")
        for name, want in (("hello", (2, False)), ("hello-pie", (3, False)),
                           ("args-pie", (3, False))):
            got = elf_type(os.path.join(tmp, name))
            ctx.result(f"elf-{name}", got == want, f"(e_type, PT_INTERP) {got}, expected {want} "
                       "(2 ET_EXEC, 3 ET_DYN)")
        fork_bomb(ctx, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def fork_bomb(ctx, tmp):
    """As nobody with ulimit -u, so that fork fails with EAGAIN (root is not limited)."""
    script = f"ulimit -u {FORK_BOMB_LIMIT} && exec {os.path.join(tmp, 'fork_bomb')}"
    if os.geteuid() == 0:
        if not shutil.which("setpriv"):
            ctx.result("fork_bomb", False, "root, and no setpriv to run fork_bomb unprivileged")
            return
        argv = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
                "bash", "-c", script]
    else:
        argv = ["bash", "-c", script]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    closing = re.findall(CLOSING.format("fork_bomb"), proc.stdout, re.M)
    ctx.result("fork_bomb", proc.returncode == 0 and closing and closing[0][1] == "0" and
               "failed with EAGAIN" in proc.stdout, f"exit {proc.returncode}: {proc.stdout!r}")
