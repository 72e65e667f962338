# SPDX-License-Identifier: BSD-2-Clause
"""Reading what `scion trace` printed for a one-liner, and the checks the
corpus (oneliner_corpus.py) builds from: the output's SHAPE (aggregation
rows, histograms, stacks, printa columns as dtrace prints them; no byte
dumps where a string key belongs) and its VALUES (keys that name kernel
functions, totals that agree with a second counting aggregation or with
the workload, histogram arithmetic, stack frames the symbol table names).

Output conventions the corpus keeps so that output parses without
guessing (dtrace itself prints nothing that marks where an aggregation
starts):

  - lines the program prints itself (printf, printa with a format) start
    in column 0; dtrace's own aggregation rows, histograms and stack
    frames start with blanks, so the two never mix;
  - `NAME: VALUE` lines are labels, read with Output.number(NAME);
  - a line `NAME:` alone starts a section: the rows printa(@x) prints
    after it, up to the next line in column 0 (Output.section(NAME));
  - the aggregations no printa() printed come last (dtrace prints them
    at exit): Output.dump() parses what follows the last column-0 line.

A check is a (name, function) pair; the function takes the Output and
raises Fail with a sentence saying what is wrong.
"""

import fnmatch
import math
import re


class Fail(Exception):
    """A check found the output wrong; the message says how."""


def need(cond, message):
    if not cond:
        raise Fail(message)


# --- the kernel's symbol table (build/kernel.syms, `nm -S` of the kernel) ---

class KernelSymbols:
    """Text symbols of the booted kernel, each with the range up to the
    next symbol: what dtrace's symbol lookups may name."""

    def __init__(self, path):
        rows = []
        with open(path) as f:
            for line in f:
                parts = line.split()            # ADDRESS [SIZE] TYPE NAME (`nm -S`)
                if len(parts) in (3, 4):
                    rows.append((int(parts[0], 16), parts[-2], parts[-1]))
        rows.sort()
        self.functions = {}                 # name -> [(start, end)]: static names repeat
        self._starts = []                   # (start, end, name) of text symbols, by start
        for i, (addr, kind, name) in enumerate(rows):
            if kind not in "tT":
                continue
            end = next((a for a, _, _ in rows[i + 1:] if a > addr), addr + 1)
            self.functions.setdefault(name, []).append((addr, end))
            self._starts.append((addr, end, name))

    def is_function(self, name):
        return name in self.functions

    def lookup(self, addr):
        """(name, offset) of the text symbol holding addr, or None."""
        lo, hi = 0, len(self._starts)
        while lo < hi:
            mid = (lo + hi) // 2
            if self._starts[mid][0] <= addr:
                lo = mid + 1
            else:
                hi = mid
        if lo == 0:
            return None
        start, end, name = self._starts[lo - 1]
        return (name, addr - start) if addr < end else None


# --- dtrace's output, parsed ------------------------------------------------

HIST_HEADER = re.compile(r"^\s+value  -+ Distribution -+ count\s*$")
# A histogram row: the label right-justified in 16, the 41 columns of bars
# and the centre or side line, the count.
HIST_ROW = re.compile(r"^\s*(< -?\d+|>= -?\d+|-?\d+) ([ @|]{41}) (-?\d+)\s*$")
# print_bytes' hex dump of a byte string that does not look like a string.
DUMP_HEADER = re.compile(r"^\s+0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef")
DUMP_ROW = re.compile(r"^\s+[0-9a-f]+:( [0-9a-f]{2}){1,16}\s")
# A stack frame: indented, alone on its line, module`symbol[+0xoff] or an address.
FRAME = re.compile(r"^ {4,}(\S+`\S+|0x[0-9a-f]+)$")
FRAME_NAME = re.compile(r"^(\w+)`([\w.]+?)(?:\+0x([0-9a-f]+))?$")
# dtrace's heading and record lines when not quiet: "CPU     ID    FUNCTION:NAME",
# then "%3d %6d %32s " per record and what its actions traced.
RECORD = re.compile(r"^([ \d]{2}\d) ([ \d]{5}\d) +(\S*):(\S+) ?(.*)$")
HEADING = re.compile(r"^CPU +(ID +FUNCTION:NAME|FUNCTION)\s*$")
# flowindent's lines: "%3d %-41s ": the indent, then "-> f", "<- f" or "| f:name".
FLOW = re.compile(r"^([ \d]{2}\d) ( *)(->|<-|\|) (\S+)\s*$")
INT = re.compile(r"^-?\d+$")


class Entry:
    """One aggregation entry as dtrace printed it: its keys (text), and a
    value (int), a histogram [(label, count)] or both absent; stack: the
    frames of a stack() key."""

    def __init__(self, keys, value=None, hist=None, stack=None, text=""):
        self.keys, self.value, self.hist, self.stack, self.text = keys, value, hist, stack, text

    def total(self):
        return sum(c for _, c in self.hist) if self.hist is not None else self.value

    def __repr__(self):
        what = self.hist if self.hist is not None else self.value
        return f"Entry({self.stack or ''}{self.keys}: {what})"


def parse_entries(lines):
    """dtrace's default aggregation layout in lines -> ([Entry], [lines it
    could not read]). A byte dump (a key that was not a string) is never
    an entry."""
    entries, bad = [], []
    i, n = 0, len(lines)

    def histogram(j):
        rows = []
        while j < n and HIST_ROW.match(lines[j]):
            m = HIST_ROW.match(lines[j])
            rows.append((m[1], int(m[3]), m[2]))
            j += 1
        return j, rows

    while i < n:
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        if DUMP_HEADER.match(line) or DUMP_ROW.match(line):
            # A byte string printed as a hex dump: never valid where a key
            # belongs, but read on so that messages name the entry it keyed.
            start, nbytes = i, 0
            i += DUMP_HEADER.match(line) is not None
            while i < n and DUMP_ROW.match(lines[i]):
                hexes = lines[i].split(":", 1)[1][:48]       # " %02x" per byte, 16 a row
                nbytes += len(re.findall(r" [0-9a-f]{2}", hexes))
                i += 1
            bad.extend(lines[start:i])
            tokens = lines[i].split() if i < n else []
            h = i
            while h < n and not lines[h].strip():     # a histogram starts with a blank line
                h += 1
            if h < n and HIST_HEADER.match(lines[h]):
                j, rows = histogram(h + 1)
                entries.append(Entry([f"<{nbytes}-byte dump>"],
                                     hist=[(lab, c) for lab, c, _ in rows],
                                     text="\n".join(lines[start:j])))
                entries[-1].bars = [b for _, _, b in rows]
                i = j
            elif tokens and INT.match(tokens[-1]):
                entries.append(Entry([f"<{nbytes}-byte dump>"] + tokens[:-1], int(tokens[-1]),
                                     text="\n".join(lines[start:i + 1])))
                i += 1
            continue
        if HIST_HEADER.match(line):
            i, rows = histogram(i + 1)
            entries.append(Entry([], hist=[(lab, c) for lab, c, _ in rows], text=line))
            entries[-1].bars = [b for _, _, b in rows]
            continue
        if i + 1 < n and HIST_HEADER.match(lines[i + 1]):
            j, rows = histogram(i + 2)
            entries.append(Entry(line.split(), hist=[(lab, c) for lab, c, _ in rows],
                                 text="\n".join(lines[i:j])))
            entries[-1].bars = [b for _, _, b in rows]
            i = j
            continue
        before = []
        if FRAME.match(line) is None and i + 1 < n and FRAME.match(lines[i + 1]) and \
                not INT.match(line.split()[-1]):
            before, i = line.split(), i + 1        # keys printed before a stack() key
            line = lines[i]
        if FRAME.match(line):
            start, frames = i, []
            while i < n and FRAME.match(lines[i]):
                frames.append(lines[i].strip())
                i += 1
            while i < n and not lines[i].strip() and i + 1 < n and HIST_HEADER.match(lines[i + 1]):
                i += 1
            if i < n and HIST_HEADER.match(lines[i]):
                j, rows = histogram(i + 1)
                entries.append(Entry(before, hist=[(lab, c) for lab, c, _ in rows], stack=frames,
                                     text="\n".join(lines[start:j])))
                entries[-1].bars = [b for _, _, b in rows]
                i = j
                continue
            tokens = lines[i].split() if i < n else []
            if not tokens:                          # the stack() action: frames alone
                entries.append(Entry(before, stack=frames, text="\n".join(lines[start:i])))
            elif INT.match(tokens[-1]):
                entries.append(Entry(before + tokens[:-1], int(tokens[-1]), stack=frames,
                                     text="\n".join(lines[start:i + 1])))
            else:
                bad.extend(lines[start:i + 1])
            i += 1
            continue
        tokens = line.split()
        if INT.match(tokens[-1]):
            entries.append(Entry(tokens[:-1], int(tokens[-1]), text=line))
        else:
            bad.append(line)
        i += 1
    return entries, bad


class Output:
    """One run of a one-liner: exit status, stdout, stderr, and views of
    stdout by the conventions above. symbols: KernelSymbols; guest: a
    function running a guest shell command and returning its output."""

    def __init__(self, rc, out, err, quiet, symbols=None, guest=None):
        self.rc, self.out, self.err, self.quiet = rc, out, err, quiet
        self.symbols, self.guest = symbols, guest
        lines = out.splitlines()
        self.records = []       # (cpu, probe id, function, name, what the actions traced)
        self.flow = []          # flowindent: (cpu, indent, "->" or "<-" or "|", function)
        if not quiet:
            kept = []
            for ln in lines:
                m, f = RECORD.match(ln), FLOW.match(ln)
                if m:
                    self.records.append((int(m[1]), int(m[2]), m[3], m[4], m[5]))
                elif f:
                    # "%3d %-41s": the field starts " -> f" at depth 0, two more blanks a level
                    self.flow.append((int(f[1]), len(f[2]) - 1, f[3], f[4]))
                elif not HEADING.match(ln):
                    kept.append(ln)
            lines = kept
        self.lines = lines

    def heads(self):
        """The lines the program printed itself (column 0), in order."""
        return [ln for ln in self.lines if ln and not ln[0].isspace()]

    def _block_after(self, index):
        block = []
        for ln in self.lines[index + 1:]:
            if ln and not ln[0].isspace():
                break
            block.append(ln)
        return block

    def dump(self):
        """The entries dtrace printed at exit (after the last column-0 line)."""
        last = max((i for i, ln in enumerate(self.lines) if ln and not ln[0].isspace()),
                   default=-1)
        return parse_entries(self._block_after(last))[0]

    def section(self, name):
        """The entries printed after the line `name:`."""
        for i, ln in enumerate(self.lines):
            if ln == name + ":":
                return parse_entries(self._block_after(i))[0]
        raise Fail(f"no section '{name}:' in the output")

    def label(self, name):
        for ln in self.lines:
            if ln.startswith(name + ": "):
                return ln[len(name) + 2:]
        raise Fail(f"no line '{name}: ...' in the output")

    def number(self, name):
        text = self.label(name)
        need(INT.match(text.strip()), f"'{name}: {text}' is not a number")
        return int(text)

    def matching(self, pattern):
        """re.fullmatch of pattern against each column-0 line that matches it."""
        rx = re.compile(pattern)
        return [m for m in (rx.fullmatch(ln) for ln in self.heads()) if m]


# --- values -----------------------------------------------------------------

def dtrace_avg(values):
    """avg() as dtrace computes it: the sum divided by the count, in integers."""
    return int(sum(values) / len(values)) if values else 0


def dtrace_stddev(values):
    """stddev() as dtrace computes it: sqrt(avg(x^2) - avg(x)^2), each
    average an integer division, the root truncated."""
    if not values:
        return 0
    n = len(values)
    mean_sq = sum(v * v for v in values) // n
    mean = abs(int(sum(values) / n))
    return math.isqrt(mean_sq - mean * mean)


def quantize_label(v):
    """The lower bound of the quantize bucket holding v, as dtrace labels it."""
    if v == 0:
        return 0
    p = 1 << (abs(v).bit_length() - 1)
    return p if v > 0 else -p


def quantize_counts(values, weight=1):
    counts = {}
    for v in values:
        label = quantize_label(v)
        counts[label] = counts.get(label, 0) + weight
    return counts


def lquantize_counts(values, low, high, step):
    """{label text: count} as lquantize(x, low, high, step) buckets them."""
    counts = {}
    for v in values:
        if v < low:
            label = f"< {low}"
        elif v >= high:
            label = f">= {high}"
        else:
            label = str(low + (v - low) // step * step)
        counts[label] = counts.get(label, 0) + 1
    return counts


def llquantize_labels(factor, low, high, nsteps):
    """The labels dtrace prints for llquantize(x, factor, low, high, nsteps), in order:
    "< factor^low", each bucket's lower bound, ">= factor^(high+1)"."""
    bounds, value = [], factor ** low
    for _ in range(low, high + 1):
        end = value * factor
        step = max(end // nsteps, 1)
        bounds += list(range(value, end, step))
        value = end
    return [f"< {factor ** low}"] + [str(b) for b in bounds] + [f">= {value}"]


def llquantize_counts(values, factor, low, high, nsteps):
    """{label text: count} as llquantize buckets values: the last label whose
    bound is at or below each value."""
    labels = llquantize_labels(factor, low, high, nsteps)
    bounds = [int(lab) for lab in labels[1:-1]]
    counts = {}
    for v in values:
        if v < factor ** low:
            label = labels[0]
        elif v >= factor ** (high + 1):
            label = labels[-1]
        else:
            label = str(max(b for b in bounds if b <= v))
        counts[label] = counts.get(label, 0) + 1
    return counts


def check_llquantize(entry, factor, low, high, nsteps, what="histogram"):
    rows = entry.hist
    need(rows, f"{what}: no rows")
    order = llquantize_labels(factor, low, high, nsteps)
    labels = [lab for lab, _ in rows]
    need(all(lab in order for lab in labels), f"{what}: labels {labels} are not llquantize("
         f"x, {factor}, {low}, {high}, {nsteps})'s {order}")
    idx = [order.index(lab) for lab in labels]
    need(idx == list(range(idx[0], idx[0] + len(idx))),
         f"{what}: buckets {labels} are not contiguous and increasing")
    check_bars(entry, what)


def is_power_label(text):
    if not INT.match(text):
        return False
    v = int(text)
    return v == 0 or (abs(v) & (abs(v) - 1)) == 0


def check_quantize(entry, what="histogram"):
    """dtrace's quantize layout: buckets 0 and +-powers of two, contiguous
    and increasing, the rows from one before the first nonzero bucket to
    one after the last, counts >= 0, bars in proportion."""
    rows = entry.hist
    need(rows, f"{what}: no rows")
    labels = [lab for lab, _ in rows]
    need(all(is_power_label(lab) for lab in labels),
         f"{what}: labels {labels} are not 0 and powers of two")
    values = [int(lab) for lab in labels]
    ladder = sorted({0} | {s * (1 << k) for s in (1, -1) for k in range(64)})
    pos = [ladder.index(v) for v in values]
    need(pos == list(range(pos[0], pos[0] + len(pos))),
         f"{what}: buckets {values} are not contiguous and increasing")
    counts = [c for _, c in rows]
    need(all(c >= 0 for c in counts), f"{what}: negative counts {counts}")
    need(sum(counts) > 0, f"{what}: all counts are zero")
    if values[0] != ladder[0]:
        need(counts[0] == 0, f"{what}: the first row ({values[0]}) is not the empty one before "
             f"the first nonzero bucket")
    if values[-1] != ladder[-1]:
        need(counts[-1] == 0, f"{what}: the last row ({values[-1]}) is not the empty one after "
             f"the last nonzero bucket")
    check_bars(entry, what)


def check_lquantize(entry, low, high, step, what="histogram"):
    rows = entry.hist
    need(rows, f"{what}: no rows")
    order = [f"< {low}"] + [str(v) for v in range(low, high, step)] + [f">= {high}"]
    labels = [lab for lab, _ in rows]
    need(all(lab in order for lab in labels), f"{what}: labels {labels} are not lquantize("
         f"x, {low}, {high}, {step})'s {order}")
    idx = [order.index(lab) for lab in labels]
    need(idx == list(range(idx[0], idx[0] + len(idx))),
         f"{what}: buckets {labels} are not contiguous and increasing")
    counts = [c for _, c in rows]
    need(all(c >= 0 for c in counts), f"{what}: negative counts {counts}")
    check_bars(entry, what)


def check_bars(entry, what):
    """Each bar is |count| * 40 / total, rounded (20 when both signs show)."""
    total = sum(abs(c) for _, c in entry.hist)
    bars = getattr(entry, "bars", None)
    if not bars or not total:
        return
    for (lab, c), bar in zip(entry.hist, bars):
        width = 20 if bar.count("|") == 1 and bar.index("|") == 20 else 40
        want = abs(c) * width / total
        need(abs(bar.count("@") - want) <= 1,
             f"{what}: row {lab} has {bar.count('@')} @ for {c} of {total} (want {want:.1f})")


def check_frames(frames, symbols, what="stack"):
    """Each frame module`symbol+0xoff with the symbol a kernel function and
    the offset inside it; a bare address only where no symbol holds it."""
    need(frames, f"{what}: no frames")
    for f in frames:
        m = FRAME_NAME.match(f)
        if m:
            need(m[1] == "kernel", f"{what}: frame {f} is not in module kernel")
            need(symbols.is_function(m[2]), f"{what}: frame {f}: no function {m[2]} in the "
                 f"kernel's symbol table")
            off = int(m[3] or "0", 16)
            sizes = [end - start for start, end in symbols.functions[m[2]]]
            need(any(off <= size for size in sizes), f"{what}: frame {f}: offset beyond "
                 f"{m[2]}'s {' or '.join(map(str, sizes))} bytes")
            continue
        need(f.startswith("0x"), f"{what}: frame {f!r} is neither a symbol nor an address")
        named = symbols.lookup(int(f, 16))
        if named:
            raise Fail(f"{what}: frame {f} printed as a bare address, but the symbol table "
                       f"names it {named[0]}+{named[1]:#x}")


def printable(text):
    return all(0x20 <= ord(c) < 0x7f for c in text)


# --- the checks every one-liner gets ------------------------------------------

DESCRIPTION = re.compile(r"^dtrace: (description|script) '.*' matched \d+ probes?$")


def check_status(want):
    def status(o):
        need(o.rc == want, f"exit status {o.rc}, expected {want}")
    return ("exit-status", status)


def check_stderr(allowed=()):
    """stderr holds nothing but dtrace's 'matched N probes' line and the
    lines allowed (regular expressions): no drops, errors or tracebacks."""
    allow = [re.compile(a) for a in allowed]

    def stderr(o):
        extra = [ln for ln in o.err.splitlines() if ln.strip() and not DESCRIPTION.match(ln)
                 and not any(a.search(ln) for a in allow)]
        need(not extra, "unexpected on stderr: " + "; ".join(extra[:5]))
    return ("no-warnings", stderr)


def check_shape():
    """Every line of the aggregation output reads as dtrace's layout; no
    byte dumps; keys printable with no embedded NULs."""
    def shape(o):
        need("\0" not in o.out, "a NUL byte in the output")
        dumps = [ln for ln in o.lines if DUMP_HEADER.match(ln) or DUMP_ROW.match(ln)]
        need(not dumps, f"{len(dumps)} hex-dump lines where a key or value belongs, e.g. "
             f"{dumps[:3]}")
        block, bad = [], []
        for ln in o.lines + ["end"]:
            if ln and not ln[0].isspace():
                bad += parse_entries(block)[1]
                block = []
            else:
                block.append(ln)
        need(not bad, f"lines that are not dtrace's aggregation layout: {bad[:4]}")
        for ln in o.lines:
            need(printable(ln), f"unprintable characters in {ln!r}")
    return ("shape", shape)


# --- building blocks for the corpus's own checks --------------------------------

def entries_of(o, where):
    """where: None (the exit dump) or a section name."""
    return o.dump() if where is None else o.section(where)


def table(o, where=None, arity=None):
    """{key tuple: value} of plain (non-histogram, non-stack) entries."""
    out = {}
    for e in entries_of(o, where):
        need(e.hist is None and e.stack is None, f"{e} is not a plain row")
        if arity is not None:
            need(len(e.keys) == arity, f"entry {e.keys} has {len(e.keys)} keys, expected {arity}")
        key = tuple(e.keys)
        need(key not in out, f"key {key} printed twice (entries not merged)")
        out[key] = e.value
    return out


def keys_are_functions(pattern="*", where=None, position=0, prefix=""):
    """Each entry's key at position names a kernel function matching pattern
    (prefix: 'kernel`' for func()/sym() keys)."""
    def fn(o):
        entries = entries_of(o, where)
        need(entries, "no entries")
        for e in entries:
            need(len(e.keys) > position, f"entry {e} has no key {position}")
            k = e.keys[position]
            need(k.startswith(prefix), f"key {k!r} does not start with {prefix!r}")
            name = k[len(prefix):]
            need(o.symbols.is_function(name), f"key {k!r} is not a function in the kernel's "
                 f"symbol table")
            need(fnmatch.fnmatchcase(name, pattern), f"key {k!r} does not match {pattern}")
    return (f"keys-are-functions{'-' + where if where else ''}", fn)


def arity(n, where=None):
    def fn(o):
        entries = entries_of(o, where)
        need(entries, "no entries")
        for e in entries:
            need(len(e.keys) == n, f"entry {e} has {len(e.keys)} keys, expected {n}")
    return (f"arity-{n}", fn)


def sum_equals(label, where=None):
    """The entries' values add up to the count a second aggregation kept of
    the same events (printed as `label: N`)."""
    def fn(o):
        total = sum(e.total() for e in entries_of(o, where))
        want = o.number(label)
        need(total == want, f"the entries add up to {total}, the separate count saw {want}")
    return (f"sum-equals-{label}", fn)


def all_quantize(total_label=None, total=None, where=None):
    def fn(o):
        entries = entries_of(o, where)
        need(entries, "no histograms")
        for e in entries:
            need(e.hist is not None, f"{e} is not a histogram")
            check_quantize(e, f"histogram {e.keys}")
        got = sum(e.total() for e in entries)
        if total_label is not None:
            want = o.number(total_label)
            need(got == want, f"the histograms hold {got} values, the separate count saw {want}")
        if total is not None:
            need(got == total, f"the histograms hold {got} values, the workload made {total}")
    return ("quantize-shape", fn)


def stacks_symbolized(where=None):
    def fn(o):
        entries = entries_of(o, where)
        need(entries, "no stacks")
        for e in entries:
            need(e.stack is not None, f"{e} has no stack key")
            check_frames(e.stack, o.symbols, f"stack {e.stack[:1]}...")
    return ("frames-symbolized", fn)


def check(name):
    """Decorator: a corpus function as a named check."""
    def wrap(fn):
        return (name, fn)
    return wrap
