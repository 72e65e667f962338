# SPDX-License-Identifier: BSD-2-Clause
"""`scion codeadapt` (host/scionhost/codeadapt.py, clone.py; kernel/codeadapt/):
a histogram of codeadapt_fix_sum's second argument over a workload
(`codeadaptwork`: 97 of every 128 calls with n == 16) picks 16; the
function's clone, compiled from its own source with n constant, is
installed behind "arg1 == 16"; the workload then gives the same results
(its checksum) with the clone taking exactly the calls that pass 16; the
listing says so; removal restores the text byte for byte. A process's own
version of the kernel's getpid, installed for one suspended process,
changes what that process sees and nothing else, and goes when it exits.
Bad requests get one line each and change nothing: an unknown function,
an argument it does not have, a function whose clone would copy its
file's state, a malformed object, an object built for another function,
an unknown id."""

import json
import re
import time

from common import poweroff
from test_channel import channel_boot, scion
from scionhost import client, clone, codeadapt, execute, frame
from scionhost.layouts import C

WORK = "codeadaptwork 20"
PER_ROUND_SPECIAL = 97       # 96 calls with n == 16, then n = 0..31


def work(ctx, sock):
    rc, out, err = scion(ctx, sock, "shell", *WORK.split())
    m = re.search(r"codeadaptwork: (\d+) calls, (\d+) wrong, sum ([0-9a-f]+)", out)
    return (int(m.group(1)), int(m.group(2)), m.group(3)) if m and rc == 0 else None


def check_text(ctx, boot, name):
    m = boot.command("text verify", r"text: (identical|\d+ ranges? differ)", timeout=120)
    ctx.result(name, m.group(1) == "identical", f"text verify: {m.group(0)}")


def listing(ctx, sock):
    rc, out, err = scion(ctx, sock, "codeadapt", "list", "--json")
    return json.loads(out) if rc == 0 else None


def check_specialize(ctx, boot, sock):
    env = {"SCION_KSYMS": ctx.ksyms}
    before = work(ctx, sock)
    ctx.result("workload-before", before and before[1] == 0, f"workload: {before}")
    rc, out, err = scion(ctx, sock, "codeadapt", "specialize", "codeadapt_fix_sum", "1",
                         "--run", WORK, "--json", env=env, timeout=300)
    ctx.result("specialize", rc == 0, f"exit {rc}: {out}{err}")
    if rc:
        return
    r = json.loads(out)
    ctx.result("histogram-picks-16", r["value"] == 16 and abs(r["share"] - 97 / 128) < 1e-9,
               f"value {r['value']}, share {r['share']}")
    after = work(ctx, sock)
    ctx.result("same-results", after == before, f"before {before}, after {after}")
    rows = listing(ctx, sock)
    one = rows[0] if rows and len(rows) == 1 else {}
    ctx.result("listed", one.get("kind") == "specialize" and one.get("value") == 16 and
               one.get("arg") == 1 and one.get("state") == "installed" and
               one.get("function") == "codeadapt_fix_sum", f"list: {rows}")
    ctx.result("clone-took-the-16s", one.get("taken") == 20 * PER_ROUND_SPECIAL,
               f"taken {one.get('taken')}, want {20 * PER_ROUND_SPECIAL}")
    rc, out, err = scion(ctx, sock, "codeadapt", "specialize", "codeadapt_fix_sum", "1",
                         "--value", "3", env=env, timeout=120)
    ctx.result("second-refused", rc != 0 and "adapted already" in err, f"exit {rc}: {err}")
    rc, out, err = scion(ctx, sock, "codeadapt", "remove", str(r["id"]))
    ctx.result("remove", rc == 0, f"exit {rc}: {out}{err}")
    check_text(ctx, boot, "text-after-remove")
    ctx.result("gone", listing(ctx, sock) == [], f"list: {listing(ctx, sock)}")


def check_bad(ctx, sock):
    env = {"SCION_KSYMS": ctx.ksyms}
    cases = (("unknown-function", ("specialize", "no_such_function", "0", "--value", "1"),
              r"no kernel function no_such_function"),
             ("no-such-argument", ("specialize", "codeadapt_fix_sum", "5", "--value", "1"),
              r"has 3 arguments; there is no argument 5"),
             ("own-state", ("specialize", "codeadapt_fix_counted", "0", "--value", "1"),
              r"uses its file's own variables \(counted_calls\)"),
             ("remove-unknown", ("remove", "77"), r"no adaptation 77 is installed"))
    for name, args, want in cases:
        rc, out, err = scion(ctx, sock, "codeadapt", *args, env=env, timeout=120)
        lines = err.strip().splitlines()
        ctx.result(f"bad-{name}", rc != 0 and len(lines) == 1 and re.search(want, err),
                   f"exit {rc}: {out}{err}")
    with client.Client(sock, timeout=60) as c:
        for name, image in (("not-elf", b"this is not an object"),
                            ("truncated-elf", b"\x7fELF\x02\x01\x01" + b"\0" * 40)):
            try:
                codeadapt.load(c, image, "codeadapt_fix_sum", C.CODEADAPT_SPECIALIZE, 1, 8, 16)
                ctx.result(f"bad-{name}", False, "loaded")
            except client.ScionError as e:
                ctx.result(f"bad-{name}", "\n" not in str(e) and str(e), f"refused: {e}")
        image = clone.build(ctx.ksyms[:-len("kernel.syms")] + "kernel.elf",
                            clone.clone_source(clone.describe(
                                ctx.ksyms[:-len("kernel.syms")] + "kernel.elf",
                                "codeadapt_fix_sum"), "codeadapt_fix_sum", 1, 16),
                            "spec-mismatch", "codeadapt_fix_sum")
        try:
            codeadapt.load(c, image, "glob_match", C.CODEADAPT_SPECIALIZE, 1, 8, 16)
            ctx.result("bad-other-function", False, "loaded for glob_match")
        except client.ScionError as e:
            ctx.result("bad-other-function", "a version of codeadapt_fix_sum, not of glob_match"
                       in str(e), f"refused: {e}")
        status, body = c.request(frame.OP_CODEADAPT_LOAD, b"short")
        ctx.result("bad-short-request", status < 0 and b"chan_codeadapt_load_request" in body,
                   f"status {status}: {body!r}")
    ctx.result("bad-left-nothing", listing(ctx, sock) == [], f"list: {listing(ctx, sock)}")


def run_show_pid(c, suspended):
    out = []
    ex = execute.Execution(c, ["show_pid", "3"], suspended=suspended,
                           on_output=lambda fd, data: out.append(data))
    return ex, out


def finish(ex):
    deadline = time.monotonic() + 60
    while not ex.poll() and time.monotonic() < deadline:
        pass
    return ex.finish() if ex.status else None


def show_pid_sees(c, add):
    """Whether show_pid prints its pid plus add, three times."""
    ex, out = run_show_pid(c, False)
    st = finish(ex)
    text = b"".join(out).decode()
    return st and st["code"] == 0 and text == f"show_pid: pid {ex.pid + add}\n" * 3, text


def check_per_process(ctx, boot, sock):
    """The version through the library in one session (a suspended process is the
    session's), then for every process through `scion codeadapt version`."""
    elf = ctx.ksyms[:-len("kernel.syms")] + "kernel.elf"
    source = f"{ctx.root}/tests/integration/codeadapt/getpid_plus_1000.c"
    image = clone.build(elf, clone.version_source(source, "getpid_plus_1000"), "ver-getpid",
                        "sys_getpid", entry="getpid_plus_1000")
    with client.Client(sock, timeout=60) as c:
        mine, mine_out = run_show_pid(c, True)
        ident = codeadapt.load(c, image, "sys_getpid", C.CODEADAPT_VERSION, pid=mine.pid)
        rows = codeadapt.adaptations(c)
        ctx.result("version-listed", len(rows) == 1 and rows[0]["id"] == ident and
                   rows[0]["kind"] == "version" and rows[0]["pid"] == mine.pid and
                   rows[0]["tid"] == 0, f"list: {rows}")
        mine.resume()
        st = finish(mine)
        text = b"".join(mine_out).decode()
        ctx.result("process-sees-its-version", st and st["code"] == 0 and
                   text == f"show_pid: pid {mine.pid + 1000}\n" * 3, f"{st}: {text!r}")
        ok, text = show_pid_sees(c, 0)
        ctx.result("others-see-the-kernel's", ok, f"{text!r}")
        rows = codeadapt.adaptations(c)
        ctx.result("gone-with-the-process", all(r["state"] != "installed" for r in rows),
                   f"list: {rows}")
    rc, out, err = scion(ctx, sock, "codeadapt", "version", "sys_getpid", source, "--entry",
                         "getpid_plus_1000", env={"SCION_KSYMS": ctx.ksyms}, timeout=120)
    ctx.result("version-for-everyone", rc == 0, f"exit {rc}: {out}{err}")
    with client.Client(sock, timeout=60) as c:
        ok, text = show_pid_sees(c, 1000)
        ctx.result("everyone-sees-the-version", ok, f"{text!r}")
        codeadapt.remove(c, 0)
        ok, text = show_pid_sees(c, 0)
        ctx.result("removed-for-everyone", ok, f"{text!r}")
    check_text(ctx, boot, "text-after-versions")


def check_outline(ctx, boot, sock):
    """syscall_handle counted while a process makes system calls: its first-call and
    tracing paths go out of line, and system calls stay right through the copy."""
    with client.Client(sock, timeout=120) as c:
        execute.Execution(c, ["bench_getpid", "400000"], detach=True)     # the calls counted
        r = codeadapt.outline(c, "syscall_handle", 300)
        ctx.result("outline", r["id"] > 0 and r["hot"] >= 2 and r["cold"] >= 1 and
                   r["bytes"] > 0, f"reply {r}")
        ok, text = show_pid_sees(c, 0)
        ctx.result("syscalls-through-the-copy", ok, f"{text!r}")
        rows = codeadapt.adaptations(c)
        one = rows[0] if len(rows) == 1 else {}
        ctx.result("outline-listed", one.get("kind") == "outline" and
                   one.get("function") == "syscall_handle" and one.get("taken", 0) > 0,
                   f"list: {rows}")
        status, body = c.request(frame.OP_CODEADAPT_OUTLINE,
                                 codeadapt.OUTLINE.pack(ms=300, cold=0,
                                                        function=b"syscall_handle"))
        ctx.result("outline-twice", status < 0 and b"adapted already" in body,
                   f"status {status}: {body!r}")
        status, body = c.request(frame.OP_CODEADAPT_OUTLINE,
                                 codeadapt.OUTLINE.pack(ms=0, cold=0, function=b"glob_match"))
        ctx.result("outline-bad-ms", status < 0 and b"1 to 600000 ms" in body,
                   f"status {status}: {body!r}")
        codeadapt.remove(c, r["id"])
        ok, text = show_pid_sees(c, 0)
        ctx.result("syscalls-after-removal", ok, f"{text!r}")
    check_text(ctx, boot, "text-after-outline")


def job_codeadapt(ctx):
    boot, sock = channel_boot(ctx, "codeadapt", smp=2, single_thread_tcg=True, programs=True)
    try:
        check_specialize(ctx, boot, sock)
        check_bad(ctx, sock)
        check_per_process(ctx, boot, sock)
        check_outline(ctx, boot, sock)
    finally:
        poweroff(ctx, boot)
