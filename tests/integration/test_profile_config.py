# SPDX-License-Identifier: BSD-2-Clause
"""The profile configuration file: kernel/include/scion/profile_config.h
and its Python spelling (host/scionhost/profile/config.py) agree, and the
reader refuses every malformed or out-of-range file with one line.

  layout   a host C program including the header prints the size of each
           struct and the offset and size of each field Python names, and
           every constant; all must equal Python's.
  checks   a configuration encoded and decoded again is unchanged; then one
           file per check of the header, each broken in that one way (the
           CRC recomputed, so the check itself is reached), must be refused
           naming it, `scion profile config show` saying it in one line.
"""

import os
import struct
import subprocess
import sys
import tempfile
import zlib

from scionhost.profile import config

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SCION = os.path.join(ROOT, "host", "scion")
CONSTANTS = {"PROFILE_CONFIG_MAGIC": config.MAGIC, "PROFILE_CONFIG_VERSION": config.VERSION,
             "PROFILE_NAME_MAX": config.NAME_MAX, "PROFILE_MACHINE_MAX": config.MACHINE_MAX,
             "PROFILE_VALUE_SCALE": config.VALUE_SCALE,
             "PROFILE_MAX_RESOURCES": config.MAX_RESOURCES,
             "PROFILE_MAX_BUCKETS": config.MAX_BUCKETS, "PROFILE_DAY_MS": config.DAY_MS,
             "PROFILE_MIN_INTERVAL_MS": config.MIN_INTERVAL_MS,
             "PROFILE_MAX_INTERVAL_MS": config.MAX_INTERVAL_MS,
             "PROFILE_KIND_GAUGE": config.KIND_GAUGE, "PROFILE_KIND_COUNTER": config.KIND_COUNTER,
             "PROFILE_SCOPE_GLOBAL": config.SCOPE_GLOBAL, "PROFILE_SCOPE_CPU": config.SCOPE_CPU,
             "PROFILE_SCOPE_THREAD": config.SCOPE_THREAD,
             "PROFILE_FLAG_BANDED": config.FLAG_BANDED, "PROFILE_FLAGS_KNOWN": config.FLAGS_KNOWN}


def python_layout():
    """{(struct, field): (offset, size)} and {struct: size} from config.py."""
    fields, sizes = {}, {}
    for name, layout in config.LAYOUTS.items():
        offset = 0
        for field, code in layout:
            size = struct.calcsize("<" + code)
            fields[(name, field)] = (offset, size)
            offset += size
        sizes[name] = offset
    return fields, sizes


def c_program():
    lines = ['#include <stdio.h>', '#include <stddef.h>', '#include "scion/profile_config.h"',
             "int main(void)", "{"]
    for name, layout in config.LAYOUTS.items():
        lines.append(f'\tprintf("size {name} %zu\\n", sizeof(struct {name}));')
        for field, _ in layout:
            lines.append(f'\tprintf("field {name} {field} %zu %zu\\n", '
                         f'offsetof(struct {name}, {field}), '
                         f'sizeof(((struct {name} *)0)->{field}));')
    for const in CONSTANTS:
        lines.append(f'\tprintf("const {const} %llu\\n", (unsigned long long)({const}));')
    lines += ["\treturn 0;", "}"]
    return "\n".join(lines) + "\n"


def job_layout(ctx):
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = os.path.join(tmp, "layout.c"), os.path.join(tmp, "layout")
        with open(src, "w") as f:
            f.write(c_program())
        proc = subprocess.run(["gcc", "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-I",
                               os.path.join(ROOT, "kernel", "include"), "-o", exe, src],
                              capture_output=True, text=True)
        ctx.result("compiles", proc.returncode == 0, proc.stderr)
        if proc.returncode:
            return
        out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    fields, sizes = python_layout()
    c_fields, c_sizes, c_consts = {}, {}, {}
    for line in out.splitlines():
        w = line.split()
        if w[0] == "size":
            c_sizes[w[1]] = int(w[2])
        elif w[0] == "field":
            c_fields[(w[1], w[2])] = (int(w[3]), int(w[4]))
        else:
            c_consts[w[1]] = int(w[2])
    for name in sizes:
        ctx.result(f"size/{name}", c_sizes.get(name) == sizes[name],
                   f"C {c_sizes.get(name)}, Python {sizes[name]}")
    bad = [f"{k}: C {c_fields.get(k)}, Python {v}" for k, v in fields.items()
           if c_fields.get(k) != v]
    ctx.result("field-offsets", not bad, "; ".join(bad))
    bad = [f"{k}: C {c_consts.get(k)}, Python {v}" for k, v in CONSTANTS.items()
           if c_consts.get(k) != v]
    ctx.result("constants", not bad, "; ".join(bad))
    ctx.result("struct-sizes-match-python-structs", (config.HEADER.size, config.RESOURCE.size,
                                                     config.BUCKET.size) == tuple(sizes.values()))


def sample():
    nb = 96
    return {"machine": "m1", "valid_day": __import__("datetime").date(2024, 3, 15),
            "generated": 1710460800, "bucket_ms": 900000, "burst_every_s": 3600,
            "burst_ms": 500, "resources": [
                {"name": "cpu.busy", "kind": "counter", "scope": "cpu", "interval_ms": 100,
                 "window_ms": 60000, "duration_ms": 600000,
                 "buckets": [(1000 * b, 500 * b, 1500 * b + 1) for b in range(nb)]},
                {"name": "thread.cpu", "kind": "counter", "scope": "thread",
                 "interval_ms": 10000, "window_ms": 60000, "duration_ms": 600000,
                 "buckets": None}]}


def patched(data, offset, fmt, value, fix_crc=True):
    b = bytearray(data)
    struct.pack_into("<" + fmt, b, offset, value)
    if fix_crc:
        struct.pack_into("<I", b, config.CRC_OFFSET, 0)
        struct.pack_into("<I", b, config.CRC_OFFSET, zlib.crc32(bytes(b)))
    return bytes(b)


def with_crc(b):
    b = bytearray(b)
    struct.pack_into("<I", b, config.CRC_OFFSET, 0)
    struct.pack_into("<I", b, config.CRC_OFFSET, zlib.crc32(bytes(b)))
    return bytes(b)


def job_checks(ctx):
    good = config.encode(sample())
    cfg = config.decode(good)
    back = config.encode(dict(sample(), resources=[
        {k: r[k] for k in ("name", "kind", "scope", "interval_ms", "window_ms", "duration_ms",
                           "buckets")} for r in cfg["resources"]]))
    ctx.result("round-trip", back == good and cfg["resources"][0]["buckets"][3] == (3000, 1500,
                                                                                   4501))
    h = config.HEADER.size
    r0, r1 = h, h + config.RESOURCE.size
    b0 = h + 2 * config.RESOURCE.size
    off = {f: config.struct.calcsize("<" + "".join(c for _, c in config.HEADER_FIELDS[:i]))
           for i, (f, _) in enumerate(config.HEADER_FIELDS)}
    name = bytearray(good)
    name[r0:r0 + 32] = b"x" * 32
    dup = bytearray(good)
    dup[r1:r1 + 32] = dup[r0:r0 + 32]
    cases = [
        ("short", good[:40], "shorter than the 96-byte header"),
        ("magic", patched(good, 0, "I", 0x12345678), "not a profile configuration"),
        ("version", patched(good, off["version"], "H", 2), "version 2"),
        ("record-size", patched(good, off["bucket_size"], "H", 16), "record sizes"),
        ("scale", patched(good, off["value_scale"], "I", 100), "value scale 100"),
        ("no-resources", patched(good, off["resource_count"], "I", 0), "0 resources"),
        ("too-many", patched(good, off["resource_count"], "I", 257), "257 resources"),
        ("buckets", patched(good, off["bucket_ms"], "I", 600000), "do not make a day"),
        ("truncated", good[:-24], "truncated or padded"),
        ("padded", good + b"\0" * 8, "truncated or padded"),
        ("crc", patched(good, b0 + 8, "q", 7, fix_crc=False), "crc32"),
        ("reserved", patched(good, off["reserved"], "I", 1), "reserved"),
        ("name-no-nul", with_crc(name), "not NUL-terminated"),
        ("name-twice", with_crc(dup), "named twice"),
        ("kind", patched(good, r0 + 44, "B", 9), "unknown"),
        ("flags", patched(good, r0 + 46, "H", 0x80), "unknown"),
        ("interval-zero", patched(good, r0 + 32, "I", 0), "out of range"),
        ("window-below-interval", patched(good, r0 + 36, "I", 50), "out of range"),
        ("duration-below-window", patched(good, r0 + 40, "I", 1000), "out of range"),
        ("band-order", patched(good, b0 + 24 * 5 + 8, "q", 10**9), "bucket 5"),
        ("negative", patched(good, b0 + 24 * 2 + 8, "q", -1), "bucket 2"),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for label, data, words in cases:
            try:
                config.decode(data, "f.cfg")
                msg = None
            except config.ProfileError as e:
                msg = str(e)
            ctx.result(f"refused/{label}", msg is not None and words in msg
                       and msg.startswith("f.cfg: refused: ") and "\n" not in msg, str(msg))
        path = os.path.join(tmp, "bad.cfg")
        with open(path, "wb") as f:
            f.write(cases[1][1])
        proc = subprocess.run([sys.executable, SCION, "profile", "config", "show", path],
                              capture_output=True, text=True)
        ctx.result("show-refuses-in-one-line", proc.returncode == 1 and proc.stderr.count("\n")
                   == 1 and "not a profile configuration" in proc.stderr, proc.stderr)
        with open(path, "wb") as f:
            f.write(good)
        proc = subprocess.run([sys.executable, SCION, "profile", "config", "show", path],
                              capture_output=True, text=True)
        ctx.result("show", proc.returncode == 0 and "cpu.busy" in proc.stdout
                   and "valid 2024-03-15" in proc.stdout and "(no bands)" in proc.stdout,
                   proc.stdout[:400] + proc.stderr)
