# SPDX-License-Identifier: BSD-2-Clause
"""The profile configuration file of kernel/include/scion/profile_config.h:
encode() turns the nightly analysis's next-day profile into the file,
decode()/read() check a file exactly as the kernel does and return it, and
show() prints it for people (`scion profile config show FILE`). The
layout and the constants are the header's, as the build generates them
(tools/gen_layouts.py, host/scionhost/layouts.py); nothing here spells
an offset.

decode() refuses a file with one line naming the first check that fails,
in the header's order, so the Python reader predicts the kernel's
verdict on any file.
"""

import datetime
import struct
import zlib

from ..layouts import C, layout
from .db import ProfileError

MAGIC = C.PROFILE_CONFIG_MAGIC
VERSION = C.PROFILE_CONFIG_VERSION
NAME_MAX = C.PROFILE_NAME_MAX
VALUE_SCALE = C.PROFILE_VALUE_SCALE
MAX_RESOURCES = C.PROFILE_MAX_RESOURCES
MAX_BUCKETS = C.PROFILE_MAX_BUCKETS
DAY_MS = C.PROFILE_DAY_MS
MIN_INTERVAL_MS = C.PROFILE_MIN_INTERVAL_MS
MAX_INTERVAL_MS = C.PROFILE_MAX_INTERVAL_MS
FLAG_BANDED = C.PROFILE_FLAG_BANDED
FLAGS_KNOWN = C.PROFILE_FLAGS_KNOWN
KINDS = {"gauge": C.PROFILE_KIND_GAUGE, "counter": C.PROFILE_KIND_COUNTER}
SCOPES = {"global": C.PROFILE_SCOPE_GLOBAL, "cpu": C.PROFILE_SCOPE_CPU,
          "thread": C.PROFILE_SCOPE_THREAD}
HEADER = layout("profile_config_header")
RESOURCE = layout("profile_config_resource")
BUCKET = layout("profile_config_bucket")
BUCKET_STRUCT = BUCKET.ordered("expected", "low", "high")
CRC_OFFSET, CRC_CODE = next((offset, code) for name, offset, code, _ in HEADER.fields
                            if name == "crc32")
CRC = struct.Struct("<" + CRC_CODE)         # the header's crc32 member, as the header types it


def scaled(value):
    return int(round(value * VALUE_SCALE))


def day_seconds(day):
    return int(datetime.datetime.combine(day, datetime.time()).replace(
        tzinfo=datetime.timezone.utc).timestamp())


def encode(cfg):
    """cfg: {machine, valid_day (date), generated (s), bucket_ms, burst_every_s, burst_ms,
    resources: [{name, kind, scope, interval_ms, window_ms, duration_ms,
    buckets: [(expected, low, high)] scaled integers, or None}]} -> bytes."""
    resources = cfg["resources"]
    for r in resources:
        if not 0 < len(r["name"].encode()) < NAME_MAX:
            raise ProfileError(f"resource name {r['name']!r}: 1 to {NAME_MAX - 1} bytes")
    nb = DAY_MS // cfg["bucket_ms"]
    total = HEADER.size + len(resources) * (RESOURCE.size + nb * BUCKET.size)
    body = bytearray()
    for r in resources:
        body += RESOURCE.pack(name=r["name"].encode(), interval_ms=r["interval_ms"],
                              window_ms=r["window_ms"], duration_ms=r["duration_ms"],
                              kind=KINDS[r["kind"]], scope=SCOPES[r["scope"]],
                              flags=FLAG_BANDED if r["buckets"] else 0)
    for r in resources:
        for e, lo, hi in (r["buckets"] or [(0, 0, 0)] * nb):
            body += BUCKET_STRUCT.pack(e, lo, hi)
    header = HEADER.pack(magic=MAGIC, version=VERSION, header_size=HEADER.size,
                         resource_size=RESOURCE.size, bucket_size=BUCKET.size,
                         resource_count=len(resources), bucket_count=nb,
                         bucket_ms=cfg["bucket_ms"], value_scale=VALUE_SCALE, total_size=total,
                         valid_day=day_seconds(cfg["valid_day"]), generated=int(cfg["generated"]),
                         burst_every_s=cfg["burst_every_s"], burst_ms=cfg["burst_ms"],
                         machine=cfg["machine"].encode()[:C.PROFILE_MACHINE_MAX - 1])
    data = bytearray(header) + body
    CRC.pack_into(data, CRC_OFFSET, zlib.crc32(bytes(data)))
    return bytes(data)


def name_of(raw, what):
    """A NUL-padded name, or ValueError saying what is wrong with it."""
    text, nul, rest = raw.partition(b"\0")
    if not nul:
        raise ValueError(f"{what}: not NUL-terminated within {len(raw)} bytes")
    if not text or not all(0x20 < c < 0x7f for c in text):
        raise ValueError(f"{what}: empty or not printable ({text!r})")
    if rest.strip(b"\0"):
        raise ValueError(f"{what}: bytes after the NUL are not zero")
    return text.decode()


def decode(data, where="profile configuration"):
    """Check data as the kernel does; the configuration as a dict, or ProfileError."""
    def bad(text):
        return ProfileError(f"{where}: refused: {text}")

    if len(data) < HEADER.size:
        raise bad(f"{len(data)} bytes, shorter than the {HEADER.size}-byte header")
    h = HEADER.unpack(data)
    checks = [
        (h["magic"] == MAGIC, f"magic {h['magic']:#010x}, not {MAGIC:#010x} (not a profile "
                              f"configuration)"),
        (h["version"] == VERSION, f"version {h['version']}, this reader knows {VERSION}"),
        (h["header_size"] == HEADER.size and h["resource_size"] == RESOURCE.size
         and h["bucket_size"] == BUCKET.size,
         f"record sizes {h['header_size']}/{h['resource_size']}/{h['bucket_size']}, not "
         f"{HEADER.size}/{RESOURCE.size}/{BUCKET.size}"),
        (h["value_scale"] == VALUE_SCALE, f"value scale {h['value_scale']}, not {VALUE_SCALE}"),
        (1 <= h["resource_count"] <= MAX_RESOURCES,
         f"{h['resource_count']} resources (1 to {MAX_RESOURCES})"),
        (1 <= h["bucket_count"] <= MAX_BUCKETS and h["bucket_count"] * h["bucket_ms"] == DAY_MS,
         f"{h['bucket_count']} buckets of {h['bucket_ms']} ms do not make a day"),
    ]
    for ok, text in checks:
        if not ok:
            raise bad(text)
    n, nb = h["resource_count"], h["bucket_count"]
    size = HEADER.size + n * (RESOURCE.size + nb * BUCKET.size)
    if h["total_size"] != len(data) or size != len(data):
        raise bad(f"{len(data)} bytes, but total_size says {h['total_size']} and the counts "
                  f"{size} (truncated or padded)")
    zeroed = bytearray(data)
    CRC.pack_into(zeroed, CRC_OFFSET, 0)
    if zlib.crc32(bytes(zeroed)) != h["crc32"]:
        raise bad(f"crc32 {h['crc32']:#010x} does not match the contents "
                  f"({zlib.crc32(bytes(zeroed)):#010x})")
    if h["reserved"]:
        raise bad("reserved header field is not zero")
    try:
        h["machine"] = name_of(h["machine"], "machine name")
    except ValueError as e:
        raise bad(str(e))
    resources, seen = [], set()
    for i in range(n):
        r = RESOURCE.unpack(data, HEADER.size + i * RESOURCE.size)
        try:
            r["name"] = name_of(r["name"], f"resource {i} name")
        except ValueError as e:
            raise bad(str(e))
        what = f"resource {i} ({r['name']})"
        if r["name"] in seen:
            raise bad(f"{what}: named twice")
        seen.add(r["name"])
        if r["kind"] not in KINDS.values() or r["scope"] not in SCOPES.values() \
                or r["flags"] & ~FLAGS_KNOWN:
            raise bad(f"{what}: kind {r['kind']}, scope {r['scope']} or flags {r['flags']:#x} "
                      f"unknown")
        if not (MIN_INTERVAL_MS <= r["interval_ms"] <= MAX_INTERVAL_MS
                and r["interval_ms"] <= r["window_ms"] <= r["duration_ms"] <= DAY_MS):
            raise bad(f"{what}: interval {r['interval_ms']} ms, window {r['window_ms']} ms, "
                      f"duration {r['duration_ms']} ms out of range (interval {MIN_INTERVAL_MS}.."
                      f"{MAX_INTERVAL_MS} <= window <= duration <= a day)")
        base = HEADER.size + n * RESOURCE.size + i * nb * BUCKET.size
        buckets = [BUCKET_STRUCT.unpack_from(data, base + b * BUCKET.size) for b in range(nb)]
        if r["flags"] & FLAG_BANDED:
            for b, (e, lo, hi) in enumerate(buckets):
                if not 0 <= lo <= e <= hi:
                    raise bad(f"{what}: bucket {b}: expected {e}, band {lo}..{hi} (needs "
                              f"0 <= low <= expected <= high)")
        r["kind"] = next(k for k, v in KINDS.items() if v == r["kind"])
        r["scope"] = next(k for k, v in SCOPES.items() if v == r["scope"])
        r["buckets"] = buckets if r["flags"] & FLAG_BANDED else None
        resources.append(r)
    h["resources"] = resources
    return h


def read(path):
    try:
        with open(path, "rb") as f:
            data = f.read(HEADER.size + MAX_RESOURCES * (RESOURCE.size + MAX_BUCKETS
                                                         * BUCKET.size) + 1)
    except OSError as e:
        raise ProfileError(f"{path}: {e.strerror}")
    return decode(data, path)


def show(cfg, out):
    """The configuration for people: one line per resource, then its bands."""
    day = datetime.datetime.fromtimestamp(cfg["valid_day"], datetime.timezone.utc).date()
    made = datetime.datetime.fromtimestamp(cfg["generated"], datetime.timezone.utc)
    nb, bms = cfg["bucket_count"], cfg["bucket_ms"]
    out.write(f"profile configuration for {cfg['machine']}, valid {day}, written "
              f"{made:%Y-%m-%d %H:%M} UTC\n{len(cfg['resources'])} resources, {nb} buckets "
              f"of {bms // 60000} min, values in 1/{VALUE_SCALE} of the unit (per second for "
              f"counters), a 1 ms burst of {cfg['burst_ms']} ms every {cfg['burst_every_s']} s\n\n")
    out.write(f"{'resource':24} {'kind':8} {'scope':7} {'interval':>10} {'window':>8} "
              f"{'red flag':>9}  expected range over the day\n")
    for r in cfg["resources"]:
        if r["buckets"]:
            exp = [b[0] / VALUE_SCALE for b in r["buckets"]]
            rng = f"{min(exp):.6g} .. {max(exp):.6g}"
        else:
            rng = "(no bands)"
        out.write(f"{r['name']:24} {r['kind']:8} {r['scope']:7} {r['interval_ms']:>8} ms "
                  f"{r['window_ms'] // 1000:>6} s {r['duration_ms'] // 1000:>7} s  {rng}\n")
    for r in cfg["resources"]:
        if not r["buckets"]:
            continue
        out.write(f"\n{r['name']}: bucket start  expected  [low .. high]\n")
        for b, (e, lo, hi) in enumerate(r["buckets"]):
            t = b * bms // 60000
            out.write(f"  {t // 60:02d}:{t % 60:02d}  {e / VALUE_SCALE:.6g}  "
                      f"[{lo / VALUE_SCALE:.6g} .. {hi / VALUE_SCALE:.6g}]\n")
