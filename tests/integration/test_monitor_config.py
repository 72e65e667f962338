# SPDX-License-Identifier: BSD-2-Clause
"""Profile configurations loaded into a running kernel and the red flags
they raise (kernel/monitor/config.c, redflag.c), end to end:

- `scion profile config load FILE` with a file host/scionhost/profile/
  config.py wrote: one line saying what was loaded, `monitor config show`
  shows it;
- corrupt, truncated, empty, padded and oversized files: one line, exit
  status 1, and the configuration in force is still the one shown before;
- a band the machine cannot be in (mm.free expected 0): once the
  measurement thread samples, a D trace of monitor:::redflag sees the red
  flag with the source's name, value and band, the channel's events carry
  its line, and `monitor config show` counts it.
- the host's reader (config.decode) predicts the kernel's verdict on
  randomly damaged files, most with their CRC made right again so the
  checks behind it are reached.
The checks of every malformed file are the in-kernel tests'
(tests/kernel/test_monitor_config.c); this is the path a user takes.
"""

import datetime
import os
import random
import re
import subprocess
import sys
import zlib

from common import poweroff
from test_channel import channel_boot, scion

DAY = datetime.date(2026, 11, 25)
BUCKETS = 96
LOADED = re.compile(r"^profile config: loaded for 2026-11-25 \(machine itest\): 4 resources, "
                    r"96 buckets of 15 min, (\d+) intervals changed, 1 unknown$")
SHOWN = "profile config: for 2026-11-25 (machine itest)"
TRACE = ('monitor:::redflag { printf("redflag %c%c%c%c%c%c%c value %d expected %d band %d %d\\n", '
         '((char *)arg0)[0], ((char *)arg0)[1], ((char *)arg0)[2], ((char *)arg0)[3], '
         '((char *)arg0)[4], ((char *)arg0)[5], ((char *)arg0)[6], arg1, arg2, arg3, arg4); '
         'exit(0); }')


def configuration():
    """mm.free may never be above 0 (a red flag as soon as it is sampled for 200 ms)."""
    return {"machine": "itest", "valid_day": DAY, "generated": 1795478400, "bucket_ms": 900000,
            "burst_every_s": 3600, "burst_ms": 0, "resources": [
                {"name": "mm.free", "kind": "gauge", "scope": "global", "interval_ms": 50,
                 "window_ms": 100, "duration_ms": 200, "buckets": [(0, 0, 0)] * BUCKETS},
                {"name": "cpu.busy", "kind": "counter", "scope": "cpu", "interval_ms": 100,
                 "window_ms": 60000, "duration_ms": 600000,
                 "buckets": [(10 ** 12, 0, 10 ** 15)] * BUCKETS},
                {"name": "thread.cpu", "kind": "counter", "scope": "thread",
                 "interval_ms": 1000, "window_ms": 60000, "duration_ms": 600000,
                 "buckets": None},
                {"name": "nosuch.resource", "kind": "gauge", "scope": "global",
                 "interval_ms": 100, "window_ms": 100, "duration_ms": 100,
                 "buckets": [(5, 0, 10)] * BUCKETS}]}


def damaged(good, rng, config):
    """good with 1 to 3 bytes changed; the CRC recomputed three times in four."""
    data = bytearray(good)
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(data)) if rng.random() < 0.5 else rng.randrange(
            config.HEADER.size + 4 * config.RESOURCE.size)    # mostly header and resources
        data[at] = rng.randrange(256)
    if rng.random() < 0.75:
        config.CRC.pack_into(data, config.CRC_OFFSET, 0)
        config.CRC.pack_into(data, config.CRC_OFFSET, zlib.crc32(bytes(data)))
    return bytes(data)


def verdicts_agree(ctx, sock, good, config):
    """The kernel refuses exactly the damaged files config.decode refuses."""
    from scionhost import frame
    from scionhost.client import Client
    from scionhost.profile.db import ProfileError
    rng = random.Random(22)
    disagree, refused, lines_bad = [], 0, []
    with Client(sock, timeout=60, wait=60) as client:
        for i in range(200):
            data = damaged(good, rng, config)
            try:
                config.decode(data)
                host_ok = True
            except ProfileError:
                host_ok = False
            status, body = client.request(frame.OP_PROFILE_CONFIG, data)
            line = body.decode("utf-8", "replace")
            if status < 0 and "burst_ms" in line:
                continue        # the sampler's limit on bursts, not a check of the file
            refused += status < 0
            if (status >= 0) != host_ok:
                disagree.append(f"case {i}: kernel {line.strip()!r}, host "
                                f"{'accepts' if host_ok else 'refuses'}")
            if not line.startswith("profile config: ") or line.rstrip("\n").count("\n"):
                lines_bad.append(line)
    ctx.result("host-reader-predicts-kernel", not disagree and refused >= 50,
               f"{refused} refused; {disagree[:5]}")
    ctx.result("damaged-one-line", not lines_bad, repr(lines_bad[:3]))


def one_line(text):
    return text.count("\n") == 1 and text.endswith("\n")


def job_profile_config_load(ctx):
    from scionhost import frame
    from scionhost.profile import config

    good = config.encode(configuration())
    bad_crc = bytearray(good)
    bad_crc[len(good) // 2] ^= 0x40
    files = {"good": good, "crc": bytes(bad_crc), "truncated": good[:-1], "empty": b"",
             "padded": good + b"\0" * 100000,
             "oversized": good + b"\0" * (frame.MAX_PAYLOAD - len(good))}
    paths = {}
    os.makedirs(ctx.log_dir, exist_ok=True)
    for name, data in files.items():
        paths[name] = os.path.join(ctx.log_dir, f"{ctx.job}-{name}.cfg")
        with open(paths[name], "wb") as f:
            f.write(data)

    boot, sock = channel_boot(ctx, "config", smp=2, single_thread_tcg=True)
    try:
        rc, out, err = scion(ctx, sock, "shell", "monitor", "config", "show")
        ctx.result("none-at-boot", rc == 0 and "no profile configuration loaded" in out,
                   f"exit {rc}: {out}{err}")
        rc, out, err = scion(ctx, sock, "profile", "config", "load", paths["good"])
        m = LOADED.match(out.strip())
        ctx.result("load-one-line", rc == 0 and one_line(out) and m and not err and
                   int(m.group(1)) == 2, f"exit {rc}: {out!r} {err!r}")
        rc, shown, err = scion(ctx, sock, "shell", "monitor", "config", "show")
        rows = {line.split()[0]: line for line in shown.splitlines()[3:] if line.startswith("  ")}
        ctx.result("show", rc == 0 and shown.startswith(SHOWN) and
                   re.search(r"\s50\s+100\s+200\s+\d\d:\d\d 0.000 \[0.000, 0.000\]\s+0$",
                             rows.get("mm.free", "")) and
                   "(no bands)" in rows.get("thread.cpu", "") and
                   "(no such source)" in rows.get("nosuch.resource", ""), shown + err)

        refusals = {"crc": "crc32", "truncated": "the file has", "empty": "0 bytes, shorter",
                    "padded": "the file has", "oversized": "the control channel carries at most"}
        for name, says in refusals.items():
            rc, out, err = scion(ctx, sock, "profile", "config", "load", paths[name])
            ctx.result(f"refuse-{name}", rc == 1 and not out and one_line(err) and
                       err.startswith("scion: ") and says in err, f"exit {rc}: {out!r} {err!r}")
        rc, out, err = scion(ctx, sock, "shell", "monitor", "config", "show")
        ctx.result("old-config-stays", rc == 0 and out == shown, f"before:\n{shown}after:\n{out}")

        # The trace is armed when it says how many probes it matched; the console (not
        # the channel, which the trace holds) then starts the measurement thread.
        argv = [sys.executable, os.path.join(ctx.root, "host", "scion"), "--socket", sock,
                "trace", "-n", TRACE, "--duration", "90"]
        trace = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            armed = ""
            for _ in range(5):      # the line saying what matched comes once it is armed
                armed = trace.stderr.readline()
                if "matched" in armed or not armed:
                    break
            ctx.result("trace-armed", "matched 1 probe" in armed, armed)
            boot.command("monitor start", r"scion> ")
            out, err = trace.communicate(timeout=120)
        finally:
            if trace.poll() is None:
                trace.kill()
                trace.wait()
        boot.command("monitor stop", r"scion> ")
        m = re.search(r"redflag mm\.free value (\d+) expected 0 band 0 0", out)
        ctx.result("trace-sees-red-flag", trace.returncode == 0 and m and int(m.group(1)) > 0,
                   f"exit {trace.returncode}: {out!r} {err!r}")
        rc, out, err = scion(ctx, sock, "shell", "channel", "events")
        ctx.result("event-line", re.search(r"monitor: red flag: mm\.free \d+\.\d{3} outside "
                                           r"\[0\.000, 0\.000\] \(expected 0\.000\) for \d+ ms",
                                           out), out + err)
        rc, out, err = scion(ctx, sock, "shell", "monitor", "config", "show")
        ctx.result("show-counts-it", re.search(r"red flags: 1 under this configuration", out) and
                   re.search(r"^  mm\.free .* 1$", out, re.M), out + err)
        verdicts_agree(ctx, sock, good, config)
        rc, out, err = scion(ctx, sock, "text", "verify")
        ctx.result("text-restored", rc == 0 and "text: identical" in out, out + err)
    finally:
        poweroff(ctx, boot)


def job_profile_config_boot_module(ctx):
    """A configuration booted as a module (its name ends in .cfg) is loaded
    at boot with one line, a damaged one after it is refused with one line and
    leaves the first in force, and a graft module beside them is still a graft."""
    from common import graft_path, shell_boot
    from scionhost.profile import config

    good = config.encode(configuration())
    bad = bytearray(good)
    bad[len(good) // 2] ^= 0x40
    os.makedirs(ctx.log_dir, exist_ok=True)
    paths = []
    for name, data in (("good", good), ("damaged", bytes(bad))):
        paths.append(os.path.join(ctx.log_dir, f"{ctx.job}-{name}.cfg"))
        with open(paths[-1], "wb") as f:
            f.write(data)
    boot = shell_boot(ctx, "config-module", smp=1,
                      modules=paths + [graft_path(ctx, "tick_count")])
    try:
        out = boot.output
        loaded = re.search(rf"boot module {ctx.job}-good\.cfg: (.*)\n", out)
        ctx.result("loaded-at-boot", loaded and LOADED.match(loaded.group(1).strip()),
                   loaded.group(0) if loaded else f"no line (log: {boot.log_path})")
        refused = re.search(rf"boot module {ctx.job}-damaged\.cfg: (.*)\n", out)
        ctx.result("damaged-refused", refused and "crc32" in refused.group(1) and
                   "loaded" not in refused.group(1),
                   refused.group(0) if refused else f"no line (log: {boot.log_path})")
        ctx.result("graft-module-still-a-graft",
                   re.search(r"graft: tick_count\.graft: loaded 'tick-count'", out) is not None and
                   "graft: " + f"{ctx.job}-good.cfg" not in out, f"log: {boot.log_path}")
        mark = boot.mark()
        boot.command("monitor config show", r"scion> ")
        ctx.result("first-stays-in-force", SHOWN in boot.output[mark:], boot.output[mark:][:400])
    finally:
        poweroff(ctx, boot)
