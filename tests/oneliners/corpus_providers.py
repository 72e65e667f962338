# SPDX-License-Identifier: BSD-2-Clause
"""One-liners on the other providers (sdt, sched, lockstat, graft, io), keys built from
variables and string functions, more aggregations and options, plain
variables, BEGIN, END and exit.
Part of the one-liner corpus (oneliner_corpus.py says how an entry reads)."""

import re

from dtrace_checks import (all_quantize, check, check_lquantize, check_quantize,
                           keys_are_functions, need, quantize_counts, table)
from oneliner import blocks, model, equal, SEQ40, RAND100, RAND80, SCHED, RESET, add


# --- other providers: sdt, sched, lockstat, graft, and the block layer as io ---------

@check("lifecycle")
def _sdt(o):
    equal("created", o.number("created"), 4)
    equal("exits by sched-run", table(o, arity=1), {("sched-run",): 4})


add("sdt-thread-lifecycle",
    r'''sdt:::thread-create { @c = count(); } sdt:::thread-exit { @[execname] = count(); }
        END { printa("created: %@d\n", @c); }''',
    run=SCHED, checks=[_sdt])


@check("on-off-pair")
def _sched_pairs(o):
    on, off = table(o, "on", arity=1), table(o, "off", arity=1)
    equal("sched-run threads switched in", len(on), 4)
    equal("off-cpu per thread (on-cpu's)", off, on)
    need(all(int(k[0]) > 0 for k in on), f"tids {sorted(on)}")
    equal("sleeps per thread (rounds - 1)", set(table(o, "sleep", arity=1).values()), {2})


# sched:::on-cpu fires in the thread switched in, off-cpu in the one leaving
# (its arg0 is the next thread): per thread they pair up.
add("sched-on-off-cpu",
    r'''sched:::on-cpu /execname == "sched-run"/ { @on[tid] = count(); }
        sched:::off-cpu /execname == "sched-run"/ { @off[tid] = count(); }
        sched:::sleep /execname == "sched-run"/ { @s[arg0] = count(); }
        END { printf("on:\n"); printa(@on); printf("off:\n"); printa(@off);
              printf("sleep:\n"); printa(@s); }''',
    run=SCHED, checks=[_sched_pairs])


@check("probe-names")
def _lockstat(o):
    names = {k[0] for k in table(o, arity=1)}
    need({"spin-acquire", "spin-release", "adaptive-acquire", "adaptive-release"} <= names and
         names <= {"spin-acquire", "spin-release", "spin-spin", "adaptive-acquire",
                   "adaptive-release", "adaptive-block"}, f"probe names {sorted(names)}")


# lockstat beside the scheduler: every lock the workload takes, by probe.
add("lockstat-by-probename",
    r'''lockstat::: { @[probename] = count(); }''',
    run=SCHED, checks=[_lockstat])


@check("lock-names")
def _lockstat_typed(o):
    names = {k[0] for k in table(o, arity=1)}
    need({"sched", "threads"} <= names, f"lock names {sorted(names)}")


# args[0] of lockstat is the struct spinlock *: locks counted by their names.
add("lockstat-by-lock-name",
    r'''lockstat:::spin-acquire { @[stringof(args[0]->name)] = count(); }''',
    run=SCHED, checks=[_lockstat_typed])


@check("thread-names")
def _sched_typed(o):
    on = table(o, arity=1)
    need(("sched-run",) in on, f"threads {sorted(on)}")


# args[2] of sched:::on-cpu is the struct thread * switched in.
add("sched-on-cpu-thread-name",
    r'''sched:::on-cpu { @[stringof(args[2]->name)] = count(); }''',
    run=SCHED, checks=[_sched_typed])


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
