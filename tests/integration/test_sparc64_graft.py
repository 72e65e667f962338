# SPDX-License-Identifier: BSD-2-Clause
"""Grafts on sparc64, trusted mode (issue 25): the grafts `make ARCH=sparc64
grafts` builds (build/sparc64/grafts/trusted/, objects with R_SPARC_*
relocations) loaded into the sparc64 test kernel on sun4u through the
control channel (`host/scion --socket ... graft load --trusted`, the
GRAFT_LOAD_TRUSTED op), as on x86, and run.

The job sparc64_graft.trusted_grafts boots the test kernel (its test.*
graft points) with the control channel on a UNIX socket and checks:
  method       test_scale replaces test.method: `testpoint 2 21` says 23,
               then 42 with the graft installed (its cells written), then 23
               again once it is removed
  policy       sched_lifo at sched.pick_next reverses `sched order 6`;
               removed, the order is first-in first-out again
  misbehaving  misbehave_on_request (grafts/bad/) at test.method: a
               committed call keeps its cell changes; spinning, the time
               budget aborts it, a fault (a load from 0x50000000, which
               nothing maps) aborts it: one abort line each naming the
               graft, the reason and `2 changes undone`, the cells as the
               committed call left them, the default's result, the graft no
               longer installed, no API lock held, and the shell alive
  refused      grafts/bad/ grafts the loader refuses (an unexported symbol,
               a wrong signature, a point that does not exist) and malformed
               files (not ELF, truncated, little-endian, another machine, a
               section table outside the file, random bytes): exactly one
               line each from `scion graft load --trusted`, a failure
               status, nothing loaded
  sandboxed    `scion graft load` without --trusted: exactly one line saying
               that the x86 SFI sandbox has no SPARC counterpart yet, a
               failure status, nothing loaded or allocated in the graft area
  kernel tests `test graft_*` at the shell: every portable in-kernel graft
               test (built-in grafts, transactions, aborts by fault and time
               budget) runs, none SKIPPED, and passes
then `poweroff` exits 0."""

import os
import random
import re

import harness
import machine

import sparc64_build
from common import SUMMARY, TEST_LINE
from test_sparc64 import build_sparc64, kernel_output, scion_command

# An address nothing maps on sun4u (the machine layer's fault self-check uses it too).
UNMAPPED = 0x50000000
# misbehave_on_request's requests (grafts/bad/misbehave_on_request.c).
SPIN_UNTIL_ABORTED, LOAD_FROM_ADDRESS, WELL_BEHAVED_OFFSET = 1, 2, 1000
SANDBOX_REFUSAL = ("sparc64: the x86 SFI sandbox has no SPARC counterpart yet (issue 25): "
                   "load the graft trusted")
REFUSED_AT_LOAD = (
    ("unexported", r"undefined symbol 'printk' is not exported to grafts"),
    ("wrong_signature", r"graft 'wrong-signature' has signature 'int \(int a\)' but bcache.evict "
                        r"is 'int \(void\)'"),
    ("no_such_point", r"graft point 'bcache.teleport', which does not exist"),
)
# e_ident[EI_DATA], e_machine and e_shoff in an ELF64 header.
EI_DATA, E_MACHINE, E_SHOFF = 5, 18, 40
ELF_MACHINE_X86_64 = 62


def build_all(ctx):
    """The sparc64 test kernel and the trusted grafts; (kernel, grafts folder,
    the build's version) or BootError."""
    kernel, build_arg = build_sparc64(ctx, tests=True)
    grafts, failure = sparc64_build.build_grafts(ctx)
    if failure:
        raise harness.BootError(f"make ARCH=sparc64 grafts failed:\n    {failure}")
    with open(os.path.join(ctx.root, build_arg[len("BUILD="):], "version.txt")) as f:
        return kernel, grafts, f.read().strip()


def malformed_files(ctx, good):
    """Broken copies of the good graft and other junk, written to the log
    folder: [(path, expected text of the refusal)]."""
    with open(good, "rb") as f:
        image = f.read()
    folder = os.path.join(ctx.log_dir, f"{ctx.job}-malformed")
    os.makedirs(folder, exist_ok=True)
    little = bytearray(image)
    little[EI_DATA] = 1
    x86 = bytearray(image)
    x86[E_MACHINE:E_MACHINE + 2] = ELF_MACHINE_X86_64.to_bytes(2, "big")
    far = bytearray(image)
    far[E_SHOFF:E_SHOFF + 8] = (1 << 40).to_bytes(8, "big")
    rng = random.Random(25)
    cases = [("text.graft", b"not a graft, only text\n" * 4, "not an ELF file (bad magic bytes)"),
             ("truncated.graft", image[:40], "is shorter than an ELF header"),
             ("little-endian.graft", bytes(little), "ELF data encoding 1 is not big-endian"),
             ("x86-machine.graft", bytes(x86), "ELF machine 62 is not SPARC V9 (43)"),
             ("section-table-outside.graft", bytes(far), "lies outside the file")]
    cases += [(f"random-{i}.graft", bytes(rng.randrange(256) for _ in range(rng.randrange(1, 3000))),
               "") for i in range(3)]
    files = []
    for name, data, text in cases:
        path = os.path.join(folder, name)
        with open(path, "wb") as f:
            f.write(data)
        files.append((path, text))
    return files


def job_trusted_grafts(ctx):
    kernel, grafts, version = build_all(ctx)
    sock = os.path.join(ctx.log_dir, f"{ctx.job}.sock")
    boot = harness.Boot(f"{ctx.job}-boot", ctx.log_dir, timeout=300,
                        argv=machine.sparc64_qemu_command(kernel, "", control_socket=sock))

    def load(path, *flags):
        """(exit status, what scion printed) of loading path."""
        rc, out, err = scion_command(ctx, sock, "graft", "load", *flags, path, version=version)
        return rc, out + err

    def console(line, until=r"scion> "):
        start = boot.mark()
        boot.command(line, until, timeout=60)
        return boot.output[start:]

    def testpoint(a, b):
        """test.method(a, b) through the shell: (result, cells 0-3, the output)."""
        out = console(f"testpoint {a} {b}", r"cells 0-3: [\d ]+\r?\n")
        m = re.search(rf"test\.method\({a}, {b}\) = (-?\d+); cells 0-3: (\d+) (\d+) (\d+) (\d+)",
                      out)
        if not m:
            return None, None, out
        return int(m.group(1)), [int(c) for c in m.group(2, 3, 4, 5)], out

    try:
        boot.wait_for(r"channel: control channel on the second EBus UART")
        boot.wait_for(r"scion> ")

        # 1. A method replaced: test.method's a + b becomes a * b, and back.
        rc, out = load(os.path.join(grafts, "test_scale.graft"), "--trusted")
        ctx.result("method/loaded", rc == 0 and out.strip() ==
                   "graft: test_scale.graft: loaded 'scale-trusted' for test.method "
                   "(version 1, trusted)", f"exit {rc}: {out!r}")
        before, _, out = testpoint(2, 21)
        ctx.result("method/default-adds", before == 23, out)
        console("graft install scale-trusted", r"installed at test.method")
        grafted, cells, out = testpoint(2, 21)
        ctx.result("method/graft-multiplies", grafted == 42 and cells[:2] == [2, 21], out)
        console("graft remove scale-trusted", r"removed from test.method")
        after, _, out = testpoint(2, 21)
        ctx.result("method/removed-adds-again", after == 23, out)

        # 2. A policy replaced: the scheduler's pick order reverses, and back.
        rc, out = load(os.path.join(grafts, "sched_lifo.graft"), "--trusted")
        ctx.result("policy/loaded", rc == 0 and "loaded 'lifo-trusted' for sched.pick_next" in out,
                   f"exit {rc}: {out!r}")
        order = r"first-run order of 6 threads: ([\d ]+)\r?\n"
        orders = []
        for step in ("sched order 6", "graft install lifo-trusted", "sched order 6",
                     "graft remove lifo-trusted", "sched order 6"):
            out = console(step)
            m = re.search(order, out)
            if step.startswith("sched"):
                orders.append(m.group(1).split() if m else out)
        ctx.result("policy/lifo-reverses-and-is-undone",
                   orders == [list("012345"), list("543210"), list("012345")], f"{orders}")

        # 3. Misbehaving grafts aborted, their changes undone, the kernel alive.
        rc, out = load(os.path.join(grafts, "bad", "misbehave_on_request.graft"), "--trusted")
        ctx.result("misbehaving/loaded", rc == 0 and "loaded 'misbehave-trusted'" in out,
                   f"exit {rc}: {out!r}")
        console("graft budget test.method 10000", r"budget 10000 us")
        console("graft install misbehave-trusted", r"installed at test.method")
        result, committed, out = testpoint(5, 6)
        ctx.result("misbehaving/committed-call-keeps-changes",
                   result == 5 + WELL_BEHAVED_OFFSET and committed[2:] == [5, 6], out)
        aborts = (("time-budget", SPIN_UNTIL_ABORTED, 0,
                   r"time budget of 10000 us exceeded, pc misbehave-trusted\+0x[0-9a-f]+"),
                  ("fault", LOAD_FROM_ADDRESS, UNMAPPED,
                   rf"page fault \(.*\) at address 0x{UNMAPPED:x}, pc misbehave-trusted\+0x[0-9a-f]+"))
        for label, how, address, reason in aborts:
            if label != "time-budget":
                console("graft install misbehave-trusted", r"installed at test.method")
            result, cells, out = testpoint(how, address)
            ctx.result(f"misbehaving/{label}/abort-line", re.search(
                rf"^graft: 'misbehave-trusted' aborted at test\.method: {reason}; 2 changes undone, "
                r"graft removed, default used\r?$", out, re.M) is not None, out)
            ctx.result(f"misbehaving/{label}/changes-undone", cells == committed, out)
            ctx.result(f"misbehaving/{label}/default-result", result == how + address, out)
            out = console("graft list", r"sandbox windows")
            ctx.result(f"misbehaving/{label}/removed", re.search(
                r"^misbehave-trusted\s+test\.method\s+-\s+loaded\s", out, re.M) is not None, out)
        out = console("graft locks", r"lock 7: [^\n]*\n")
        ctx.result("misbehaving/no-lock-held", "held by" not in out, out)
        out = console("uptime", r"ticks at 100 Hz")
        ctx.result("misbehaving/kernel-alive", True)

        # 4. Grafts refused at load and malformed files: one line each, nothing loaded.
        out = console("graft list", r"sandbox windows")
        pages = re.search(r"graft area: (\d+) pages in use", out)
        for name, pattern in REFUSED_AT_LOAD:
            rc, out = load(os.path.join(grafts, "bad", f"{name}.graft"), "--trusted")
            ctx.result(f"refused/{name}", rc != 0 and out.count("\n") == 1 and re.fullmatch(
                rf"graft: {name}\.graft: refused: .*{pattern}.*\n", out) is not None,
                f"exit {rc}: {out!r}")
        for path, text in malformed_files(ctx, os.path.join(grafts, "test_scale.graft")):
            name = os.path.basename(path)
            rc, out = load(path, "--trusted")
            prefix = f"graft: {name}: refused: "
            ctx.result(f"malformed/{name}", rc != 0 and out.count("\n") == 1 and
                       out.startswith(prefix) and len(out) > len(prefix) + 1 and text in out,
                       f"exit {rc}: {out!r}, expected '{text}'")

        # 5. A sandboxed load: refused with one line; the sandbox does not exist here.
        rc, out = load(os.path.join(grafts, "test_scale.graft"))
        ctx.result("sandboxed/refused-in-one-line", rc != 0 and out ==
                   f"graft: test_scale.graft: refused: {SANDBOX_REFUSAL}\n", f"exit {rc}: {out!r}")
        out = console("graft list", r"sandbox windows")
        after_pages = re.search(r"graft area: (\d+) pages in use", out)
        ctx.result("refused/nothing-loaded-or-allocated",
                   pages is not None and after_pages is not None and
                   pages.group(1) == after_pages.group(1) and
                   len(re.findall(r"^\S+\s+\S+\s+\S+\s+(?:loaded|installed)\s", out, re.M)) == 3,
                   out)
        result, _, out = testpoint(2, 21)
        ctx.result("refused/kernel-fine-after", result == 23, out)

        # 6. The in-kernel graft tests in the same kernel, beside the loaded grafts.
        out = console("test graft_*", r"\n\d+ passed, \d+ failed\r?\n")
        tests = TEST_LINE.findall(out)
        for test, verdict in tests:
            ctx.result(f"kernel-test/{test}", verdict == "OK", verdict)
        summary = SUMMARY.findall(out.replace("\r", ""))
        ctx.result("kernel-tests/all-run-none-skipped", len(tests) >= 10 and
                   summary[-1:] == [(str(len(tests)), "0")], out[-600:])
        ctx.result("no-panic", "panic:" not in kernel_output(boot), f"(log: {boot.log_path})")
        boot.command("poweroff", r"powering off")
    finally:
        boot.finish()
    ctx.result("poweroff-exit-status-0", boot.status == machine.SPARC64_EXIT_POWEROFF,
               f"QEMU exit status {boot.status} (log: {boot.log_path})")

