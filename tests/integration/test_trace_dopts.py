# SPDX-License-Identifier: BSD-2-Clause
"""D as DTrace users write it (issue 27), against a booted one-CPU Scion:
llquantize's histogram as dtrace prints it; bufpolicy=fill keeping the
oldest records and saying so, END's record still fitting; bufpolicy=ring
keeping the newest; -x oformat=json's lines parsed back and their values
checked; -Z letting a description match nothing; -w refused with
dtrace's line and then permitting chill() (a measured spin, and
dtrace's limit past 500 ms), raise() (SIGKILL to a spinning -c target)
and stop() (no tick finds the stopped process running until SIGCONT);
trace() of narrow signed and unsigned types.

Each check is one result; the job ends in `N passed, M failed`."""

import json
import re

from common import poweroff
from test_channel import channel_boot, scion

HIST = "           value  ------------- Distribution ------------- count    "


def trace(ctx, sock, *args, timeout=120):
    return scion(ctx, sock, "trace", *args, env={"SCION_KSYMS": ctx.ksyms}, timeout=timeout)


def row(label, at, count, total):
    """One histogram row as dtrace prints it (no negative counts here)."""
    depth = (2 * count * 40 + total) // (2 * total)
    return "%16s |%s%s %-9d" % (label, "@" * depth, " " * (40 - depth), count)


def check_llquantize(ctx, sock):
    # llquantize(x, 10, 0, 2, 10): < 1, 1..9, 10..90 by 10, 100..900 by 100, >= 1000
    rc, out, err = trace(ctx, sock, "-q", "-n",
                         "BEGIN { @ = llquantize(0, 10, 0, 2, 10); @ = llquantize(5, 10, 0, 2, 10);"
                         " @ = llquantize(55, 10, 0, 2, 10); @ = llquantize(59, 10, 0, 2, 10);"
                         " @ = llquantize(5000, 10, 0, 2, 10); exit(0); }")
    counts = {"< 1": 1, "5": 1, "50": 2, ">= 1000": 1}
    labels = (["< 1"] + [str(v) for v in range(1, 10)] + [str(v) for v in range(10, 100, 10)] +
              [str(v) for v in range(100, 1000, 100)] + [">= 1000"])
    want = "\n\n" + HIST + "\n" + "".join(row(lb, i, counts.get(lb, 0), 5) + "\n"
                                          for i, lb in enumerate(labels)) + "\n"
    ctx.result("llquantize-histogram", rc == 0 and out == want,
               f"exit {rc}\n--- got\n{out}--- want\n{want}--- stderr\n{err}")


def check_fill(ctx, sock):
    # 1k per CPU: records of 24 bytes, END's of 16 kept back: 42 records, then END's.
    rc, out, err = trace(ctx, sock, "-q", "-x", "bufpolicy=fill", "-x", "bufsize=1k", "-n",
                         'profile:::tick-10ms { printf("%d\\n", i++); } '
                         'END { printf("END\\n"); }')
    want = "".join("%d\n" % i for i in range(42)) + "END\n\n"     # the end's blank line
    ctx.result("fill-keeps-oldest-and-end", rc == 0 and out == want,
               f"exit {rc}\n--- got\n{out}--- stderr\n{err}")
    ctx.result("fill-says-so", "dtrace: buffer on CPU 0 filled (bufpolicy=fill): tracing stopped; "
               "the oldest records are kept\n" in err, err)


def check_ring(ctx, sock):
    rc, out, err = trace(ctx, sock, "-q", "-x", "bufpolicy=ring", "-x", "bufsize=1k", "-n",
                         'profile:::tick-10ms { printf("%d\\n", i++); } '
                         'profile:::tick-10ms /i == 100/ { exit(0); } '
                         'END { printf("END\\n"); }')
    lines = out.splitlines()[:-1]       # the end's blank line
    nums = [int(x) for x in lines[:-1]] if lines and all(x.isdigit() for x in lines[:-1]) else []
    ok = (rc == 0 and lines[-1:] == ["END"] and nums and nums[-1] == 99 and
          nums == list(range(nums[0], 100)) and nums[0] > 0 and len(nums) >= 30)
    ctx.result("ring-keeps-newest", ok, f"exit {rc}\n--- got\n{out}--- stderr\n{err}")


def check_json(ctx, sock):
    rc, out, err = trace(ctx, sock, "-x", "oformat=json", "-n",
                         'BEGIN { @c["a"] = count(); @c["a"] = count(); @c["b"] = count(); '
                         '@s = sum(5); @l = llquantize(50, 10, 0, 2, 10); '
                         'trace((int8_t)-1); trace("str"); printf("x=%d", 7); exit(0); }')
    try:
        lines = [json.loads(line) for line in out.splitlines()]
    except ValueError as e:
        lines = None
        err += f"\n(not JSON lines: {e})"
    ok = lines is not None and rc == 0
    if ok:
        rec = [x for x in lines if x["type"] == "record"]
        aggs = {(x["name"], tuple(x["keys"])): x for x in lines if x["type"] == "aggregation"}
        ok = (len(rec) == 1 and rec[0]["probe"] == "dtrace:::BEGIN" and rec[0]["cpu"] == 0 and
              rec[0]["actions"] == [{"trace": -1}, {"trace": "str"}, {"printf": "x=7"},
                                    {"exit": 0}] and
              aggs.get(("@c", ("a",)), {}).get("value") == 2 and
              aggs.get(("@c", ("b",)), {}).get("value") == 1 and
              aggs.get(("@s", ()), {}).get("value") == 5 and
              aggs.get(("@l", ()), {}).get("buckets") == [{"value": 50, "count": 1}])
    ctx.result("oformat-json", ok, f"exit {rc}\n--- got\n{out}--- stderr\n{err}")


def check_zdefs(ctx, sock):
    prog = ('fbt::no_such_function_xyz:entry { trace(1); } '
            'BEGIN { printf("ok\\n"); exit(0); }')
    rc, out, err = trace(ctx, sock, "-q", "-n", prog)
    ctx.result("no-Z-refuses", rc != 0 and "does not match any probes" in err,
               f"exit {rc}: {out!r} {err!r}")
    rc, out, err = trace(ctx, sock, "-q", "-Z", "-n", prog)
    ctx.result("Z-permits", rc == 0 and out == "ok\n\n", f"exit {rc}: {out!r} {err!r}")


def check_destructive(ctx, sock):
    prog = ('BEGIN { start = timestamp; chill(300000000); exit(0); } '
            'END { printf("%d\\n", (timestamp - start) / 1000000); }')
    rc, out, err = trace(ctx, sock, "-q", "-n", prog)
    ctx.result("no-w-refuses", rc == 1 and out == "" and
               err == "dtrace: could not enable tracing: Destructive actions not allowed\n",
               f"exit {rc}: {out!r} {err!r}")
    rc, out, err = trace(ctx, sock, "-w", "-n", prog)
    ms = int(out.split()[-1]) if out.split() and out.split()[-1].isdigit() else -1
    ctx.result("chill-spins", rc == 0 and ms >= 300 and
               "dtrace: allowing destructive actions\n" in err, f"exit {rc}: {out!r} {err!r}")
    rc, out, err = trace(ctx, sock, "-q", "-w", "-n",
                         'BEGIN { chill(600000000); printf("spun\\n"); } BEGIN { exit(0); }')
    ctx.result("chill-limit", "illegal operation in action #1" in err and "spun" not in out,
               f"exit {rc}: {out!r} {err!r}")
    rc, out, err = trace(ctx, sock, "-q", "-w", "-n",
                         'profile:::tick-50ms /pid == $target/ { raise(9); } '
                         'proc:::exit /pid == $target/ { printf("exit %d %d\\n", arg0, arg1); }',
                         "-c", "spin")
    ctx.result("raise-kills-target", rc == 0 and re.search(r"^exit 2 9$", out, re.M),
               f"exit {rc}: {out!r} {err!r}")


TICKS = ('profile:::tick-10ms /pid == $target/ { n++; } '
         'profile:::tick-1s /ticks++ == 1/ { printf("ticks %d\\n", n); exit(0); }')


def ticks_of(ctx, sock, pid):
    """How many 10 ms ticks found process pid running in about a second."""
    rc, out, err = trace(ctx, sock, "-q", "-p", str(pid), "-n", TICKS)
    m = re.search(r"^ticks (\d+)$", out, re.M)
    return int(m[1]) if m else -1


def check_stop(ctx, sock):
    """stop() stops a spinning process: no tick finds it running until SIGCONT."""
    rc, out, err = scion(ctx, sock, "exec", "--detach", "spin")
    if rc != 0 or not re.fullmatch(r"\d+\n", out):
        ctx.result("stop-target", False, f"exit {rc}: {out!r} {err!r}")
        return
    pid = int(out)
    before = ticks_of(ctx, sock, pid)
    rc, out, err = trace(ctx, sock, "-q", "-w", "-p", str(pid), "-n",
                         'profile:::tick-10ms /pid == $target/ { stop(); printf("stopped\\n"); '
                         'exit(0); }')
    stopped = ticks_of(ctx, sock, pid)
    scion(ctx, sock, "shell", "kill", str(pid), "18")          # SIGCONT
    again = ticks_of(ctx, sock, pid)
    scion(ctx, sock, "shell", "kill", str(pid), "9")
    ctx.result("stop-stops-until-sigcont", rc == 0 and out == "stopped\n\n" and before > 20 and
               stopped == 0 and again > 20,
               f"ticks before {before}, stopped {stopped}, after SIGCONT {again}; "
               f"exit {rc}: {out!r} {err!r}")


def check_narrow(ctx, sock):
    rc, out, err = trace(ctx, sock, "-q", "-n",
                         'BEGIN { trace((int8_t)-1); printf(" "); trace((uint8_t)255); '
                         'printf(" "); trace((int16_t)-2); printf(" "); trace((int32_t)-3); '
                         'printf(" "); trace((uint32_t)4294967295); exit(0); }')
    ctx.result("trace-narrow", rc == 0 and out == "-1 255 -2 -3 4294967295\n",
               f"exit {rc}: {out!r} {err!r}")


def job_dopts(ctx):
    boot, sock = channel_boot(ctx, "dopts", smp=1, single_thread_tcg=True, programs=True)
    try:
        for check in (check_llquantize, check_fill, check_ring, check_json, check_zdefs,
                      check_destructive, check_stop, check_narrow):
            check(ctx, sock)
        rc, out, err = scion(ctx, sock, "text", "verify")
        ctx.result("text-restored", rc == 0, out + err)
    finally:
        poweroff(ctx, boot)
