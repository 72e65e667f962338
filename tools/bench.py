#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""`make bench`: boot benchmark configurations under QEMU with
-icount shift=0,sleep=off, where the guest's cycle counter counts guest
instructions exactly, run the kernel's benchmarks, print a table and
write every figure with its configuration to OUT/results.json.

Figures come from the kernel as records of the control channel's "bench"
stream (bench_boot.py, host/scionhost/bench.py), never from the console's
text; the stream's thread holds the channel while benchmarks run, so the
channel's own threads add no instruction to a figure."""

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
import bench_boot  # noqa: E402  (sets the import paths of qemu/ and host/)
import bench_trace  # noqa: E402
import bench_record  # noqa: E402
import bench_sfi  # noqa: E402
import bench_profile  # noqa: E402
import squid_study  # noqa: E402
import bench_linux  # noqa: E402
import bench_compare  # noqa: E402
import bench_scion  # noqa: E402
import bench_sparc64  # noqa: E402
import bench_adapt  # noqa: E402
import bench_goals  # noqa: E402
from scionhost import bench as kernel_bench  # noqa: E402
from scionhost import frame  # noqa: E402
from scionhost.layouts import layout  # noqa: E402

CONFIGS = [("smp1", 1), ("smp2", 2), ("smp4", 4)]
RUN_TIMEOUT = 500
BULK_REQUEST = layout("chan_bulk_request", "bytes")
DECODE_CORPUS = ["/usr/lib/x86_64-linux-gnu/libc.so.6", "/usr/bin/qemu-system-x86_64",
                 "/usr/lib/x86_64-linux-gnu/libcrypto.so.3", "/usr/bin/gdb"]

# Published figures Scion's are compared with (results.json "published").
VINO_SOURCE = ("https://usenix.org/legacy/publications/library/proceedings/osdi96/"
               "talk_slides/seltzer/seltzer.talk.html")
PUBLISHED = [{
    "system": "VINO (Seltzer, Endo, Small, Smith: Dealing with Disaster, OSDI 1996)",
    "source": VINO_SOURCE + " (slide 'Performance Overhead')",
    "unit": "microseconds on the authors' 1996 PC",
    "columns": ["read-ahead graft", "page-eviction graft", "scheduling graft", "encryption graft"],
    "figures": {"transaction begin": [36, 52, 38, 32], "transaction commit": [28, 34, 30, 32],
                "transaction abort": [29, 27, 33, 36], "graft lock": [33, 34, 33, 0],
                "indirection": [1, 1, 1, 0]},
    "compare_with": {"transaction begin + commit": "graft.call.empty_graft_txn minus "
                     "graft.call.ungrafted_point",
                     "transaction abort": "graft.abort.undo0 (begin + abort, no undo records)"},
}]


def figures_of(items):
    """The kernel's figures as results.json has them: the cycle counter counts guest
    instructions under icount."""
    return [{"figure": f["figure"], "value": f["value"],
             "unit": "guest instructions" if f["unit"] == "cycles" else f["unit"]}
            for f in kernel_bench.figures(items)]


def run_config(kernel, out_dir, name, smp, disk=None, programs=None):
    # The program archive: the syscall_probe benchmark runs userland/bench_getpid from it.
    modules = [programs] if programs and os.path.isfile(programs) else None
    b, sock = bench_boot.boot(f"bench-{name}", out_dir, kernel=kernel, smp=smp, icount=True,
                              timeout=600, disk=disk, disk_snapshot=True, modules=modules)
    try:
        with bench_boot.session(b, sock) as c:
            version = bench_boot.kernel_version(c)
            items, _ = kernel_bench.run(c, "", timeout=RUN_TIMEOUT)
    finally:
        bench_boot.power_off(b)
    cpus = [i["value"] for i in items if i["kind"] == "config" and i["name"] == "cpus"]
    if cpus != [smp]:
        sys.exit(f"bench: {name} ran on {cpus} CPUs, not {smp} (log: {b.log_path})")
    # Under icount an idle machine's clock jumps to the next timer: boot
    # phases that wait (timer calibration, CPU start-up) count waited
    # nanoseconds as instructions.
    figures = figures_of(items)
    if not figures:
        sys.exit(f"bench: no figures from {name} (log: {b.log_path})")
    return {
        "config": {"name": name, "smp": smp, "mem": "256M", "boot": "qemu -kernel (multiboot1)",
                   "accel": "tcg, single-threaded (implied by icount)",
                   "icount": "shift=0,sleep=off",
                   "disk": "virtio-blk, raw, snapshot=on" if disk else "none",
                   "programs": os.path.basename(programs) if modules else "none"},
        "kernel_version": version,
        "figures": figures,
        "log": os.path.relpath(b.log_path, ROOT),
    }


CHANNEL_ECHOES = 200
CHANNEL_BULK_WARMUP_BYTES = 64 << 10


# The control channel's devices (qemu/machine.py's channel=): how a figure's
# configuration names each, and the prefix of its figures' names.
# The bulk transfer is sized to take a good part of a second on each device, so
# that one descheduling of QEMU or the client on a busy host does not make the figure.
CHANNEL_DEVICES = {
    "virtio": ("virtio-console: virtio-serial-pci (modern), virtserialport 1, on a UNIX socket",
               "channel.", 32 << 20),
    "uart": ("COM2 16550 (FIFO on) on a UNIX socket", "channel.uart.", 1 << 20),
}


def channel_figures(c, prefix, bulk_bytes):
    """ECHO round trips and one BULK of bulk_bytes through session c, as figures
    named prefix + ..."""
    rtts = []
    for _ in range(CHANNEL_ECHOES):
        t0 = time.perf_counter()
        c.request(frame.OP_ECHO, b"x" * 16)
        rtts.append(time.perf_counter() - t0)
    # One untimed BULK first, as the ECHOs warm the request path: the
    # figure is the transfer's, not QEMU's first translation of its code.
    c.request(frame.OP_BULK, BULK_REQUEST.pack(bytes=CHANNEL_BULK_WARMUP_BYTES),
              on_data=lambda stream, data: None)
    got = [0]
    t0 = time.perf_counter()
    c.request(frame.OP_BULK, BULK_REQUEST.pack(bytes=bulk_bytes),
              on_data=lambda stream, data: got.__setitem__(0, got[0] + len(data)))
    seconds = time.perf_counter() - t0
    rtts.sort()
    return [
        {"figure": prefix + "echo_round_trip.median",
         "value": round(rtts[len(rtts) // 2] * 1e6), "unit": "microseconds (host)"},
        {"figure": prefix + "echo_round_trip.min", "value": round(rtts[0] * 1e6),
         "unit": "microseconds (host)"},
        {"figure": prefix + "bulk_guest_to_host", "value": round(got[0] / seconds / 1e6, 3),
         "unit": "MB/s (host)"},
    ]


def channel_bench(kernel, out_dir, channel="virtio"):
    """The control channel measured from the host (host time: the figure a
    user of `scion` sees): request round trip (ECHO of 16 bytes) and bulk
    throughput guest -> host (DATA frames), in one boot, over channel's
    device (CHANNEL_DEVICES: the virtio-console's figures are channel.*,
    the UART fallback's channel.uart.*): first in a session straight to
    the kernel (the channel's own cost), then through `scion daemon`
    (...daemon.*: what a `scion` command sees, one more hop each way)."""
    device, prefix, bulk_bytes = CHANNEL_DEVICES[channel]
    b, sock = bench_boot.boot(f"bench-channel-{channel}", out_dir, kernel=kernel, smp=1,
                              single_thread_tcg=True, timeout=300, channel=channel)
    try:
        with bench_boot.session(b, sock, direct=True) as c:
            bench_boot.kernel_version(c)        # booted and answering: then measure
            figures = channel_figures(c, prefix, bulk_bytes)
        with bench_boot.session(b, sock, direct=False) as c:
            figures += channel_figures(c, prefix + "daemon.", bulk_bytes)
    finally:
        bench_boot.power_off(b)
    return {
        "config": {"name": f"channel-{channel}", "smp": 1, "accel": "tcg, single-threaded",
                   "icount": "off", "device": device, "echo_bytes": 16,
                   "echoes": CHANNEL_ECHOES, "bulk_bytes": bulk_bytes,
                   "bulk_warmup_bytes": CHANNEL_BULK_WARMUP_BYTES,
                   "sessions": "direct (no daemon), then through scion daemon (.daemon.*)"},
        "figures": figures,
        "log": os.path.relpath(b.log_path, ROOT),
    }


def channel_benches(kernel, out_dir):
    """Both devices' figures: [virtio-console, UART]."""
    return [channel_bench(kernel, out_dir, channel) for channel in CHANNEL_DEVICES]


def print_channel(channels):
    for channel in channels:
        print(f"\ncontrol channel ({channel['config']['device']}, no icount, same run):")
        for fig in channel["figures"]:
            print(f"  {fig['figure']:40} {fig['value']:>10} {fig['unit']}")


def run_host_tool(argv, config, figures, settings):
    """Run a host benchmark tool and collect its output lines. figures maps
    a line's first word to (figure name from the words, unit), the value
    being the third word; settings maps a first word to (config key, index
    of the word holding an integer)."""
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    result = {"config": config, "figures": []}
    for line in out.splitlines():
        words = line.split()
        if words and words[0] in figures:
            name, unit = figures[words[0]]
            result["figures"].append({"figure": name(words), "value": float(words[2]),
                                      "unit": unit})
        elif words and words[0] in settings:
            key, index = settings[words[0]]
            config[key] = int(words[index])
    return result


def host_decode(tool):
    """Decode throughput of Scion's decoder and Zydis on the same corpus, same run."""
    files = [f for f in DECODE_CORPUS if os.path.isfile(f)]
    return run_host_tool(
        [tool] + files, {"corpus": files, "build": "gcc -O2, host-native"},
        {"decode": (lambda w: f"decode.{w[1]}", "instructions per second"),
         "ratio": (lambda w: "decode.scion_over_zydis", "ratio")},
        {"corpus": ("instructions", 5)})


def host_patch(tool):
    """Nanoseconds per call of a host function: plain, and through each patch
    tests/patch/bench_patch.c builds or holds (the kernel's one-handler and
    general paths, an inline counter, the floors)."""
    return run_host_tool(
        [tool], {"build": "gcc -O2 -mno-red-zone -no-pie, host-native, user mode; patches "
                          "from arch/x86/patch_emit.c and relocate.c without cli and sti; "
                          "floors emitted by the benchmark in the same area",
                 "method": "best of 5 rounds of back-to-back calls"},
        {"patch": (lambda w: f"patch.{w[1]}", "ns per call"),
         "ratio": (lambda w: f"patch.{w[1]}_over_plain", "ratio")},
        {"calls": ("calls_per_round", 1)})


def derive(run):
    """Ratios the issue asks for, from figures of the same run."""
    values = {f["figure"]: f["value"] for f in run["figures"]}
    single = values.get("probe.fbt_entry.enable_one_by_one_per_site")
    batched = values.get("probe.fbt_entry.enable_batched_per_site")
    if single and batched:
        run["figures"].append({"figure": "probe.fbt_entry.one_by_one_over_batched",
                               "value": round(single / batched, 3), "unit": "ratio"})


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--disk", help="raw disk image for the block benchmarks (a snapshot)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--decoder-bench", help="host decode benchmark tool")
    ap.add_argument("--patch-bench", help="host patch (probe hit) benchmark tool")
    ap.add_argument("--sim", help="the host simulator (build/host/scion-sim)")
    ap.add_argument("--programs", help="the program archive (build/userland/programs.cpio): "
                    "booted as a module, for the benchmarks that run user programs")
    ap.add_argument("--userland", help="the system call benchmark's static programs "
                    "(build/userland/): its Linux columns (bench_linux.py)")
    ap.add_argument("--linux-dir", default=os.path.join(ROOT, "build", "linux"),
                    help="where Debian's kernel for the Linux column is kept")
    ap.add_argument("--channel-only", action="store_true",
                    help="run only the control channel's figures (both devices), print them "
                         "and write OUT/channel.json")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.channel_only:
        channels = channel_benches(args.kernel, args.out)
        with open(os.path.join(args.out, "channel.json"), "w") as f:
            json.dump(channels, f, indent=2)
            f.write("\n")
        print_channel(channels)
        return
    # The last run's figures, which this run's are compared with (bench_goals.py).
    path = os.path.join(args.out, "results.json")
    prev_path = os.path.join(args.out, "results.prev.json")
    if os.path.exists(path):
        os.replace(path, prev_path)
    # `scion trace` names the benchmarked kernel's symbols (kernel.syms beside it).
    os.environ["SCION_KSYMS"] = os.path.join(os.path.dirname(os.path.abspath(args.kernel)),
                                             "kernel.syms")
    qemu_version = subprocess.run(["qemu-system-x86_64", "--version"], capture_output=True,
                                  text=True).stdout.splitlines()[0]
    runs = [run_config(args.kernel, args.out, name, smp, args.disk, args.programs)
            for name, smp in CONFIGS]
    for run in runs:
        derive(run)
    host = host_decode(args.decoder_bench) if args.decoder_bench else None
    patch = host_patch(args.patch_bench) if args.patch_bench else None
    channel, channel_uart = channel_benches(args.kernel, args.out)
    trace = bench_trace.trace_bench(args.kernel, args.out, args.programs)
    sim = bench_record.record_bench(args.sim, args.out) if args.sim else None
    sfi = bench_sfi.sfi_bench(args.kernel, args.disk, args.out) if args.disk else None
    profile = bench_profile.profile_bench(args.out)
    sparc64 = bench_sparc64.probe_bench(args.out, runs[0])
    adapt = (bench_adapt.adapt_bench(args.kernel, args.disk, args.sim, args.out)
             if args.disk and args.sim else None)
    squid = squid_study.bench_section(os.path.dirname(os.path.abspath(args.kernel)),
                                      os.path.join(args.out, "squid"))
    # The system call and file system figures side by side: Debian's Linux
    # (bench_linux.py, one boot for both) and Scion (bench_scion.py: the same
    # binaries through `scion exec`, a boot each, bench_fs's on the ext2 root).
    syscalls, fs = (bench_linux.sections(args.userland, args.linux_dir, args.out)
                    if args.userland else (None, None))
    if syscalls is not None:
        bench_scion.add_column(syscalls, args.kernel, args.userland, args.out)
    if fs is not None:
        bench_scion.add_column(fs, args.kernel, args.userland, args.out, kind="fs")
    results = {
        "generated": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "qemu": qemu_version,
        "machine": f"{platform.system()} {platform.machine()}",
        "note": "under -icount shift=0 the guest TSC advances one per guest instruction: "
                "values are guest instructions per operation, identical run to run; the "
                "kernel's figures come over the control channel (the bench stream), whose "
                "threads are held asleep while benchmarks run",
        "runs": runs,
        "host": host,
        "host_patch": patch,
        "channel": channel,
        "channel_uart": channel_uart,
        "trace": trace,
        "sim_host": sim,
        "sfi": sfi,
        "profile": profile,
        "squid": squid,
        "sparc64": sparc64,
        "adapt": adapt,
        "syscalls": syscalls,
        "fs": fs,
        "published": PUBLISHED,
    }
    bench_goals.annotate(results, prev_path)
    with open(path, "w") as f:
        json.dump(results, f, indent=2)
        f.write("\n")

    names = []
    for run in runs:
        for fig in run["figures"]:
            if fig["figure"] not in names:
                names.append(fig["figure"])
    header = f"{'figure (guest instructions per operation)':44}" + "".join(f"{r['config']['name']:>12}" for r in runs)
    print(header)
    print("-" * len(header))
    for n in names:
        row = f"{n:44}"
        for run in runs:
            v = [f["value"] for f in run["figures"] if f["figure"] == n]
            row += f"{v[0] if v else '-':>12}"
        print(row)
    if host:
        print(f"\nhost decode ({host['config'].get('instructions', '?')} instructions of "
              f"{len(host['config']['corpus'])} files, same run):")
        for fig in host["figures"]:
            print(f"  {fig['figure']:32} {fig['value']:>16,.3f} {fig['unit']}")
    if patch:
        print(f"\nhost probe hit ({patch['config'].get('calls_per_round', '?')} calls, best of 5, "
              f"same run):")
        for fig in patch["figures"]:
            print(f"  {fig['figure']:40} {fig['value']:>10,.3f} {fig['unit']}")
    print_channel([channel, channel_uart])
    bench_trace.print_trace(trace)
    if sim:
        bench_record.print_record(sim)
    if sfi:
        bench_sfi.print_sfi(sfi)
    bench_profile.print_profile(profile)
    bench_sparc64.print_section(sparc64)
    if adapt:
        bench_adapt.print_section(adapt)
    squid_study.print_bench(squid)
    if syscalls:
        bench_compare.print_table(syscalls)
    if fs:
        bench_compare.print_table(fs)
    print_published(runs[0])
    bench_goals.print_section(results)
    print(f"\n{qemu_version}; -icount shift=0,sleep=off; results in {path}")


def print_published(run):
    """Scion's transaction costs beside VINO's published ones."""
    fig = {f["figure"]: f["value"] for f in run["figures"]}
    for p in PUBLISHED:
        print(f"\n{p['system']}, {p['unit']}:")
        for name, values in p["figures"].items():
            print(f"  {name:22} " + " ".join(f"{v:>4}" for v in values) + f"   ({', '.join(p['columns'])})")
    txn = fig.get("graft.call.empty_graft_txn", 0) - fig.get("graft.call.ungrafted_point", 0)
    print(f"Scion ({run['config']['name']}, guest instructions): transaction begin + commit {txn}, "
          f"begin + abort {fig.get('graft.abort.undo0', '-')}, "
          f"abort with 10/100 undo records {fig.get('graft.abort.undo10', '-')}"
          f"/{fig.get('graft.abort.undo100', '-')}")


if __name__ == "__main__":
    main()
