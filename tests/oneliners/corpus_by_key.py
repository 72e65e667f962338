# SPDX-License-Identifier: BSD-2-Clause
"""One-liners that count and time by function, caller, stack, CPU and
thread, and latency kept in thread-local variables.
Part of the one-liner corpus (oneliner_corpus.py says how an entry reads)."""

from dtrace_checks import (all_quantize, arity, check, check_lquantize, keys_are_functions,
                           need, stacks_symbolized, sum_equals, table)
from oneliner import model, equal, SEQ40, RAND60, SCHED, RESET, add


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
