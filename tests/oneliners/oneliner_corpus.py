# SPDX-License-Identifier: BSD-2-Clause
"""The one-liner corpus: DTrace as people use it (Brendan Gregg's
one-liners, the DTrace guide's examples), adapted to Scion's probes and
run against a live two-CPU guest by tests/integration/test_oneliners.py.

Each entry is a OneLiner: the program as a user would type it (`-n`, or a
script in this folder for `-s`), the guest command that makes its probes
fire (`run`, traced until it finishes; without one the program ends
itself with exit()), guest shell commands to run before and after it
(`setup`, `teardown`; the grafts they install are named in `grafts`,
loaded once after boot), and checks of what it printed. Every entry also
gets the checks of dtrace_checks.py that apply to any program: the exit
status, no warnings on stderr (drops, errors) beyond those it allows,
and output in dtrace's layout with no byte dumps where keys belong.
Adding a one-liner is adding an entry here; its checks are built from
dtrace_checks.py's pieces or written beside it with @check. Each check
is one test result, named ONELINER/CHECK.

A program that ends itself with exit() while its probes fire on the
other CPU keeps its reference count in the same clause as what it checks:
exit() may stop the session between two clauses of one firing there (as
in dtrace, which checks the session's state per enabling), so counts kept
by separate clauses may differ by a firing in flight.

Values are checked against something independent of the tracer where
possible: the workloads are deterministic (tests/integration/bcache_model.py
gives the blocks `bcache run` reads and, after `bcache reset`, its hits,
misses and evictions; `sched run` and `testpoint` do fixed work), and
totals against a second aggregation counting the same events. The
conventions that make the output readable without guessing are in
dtrace_checks.py: labels `NAME: N` and sections `NAME:` in column 0,
dtrace's own rows indented.
"""

import os
import re
import sys

from dtrace_checks import (all_quantize, arity, check, check_frames, check_lquantize,
                           check_quantize, dtrace_avg, dtrace_stddev, keys_are_functions,
                           lquantize_counts, need, quantize_counts, stacks_symbolized,
                           sum_equals, table)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "integration"))
from bcache_model import Cache, command_workload  # noqa: E402


class OneLiner:
    def __init__(self, name, program=None, script=None, run=None, flags=("-q",), setup=(),
                 teardown=(), status=0, allow=(), checks=(), known=None, grafts=()):
        self.name, self.script, self.run = name, script, run
        self.grafts = list(grafts)  # build/grafts/NAME.graft files the runner loads after boot
        # A program given over several lines of this file is one line, as typed.
        self.program = re.sub(r"\n\s*", " ", program.strip()) if program else None
        self.flags, self.setup, self.teardown = list(flags), list(setup), list(teardown)
        self.status, self.allow, self.checks = status, list(allow), list(checks)
        self.known = known          # a failure already reported: its cause, shown when it fails
        self.quiet = "-q" in self.flags


def blocks(command):
    """The blocks a `bcache run ...` command reads, in order."""
    return command_workload(command)


def model(command, nbuffers=32, evict="lru"):
    """What `bcache reset NBUFFERS` then COMMAND count: hits, misses, evictions, disk_reads..."""
    return Cache(nbuffers, evict=evict).run(blocks(command))


def equal(what, got, want):
    need(got == want, f"{what}: got {got}, expected {want}")


SEQ40 = "bcache run seq n=40 start=100"
RAND60 = "bcache run random n=60 range=200 seed=4"
RAND100 = "bcache run random n=100 range=200 seed=9"
RAND80 = "bcache run random n=80 range=64 seed=7"
SCHED = "sched run n=4 rounds=3 compute=1 sleep=1"
RESET = "bcache reset 32"

CORPUS = []


def add(*args, **kw):
    CORPUS.append(OneLiner(*args, **kw))


# --- counting by function -------------------------------------------------------------

@check("counts-match-workload")
def _count_by_function(o):
    t = table(o, arity=1)
    m = model(RAND60)
    equal("bcache_read", t.get(("bcache_read",)), 60)
    equal("bcache_result_observed", t.get(("bcache_result_observed",)), 60)
    equal("bcache_default_evict (one per eviction)", t.get(("bcache_default_evict",)),
          m["evictions"])
    equal("reads: the separate count of bcache_read", o.number("reads"), 60)


add("count-by-function",
    r'''fbt::bcache_*:entry { @[probefunc] = count(); }
        fbt::bcache_read:entry { @reads = count(); }
        fbt::bcache_*:entry { @all = count(); }
        END { printa("reads: %@d\n", @reads); printa("all: %@d\n", @all); }''',
    run=RAND60, setup=[RESET],
    checks=[keys_are_functions("bcache_*"), sum_equals("all"), _count_by_function])

# Gregg's "count function calls" over the whole kernel for a moment.
add("count-every-function",
    r'''fbt:::entry { @[probefunc] = count(); @all = count(); }
        tick-100ms { exit(0); } END { printa("all: %@d\n", @all); }''',
    checks=[keys_are_functions(), arity(1), sum_equals("all")])

# Every return of every function for a second, at default sizes: reported
# with issue 20 for thousands of aggregation drops (fixed by 9be329f).
@check("one-bucket-each")
def _return_quantize(o):
    entries = o.dump()
    need(len(entries) > 20, f"only {len(entries)} functions returned in a second")
    for e in entries:
        nonzero = [(lab, c) for lab, c in e.hist if c]
        need([lab for lab, _ in nonzero] == ["1"], f"{e.keys}: quantize(1) filled {nonzero}")


add("return-quantize-every-function",
    r'''fbt:::return { @[probefunc] = quantize(1); } tick-1s { exit(0); }''',
    checks=[keys_are_functions(), all_quantize(), _return_quantize])

# --- by caller ------------------------------------------------------------------------

@check("caller-is-the-workload")
def _by_caller_func(o):
    equal("func(caller) keys", table(o, arity=1), {("kernel`bcache_workload_run",): 40})


add("count-by-caller-func",
    r'''fbt::bcache_read:entry { @[func(caller)] = count(); }''',
    run=SEQ40, checks=[keys_are_functions(prefix="kernel`"), _by_caller_func])

add("count-by-caller-sym",
    r'''fbt::spin_lock_irqsave:entry { @[sym(caller)] = count(); @n = count(); }
        tick-200ms { exit(0); } END { printa("n: %@d\n", @n); }''',
    checks=[keys_are_functions(prefix="kernel`"), arity(1), sum_equals("n")])


@check("raw-caller-inside-the-caller")
def _raw_caller(o):
    t = table(o, arity=1)
    equal("number of callers", len(t), 1)
    (key,), value = next(iter(t.items()))
    equal("calls", value, 40)
    addr = int(key) & ((1 << 64) - 1)
    named = o.symbols.lookup(addr)
    need(named and named[0] == "bcache_workload_run",
         f"caller {addr:#x} is in {named}, not bcache_workload_run")
    at = o.label("at")
    equal("%a of the same caller", at, f"kernel`bcache_workload_run+{named[1]:#x}")


add("count-by-caller-raw",
    r'''fbt::bcache_read:entry { @[caller] = count(); }
        fbt::bcache_read:entry /arg0 == 100/ { printf("at: %a\n", caller); }''',
    run=SEQ40, checks=[_raw_caller])

# --- by stack -------------------------------------------------------------------------

@check("one-stack-from-the-workload")
def _by_stack(o):
    entries = o.dump()
    equal("distinct stacks", len(entries), 1)
    e = entries[0]
    equal("count", e.value, 40)
    need(e.stack[0].startswith("kernel`bcache_workload_run+"),
         f"the first frame is {e.stack[0]}, not the caller bcache_workload_run")
    need(any(f.startswith("kernel`shell_execute+") for f in e.stack),
         f"no shell_execute frame in {e.stack}")


add("count-by-stack",
    r'''fbt::bcache_read:entry { @[stack()] = count(); }''',
    run=SEQ40, checks=[stacks_symbolized(), _by_stack])


@check("at-most-2-frames")
def _stack_depth(o):
    for e in o.dump():
        need(1 <= len(e.stack) <= 2, f"stack(2) printed {len(e.stack)} frames: {e.stack}")


add("count-by-stack-depth",
    r'''fbt::spin_lock_irqsave:entry { @[stack(2)] = count(); @n = count(); }
        tick-200ms { exit(0); } END { printa("n: %@d\n", @n); }''',
    checks=[stacks_symbolized(), _stack_depth, sum_equals("n")])

# Gregg's "sample kernel stacks": both CPUs, idle loops included (reported
# with issue 20: frames printed as bare addresses; fixed by 9be329f).
add("profile-stacks",
    r'''profile-100hz { @[stack()] = count(); @n = count(); }
        tick-200ms { exit(0); } END { printa("n: %@d\n", @n); }''',
    checks=[stacks_symbolized(), sum_equals("n")])

add("profile-func",
    r'''profile-100hz /arg0/ { @[func(arg0)] = count(); @n = count(); }
        tick-200ms { exit(0); } END { printa("n: %@d\n", @n); }''',
    checks=[keys_are_functions(prefix="kernel`"), arity(1), sum_equals("n")])

# --- by CPU and by thread -------------------------------------------------------------

@check("both-cpus")
def _by_cpu(o):
    t = table(o, arity=1)
    equal("CPUs", sorted(t), [("0",), ("1",)])
    need(all(v > 0 for v in t.values()), f"counts {t}")


add("count-by-cpu",
    r'''profile-100hz { @[cpu] = count(); @n = count(); }
        tick-300ms { exit(0); } END { printa("n: %@d\n", @n); }''',
    checks=[_by_cpu, sum_equals("n")])


@check("each-worker-slept-twice")
def _by_tid(o):
    t = table(o, arity=1)
    created = sorted(int(m[1]) for m in o.matching(r"created: (\d+)"))
    equal("threads created", len(created), 4)
    equal("tids that slept", sorted(int(k[0]) for k in t), created)
    need(all(v == 2 for v in t.values()), f"sleeps per thread {t}, expected 2 each (3 rounds)")


add("count-by-tid",
    r'''fbt::thread_sleep_ticks:entry /execname == "sched-run"/ { @[tid] = count(); }
        sdt:::thread-create { @created[arg0] = count(); }
        END { printa("created: %d\n", @created); }''',
    run=SCHED, checks=[_by_tid])


@check("thread-names")
def _by_execname(o):
    t = table(o, arity=1)
    threads = o.guest("threads")
    for (name,) in t:
        need(name in threads, f"execname {name!r} is no thread in `threads`:\n{threads}")
    need(("idle/0",) in t or ("idle/1",) in t, f"no idle thread switched: {t}")


add("count-by-execname",
    r'''sdt:::thread-switch { @[execname] = count(); @n = count(); }
        tick-200ms { exit(0); } END { printa("n: %@d\n", @n); }''',
    checks=[_by_execname, sum_equals("n")])


@check("one-thread-tuple")
def _thread_tuple(o):
    t = table(o, arity=3)
    equal("distinct (name, tid, tid == curthread->tid)", len(t), 1)
    (name, tid, same), value = next(iter(t.items()))
    equal("curthread->name", name, "channel")
    equal("tid == curthread->tid", same, "1")
    equal("calls", value, 40)
    need(f" {tid} " in o.guest("threads"), f"tid {tid} is not in `threads`")


add("count-by-thread-tuple",
    r'''fbt::bcache_read:entry { @[curthread->name, tid, tid == curthread->tid] = count(); }''',
    run=SEQ40, checks=[_thread_tuple])


@check("execname-and-functions")
def _exec_func(o):
    t = table(o, arity=2)
    need({k[0] for k in t} == {"channel"}, f"execnames {sorted({k[0] for k in t})}")
    equal("channel bcache_read", t.get(("channel", "bcache_read")), 40)


add("count-by-execname-function",
    r'''fbt::bcache_*:entry { @[execname, probefunc] = count(); }''',
    run=SEQ40, checks=[keys_are_functions("bcache_*", position=1), _exec_func])

# --- latency with thread-local variables ----------------------------------------------

@check("one-row-lock")
def _issue20(o):
    entries = o.dump()
    need([e.keys for e in entries] == [["lock"]],
         f"rows {[e.keys for e in entries]}, expected the one row 'lock'")
    need(entries[0].value > 0, f"average {entries[0].value}")


# Issue 20: the idiom as users type it (not quiet), a shorter tick.
add("lock-latency-avg",
    r'''fbt::spin_lock_irqsave:entry { self->t = timestamp; }
        fbt::spin_lock_irqsave:return /self->t/ {
            @["lock"] = avg(timestamp - self->t); self->t = 0; }
        tick-200ms { exit(0); }''',
    flags=(), checks=[_issue20])


@check("min-avg-max-stddev")
def _lock_stats(o):
    rows = o.matching(r"(\S+) (\d+) (-?\d+) (-?\d+) (-?\d+) (-?\d+)")
    equal("rows", [r[1] for r in rows], ["lock"])
    n, lo, avg, hi, sd = (int(x) for x in rows[0].groups()[1:])
    need(n > 0, f"count {n}")
    need(0 < lo <= avg <= hi, f"min {lo}, avg {avg}, max {hi}: avg not between min and max")
    need(0 <= sd <= hi - lo, f"stddev {sd} outside [0, max - min = {hi - lo}]")


add("lock-latency-stats",
    r'''fbt::spin_lock_irqsave:entry { self->t = timestamp; }
        fbt::spin_lock_irqsave:return /self->t/ {
            this->d = timestamp - self->t;
            @n["lock"] = count(); @lo["lock"] = min(this->d); @avg["lock"] = avg(this->d);
            @hi["lock"] = max(this->d); @sd["lock"] = stddev(this->d); self->t = 0; }
        tick-200ms { exit(0); }
        END { printa("%s %@d %@d %@d %@d %@d\n", @n, @lo, @avg, @hi, @sd); }''',
    checks=[_lock_stats])

# Gregg's function latency distribution.
add("function-latency-quantize",
    r'''fbt::bcache_read:entry { self->ts = timestamp; }
        fbt::bcache_read:return /self->ts/ {
            @[probefunc] = quantize(timestamp - self->ts); @n = count(); self->ts = 0; }
        END { printa("n: %@d\n", @n); }''',
    run=RAND60,
    checks=[keys_are_functions("bcache_read"), all_quantize("n", total=60)])


@check("returns-match-entries")
def _assoc_latency(o):
    entries = table(o, "entries", arity=1)
    returns = table(o, "returns", arity=1)
    times = table(o, "time", arity=1)
    need(returns, "no returns")
    equal("functions timed", sorted(times), sorted(returns))
    for k, v in returns.items():
        equal(f"{k[0]} returns vs entries", v, entries.get(k))
        need(times[k] > 0, f"{k[0]}: time {times[k]}")
    averages = table(o, "average", arity=1)
    equal("functions averaged", sorted(averages), sorted(returns))
    for k, v in averages.items():
        need(v == times[k] // returns[k], f"{k[0]}: avg() of the latencies is {v}, but their "
             f"sum() / count() is {times[k]} / {returns[k]} = {times[k] // returns[k]} (the same "
             "value in the same firing: timestamp must not change within one firing)")
    equal("bcache_read returns", returns.get(("bcache_read",)), 60)
    need(times[("bcache_read",)] < times[("bcache_workload_run",)],
         f"60 bcache_reads took {times[('bcache_read',)]} ns, longer than the "
         f"bcache_workload_run calling them ({times[('bcache_workload_run',)]} ns)")


add("function-latency-assoc",
    r'''fbt::bcache_*:entry { self->ts[probefunc] = timestamp; @e[probefunc] = count(); }
        fbt::bcache_*:return /self->ts[probefunc]/ {
            @t[probefunc] = sum(timestamp - self->ts[probefunc]); @r[probefunc] = count();
            @a[probefunc] = avg(timestamp - self->ts[probefunc]); self->ts[probefunc] = 0; }
        END { printf("entries:\n"); printa(@e); printf("returns:\n"); printa(@r);
              printf("time:\n"); printa(@t); printf("average:\n"); printa(@a); }''',
    run=RAND60,
    checks=[keys_are_functions("bcache_*", where="returns"),
            keys_are_functions("bcache_*", where="time"), _assoc_latency],
    known="avg() and sum()/count() of one latency differ while timestamp changes within a "
          "firing (see timestamp-per-firing)")


@check("one-timestamp-per-firing")
def _timestamp(o):
    equal("timestamp - timestamp in one clause", o.number("same clause"), 0)
    deltas = [int(m[1]) for m in o.matching(r"next clause: (-?\d+)")]
    equal("timestamp in the next clause of the same firing minus this one's", deltas, [0, 0, 0])


# dtrace reads the clock once per probe firing (dtrace_probe sets
# dtms_timestamp before running the enablings): every use of timestamp in
# that firing, in any of its clauses, is the same value.
add("timestamp-per-firing",
    r'''BEGIN { a = timestamp; @ = count(); b = timestamp; printf("same clause: %d\n", b - a); }
        fbt::bcache_read:entry { t = timestamp; }
        fbt::bcache_read:entry { printf("next clause: %d\n", timestamp - t); }''',
    run="bcache run seq n=3 start=100", checks=[_timestamp],
    known="timestamp is read again at each use (kernel/trace/env.c), not once per firing")


@check("microsecond-buckets")
def _latency_lq(o):
    entries = o.dump()
    equal("keys", [e.keys for e in entries], [["channel", "bcache_read"]])
    check_lquantize(entries[0], 0, 1000, 100, "lquantize")
    equal("values", entries[0].total(), 60)


add("function-latency-lquantize-tuple",
    r'''fbt::bcache_read:entry { self->ts = timestamp; }
        fbt::bcache_read:return /self->ts/ {
            @[execname, probefunc] = lquantize((timestamp - self->ts) / 1000, 0, 1000, 100);
            self->ts = 0; }''',
    run=RAND60, checks=[_latency_lq])

# --- the aggregating functions on known values ----------------------------------------

@check("exact-values")
def _exact(o):
    v = blocks(SEQ40)
    equal("count", o.number("count"), len(v))
    equal("sum", o.number("sum"), sum(v))
    equal("min", o.number("min"), min(v))
    equal("max", o.number("max"), max(v))
    equal("avg", o.number("avg"), dtrace_avg(v))
    equal("stddev", o.number("stddev"), dtrace_stddev(v))


add("aggregations-exact",
    r'''fbt::bcache_read:entry { @c = count(); @s = sum(arg0); @lo = min(arg0); @hi = max(arg0);
            @a = avg(arg0); @sd = stddev(arg0); }
        END { printa("count: %@d\n", @c); printa("sum: %@d\n", @s); printa("min: %@d\n", @lo);
              printa("max: %@d\n", @hi); printa("avg: %@d\n", @a);
              printa("stddev: %@d\n", @sd); }''',
    run=SEQ40, checks=[_exact])


@check("per-key-values")
def _keyed(o):
    rows = o.matching(r"(\w+) (\d+): (\d+) (\d+) (\d+) (\d+) (\d+) (\d+)")
    v = blocks(RAND80)
    want = {}
    for r in range(4):
        vs = [b for b in v if b % 4 == r]
        if vs:
            want[("bcache_read", r)] = (len(vs), sum(vs), min(vs), max(vs), dtrace_avg(vs),
                                        dtrace_stddev(vs))
    got = {(m[1], int(m[2])): tuple(int(x) for x in m.groups()[2:]) for m in rows}
    equal("count sum min max avg stddev by (function, block % 4)", got, want)
    for k, (n, s, lo, hi, a, sd) in got.items():
        need(lo <= a <= hi and sd >= 0, f"{k}: avg {a} not in [{lo}, {hi}] or stddev {sd} < 0")


add("aggregations-by-tuple",
    r'''fbt::bcache_read:entry {
            @c[probefunc, arg0 % 4] = count(); @s[probefunc, arg0 % 4] = sum(arg0);
            @lo[probefunc, arg0 % 4] = min(arg0); @hi[probefunc, arg0 % 4] = max(arg0);
            @a[probefunc, arg0 % 4] = avg(arg0); @sd[probefunc, arg0 % 4] = stddev(arg0); }
        END { printa("%s %d: %@d %@d %@d %@d %@d %@d\n", @c, @s, @lo, @hi, @a, @sd); }''',
    run=RAND80, checks=[_keyed])


@check("exact-buckets")
def _quantize_arg(o):
    (e,) = o.dump()
    equal("key", e.keys, ["block"])
    got = {int(lab): c for lab, c in e.hist if c}
    equal("buckets", got, quantize_counts(blocks(RAND80)))


add("quantize-string-key",
    r'''fbt::bcache_read:entry { @["block"] = quantize(arg0); }''',
    run=RAND80, checks=[all_quantize(total=80), _quantize_arg])


@check("exact-buckets")
def _quantize_neg(o):
    (e,) = o.dump()
    got = {int(lab): c for lab, c in e.hist if c}
    equal("buckets", got, quantize_counts([b - 120 for b in blocks(SEQ40)], weight=3))


add("quantize-negative-weighted",
    r'''fbt::bcache_read:entry { @ = quantize((int64_t)arg0 - 120, 3); }''',
    run=SEQ40, checks=[all_quantize(total=120), _quantize_neg])


@check("exact-buckets")
def _lquantize(o):
    (e,) = o.dump()
    equal("key", e.keys, ["bcache_read", "2"])
    check_lquantize(e, 0, 50, 10, "lquantize")
    got = {lab: c for lab, c in e.hist if c}
    v = [b for b in blocks(RAND80) if b % 3 == 2]
    equal("buckets", got, lquantize_counts(v, 0, 50, 10))


add("lquantize-tuple-key",
    r'''fbt::bcache_read:entry /arg0 % 3 == 2/ {
            @[probefunc, arg0 % 3] = lquantize(arg0, 0, 50, 10); }''',
    run=RAND80, checks=[_lquantize])

# --- predicates -----------------------------------------------------------------------

@check("one-line")
def _pred_eq(o):
    equal("lines", o.heads(), ["hit: bcache_read 105"])


add("predicate-arg-equal",
    r'''fbt::bcache_read:entry /arg0 == 105/ { printf("hit: %s %d\n", probefunc, arg0); }''',
    run=SEQ40, checks=[_pred_eq])


@check("exact-count")
def _pred_range(o):
    want = sum(1 for b in blocks(RAND80) if 10 <= b < 30)
    equal("count", table(o, arity=0), {(): want})


add("predicate-arg-range",
    r'''fbt::bcache_read:entry /arg0 >= 10 && arg0 < 30/ { @ = count(); }''',
    run=RAND80, checks=[_pred_range])


@check("string-predicate-splits")
def _pred_str(o):
    equal("keys", table(o, arity=1), {("bcache_read",): 40})
    equal("bcache_read + other == all", 40 + o.number("other"), o.number("all"))


add("predicate-string",
    r'''fbt::bcache_*:entry /probefunc == "bcache_read"/ { @[probefunc] = count(); }
        fbt::bcache_*:entry /probefunc != "bcache_read"/ { @other = count(); }
        fbt::bcache_*:entry { @all = count(); }
        END { printa("other: %@d\n", @other); printa("all: %@d\n", @all); }''',
    run=SEQ40, checks=[_pred_str])


@check("only-callees")
def _pred_self(o):
    t = table(o, arity=1)
    equal("bcache_result_observed inside bcache_read", t.get(("bcache_result_observed",)), 40)
    equal("bcache_default_readahead inside bcache_read", t.get(("bcache_default_readahead",)), 40)
    for outside in ("bcache_read", "bcache_workload_run", "bcache_workload_parse"):
        need((outside,) not in t, f"{outside} counted, but it is not called inside bcache_read")


add("predicate-thread-local",
    r'''fbt::bcache_read:entry { self->in = 1; }
        fbt::bcache_*:entry /self->in && probefunc != "bcache_read"/ { @[probefunc] = count(); }
        fbt::bcache_read:return { self->in = 0; }''',
    run=SEQ40, checks=[keys_are_functions("bcache_*"), _pred_self])


@check("substring-keys")
def _strstr(o):
    t = table(o, arity=1)
    need(t, "no keys")
    for (k,) in t:
        need("default" in k, f"key {k} does not contain 'default'")
    equal("bcache_default_readahead", t.get(("bcache_default_readahead",)), 40)


add("predicate-strstr",
    r'''fbt::bcache_*:entry /strstr(probefunc, "default") != NULL/ { @[probefunc] = count(); }''',
    run=SEQ40, checks=[keys_are_functions("bcache_*default*"), _strstr])

# --- speculations ---------------------------------------------------------------------

@check("only-committed")
def _spec(o):
    want = [f"block {b}" for b in blocks(SEQ40) if b % 4 == 0]
    equal("committed lines", o.heads(), want)


add("speculation-commit-discard",
    r'''fbt::bcache_read:entry { self->spec = speculation(); speculate(self->spec);
            printf("block %d\n", arg0); self->blk = arg0; }
        fbt::bcache_read:return /self->spec && self->blk % 4 == 0/ {
            commit(self->spec); self->spec = 0; }
        fbt::bcache_read:return /self->spec/ { discard(self->spec); self->spec = 0; }''',
    run=SEQ40, checks=[_spec])


@check("committed-groups")
def _spec_nested(o):
    want = [b for b in blocks(RAND60) if b % 5 == 0]
    reads, current = [], None
    for ln in o.lines:
        m = re.fullmatch(r"read: (\d+)", ln)
        if m:
            current = int(m[1])
            reads.append(current)
            continue
        m = re.fullmatch(r"  in: (\w+) (\d+)", ln)
        need(m or not ln.strip(), f"line {ln!r}")
        if m:
            need(current is not None and int(m[2]) == current,
                 f"'{ln.strip()}' inside the speculation of block {current}")
            need(o.symbols.is_function(m[1]), f"{m[1]} is no kernel function")
    equal("committed reads", reads, want)
    need(sum(1 for ln in o.lines if ln.startswith("  in: bcache_result_observed")) == len(want),
         "not one bcache_result_observed per committed read")


# The DTrace guide's pattern: speculate in the entry, in the callees and
# decide at the return.
add("speculation-nested",
    r'''fbt::bcache_read:entry { self->spec = speculation(); speculate(self->spec);
            printf("read: %d\n", arg0); self->blk = arg0; }
        fbt::bcache_*:entry /self->spec && probefunc != "bcache_read"/ {
            speculate(self->spec); printf("  in: %s %d\n", probefunc, self->blk); }
        fbt::bcache_read:return /self->spec && self->blk % 5 == 0/ {
            commit(self->spec); self->spec = 0; }
        fbt::bcache_read:return /self->spec/ { discard(self->spec); self->spec = 0; }''',
    run=RAND60, checks=[_spec_nested])

# --- printa, printf, trace, trunc, normalize, clear -----------------------------------

@check("columns")
def _printa_cols(o):
    rows = [ln for ln in o.heads() if not ln.startswith(("all: ", "value "))]
    need(rows, "no rows")
    counts = {}
    for ln in rows:
        m = re.fullmatch(r"(\w+)( *)\|( *)(\d+)\|", ln)
        need(m, f"{ln!r} is not '%-24s|%8@u|'")
        need(len(m[1] + m[2]) == max(24, len(m[1])) and len(m[3] + m[4]) == max(8, len(m[4])),
             f"{ln!r}: the name is not left-justified in 24 or the count right-justified in 8")
        need(o.symbols.is_function(m[1]), f"{m[1]} is no kernel function")
        counts[m[1]] = int(m[4])
    equal("bcache_read", counts.get("bcache_read"), 40)
    equal("total", sum(counts.values()), o.number("all"))
    first = {m[2]: int(m[1]) for m in o.matching(r"value (\d+) for (\w+)")}
    equal("'value %@d for %s' (the value first)", first, counts)


add("printa-format-columns",
    r'''fbt::bcache_*:entry { @[probefunc] = count(); @all = count(); }
        END { printa("%-24s|%8@u|\n", @); printa("all: %@d\n", @all);
              printa("value %@d for %s\n", @); }''',
    run=SEQ40, checks=[_printa_cols])


@check("top-3")
def _trunc(o):
    full = [(m[1], int(m[2])) for m in o.matching(r"all: (\w+) (\d+)")]
    top = [(m[1], int(m[2])) for m in o.matching(r"top: (\w+) (\d+)")]
    equal("rows kept", len(top), 3)
    equal("kept rows", top, full[-3:])
    rest = [v for _, v in full[:-3]]
    need(not rest or min(v for _, v in top) >= max(rest),
         f"trunc kept {top}, not the largest of {full}")


add("trunc-top",
    r'''fbt::bcache_*:entry { @[probefunc] = count(); }
        END { printa("all: %s %@d\n", @); trunc(@, 3); printa("top: %s %@d\n", @); }''',
    run=RAND60, checks=[_trunc])


@check("normalized-by-10")
def _normalize(o):
    norm = o.matching(r"norm: (\w+) (\d+)")
    raw = o.matching(r"raw: (\w+) (\d+)")
    equal("raw sum", [(m[1], int(m[2])) for m in raw], [("bcache_read", sum(blocks(SEQ40)))])
    equal("normalized", [(m[1], int(m[2])) for m in norm],
          [("bcache_read", sum(blocks(SEQ40)) // 10)])
    equal("denormalized", o.number("again"), sum(blocks(SEQ40)))


add("normalize",
    r'''fbt::bcache_read:entry { @[probefunc] = sum(arg0); @raw[probefunc] = sum(arg0); }
        END { normalize(@, 10); printa("norm: %s %@d\n", @); printa("raw: %s %@d\n", @raw);
              denormalize(@); printa("again: %@d\n", @); }''',
    run=SEQ40, checks=[_normalize])


@check("intervals-add-up")
def _clear(o):
    intervals = [int(m[1]) for m in o.matching(r"interval: (\d+)")]
    last, total = o.number("last"), o.number("total")
    need(len(intervals) >= 3, f"{len(intervals)} intervals printed")
    # Two ticks may fall in one snapshot (the consumer merges aggregations
    # once per switch, as dtrace does per aggrate): an interval may be 0.
    need(sum(1 for v in intervals if v) >= 2, f"intervals {intervals}: fewer than two with data")
    need(sum(intervals) + last == total, f"intervals {intervals} plus the remainder {last} make "
         f"{sum(intervals) + last}, but the count never cleared saw {total}: clear() did not "
         "start each interval from zero")


add("clear-per-interval",
    r'''fbt::sched_tick:entry { @c = count(); @total = count(); }
        tick-100ms { printa("interval: %@d\n", @c); clear(@c); }
        tick-450ms { exit(0); }
        END { printa("last: %@d\n", @c); printa("total: %@d\n", @total); }''',
    checks=[_clear])


@check("record-columns")
def _trace(o):
    probe = re.search(r"^\s+(\d+)\s+fbt:kernel:bcache_read:entry\s", o.guest(
        "probe list fbt:kernel:bcache_read:entry"), re.M)
    need(probe, "fbt:kernel:bcache_read:entry not in `probe list`")
    recs = o.records
    equal("records", len(recs), 3)
    for i, (cpu, pid, func, name, rest) in enumerate(recs):
        need(cpu in (0, 1), f"CPU {cpu}")
        equal("probe ID", pid, int(probe[1]))
        equal("FUNCTION:NAME", f"{func}:{name}", "bcache_read:entry")
        # trace() of an int64: " %16d"; of a string: "  %-33s" (dtrace's widths)
        equal("traced", rest.rstrip(), (" %16d  %-33s" % (100 + i, "channel")).rstrip())


add("trace-records",
    r'''fbt::bcache_read:entry /arg0 < 103/ { trace(arg0); trace(execname); }''',
    run=SEQ40, flags=(), checks=[_trace])


@check("conversions")
def _printf(o):
    (m,) = o.matching(r"fmt: \[(.*)\] \[(.*)\] \[(.*)\] \[(.*)\] \[(.*)\] \[(.*)\] \[(.*)\]")
    equal("%5d %-5d %x %s %-12s %5.1s", m.groups()[:6],
          ("  100", "100  ", "64", "bcache_read", "channel     ", "    b"))
    caller = re.fullmatch(r"kernel`bcache_workload_run\+0x([0-9a-f]+)", m[7])
    need(caller, f"%a of caller printed {m[7]!r}")


add("printf-conversions",
    r'''fbt::bcache_read:entry /arg0 == 100/ {
            printf("fmt: [%5d] [%-5d] [%x] [%s] [%-12s] [%5.1s] [%a]\n",
                   arg0, arg0, arg0, probefunc, execname, probefunc, caller); }''',
    run=SEQ40, checks=[_printf])


@check("stack-action")
def _stack_action(o):
    frames = [ln.strip() for ln in o.lines if ln.strip()]
    check_frames(frames, o.symbols)
    need(frames[0].startswith("kernel`bcache_workload_run+"), f"first frame {frames[0]}")


add("stack-action",
    r'''fbt::bcache_read:entry /arg0 == 100/ { stack(); }''',
    run=SEQ40, checks=[_stack_action])

# --- other providers: sdt, graft, and the block layer as io ---------------------------

@check("lifecycle")
def _sdt(o):
    equal("created", o.number("created"), 4)
    equal("exits by sched-run", table(o, arity=1), {("sched-run",): 4})


add("sdt-thread-lifecycle",
    r'''sdt:::thread-create { @c = count(); } sdt:::thread-exit { @[execname] = count(); }
        END { printa("created: %@d\n", @c); }''',
    run=SCHED, checks=[_sdt])


@check("invoke-and-commit")
def _graft(o):
    equal("invocations", table(o, "invoke", arity=4), {("graft", "test", "method", "invoke"): 1})
    equal("commits (result, a, b)", table(o, "commit", arity=3), {("42", "6", "7"): 1})
    (e,) = o.section("latency")
    check_quantize(e, "latency")
    equal("latencies", e.total(), 1)


add("graft-provider",
    r'''graft:test:method:invoke { @i[probeprov, probemod, probefunc, probename] = count();
            self->g = timestamp; }
        graft:test:method:commit /self->g/ { @c[arg0, arg1, arg2] = count();
            @lat = quantize(timestamp - self->g); self->g = 0; }
        END { printf("invoke:\n"); printa(@i); printf("commit:\n"); printa(@c);
              printf("latency:\n"); printa(@lat); }''',
    run="testpoint 6 7", grafts=["test_scale"], setup=["graft install scale"],
    teardown=["graft remove scale"],
    checks=[_graft])


@check("victims-match-model")
def _evict(o):
    m = model(RAND100, evict="clock")
    equal("invocations", o.number("invoked"), m["evictions"])
    equal("commits", o.number("committed"), m["evictions"])
    (e,) = o.dump()
    check_lquantize(e, 0, 32, 8, "victims")
    equal("victims", e.total(), m["evictions"])
    need(all(c == 0 for lab, c in e.hist if lab in ("< 0", ">= 32")), "a victim outside 0..31")


add("graft-evict-victims",
    r'''graft:bcache:evict:invoke { @i = count(); }
        graft:bcache:evict:commit { @c = count(); @["victim"] = lquantize(arg0, 0, 32, 8); }
        END { printa("invoked: %@d\n", @i); printa("committed: %@d\n", @c); }''',
    run=RAND100, grafts=["evict_clock"], setup=["graft install clock", RESET],
    teardown=["graft remove clock"],
    checks=[_evict])


@check("io-matches-model")
def _io(o):
    m = model(RAND100)
    equal("submitted", o.number("submitted"), m["disk_reads"])
    equal("completed", o.number("completed"), m["disk_reads"])
    equal("sectors (8 per 4 KiB block)", o.number("sectors"), 8 * m["disk_reads"])


# io:::start / io:::done with a start time per request: the block layer's
# submit and completion, the request pointer as the key.
add("io-latency",
    r'''fbt::blkdev_submit:entry { start[arg1] = timestamp; @s = count();
            @sec = sum(*(uint32_t *)(arg1 + 8)); }
        fbt::blkdev_complete:entry /start[arg1]/ { @["read"] = quantize(timestamp - start[arg1]);
            @c = count(); start[arg1] = 0; }
        END { printa("submitted: %@d\n", @s); printa("completed: %@d\n", @c);
              printa("sectors: %@d\n", @sec); }''',
    run=RAND100, setup=[RESET], checks=[all_quantize("completed"), _io])


@check("one-request")
def _disk(o):
    equal("(sector, count)", table(o, arity=2), {("100", "4"): 1})


add("io-request-size",
    r'''fbt::blkdev_submit:entry { @[*(uint64_t *)arg1, *(uint32_t *)(arg1 + 8)] = count(); }''',
    run="disk read 100 4", checks=[_disk])

# --- keys built from variables and string functions -----------------------------------

@check("keys-and-values")
def _var_keys(o):
    odd = sum(1 for b in blocks(SEQ40) if b % 2)
    equal("(strjoin(self->f, \"!\"), self->f, parity) counts", table(o, "joined", arity=3),
          {("bcache_read!", "bcache_read", "0"): 40 - odd,
           ("bcache_read!", "bcache_read", "1"): odd})
    equal("(substr, lltostr(block % 3), last[cpu]) counts", table(o, "pieces", arity=3),
          {("bcache", str(r), "bcache_read"): sum(1 for b in blocks(SEQ40) if b % 3 == r)
           for r in range(3)})
    lat = table(o, "latency", arity=2)
    equal("(this->name, execname) keys", sorted(lat), [("bcache_read", "channel")])
    need(next(iter(lat.values())) > 0, f"average latency {lat}")


# Keys computed from thread-locals, associative arrays, clause-locals and
# string functions while the value reads a dynamic variable: issue 20's
# path (the key tuple built beside dynamic variable lookups).
add("keys-from-variables",
    r'''fbt::bcache_read:entry { self->t = timestamp; self->f = probefunc; last[cpu] = probefunc;
            blk[tid] = arg0; }
        fbt::bcache_read:return /self->t/ {
            @j[strjoin(self->f, "!"), self->f, blk[tid] % 2] = count();
            @p[substr(self->f, 0, 6), lltostr(blk[tid] % 3), last[cpu]] = count();
            this->name = self->f;
            @l[this->name, execname] = avg(timestamp - self->t); self->t = 0; }
        END { printf("joined:\n"); printa(@j); printf("pieces:\n"); printa(@p);
              printf("latency:\n"); printa(@l); }''',
    run=SEQ40, checks=[_var_keys])


# --- more aggregations and output options ---------------------------------------------

@check("exact-buckets")
def _quantize_int(o):
    want = {}
    for b in blocks(RAND80):
        want.setdefault(str(b % 3), []).append(b)
    got = {}
    for e in o.dump():
        need(len(e.keys) == 1 and e.hist is not None, f"entry {e}")
        got[e.keys[0]] = {int(lab): c for lab, c in e.hist if c}
    equal("buckets by block % 3", got, {k: quantize_counts(v) for k, v in want.items()})


add("quantize-int-key",
    r'''fbt::bcache_read:entry { @[arg0 % 3] = quantize(arg0); }''',
    run=RAND80, checks=[all_quantize(total=80), _quantize_int])


@check("sorted-by-key")
def _sortkey(o):
    keys = [e.keys[0] for e in o.dump()]
    need(len(keys) > 3, f"keys {keys}")
    equal("order", keys, sorted(keys))


add("aggsortkey",
    r'''fbt::bcache_*:entry { @[probefunc] = count(); }''',
    run=SEQ40, flags=("-q", "-x", "aggsortkey"), checks=[keys_are_functions("bcache_*"), _sortkey])


@check("nesting")
def _flow(o):
    need(o.flow, "no flowindent lines")
    depth, stack, tops = 0, [], 0
    for cpu, ind, arrow, func in o.flow:
        need(o.symbols.is_function(func), f"{func} is no kernel function")
        if arrow == "->":
            equal(f"indent of -> {func}", ind, 2 * depth)
            stack.append(func)
            depth += 1
            tops += depth == 1
        else:
            need(stack and stack[-1] == func, f"<- {func} does not close {stack[-1:]}")
            stack.pop()
            depth -= 1
            equal(f"indent of <- {func}", ind, 2 * depth)
    need(not stack, f"calls never returned: {stack}")
    equal("top-level calls", tops, 3)
    need(all(f == "bcache_read" for _, i, a, f in o.flow if i == 0), "a top-level line that is "
         "not bcache_read")


# dtrace -F: the calls a function makes, indented (scion trace has no -F,
# so the option that -F sets).
add("flowindent",
    r'''fbt::bcache_read:entry { self->f = 1; }
        fbt::bcache_*:entry,fbt::bcache_*:return /self->f/ {}
        fbt::bcache_read:return { self->f = 0; }''',
    run="bcache run seq n=3 start=100", flags=("-x", "flowindent"), checks=[_flow])


# --- plain variables, BEGIN and END ---------------------------------------------------

@check("counted")
def _incr(o):
    equal("n[\"bcache_read\"]", o.number("reads"), 40)


# An associative array counted with ++, no declaration: dtrace declares
# it as int64_t on first use (dt_cook_op1), as it does x++ and x += 1.
add("assoc-increment",
    r'''fbt::bcache_read:entry { n[probefunc]++; }
        END { printf("reads: %d\n", n["bcache_read"]); }''',
    run=SEQ40, checks=[_incr],
    known="dtc refuses ++/+= on an undeclared variable (failed to resolve n)")


@check("date")
def _walltime(o):
    need(re.fullmatch(r"\d{4} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d", o.label("start")),
         f"%Y printed {o.label('start')!r}")
    equal("END after BEGIN", o.number("ordered"), 1)


add("begin-end-walltimestamp",
    r'''BEGIN { printf("start: %Y\n", walltimestamp); t = timestamp; } tick-100ms { exit(0); }
        END { printf("ordered: %d\n", timestamp > t); }''',
    checks=[_walltime])

# --- exit -----------------------------------------------------------------------------

@check("tick-record")
def _exit(o):
    equal("records", [(f, n) for _, _, f, n, _ in o.records], [("", "tick-100ms")])


add("exit-status",
    r'''tick-100ms { exit(7); }''',
    flags=(), status=7, checks=[_exit])
