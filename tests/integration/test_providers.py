# SPDX-License-Identifier: BSD-2-Clause
"""Issue 27's providers through the D consumer (`scion trace`): sched,
lockstat, and profile/tick faster than the clock tick.

  sched_lockstat (2 CPUs, single-threaded TCG: it patches code)
    - `scion trace -l` lists sched's on-cpu, off-cpu, enqueue, dequeue,
      sleep, wakeup, preempt, tick and lockstat's spin-acquire, spin-spin,
      spin-release, adaptive-acquire, adaptive-block, adaptive-release;
    - over `sched run n=4 rounds=3 compute=1 sleep=1` (each worker sleeps
      rounds-1 = 2 times): the workers are the 4 tids sdt:::thread-create
      gave and sdt:::thread-exit took back; per worker on-cpu equals
      off-cpu, enqueue equals dequeue (each worker is born and dies inside
      the trace), sleep and wakeup are exactly 2, tick at least the compute
      ticks it was charged; the worker computing past its slice is
      preempted (at least once a round), never more often than it leaves
      the CPU; on-cpu's arg0 is tid and arg1 cpu, sleep's, tick's and
      preempt's arg0 tid, off-cpu's arg0 never tid (it is the next thread);
    - lockstat:::* enabled beside heavy tracing (a self-> variable and an
      associative array per firing: the D engine's dynamic-variable lock is
      taken inside every firing, so every lockstat firing reaches a lock
      site again) over the same workload: the trace ends normally, the
      kernel does not fault, sched_lock's acquisitions and releases agree
      to within the firings under way when the probes went live or off
      (at most 4), every spin-spin and adaptive-block has a nonzero time;
  profile_rate (1 CPU, -icount: the TSC counts instructions and the APIC
    timer runs on the same virtual clock, so figures repeat)
    - profile-5000 and tick-10000 fire within 1% of (last - first) /
      period + 1 over the interval between their first and last firing
      (timestamps): the timer runs at exactly the period (50 and 100
      interrupts a tick), so the error is the boot calibration of the APIC
      timer against the PIT (5 ms with a PIT count of 838 ns: under 0.1%)
      plus a firing at each end; 1% leaves room without hiding a wrong
      rate (a probe riding the 100 Hz tick would be 98% off);
    - meanwhile the HZ tick stays exact: sched_tick (fbt) runs once per
      10 ms of the same interval, within 1%;
    - profile-10001 and tick-99us are refused with one line naming 10000 Hz;
    - afterwards profile and tick probes at HZ still work (the clock went
      back to one interrupt a tick) and `text verify` says identical.
"""

import re

from common import poweroff
from oneliner import SCHED
from test_channel import channel_boot, scion

SCHED_PROBES = {"on-cpu", "off-cpu", "enqueue", "dequeue", "sleep", "wakeup", "preempt", "tick"}
LOCKSTAT_PROBES = {"spin-acquire", "spin-spin", "spin-release", "adaptive-acquire",
                   "adaptive-block", "adaptive-release"}
WORKERS, ROUNDS = 4, 3

SCHED_D = r'''
sdt:::thread-create { created[arg0] = 1; @born[arg0] = count(); }
sdt:::thread-exit /created[arg0]/ { @died[arg0] = count(); }
sched:::on-cpu /created[tid]/ { @on[tid] = count(); }
sched:::off-cpu /created[tid]/ { @off[tid] = count(); }
sched:::enqueue /created[arg0]/ { @enq[arg0] = count(); }
sched:::dequeue /created[arg0]/ { @deq[arg0] = count(); }
sched:::sleep /created[arg0]/ { @slp[arg0] = count(); }
sched:::wakeup /created[arg0]/ { @wak[arg0] = count(); }
sched:::tick /created[arg0]/ { @tck[arg0] = count(); }
sched:::preempt /created[arg0]/ { @pre[arg0] = count(); }
sched:::preempt /arg0 != tid/ { @bad["preempt-not-curthread"] = count(); }
sched:::on-cpu /arg0 != tid || arg1 != cpu/ { @bad["on-cpu-args"] = count(); }
sched:::off-cpu /arg0 == tid || arg1 != cpu/ { @bad["off-cpu-args"] = count(); }
sched:::sleep /arg0 != tid/ { @bad["sleep-not-curthread"] = count(); }
sched:::tick /arg0 != tid/ { @bad["tick-not-curthread"] = count(); }
END {
  printa("born %d %@d\n", @born); printa("died %d %@d\n", @died);
  printa("on %d %@d\n", @on); printa("off %d %@d\n", @off);
  printa("enq %d %@d\n", @enq); printa("deq %d %@d\n", @deq);
  printa("slp %d %@d\n", @slp); printa("wak %d %@d\n", @wak);
  printa("tck %d %@d\n", @tck); printa("pre %d %@d\n", @pre); printa("bad %s %@d\n", @bad);
}
'''

LOCKSTAT_D = r'''
lockstat:::spin-acquire /arg0 == (uint64_t)&`sched_lock/ { @n["sched-acq"] = count(); }
lockstat:::spin-release /arg0 == (uint64_t)&`sched_lock/ { @n["sched-rel"] = count(); }
lockstat:::spin-acquire, lockstat:::spin-release, lockstat:::adaptive-acquire,
lockstat:::adaptive-release
{ self->locks++; held[cpu, arg0] = timestamp; @n[probename] = count(); }
lockstat:::spin-spin, lockstat:::adaptive-block { @n[probename] = count(); @t[probename] = sum(arg1); }
lockstat:::spin-spin, lockstat:::adaptive-block /arg1 == 0/ { @n["zero-time"] = count(); }
sched:::on-cpu, sched:::off-cpu, sched:::enqueue, sched:::dequeue { self->s++; @n["sched"] = count(); }
END { printa("n %s %@d\n", @n); printa("t %s %@d\n", @t); }
'''

RATE_D = r'''
%s { @n = count(); @lo = min(timestamp); @hi = max(timestamp); }
fbt::sched_tick:entry { @tk = count(); @tlo = min(timestamp); @thi = max(timestamp); }
tick-1500ms { exit(0); }
END { printa("n %%@d\n", @n); printa("lo %%@d\n", @lo); printa("hi %%@d\n", @hi);
      printa("tk %%@d\n", @tk); printa("tlo %%@d\n", @tlo); printa("thi %%@d\n", @thi); }
'''
TOLERANCE = 0.01


def table(out, tag, keys=1):
    """printa lines "TAG k1 .. kn VALUE": {(k1, .., kn): VALUE}."""
    rows = {}
    for m in re.finditer(rf"^{tag} (.*)$", out, re.M):
        parts = m.group(1).split()
        if len(parts) == keys + 1:
            key = tuple(int(p) if re.fullmatch(r"-?\d+", p) else p for p in parts[:keys])
            rows[key[0] if keys == 1 else key] = int(parts[keys])
    return rows


def number(out, tag):
    m = re.search(rf"^{tag} (-?\d+)$", out, re.M)
    return int(m.group(1)) if m else None


def listed(ctx, sock, provider):
    rc, out, err = scion(ctx, sock, "trace", "-l", "-n", f"{provider}:::", timeout=120)
    return rc, {line.split()[-1] for line in out.splitlines()[1:]
                if line.split()[1:2] == [provider]}, out + err


def job_sched_lockstat(ctx):
    boot, sock = channel_boot(ctx, "sched-lockstat", smp=2, single_thread_tcg=True)
    try:
        rc, names, text = listed(ctx, sock, "sched")
        ctx.result("sched-probes-listed", rc == 0 and names == SCHED_PROBES,
                   f"exit {rc}: {sorted(names)}\n{text[-1500:]}")
        rc, names, text = listed(ctx, sock, "lockstat")
        ctx.result("lockstat-probes-listed", rc == 0 and names == LOCKSTAT_PROBES,
                   f"exit {rc}: {sorted(names)}\n{text[-1500:]}")

        rc, out, err = scion(ctx, sock, "trace", "-q", "-n", SCHED_D, "--run", SCHED,
                             timeout=600)
        t = {k: table(out, k) for k in ("born", "died", "on", "off", "enq", "deq", "slp",
                                        "wak", "tck", "pre", "bad")}
        detail = f"exit {rc}\n{out[-3000:]}{err[-1000:]}"
        workers = set(t["born"])
        ctx.result("sched-workers-are-the-created-tids",
                   rc == 0 and len(workers) == WORKERS and set(t["died"]) == workers and
                   set(t["on"]) == workers and set(t["off"]) == workers, detail)
        ctx.result("sched-on-off-pair", workers and
                   all(t["on"][w] == t["off"][w] > 0 for w in workers), detail)
        ctx.result("sched-enqueue-dequeue-balance", workers and
                   all(t["enq"].get(w) == t["deq"].get(w) and t["enq"].get(w, 0) > 0
                       for w in workers), detail)
        ctx.result("sched-sleep-wakeup-exact", workers and
                   all(t["slp"].get(w) == ROUNDS - 1 == t["wak"].get(w) for w in workers),
                   detail)
        # Worker k computes until charged (1 + k % 3) ticks a round (compute=1).
        ctx.result("sched-tick-charged", workers and
                   sorted(t["tck"].get(w, 0) for w in workers) >=
                   sorted(ROUNDS * (1 + k % 3) for k in range(WORKERS)) and
                   all(t["tck"].get(w, 0) >= ROUNDS for w in workers), detail)
        # Worker 2 computes 3 ticks a round, past its 2-tick slice: the tick preempts it.
        ctx.result("sched-preempt", workers and sum(t["pre"].values()) >= ROUNDS and
                   all(t["pre"].get(w, 0) <= t["off"].get(w, 0) for w in workers), detail)
        ctx.result("sched-arguments", rc == 0 and not t["bad"], detail)

        rc, out, err = scion(ctx, sock, "trace", "-q", "-n", LOCKSTAT_D, "--run", SCHED,
                             timeout=600)
        n, tm = table(out, "n"), table(out, "t")
        detail = f"exit {rc}\n{out[-3000:]}{err[-1000:]}"
        ctx.result("lockstat-under-heavy-tracing", rc == 0 and n.get("spin-acquire", 0) > 1000
                   and n.get("spin-release", 0) > 1000 and n.get("adaptive-acquire", 0) > 0 and
                   n.get("sched", 0) > 100, detail)
        ctx.result("lockstat-sched-lock-balance",
                   n.get("sched-acq", 0) > 100 and
                   abs(n.get("sched-acq", 0) - n.get("sched-rel", 0)) <= 4, detail)
        ctx.result("lockstat-times-nonzero", not n.get("zero-time") and
                   all(tm.get(k, 0) > 0 for k in ("spin-spin", "adaptive-block") if n.get(k)),
                   detail)
        ctx.result("no-kernel-fault", "panic" not in boot.output and
                   "killed by" not in boot.output, boot.output[-2000:])
        rc, out, err = scion(ctx, sock, "text", "verify")
        ctx.result("text-restored", rc == 0 and "identical" in out, out + err)
    finally:
        poweroff(ctx, boot)


def rate(ctx, sock, probe, period_ns):
    """Run RATE_D with probe; ((fired, expected), (ticks, expected), detail)."""
    rc, out, err = scion(ctx, sock, "trace", "-q", "-n", RATE_D % probe, timeout=600)
    n, lo, hi = number(out, "n"), number(out, "lo"), number(out, "hi")
    tk, tlo, thi = number(out, "tk"), number(out, "tlo"), number(out, "thi")
    detail = f"{probe}: exit {rc}\n{out[-1500:]}{err[-1000:]}"
    if rc or None in (n, lo, hi, tk, tlo, thi):
        return (0, 1), (0, 1), detail
    want = (hi - lo) / period_ns + 1
    want_ticks = (thi - tlo) / 10_000_000 + 1
    detail += (f"\nfired {n}, expected {want:.1f} ({(n - want) / want:+.3%}); "
               f"ticks {tk}, expected {want_ticks:.1f} ({(tk - want_ticks) / want_ticks:+.3%})")
    return (n, want), (tk, want_ticks), detail


def within(pair):
    got, want = pair
    return want > 0 and abs(got - want) <= TOLERANCE * want


def job_profile_rate(ctx):
    boot, sock = channel_boot(ctx, "profile-rate", smp=1, icount=True)
    try:
        for probe, period in (("profile-5000", 200_000), ("tick-10000", 100_000)):
            fired, ticks, detail = rate(ctx, sock, probe, period)
            ctx.result(f"{probe}-rate", within(fired) and fired[0] > 1000, detail)
            ctx.result(f"{probe}-hz-tick-exact", within(ticks) and ticks[0] > 100, detail)
        for name in ("profile-10001", "tick-99us"):
            rc, out, err = scion(ctx, sock, "trace", "-n", f"{name} {{ @ = count(); }}",
                                 timeout=120)
            lines = [l for l in (out + err).splitlines() if l.strip()]
            ctx.result(f"{name}-refused", rc != 0 and len(lines) == 1 and
                       "faster than 10000 Hz" in lines[0], f"exit {rc}: {out}{err}")
        # Back at HZ: a 100 Hz profile still fires at its rate.
        fired, ticks, detail = rate(ctx, sock, "profile-100", 10_000_000)
        ctx.result("profile-100-after", within((fired[0], fired[1])) or
                   abs(fired[0] - fired[1]) <= 2, detail)
        ctx.result("no-kernel-fault", "panic" not in boot.output, boot.output[-2000:])
        rc, out, err = scion(ctx, sock, "text", "verify")
        ctx.result("text-restored", rc == 0 and "identical" in out, out + err)
    finally:
        poweroff(ctx, boot)
