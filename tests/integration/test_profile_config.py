# SPDX-License-Identifier: BSD-2-Clause
"""The profile configuration file (kernel/include/scion/profile_config.h,
read and written by host/scionhost/profile/config.py through the layouts
the build generates from the header; test_layouts.py checks those against
the compiler, the header included): the reader refuses every malformed or
out-of-range file with one line.

  checks   a configuration encoded and decoded again is unchanged; then one
           file per check of the header, each broken in that one way (the
           CRC recomputed, so the check itself is reached), must be refused
           naming it, `scion profile config show` saying it in one line.
"""

import datetime
import os
import struct
import subprocess
import sys
import tempfile
import zlib

from scionhost.profile import config

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SCION = os.path.join(ROOT, "host", "scion")


def sample():
    nb = 96
    return {"machine": "m1", "valid_day": datetime.date(2024, 3, 15),
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
        config.CRC.pack_into(b, config.CRC_OFFSET, 0)
        config.CRC.pack_into(b, config.CRC_OFFSET, zlib.crc32(bytes(b)))
    return bytes(b)


def with_crc(b):
    b = bytearray(b)
    config.CRC.pack_into(b, config.CRC_OFFSET, 0)
    config.CRC.pack_into(b, config.CRC_OFFSET, zlib.crc32(bytes(b)))
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
    off = {name: offset for name, offset, _, _ in config.HEADER.fields}
    roff = {name: offset for name, offset, _, _ in config.RESOURCE.fields}
    name = bytearray(good)
    name[r0:r0 + config.NAME_MAX] = b"x" * config.NAME_MAX
    dup = bytearray(good)
    dup[r1:r1 + config.NAME_MAX] = dup[r0:r0 + config.NAME_MAX]
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
        ("kind", patched(good, r0 + roff["kind"], "B", 9), "unknown"),
        ("flags", patched(good, r0 + roff["flags"], "H", 0x80), "unknown"),
        ("interval-zero", patched(good, r0 + roff["interval_ms"], "I", 0), "out of range"),
        ("window-below-interval", patched(good, r0 + roff["window_ms"], "I", 50), "out of range"),
        ("duration-below-window", patched(good, r0 + roff["duration_ms"], "I", 1000), "out of range"),
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
