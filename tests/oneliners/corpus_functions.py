# SPDX-License-Identifier: BSD-2-Clause
"""One-liners on the aggregating functions with known values, predicates,
speculations and the output actions (printa, printf, trace, trunc,
normalize, clear).
Part of the one-liner corpus (oneliner_corpus.py says how an entry reads)."""

import re

from dtrace_checks import (all_quantize, check, check_frames, check_llquantize,
                           check_lquantize, dtrace_avg, dtrace_stddev, keys_are_functions,
                           llquantize_counts, lquantize_counts, need, quantize_counts, table)
from oneliner import blocks, equal, SEQ40, RAND60, RAND80, add


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

@check("exact-buckets")
def _llquantize(o):
    (e,) = o.dump()
    equal("key", e.keys, ["bcache_read"])
    check_llquantize(e, 4, 0, 3, 8, "llquantize")
    got = {lab: c for lab, c in e.hist if c}
    equal("buckets", got, llquantize_counts(blocks(RAND80), 4, 0, 3, 8))


add("llquantize-by-function",
    r'''fbt::bcache_read:entry { @[probefunc] = llquantize(arg0, 4, 0, 3, 8); }''',
    run=RAND80, checks=[_llquantize])


@check("exact-buckets")
def _llquantize_weighted(o):
    (e,) = o.dump()
    got = {lab: c for lab, c in e.hist if c}
    want = {lab: 2 * c for lab, c in llquantize_counts([b * 37 for b in blocks(SEQ40)],
                                                         10, 1, 4, 20).items()}
    equal("buckets", got, want)


add("llquantize-weighted-decades",
    r'''fbt::bcache_read:entry { @ = llquantize(arg0 * 37, 10, 1, 4, 20, 2); }''',
    run=SEQ40, checks=[_llquantize_weighted])

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
