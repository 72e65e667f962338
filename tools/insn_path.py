#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Where a path's guest instructions go: boot the test kernel, run one
benchmark from its shell and single-step one call of a function inside
it through QEMU's gdbstub, then print the instructions per function in
the order the path reached them (and, with --trace, every instruction).

    tools/insn_path.py --bench context_switch --function thread_yield
    tools/insn_path.py --bench probe_hit --function pf_sum --skip 10100
    tools/insn_path.py --bench trace_pf_sum --function pf_sum \
        --trace 'fbt:kernel:pf_sum:entry { @ = count(); }'

The call is followed from the function's first instruction until it
returns to its caller on the same stack (or --max instructions): a call
that switches threads is followed through the other thread until it
comes back. --trace enables a D program through `scion trace` on the
control channel first, which stays enabled while the call is stepped.
QEMU steps with interrupts and timers held off, so the path
is the one the code takes without interruptions, which is what the
benchmarks' figures divide out. This is a tool for finding the
instructions `make bench` reports; the figures come from `make bench`.

gdb attaches only once the kernel runs in long mode (at its shell
prompt): attaching earlier would meet the 32-bit boot code, whose
register set gdb cannot switch from."""

import argparse
import bisect
import os
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "qemu"))
import harness  # noqa: E402
import machine  # noqa: E402

# `scion trace` has compiled and enabled its program by then (no console line says so).
TRACE_SETTLE_SECONDS = 15

# Runs inside gdb: stop in the benchmark, skip warm-up calls, step one call.
GDB_SCRIPT = r'''
import gdb
def reg(name):
    return int(gdb.parse_and_eval("$" + name)) & 0xffffffffffffffff
gdb.execute("set pagination off")
gdb.execute("set confirm off")
gdb.execute("target remote 127.0.0.1:%(port)d")
gdb.execute("break %(bench)s")
open(%(ready)r, "w").close()
gdb.execute("continue")
gdb.execute("delete")
gdb.execute("break %(function)s")
if %(skip)d:
    gdb.execute("ignore 2 %(skip)d")
gdb.execute("continue")
gdb.execute("delete")
sp = reg("rsp")
ret = int(gdb.parse_and_eval("*(unsigned long *)$rsp")) & 0xffffffffffffffff
with open(%(out)r, "w") as out:
    for _ in range(%(max)d):
        pc = reg("pc")
        if pc == ret and reg("rsp") > sp:
            break
        out.write("%%x\n" %% pc)
        gdb.execute("stepi", to_string=True)
gdb.execute("kill")
'''


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def load_symbols(nm_path):
    """Function symbols from `nm -S` output, sorted: (addresses, names)."""
    syms = []
    with open(nm_path) as f:
        for line in f:
            parts = line.split()  # address [size] type name
            if len(parts) in (3, 4) and parts[-2] in ("t", "T", "w", "W"):
                syms.append((int(parts[0], 16), parts[-1]))
    syms.sort()
    return [a for a, _ in syms], [n for _, n in syms]


def name_of(addrs, names, pc):
    i = bisect.bisect_right(addrs, pc) - 1
    return (names[i], pc - addrs[i]) if i >= 0 else ("?", pc)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernel-dir", default=os.path.join(ROOT, "build", "test"))
    ap.add_argument("--bench", required=True, help="the benchmark (BENCH name) to run")
    ap.add_argument("--function", required=True, help="the function whose call is stepped")
    ap.add_argument("--skip", type=int, default=20, help="calls to let run first (warm-up)")
    ap.add_argument("--max", type=int, default=20000, help="instructions to step at most")
    ap.add_argument("--smp", type=int, default=1)
    ap.add_argument("--disk", help="a raw disk image (a snapshot), for benchmarks that read one")
    ap.add_argument("--trace", metavar="PROGRAM", help="a D program enabled meanwhile")
    ap.add_argument("--show", action="store_true", help="print every instruction")
    args = ap.parse_args()

    kernel = os.path.join(args.kernel_dir, "kernel32.elf")
    elf = os.path.join(args.kernel_dir, "kernel.elf")
    addrs, names = load_symbols(os.path.join(args.kernel_dir, "kernel.syms"))
    port = free_port()
    tmp = tempfile.mkdtemp(prefix="insn-path-")
    out, ready = os.path.join(tmp, "pcs"), os.path.join(tmp, "ready")
    script = os.path.join(tmp, "step.py")
    with open(script, "w") as f:
        f.write(GDB_SCRIPT % {"port": port, "bench": "bench_" + args.bench, "ready": ready,
                              "function": args.function, "skip": args.skip, "out": out,
                              "max": args.max})
    sock = os.path.join(tmp, "control.sock")
    # The kernel's build, for the control channel's handshake (version.txt beside it).
    with open(os.path.join(os.path.dirname(os.path.abspath(args.kernel_dir)), "version.txt")) as f:
        version = f.readline().strip()
    argv = machine.qemu_command(kernel=kernel, smp=args.smp, icount=True, control_socket=sock,
                                disk=args.disk, disk_snapshot=bool(args.disk))
    argv += ["-gdb", f"tcp:127.0.0.1:{port}"]
    boot = harness.Boot("insn-path", tmp, timeout=600, argv=argv)
    tracer = None
    try:
        boot.wait_for(r"scion> ")
        if args.trace:
            tracer = subprocess.Popen([sys.executable, os.path.join(ROOT, "host", "scion"),
                                       "--socket", sock, "trace", "-q", "-x", "bufsize=128k",
                                       "-n", args.trace], stdout=subprocess.DEVNULL,
                                      env=dict(os.environ, SCION_HOST_VERSION=version,
                                               SCION_KSYMS=os.path.join(args.kernel_dir,
                                                                        "kernel.syms")))
            time.sleep(TRACE_SETTLE_SECONDS)
            if tracer.poll() is not None:
                sys.exit(f"insn_path: scion trace ended (status {tracer.returncode})")
        gdb = subprocess.Popen(["gdb", "-q", "-nx", "-batch", elf, "-x", script],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        while not os.path.exists(ready) and gdb.poll() is None:
            time.sleep(0.1)
        boot.send(f"bench {args.bench}\n")
        _, err = gdb.communicate(timeout=600)
    finally:
        if tracer:
            tracer.kill()
        boot.kill()
    if not os.path.exists(out):
        sys.exit(f"insn_path: gdb did not step the call: {err.strip()[-400:]}")
    pcs = [int(line, 16) for line in open(out)]
    order, counts = [], {}
    for pc in pcs:
        fn, off = name_of(addrs, names, pc)
        if args.show:
            print(f"  {pc:#x} {fn}+{off:#x}")
        if fn not in counts:
            order.append(fn)
            counts[fn] = 0
        counts[fn] += 1
    for fn in order:
        print(f"{counts[fn]:6} {fn}")
    print(f"{len(pcs):6} instructions in one call of {args.function} "
          f"({'stopped at --max' if len(pcs) >= args.max else 'returned'})")


if __name__ == "__main__":
    main()
