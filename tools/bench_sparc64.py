# SPDX-License-Identifier: BSD-2-Clause
"""The sparc64 section of `make bench`: what a probe hit costs on sun4u,
beside the x86 run's figures of the same names.

The sparc64 test kernel boots under `-icount shift=4,sleep=off`: each
guest instruction advances QEMU's virtual clock by 2^4 = 16 ns, and sun4u's
%tick counts at 100 MHz (10 ns), so a figure of T ticks is T * 10 / 16
guest instructions, to within one (a figure is a mean over 1000 calls).
(shift=0 would give one tick per ten instructions.) The figures come over
the control channel's bench stream (the second EBus UART), as on x86;
values are converted and reported in guest instructions, the raw ticks
kept beside them."""

import os
import subprocess
import sys

import bench_boot
import harness  # noqa: E402  (bench_boot set the path)
import machine  # noqa: E402
from scionhost import bench as kernel_bench  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ICOUNT_SHIFT = 4
NS_PER_INSTRUCTION = 1 << ICOUNT_SHIFT
NS_PER_TICK = 10                # %tick at 100 MHz (sun4u under QEMU)
RUN_TIMEOUT = 300
SELECTOR = "probe_hit"
# The figures compared with the x86 run's (bench.py's smp1 configuration).
COMPARED = ("probe.call.unprobed", "probe.hit.inline_counter", "probe.hit.springboard_counter",
            "probe.hit.jump_empty_handler", "probe.hit.springboard_empty_handler",
            "probe.hit.breakpoint_empty_handler", "probe.hit.jump_record")


def build_kernel():
    """The sparc64 test kernel (built under make's own rules); its path."""
    subprocess.run(["make", "--no-print-directory", "-s", "ARCH=sparc64", "KERNEL_TESTS=yes",
                    "kernel"], cwd=ROOT, check=True)
    return os.path.join(ROOT, "build", "sparc64", "test", "kernel.elf")


def probe_bench(out_dir, x86_run=None):
    """Boot the sparc64 test kernel under icount, run the probe benchmarks over
    the channel: the results.json section (with the x86 figures beside)."""
    kernel = build_kernel()
    sock = os.path.join(out_dir, "bench-sparc64.sock")
    if os.path.exists(sock):
        os.unlink(sock)
    argv = machine.sparc64_qemu_command(kernel, "", control_socket=sock) + [
        "-icount", f"shift={ICOUNT_SHIFT},sleep=off"]
    b = harness.Boot("bench-sparc64", out_dir, timeout=600, argv=argv)
    # The host speaks as the sparc64 build (its version.txt), not the x86 one.
    saved = os.environ.get("SCION_HOST_VERSION")
    with open(os.path.join(os.path.dirname(kernel), "..", "version.txt")) as f:
        os.environ["SCION_HOST_VERSION"] = f.read().strip()
    try:
        with bench_boot.session(b, sock) as c:
            version = bench_boot.kernel_version(c)
            items, _ = kernel_bench.run(c, SELECTOR, timeout=RUN_TIMEOUT)
    finally:
        bench_boot.power_off(b)
        if saved is None:
            del os.environ["SCION_HOST_VERSION"]
        else:
            os.environ["SCION_HOST_VERSION"] = saved
    x86 = {f["figure"]: f["value"] for f in (x86_run or {}).get("figures", [])}
    figures = []
    for f in kernel_bench.figures(items):
        if f["unit"] != "cycles":
            continue
        figures.append({"figure": f["figure"], "ticks": f["value"],
                        "value": round(f["value"] * NS_PER_TICK / NS_PER_INSTRUCTION, 1),
                        "unit": "guest instructions", "x86": x86.get(f["figure"])})
    if not figures:
        sys.exit(f"bench: no figures from the sparc64 boot (log: {b.log_path})")
    return {
        "config": {"machine": "qemu-system-sparc64 -M sun4u (OpenBIOS), 1 CPU",
                   "icount": f"shift={ICOUNT_SHIFT},sleep=off",
                   "conversion": f"instructions = %tick ticks * {NS_PER_TICK} / "
                                 f"{NS_PER_INSTRUCTION}",
                   "benchmarks": SELECTOR, "x86_beside": "the smp1 run's figures"},
        "kernel_version": version,
        "figures": figures,
        "log": os.path.relpath(b.log_path, ROOT),
    }


def print_section(section):
    print(f"\nsparc64 probe hits ({section['config']['machine']}, -icount "
          f"{section['config']['icount']}; guest instructions, x86 smp1 beside):")
    for f in section["figures"]:
        x86 = f["x86"] if f["x86"] is not None else "-"
        print(f"  {f['figure']:40} {f['value']:>8} {x86:>8}   ({f['ticks']} ticks)")
