#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""`make test`: run every test and end with one line `N passed, M failed`.

Groups:
  host         the host unit tests (build/host/unit-tests), one result per test
  integration  every job of tests/integration/test_*.py (found by name, never
               listed here): QEMU boots matched against expected and forbidden
               serial output; in-kernel test runs add one result per test line
Jobs run two at a time (the machine has two cores). Serial logs go to
build/test-logs/; a failure names its log, and the summary ends with the
last lines of every log a failed job wrote (CI machines may not keep them).
"""

import argparse
import concurrent.futures
import glob
import importlib.util
import os
import subprocess
import sys
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# How much of a failed job's serial log the summary prints (the whole log stays on disk).
LOG_TAIL_LINES = 40
# The folders tests import from (the QEMU harness, the host package, the
# tests' shared modules), set here once and in PYTHONPATH for the programs
# the tests start, so that no test edits sys.path.
IMPORT_PATHS = [os.path.join(ROOT, d) for d in ("qemu", "host", "tests/integration",
                                                  "tests/oneliners")]
sys.path[:0] = IMPORT_PATHS
os.environ["PYTHONPATH"] = os.pathsep.join(
    IMPORT_PATHS + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
import harness

# The jobs predate `scion daemon` and drive each guest's channel directly (their
# checks count the kernel's HELLOs, hold its lock, write raw frames to it);
# tests/integration/test_daemon.py sets SCION_NO_DAEMON=0 for the daemon's own.
os.environ.setdefault("SCION_NO_DAEMON", "1")


class Context:
    """What a job gets: paths, a way to boot, and a way to report results."""

    def __init__(self, build, kernel_dir, job):
        self.root = ROOT
        self.build = os.path.join(ROOT, build)
        # The test kernel (in-kernel tests, test.* graft points) and what
        # belongs to it; host tools, grafts and the disk are in build.
        self.kernel_dir = os.path.join(ROOT, kernel_dir)
        self.kernel_elf = os.path.join(self.kernel_dir, "kernel.elf")
        self.kernel32 = os.path.join(self.kernel_dir, "kernel32.elf")
        self.ksyms = os.path.join(self.kernel_dir, "kernel.syms")
        self.iso = os.path.join(self.kernel_dir, "scion.iso")
        self.disk = os.path.join(self.build, "disk.img")
        # The user programs (make userland) and the archive that carries them.
        self.userland = os.path.join(self.build, "userland")
        self.programs_archive = os.path.join(self.userland, "programs.cpio")
        self.log_dir = os.path.join(self.build, "test-logs")
        self.job = job
        self.results = []

    def boot(self, name, programs=None, **kw):
        """Boot the kernel (or kw's iso) with the test disk attached as a
        snapshot (writes are discarded) when it exists; disk=None boots
        without it. programs=True adds the program archive
        (build/userland/programs.cpio) as a module, programs=PATH that
        .cpio file (kernel boots only: an ISO carries its own)."""
        kw.setdefault("kernel", self.kernel32)
        if programs:
            path = self.programs_archive if programs is True else programs
            if not os.path.isfile(path):
                raise harness.BootError(f"no program archive {path} (make userland)")
            kw["modules"] = list(kw.get("modules") or ()) + [path]
        if "disk" not in kw and os.path.isfile(self.disk):
            kw.update(disk=self.disk, disk_snapshot=True)
        return harness.Boot(f"{self.job}-{name}", self.log_dir, **kw)

    def result(self, name, ok, detail=""):
        self.results.append((f"{self.job}/{name}", bool(ok), detail))

    def expect(self, name, boot, pattern):
        """A result that passes when pattern is in the boot's output."""
        import re
        ok = re.search(pattern, boot.output) is not None
        self.result(name, ok, "" if ok else f"'{pattern}' not in the output (log: {boot.log_path})")
        return ok


def host_results(build):
    binary = os.path.join(ROOT, build, "host", "unit-tests")
    proc = subprocess.run([binary], capture_output=True, text=True, timeout=600)
    results = []
    for line in proc.stdout.splitlines():
        if line.startswith("host ") and ": " in line:
            name, _, verdict = line[5:].partition(": ")
            results.append((f"host/{name}", verdict == "OK", verdict))
    if proc.returncode != 0 and all(ok for _, ok, _ in results):
        tail = (proc.stdout + proc.stderr).strip().splitlines()[-15:]
        results.append(("host/unit-tests-binary", False,
                        f"exit status {proc.returncode}:\n    " + "\n    ".join(tail)))
    return results


def discover_jobs():
    jobs = []
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "integration", "test_*.py"))):
        spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for name in sorted(dir(module)):
            if name.startswith("job_") and callable(getattr(module, name)):
                jobs.append((f"{module.__name__[5:]}.{name[4:]}", getattr(module, name)))
    return jobs


def run_job(build, kernel_dir, name, fn):
    ctx = Context(build, kernel_dir, name)
    started = time.monotonic()
    try:
        fn(ctx)
    except harness.BootError as e:
        ctx.result("boot", False, str(e))
    except Exception:
        ctx.result("harness", False, traceback.format_exc())
    if not ctx.results:
        ctx.result("ran", False, "the job reported no results")
    return name, ctx.results, time.monotonic() - started


def print_failed_logs(log_dir, jobs, since, lines=LOG_TAIL_LINES):
    """The end of every serial log a failed job wrote in this run: a CI
    machine may not keep build/test-logs, so its console output must."""
    for path in sorted(glob.glob(os.path.join(log_dir, "*.log"))):
        base = os.path.basename(path)
        if not any(base.startswith(job + "-") for job in jobs) or os.path.getmtime(path) < since:
            continue
        with open(path, errors="replace") as f:
            tail = f.read().splitlines()[-lines:]
        print(f"---- the last {len(tail)} lines of {path} ----")
        print("\n".join(tail))
        print(f"---- end of {base} ----")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--kernel-dir", help="the test kernel's folder (default: BUILD/test)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", help="run only integration jobs whose name contains this")
    ap.add_argument("--verbose", action="store_true", help="print every passing result too")
    args = ap.parse_args()
    kernel_dir = args.kernel_dir or os.path.join(args.build, "test")
    # `scion trace` names the test kernel's symbols, not the user kernel's.
    os.environ["SCION_KSYMS"] = os.path.join(ROOT, kernel_dir, "kernel.syms")

    run_started = time.time()
    results = []
    if not args.only:
        results += host_results(args.build)
        print(f"host unit tests: {sum(ok for _, ok, _ in results)} passed, "
              f"{sum(not ok for _, ok, _ in results)} failed", flush=True)
    jobs = [(n, f) for n, f in discover_jobs() if not args.only or args.only in n]
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(run_job, args.build, kernel_dir, n, f) for n, f in jobs]
        for fut in concurrent.futures.as_completed(futures):
            name, job_results, seconds = fut.result()
            failed = [r for r in job_results if not r[1]]
            print(f"{name}: {len(job_results) - len(failed)} passed, {len(failed)} failed "
                  f"({seconds:.1f} s)", flush=True)
            results += job_results
    for name, ok, detail in results:
        if not ok:
            print(f"FAILED {name}: {detail}")
        elif args.verbose:
            print(f"ok     {name}")
    print_failed_logs(os.path.join(ROOT, args.build, "test-logs"),
                      {name.split("/")[0] for name, ok, _ in results if not ok}, run_started)
    passed = sum(ok for _, ok, _ in results)
    failed = len(results) - passed
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
