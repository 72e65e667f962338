# SPDX-License-Identifier: BSD-2-Clause
"""Anonymous (boot-time) tracing and `scion trace -a`.

One boot with three .anon modules (kernel/trace/anon.c reads them in
order): bad.anon is not dtc's output and is refused with one console
line; boot.anon (dtc's output for PROGRAM, compiled against the test
kernel's symbols and types) is enabled before the shell starts; a second
copy is refused, one anonymous trace at a time. Then:

  - 40 block reads on the shell, with no host attached, are counted;
  - `scion trace -a -x bufsize=1m` is refused with one line (the kernel's
    options were fixed at boot) and claims nothing;
  - `scion trace -a -x oformat=json` claims the session, as JSON lines:
    what BEGIN printed at boot, the tick clause's line, and at the end
    (after 25 more reads during the claim) @reads = 65, exactly: nothing
    before the claim was lost, nothing counted twice;
  - a second `scion trace -a` finds nothing to claim (one line);
  - the shell still works, and the kernel did not panic.
"""

import json
import os
import re
import subprocess

from common import poweroff
from test_channel import channel_boot, scion

PROGRAM = r'''
#pragma D option quiet

BEGIN
{
	printf("anon begin %d\n", 7);
}

fbt::bcache_read:entry
{
	@reads = count();
}

tick-10ms
/++ticks == 3/
{
	printf("anon ticks %d\n", ticks);
}

END
{
	printf("anon end\n");
	printa("reads %@u\n", @reads);
}
'''


def job_anonymous(ctx):
    kdir = os.path.dirname(ctx.ksyms)
    script = os.path.join(ctx.log_dir, f"{ctx.job}.d")
    good = os.path.join(ctx.log_dir, "boot.anon")
    second = os.path.join(ctx.log_dir, "second.anon")
    bad = os.path.join(ctx.log_dir, "bad.anon")
    with open(script, "w", encoding="utf-8") as f:
        f.write(PROGRAM)
    dtc = os.path.join(ctx.build, "host", "dtc")
    p = subprocess.run([dtc, "-K", ctx.ksyms, "-T", os.path.join(kdir, "kernel.ctf"), "-o", good,
                        "-s", script], capture_output=True, text=True)
    ctx.result("dtc-writes-the-module", p.returncode == 0, p.stderr)
    if p.returncode:
        return
    with open(good, "rb") as f, open(second, "wb") as g:
        g.write(f.read())
    with open(bad, "wb") as f:
        f.write(b'{"object": "this is no trace object"}\n')

    boot, sock = channel_boot(ctx, "anon", smp=2, single_thread_tcg=True,
                              modules=[bad, good, second])
    try:
        out = boot.output
        ctx.result("bad-module-refused", re.search(r"boot module bad\.anon: refused: no "
                                                   r"\"object_hex\"", out) is not None, out[-800:])
        m = re.search(r"boot module boot\.anon: anonymous tracing on (\d+) probes", out)
        ctx.result("enabled-at-boot", m is not None and int(m.group(1)) >= 4, out[-800:])
        ctx.result("second-refused", "boot module second.anon: refused: boot.anon is the "
                   "anonymous trace already" in out, out[-800:])

        boot.command("bcache run seq n=40 start=100", r"scion> ")
        rc, out, err = scion(ctx, sock, "trace", "-a", "-x", "bufsize=1m", timeout=60)
        ctx.result("kernel-option-refused", rc != 0 and "-x bufsize was set when the "
                   "anonymous program was enabled at boot" in err and
                   len(err.strip().splitlines()) == 1, f"exit {rc}: {out}{err}")
        rc, out, err = scion(ctx, sock, "trace", "-a", "-x", "oformat=json", "--run",
                             "bcache run seq n=25 start=300", timeout=120)
        ctx.result("claimed", rc == 0, f"exit {rc}: {out}{err}")
        lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        printed = "".join(a.get("printf", "") for line in lines
                          for a in line.get("actions", []))
        ctx.result("boot-records-kept", "anon begin 7\n" in printed and
                   "anon ticks 3\n" in printed, f"{out}{err}")
        reads = [line.get("value") for line in lines if line.get("type") == "aggregation" and
                 line.get("name") == "@reads"]
        ctx.result("every-read-counted-once", "anon end\n" in printed and reads == [65],
                   f"{out}{err}")

        rc, out, err = scion(ctx, sock, "trace", "-a", timeout=60)
        ctx.result("claimed-once", rc != 0 and "no anonymous tracing to claim" in err and
                   len(err.strip().splitlines()) == 1, f"exit {rc}: {out}{err}")
        boot.command("echo alive", r"alive")
    finally:
        poweroff(ctx, boot)
