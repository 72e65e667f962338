# SPDX-License-Identifier: BSD-2-Clause
"""The sparc64 port's machine layer on QEMU's sun4u (issue 25): the kernel
is built with `make ARCH=sparc64 kernel` (into BUILD/sparc64), then booted
five times:

  selftest=all    the boot self-checks (arch/sparc64/selftest.c): timer
                  ticks advance, 200 nested calls spill and fill register
                  windows and return the right value, a load from an
                  unmapped address gives a fault report naming the faulting
                  function (and its callers) and resumes, the core's
                  spinlocks and random bytes over the arch headers; `N
                  passed, M failed`; power-off, exit status 0
  selftest=panic  the same fault with no fixup: the report, a panic, and
                  exit status 1 through pvpanic-pci (panic=exit, the core's
                  panic option, on every boot that panics)
  selftest=spill32  a window with an even (32-bit) %sp spilled: the spill
                  refused, reported, a panic, exit status 1
  selftest=tl2    a window spilled into unmapped memory: the fault at TL 2
                  reported with TL 1's trap, a panic, exit status 1
  make run        `make run ARCH=sparc64 CMDLINE=frobnicate=1` on a pipe: the
                  portable kernel_main reports the unknown option and the
                  M48T59's date (a year after 2020), and reaches
                  the `scion>` shell on the UART (input polled at the tick);
                  `uptime` and `cpus` answer, `count shell_execute` splices
                  a counter (one ba,a) that counts the next two commands, the
                  same with `probe patches far` goes through a springboard
                  (`probe info` says where), and `text verify` finds the text
                  as booted once they are removed,
                  `analysis` analyses every function (the SPARC
                  decoder and the structural analysis in the kernel), `insn`
                  and `cfg` answer, `host/scion --socket BUILD/sparc64/control.sock
                  status` answers (build ..., sparc64; cpus: 1; the host's
                  version read beside the socket), `poweroff` exits 0

The job sparc64.control_channel boots the kernel with the control channel
(the second EBus UART, on a UNIX socket) and drives it through the host
package: the handshake, SHELL, the structured queries, a stream, a malformed
frame, the channel afterwards (job_control_channel).

A second job, sparc64.kernel_tests, builds the sparc64 test kernel and boots
`test=*`: the portable in-kernel tests pass, the x86-only ones say SKIPPED
with the port's reason (job_kernel_tests).

OpenBIOS's banner comes before the kernel's first line (`Scion ...`);
the checks look only at what follows it."""

import os
import re
import socket
import subprocess
import sys
import time

import harness
import machine

import sparc64_build
from common import SUMMARY, TEST_LINE


def build_sparc64(ctx, tests=False):
    """The sparc64 kernel (tests: the test kernel) built under the build
    folder's lock (sparc64_build.py); returns (kernel, build arg) or raises."""
    kernel, failure = sparc64_build.build_kernel(ctx, tests=tests)
    if failure:
        raise harness.BootError(f"make ARCH=sparc64{' KERNEL_TESTS=yes' if tests else ''} "
                                f"kernel failed:\n    {failure}")
    return kernel, f"BUILD={sparc64_build.sparc64_build_dir(ctx)}"


def kernel_output(boot):
    """What the kernel printed: from its first line on (OpenBIOS's banner skipped)."""
    out = boot.output
    start = out.find("Scion ")
    return out[start:] if start >= 0 else ""


def expect(ctx, name, text, pattern, boot):
    ok = re.search(pattern, text, re.M) is not None
    ctx.result(name, ok, "" if ok else f"'{pattern}' not in the output (log: {boot.log_path})")


def shell(boot, line, until):
    """Type a shell command; what the console said after it, up to until."""
    start = boot.mark()
    boot.command(line, until)
    return boot.output[start:]


def status(ctx, name, boot, want):
    ctx.result(name, boot.status == want,
               f"QEMU exit status {boot.status}, expected {want} (log: {boot.log_path})")


def job_machine_layer(ctx):
    kernel, build_arg = build_sparc64(ctx)
    ctx.result("builds", True)

    # 1. The self-checks, then power-off.
    boot = harness.Boot(f"{ctx.job}-selftest", ctx.log_dir, timeout=30,
                        argv=machine.sparc64_qemu_command(kernel, "selftest=all"))
    boot.finish()
    out = kernel_output(boot)
    tests = TEST_LINE.findall(out)
    for test, verdict in tests:
        ctx.result(f"selftest/{test}", verdict == "OK", f"{verdict} (log: {boot.log_path})")
    names = {t for t, _ in tests}
    for want in ("sparc64_timer_ticks", "sparc64_window_spill_fill", "sparc64_fault_report",
                 "sparc64_core_spinlock_random"):
        ctx.result(f"selftest/ran-{want}", want in names, f"no line for {want} (log: {boot.log_path})")
    summary = SUMMARY.findall(out)
    failures = sum(1 for _, v in tests if v != "OK")
    ctx.result("selftest/summary", bool(summary) and summary[-1] == (str(len(tests) - failures),
                                                                      str(failures)),
               f"summary {summary[-1] if summary else 'missing'} for {len(tests)} test lines "
               f"(log: {boot.log_path})")
    expect(ctx, "selftest/report-headline", out,
           r"^trap: data MMU miss \(tt 0x068\) at TL 1 in kernel mode$", boot)
    expect(ctx, "selftest/report-state", out,
           r"TSTATE 0x[0-9a-f]{16} \(CWP \d+, PSTATE 0x[0-9a-f]+\)  fault address 0x0*50000000$",
           boot)
    expect(ctx, "selftest/report-names-function", out,
           r"^  #0 0x[0-9a-f]+ selftest_fault_load\+0x", boot)
    expect(ctx, "selftest/backtrace-callers", out,
           r"#1 0x[0-9a-f]+ check_fault\+0x[0-9a-f]+\n  #2 0x[0-9a-f]+ selftest_run\+0x", boot)
    expect(ctx, "selftest/recovered", out, r"^trap: recovered", boot)
    ctx.result("selftest/no-panic", "panic:" not in out, f"panic (log: {boot.log_path})")
    status(ctx, "selftest/poweroff-exit-status-0", boot, machine.SPARC64_EXIT_POWEROFF)

    # 2. The same fault unrecovered: the report, then a panic through pvpanic.
    boot = harness.Boot(f"{ctx.job}-panic", ctx.log_dir, timeout=30,
                        argv=machine.sparc64_qemu_command(kernel, "selftest=panic panic=exit"))
    boot.finish()
    out = kernel_output(boot)
    expect(ctx, "panic/report-names-function", out,
           r"^  TPC   0x[0-9a-f]+ selftest_fault_load\+0x", boot)
    expect(ctx, "panic/backtrace", out, r"^  #1 0x[0-9a-f]+ selftest_run\+0x", boot)
    expect(ctx, "panic/panic-line", out, r"^panic: fatal trap 0x068 at TL 1$", boot)
    # The core's panic backtrace goes through the trap: trap_common, then the faulting pc.
    expect(ctx, "panic/backtrace-crosses-trap", out,
           r"trap_common\+0x[0-9a-f]+\n  #\d+ 0x[0-9a-f]+ selftest_fault_load\+0x", boot)
    status(ctx, "panic/exit-status-1", boot, machine.SPARC64_EXIT_PANIC)

    # 3. A 32-bit frame's spill is refused; 4. a fault inside the spill handler (TL 2).
    for arg, patterns in (
            ("spill32", (("report", r"^trap: window spill refused .* \(tt 0x080\) at TL 1 "),
                         ("names-function", r"^  TPC   0x[0-9a-f]+ selftest_bad_window\+0x"),
                         ("even-sp", r"fault address 0x0*40000ff0$"),
                         ("panic-line", r"^panic: fatal trap 0x080 at TL 1$"))),
            ("tl2", (("report", r"^trap: data MMU miss \(tt 0x068\) at TL 2 in kernel mode$"),
                     ("in-spill-handler", r"TPC is in the trap table: the handler of tt 0x080 "
                                          r"for traps at TL 0"),
                     ("outer-trap", r"^  inside a trap: TL 1 was tt 0x080 at 0x[0-9a-f]+ "
                                    r"selftest_bad_window\+0x"),
                     ("panic-line", r"^panic: fatal trap 0x068 at TL 2$")))):
        boot = harness.Boot(f"{ctx.job}-{arg}", ctx.log_dir, timeout=30,
                            argv=machine.sparc64_qemu_command(kernel,
                                                              f"selftest={arg} panic=exit"))
        boot.finish()
        out = kernel_output(boot)
        for label, pattern in patterns:
            expect(ctx, f"{arg}/{label}", out, pattern, boot)
        status(ctx, f"{arg}/exit-status-1", boot, machine.SPARC64_EXIT_PANIC)

    # 5. make run ARCH=sparc64 from a pipe: the console, then poweroff.
    boot = harness.Boot(f"{ctx.job}-make-run", ctx.log_dir, timeout=60,
                        argv=["make", "--no-print-directory", "run", "ARCH=sparc64", build_arg,
                              "CMDLINE=frobnicate=1"])
    try:
        boot.wait_for(r"scion> ")
        expect(ctx, "make-run/unknown-option-reported", kernel_output(boot),
               r"^boot: unknown option 'frobnicate' ignored", boot)
        expect(ctx, "make-run/rtc-date", kernel_output(boot),
               r"^machine: sun4u .* M48T59 clock 20[2-9]\d-\d\d-\d\d \d\d:\d\d:\d\d$", boot)
        boot.command("uptime", r"up \d+\.\d{3} s, \d+ ticks at 100 Hz")
        ctx.result("make-run/uptime", True)
        boot.command("cpus", r"1 CPU online, cycle counter 100\.000 MHz")
        ctx.result("make-run/cpus", True)
        # KernInst's splice on SPARC: a counter at shell_execute's entry counts
        # the commands that follow; removing it leaves the text as booted.
        boot.command("count shell_execute", r"count: metric \d+ on shell_execute")
        boot.command("uptime", r"up \d+\.\d{3} s")
        out = shell(boot, "stats", r"probes: [^\n]*\n")
        ctx.result("make-run/splice-counts", re.search(
            r"count +shell_execute: 2 calls", out) is not None and
            re.search(r"\d+ sites patched \(1 jump, 0 ta\)", out) is not None, f"{out[-400:]!r}")
        boot.command("metric remove all", r"scion> ")
        # The same splice with its patch in the far arena: through a springboard.
        boot.command("probe patches far", r"probe: new patches go to the far arena")
        out = shell(boot, "probe enable fbt:kernel:shell_execute:entry count", r"patched[^\n]*\n")
        boot.command("uptime", r"up \d+\.\d{3} s")
        out = shell(boot, "probe list fbt:kernel:shell_execute:entry", r"\d+ probes?\n")
        m = re.search(r"^\s+(\d+)\s+fbt:kernel:shell_execute:entry\s+1\s+1, count (\d+)", out, re.M)
        info = shell(boot, f"probe info {m.group(1) if m else 0}", r"probe \d+: [\s\S]*?\nscion> ")
        ctx.result("make-run/far-splice-through-springboard",
                   m is not None and int(m.group(2)) >= 2 and
                   "through the springboard at 0x" in info, f"{out[-300:]!r} {info[-400:]!r}")
        boot.command("probe clear", r"probe: cleared")
        boot.command("probe patches near", r"probe: new patches go to the near arena")
        boot.command("text verify", r"text: identical")
        ctx.result("make-run/text-identical-after-removal", True)
        # The structural analysis over the SPARC decoder, in the kernel: every
        # function analysed, none refused.
        out = shell(boot, "analysis", r"took \d+ cycles")
        m = re.search(r"analysis: (\d+) functions, (\d+) analysed, (\d+) not;", out)
        ctx.result("make-run/analysis-every-function",
                   m and int(m.group(1)) > 500 and m.group(1) == m.group(2) and m.group(3) == "0",
                   f"{out[-400:]!r}")
        out = shell(boot, "insn trap_table", r"free after:[^\n]*\n")
        ctx.result("make-run/insn-trap-table",
                   re.search(r"^  ba\n  control flow: branch always, one delay slot", out, re.M)
                   and re.search(r"^  target 0x[0-9a-f]+ trap_common\+0x0 ", out, re.M),
                   f"{out[-600:]!r}")
        # Up to the prompt after its own output (the previous prompt may come after the mark).
        out = shell(boot, "cfg kmalloc", r"\nkmalloc 0x[\s\S]*?\nscion> ")
        ctx.result("make-run/cfg-kmalloc", re.search(
            r"^kmalloc 0x[0-9a-f]+, \d+ bytes: \d+ blocks, \d+ instructions, [1-9]\d* calls", out,
            re.M) and "return" in out, f"{out[-600:]!r}")
        # The control channel on build/sparc64/control.sock, through the host command.
        sock = os.path.join(ctx.root, build_arg[len("BUILD="):], "control.sock")
        # No SCION_HOST_VERSION: the host command takes the version.txt beside the socket.
        rc, out, err = scion_command(ctx, sock, "status")
        ctx.result("make-run/scion-status-on-control-sock",
                   rc == 0 and re.search(r"^build: .*, sparc64$", out, re.M) is not None and
                   "cpus: 1" in out, f"exit {rc}: {out}{err}")
        boot.command("poweroff", r"powering off")
    finally:
        boot.finish()
    status(ctx, "make-run/poweroff-exit-status-0", boot, 0)


# Portable tests that must run (not be skipped) and pass on sun4u: threads and the
# scheduler, the allocator and stack guard pages, grafts' transactions (a fault and a
# budget overrun aborting them through the trap table), records, the symbol table.
SPARC64_MUST_PASS = ("calendar_known_dates", "clock_fast_tick", "dnlc_lru_by_hand",
                     "graft_fault_aborts", "graft_budget_aborts_spinning_graft",
                     "graft_nested_transactions", "mm_stack_guard_page", "sched_fair_share",
                     "sched_follow_live_recording", "sched_sleep_ms", "symtab_covers_text",
                     "monitor_sources_table", "trace_load_native_byte_order",
                     "stack_walk_names_the_callers",
                     # probes: KernInst's splice and the ta breakpoint (test_probe*.c)
                     "probe_exact_counts", "probe_every_instruction_enabled",
                     "probe_every_offset", "probe_metrics", "probe_monitor_hits",
                     "trace_session_in_kernel", "sparc64_probe_exact_counts",
                     "sparc64_probe_protocol_steps", "sparc64_probe_refusals",
                     "sparc64_probe_return_values", "trace_fbt_return_values",
                     # the sched and lockstat providers' sites, profile's bound (HZ here)
                     "probe_sched_provider", "probe_lockstat_counts",
                     "probe_lockstat_no_recursion", "probe_profile_bound")
# x86-only features: these must say SKIPPED with the port's one-line reason.
SPARC64_MUST_SKIP = (("mm_image_permissions", "no per-page permissions"),
                     ("trace_reads_refuse_device_memory", "nothing is mapped in the MMIO window"))


def job_kernel_tests(ctx):
    """The sparc64 test kernel (KERNEL_TESTS=yes) boots `test=*` on sun4u: every
    portable in-kernel test it builds passes or says SKIPPED (reason); the closing
    `N passed, M failed` counts the run ones (skips are neither) and power-off ends
    QEMU with status 0."""
    kernel, _ = build_sparc64(ctx, tests=True)
    boot = harness.Boot(f"{ctx.job}-all", ctx.log_dir, timeout=120,
                        argv=machine.sparc64_qemu_command(kernel, "test=* panic=exit"))
    boot.finish()
    out = kernel_output(boot)
    tests = TEST_LINE.findall(out)
    verdicts = dict(tests)
    for test, verdict in tests:
        ok = verdict == "OK" or re.fullmatch(r"SKIPPED \(.+\)", verdict) is not None
        ctx.result(f"test/{test}", ok, f"{verdict} (log: {boot.log_path})")
    for want in SPARC64_MUST_PASS:
        ctx.result(f"ran/{want}", verdicts.get(want) == "OK",
                   f"{verdicts.get(want, 'no line')} (log: {boot.log_path})")
    for want, reason in SPARC64_MUST_SKIP:
        v = verdicts.get(want, "")
        ctx.result(f"skipped/{want}", v.startswith("SKIPPED (") and reason in v,
                   f"'{v or 'no line'}', expected SKIPPED with '{reason}' (log: {boot.log_path})")
    n_ok = sum(1 for v in verdicts.values() if v == "OK")
    n_failed = sum(1 for v in verdicts.values() if v.startswith("FAILED"))
    n_skipped = sum(1 for v in verdicts.values() if v.startswith("SKIPPED"))
    summary = SUMMARY.findall(out)
    ctx.result("summary", bool(summary) and summary[-1] == (str(n_ok), str(n_failed)),
               f"summary {summary[-1] if summary else 'missing'} for {n_ok} OK and {n_failed} "
               f"FAILED lines (log: {boot.log_path})")
    expect(ctx, "summary-counts-skips", out,
           rf"^ktest: {n_ok} passed, {n_failed} failed, {n_skipped} skipped$", boot)
    ctx.result("enough-tests", n_ok >= 50, f"only {n_ok} tests passed (log: {boot.log_path})")
    status(ctx, "exit-status-0", boot, machine.SPARC64_EXIT_POWEROFF)


def scion_command(ctx, sock, *args, version=None):
    """host/scion --socket sock ARGS; returns (exit status, stdout, stderr). version:
    the build the host says it is (SCION_HOST_VERSION), else build/version.txt's."""
    env = dict(os.environ)
    if version:
        env["SCION_HOST_VERSION"] = version
    p = subprocess.run([sys.executable, os.path.join(ctx.root, "host", "scion"), "--socket", sock,
                        *args], capture_output=True, text=True, timeout=120, env=env)
    return p.returncode, p.stdout, p.stderr


def read_frames(s, seconds):
    """The frames the kernel sends on the raw socket s within seconds."""
    from scionhost import frame
    parser = frame.ReferenceParser(accept_types=frame.KERNEL_SENT_TYPES)
    frames, deadline = [], time.monotonic() + seconds
    while time.monotonic() < deadline:
        s.settimeout(max(0.05, deadline - time.monotonic()))
        try:
            data = s.recv(1 << 16)
        except socket.timeout:
            break
        if not data:
            break
        frames.extend(parser.feed(data))
    return frames


def job_control_channel(ctx):
    """The control channel on sparc64 (arch/sparc64/channel.c: the second EBus UART,
    polled at the tick), driven by the host package (host/scionhost/client.py)
    over a UNIX socket, every multi-byte value little-endian on the wire from the
    big-endian kernel (scion/chan_wire.h):
      boot            `channel: control channel on the second EBus UART ...`
      hello           the handshake: the kernel's version is this build's;
                      another version is refused
                      with `version mismatch: host ..., kernel ...`
      shell           SHELL `uptime`: status 0 and `up N.NNN s, N ticks at 100 Hz`;
                      SHELL `ps`: a negative status (the i32 converted)
                      and the port's refusal; an unknown command: -ENOENT
      status          STATUS (struct chan_status): version, `..., sparc64`, 1 CPU,
                      memory, uptime, cycles_per_second 100 MHz, the frames the
                      channel accepted; `scion status` prints the same
      list            EVENTS after `channel event` through SHELL: a struct
                      chan_list_head and struct chan_event_info records, the
                      marker's text and number, and the same event as an EVENT
                      frame with that number; SYMBOLIZE of channel_init + 8
                      (start, offset 8, kind, name); an unknown op (u16
                      converted) -ENOSYS `unknown op 99`; MONITOR: the status, the
                      clock's scale set to 2500 and read back, wall time after 2020
      stream          STREAM_OPEN `monitor` (reply: stream id, 1 CPU, the buffer
                      size asked for) and STREAM_CLOSE (struct chan_stream_totals:
                      frames as many as the DATA chunks received); the last chunk
                      is the monitor's status (struct monitor_stream_status:
                      version, sources, ended 1)
      malformed       a frame with a bad header CRC on a raw socket: exactly one
                      ERROR, seq 0, one line `rejected frame: bad header CRC`;
                      then STATS counts 1 rejected (bad header CRC) and the
                      channel still answers HELLO, SHELL and STATUS
    then `poweroff` on the console exits 0."""
    from scionhost import frame
    from scionhost.client import Client, ScionError
    from scionhost.layouts import layout, text

    kernel, build_arg = build_sparc64(ctx)
    version = open(os.path.join(ctx.root, build_arg[len("BUILD="):], "version.txt")).read().strip()
    sock = os.path.join(ctx.log_dir, f"{ctx.job}.sock")
    boot = harness.Boot(f"{ctx.job}-boot", ctx.log_dir, timeout=240,
                        argv=machine.sparc64_qemu_command(kernel, "", control_socket=sock))
    try:
        boot.wait_for(r"channel: control channel on the second EBus UART")
        boot.wait_for(r"scion> ")
        ctx.result("boot/channel-found", True)

        # 1. The handshake, as on x86 (a mismatch refused by the kernel, in one line).
        with Client(sock, version=version) as client:
            ctx.result("hello/version", client.kernel_version == version,
                       f"kernel {client.kernel_version!r}, host {version!r}")

            # 2. SHELL: status and output.
            status, out = client.request(frame.OP_SHELL, b"uptime")
            out = out.decode("utf-8", "replace")
            ctx.result("shell/uptime", status == 0 and
                       re.search(r"up \d+\.\d{3} s, \d+ ticks at 100 Hz", out) is not None,
                       f"{status}: {out!r}")
            status, out = client.request(frame.OP_SHELL, b"ps")
            out = out.decode("utf-8", "replace")
            ctx.result("shell/refusal-negative-status", status < 0 and
                       "sparc64: no user processes yet (issue 25)" in out, f"{status}: {out!r}")
            status, out = client.request(frame.OP_SHELL, b"frobnicate")
            ctx.result("shell/unknown-command-enoent", status == -frame.C.ENOENT and
                       b"unknown command 'frobnicate'" in out, f"{status}: {out!r}")

            # 3. Structured queries.
            status, body = client.request(frame.OP_STATUS)
            st = layout("chan_status").unpack(body) if len(body) == layout("chan_status").size \
                else {}
            ok = status == 0 and st and text(st["version"]) == version and \
                text(st["build"]).endswith(", sparc64") and st["cpus"] == 1 and \
                0 < st["memory_free_kib"] <= st["memory_kib"] < (1 << 24) and \
                0 < st["uptime_ms"] < 10 ** 7 and st["cycles_per_second"] == 100_000_000 and \
                1 <= st["channel_frames_accepted"] < 100 and st["channel_frames_rejected"] == 0
            ctx.result("status/struct", bool(ok), f"{status}: {st}")
            client.request(frame.OP_SHELL, b"channel event wire-check")
            status, body = client.request(frame.OP_EVENTS, layout("chan_list_request").pack(start=0))
            head = layout("chan_list_head")
            rec = layout("chan_event_info")
            h = head.unpack(body) if len(body) >= head.size else {}
            records = [rec.unpack(body, head.size + k * rec.size)
                       for k in range(h.get("count", 0))
                       if len(body) >= head.size + (k + 1) * rec.size]
            marks = [r for r in records if text(r["text"]) == "mark: wire-check"]
            ctx.result("events/list", status == 0 and h.get("record_bytes") == rec.size and
                       h.get("count") == len(records) >= 1 and h.get("more") == 0 and
                       len(marks) == 1 and marks[0]["number"] >= 1 and
                       h.get("next") == records[-1]["number"] and 0 < marks[0]["uptime_ms"] < 10 ** 7,
                       f"{status}: head {h}, records {records}")
            # The same event as an EVENT frame ("N MS TEXT", sent unasked by the output thread).
            deadline = time.monotonic() + 5
            while not any(e[2] == "mark: wire-check" for e in client.events) and \
                    time.monotonic() < deadline:
                client.pump(0.2)
            ev = [e for e in client.events if e[2] == "mark: wire-check"]
            ctx.result("events/event-frame", bool(len(ev) == 1 and marks) and
                       ev[0][0] == marks[0]["number"], f"{client.events}")
            # SYMBOLIZE: u64s both ways (channel_init + 8, from the build's symbol list).
            syms = open(os.path.join(os.path.dirname(kernel), "kernel.syms")).read()
            m = re.search(r"^([0-9a-f]+) [0-9a-f]+ [Tt] channel_init$", syms, re.M)
            address = int(m.group(1), 16) if m else 0
            status, body = client.request(frame.OP_SYMBOLIZE, frame.SYM_REQUEST.pack(
                address=address + 8, flags=0))
            r = frame.SYM_RECORD.unpack(body) if len(body) == frame.SYM_RECORD_BYTES else {}
            ctx.result("symbolize", status == 0 and bool(r) and r["start"] == address and
                       r["offset"] == 8 and r["kind"] == frame.C.CHAN_SYM_KERNEL and
                       text(r["name"]) == "channel_init" and r["name_len"] == len("channel_init"),
                       f"0x{address:x}: {status}: {r}")
            # MONITOR (scion/monitor_rec.h's request and status): the calendar's scale set.
            from scionhost import monitor
            try:
                before = monitor.control(client, frame.C.MONITOR_CTL_STATUS)
                after = monitor.control(client, frame.C.MONITOR_CTL_CLOCK, scale=2500)
                monitor.control(client, frame.C.MONITOR_CTL_CLOCK, scale=before["scale"])
                ok = after["scale"] == 2500 and before["scale"] == frame.C.MONITOR_SCALE_ONE and \
                    after["sources"] == before["sources"] >= 1 and \
                    after["wall_ns"] > 1_600_000_000 * 10 ** 9 and after["running"] in (0, 1)
                detail = f"before {before}, after {after}"
            except ScionError as e:
                ok, detail = False, str(e)
            ctx.result("monitor/clock-scale", ok, detail)
            status, out = client.request(99)
            ctx.result("request/unknown-op", status == -frame.C.ENOSYS and
                       out.decode("utf-8", "replace") == "unknown op 99", f"{status}: {out!r}")

            # 4. A stream: STREAM_OPEN's reply, chunks, STREAM_CLOSE's totals.
            chunks = []
            try:
                sid, cpus, bufsize = client.stream_open("monitor", 8192, 50, "",
                                                        lambda *c: chunks.append(c))
                client.pump(0.5)
                totals = client.stream_close(sid)
                ctx.result("stream/open-reply", sid >= 1 and cpus == 1 and bufsize == 8192,
                           f"stream {sid}, {cpus} CPUs, {bufsize} bytes")
                ctx.result("stream/close-totals", totals["frames"] == len(chunks) and
                           totals["bytes"] < (1 << 32) and totals["switches"] < 10 ** 6,
                           f"totals {totals}, {len(chunks)} chunks received")
                # The last chunk: the monitor's status (struct monitor_stream_status), ended.
                st_lay = layout("monitor_stream_status")
                last = chunks[-1] if chunks else None
                st = st_lay.unpack(last[3]) if last and last[0] == frame.CHUNK_STATUS and \
                    len(last[3]) == st_lay.size else {}
                ctx.result("stream/monitor-status-chunk", bool(st) and
                           st["version"] == frame.C.MONITOR_STREAM_VERSION and
                           st["ended"] == 1 and 1 <= st["sources"] < 1000 and
                           st["samples_written"] < 10 ** 9,
                           f"last chunk {last[:3] if last else None}: {st}")
            except ScionError as e:
                ctx.result("stream/open-reply", False, str(e))
        try:
            with Client(sock, version="not-this-build"):
                refused = ""
        except ScionError as e:
            refused = str(e)
        ctx.result("hello/mismatch-refused", refused.startswith(
            "version mismatch: host not-this-build, kernel ") and "\n" not in refused, refused)

        # 5. The host command prints the same STATUS.
        rc, out, err = scion_command(ctx, sock, "status", version=version)
        ctx.result("scion-status", rc == 0 and f"version: {version}" in out and "cpus: 1" in out
                   and re.search(r"^build: .*, sparc64$", out, re.M) is not None,
                   f"exit {rc}: {out}{err}")

        # 6. A malformed frame (header CRC wrong) on a raw socket: one ERROR line.
        s = socket.socket(socket.AF_UNIX)
        s.connect(sock)
        bad = bytearray(frame.encode_header(frame.REQUEST, 0x1234, 0))
        bad[-1] ^= 0xff
        s.sendall(bytes(bad))
        answers = read_frames(s, 2.0)
        s.close()
        errors = [f for f in answers if f.type == frame.ERROR]
        line = ""
        if len(errors) == 1:
            status, msg = frame.decode_status(errors[0].payload)
            line = msg.decode("utf-8", "replace")
        ctx.result("malformed/one-error-line", len(answers) == 1 and len(errors) == 1 and
                   errors[0].seq == 0 and status == -frame.C.EBADMSG and
                   line == "rejected frame: bad header CRC",
                   f"{[(f.type, f.seq, bytes(f.payload)) for f in answers]}")

        # 7. The channel after it.
        with Client(sock, version=version) as client:
            status, body = client.request(frame.OP_STATS)
            stats = layout("chan_channel_stats").unpack(body) if status == 0 else {}
            reject = frame.REJECT_CODES[frame.BAD_HEADER_CRC]
            ctx.result("after/stats-count-the-reject", stats.get("frames_rejected") == 1 and
                       stats["rejected"][reject] == 1 and stats["garbage_bytes"] == 0 and
                       stats["errors_sent"] >= 1 and stats["hellos"] >= 3,
                       f"{status}: {stats}")
            status, out = client.request(frame.OP_SHELL, b"uptime")
            ctx.result("after/shell", status == 0 and b"ticks at 100 Hz" in out, f"{status}: {out!r}")
            status, body = client.request(frame.OP_STATUS)
            ctx.result("after/status", status == 0 and len(body) == layout("chan_status").size and
                       layout("chan_status").unpack(body)["channel_frames_rejected"] == 1,
                       f"{status}, {len(body)} bytes")
        boot.command("uptime", r"up \S+")
        ctx.result("console-after", True)
        boot.command("poweroff", r"powering off")
    finally:
        boot.finish()
    status_ok = boot.status == machine.SPARC64_EXIT_POWEROFF
    ctx.result("poweroff-exit-status-0", status_ok,
               f"QEMU exit status {boot.status} (log: {boot.log_path})")
