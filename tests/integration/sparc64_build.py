# SPDX-License-Identifier: BSD-2-Clause
"""The sparc64 kernel built once for the jobs that need it, under a lock.

Jobs run two at a time; two `make ARCH=sparc64 kernel` runs in the same
build folder at once could write the same objects together, and a job
reading kernel.elf while another links it could read half a file. So
whoever builds it, or reads it, holds an exclusive lock on
BUILD/sparc64/.build.lock meanwhile (kernel_locked): build_kernel for
the kernel and the test kernel (`make ARCH=sparc64 BUILD=<build>/sparc64
[KERNEL_TESTS=yes] kernel`), which every sparc64 job goes through, and
build_grafts for the trusted grafts (`make ARCH=sparc64 ... grafts`)."""

import contextlib
import fcntl
import os
import subprocess


def sparc64_build_dir(ctx):
    """BUILD/sparc64, relative to the repository (as make wants it)."""
    return os.path.relpath(os.path.join(ctx.build, "sparc64"), ctx.root)


@contextlib.contextmanager
def kernel_locked(ctx):
    """Hold the sparc64 build folder's lock; yields the kernel's path."""
    build = sparc64_build_dir(ctx)
    os.makedirs(os.path.join(ctx.root, build), exist_ok=True)
    with open(os.path.join(ctx.root, build, ".build.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield os.path.join(ctx.root, build, "kernel.elf")
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _make_locked(ctx, targets, tests=False):
    """make ARCH=sparc64 TARGETS under the lock: (kernel path, '' or the
    failure's last lines)."""
    with kernel_locked(ctx) as kernel:
        proc = subprocess.run(["make", "--no-print-directory", "ARCH=sparc64",
                               f"BUILD={sparc64_build_dir(ctx)}"] +
                              (["KERNEL_TESTS=yes"] if tests else []) + targets,
                              cwd=ctx.root, capture_output=True, text=True, timeout=600)
    tail = "\n    ".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
    return kernel, (tail if proc.returncode else "")


def build_kernel(ctx, tests=False):
    """make ARCH=sparc64 kernel under the lock (tests: the test kernel,
    KERNEL_TESTS=yes, in BUILD/sparc64/test; both share BUILD/sparc64/obj):
    (kernel path, '' or the failure's last lines)."""
    kernel, failure = _make_locked(ctx, ["kernel"], tests=tests)
    if tests:
        kernel = os.path.join(os.path.dirname(kernel), "test", "kernel.elf")
    return kernel, failure


def build_grafts(ctx):
    """make ARCH=sparc64 grafts under the lock (the trusted grafts, the only
    ones the port builds): (BUILD/sparc64/grafts/trusted, '' or the failure's
    last lines)."""
    kernel, failure = _make_locked(ctx, ["grafts"])
    return os.path.join(os.path.dirname(kernel), "grafts", "trusted"), failure
