# SPDX-License-Identifier: BSD-2-Clause
"""Aggregations on the host side of `scion trace`: the entries the kernel
sends each snapshot (struct dof_aggent in kernel/include/scion/dof.h,
deltas merged here), clear/trunc/normalize/denormalize, and printa()
output as illumos dtrace(1M) prints it: sorted by value then key (or as
the aggsort* options say), one line per entry with dtrace's column
widths, quantize/lquantize/llquantize as ASCII histograms, several aggregations in
one printa joined by key, and the aggregations no printa() printed
written out at the end.
"""

import math
import struct
import time

from .layouts import C, layout
from .dprintf import (M64, FormatError, Int, Str, Text, cdiv, int_column, print_bytes,
                      print_stack, render, signed, sym_name, sym_start, unsigned)

QZERO, QBUCKETS = C.DOF_QUANTIZE_ZERO, C.DOF_QUANTIZE_BUCKETS
ENTRY = layout("dof_aggent").ordered("agg", "keybytes", "valbytes")
DIST = "------------- Distribution -------------"
NVALS = {"count": 1, "sum": 1, "min": 1, "max": 1, "avg": 2, "stddev": 4, "quantize": QBUCKETS}


def bucket_value(i):
    """The lower bound of quantize bucket i."""
    if i < QZERO:
        return -(1 << (QZERO - 1 - i))
    return 0 if i == QZERO else 1 << (i - QZERO - 1)


def stddev(n, s, sq, normal=1):
    """dtrace's integer standard deviation: sqrt(avg(x^2) - avg(x)^2), with
    the sum of squares (128 bits) divided by normal twice."""
    if not n:
        return 0
    normal = normal or 1
    mean_sq = sq // normal // normal // n
    avg = abs(cdiv(cdiv(signed(s), signed(normal) or 1), signed(n) or 1))
    return math.isqrt((mean_sq - avg * avg) % (1 << 128)) & M64


def _depth(val, length, total):
    """Bar length: |val| * length / total rounded half up, exactly."""
    return (2 * abs(val) * length + total) // (2 * total)


def quant_line(val, normal, total, pos, neg):
    """One histogram row after its label: the bar and the count. With both
    signs present, bars are half as long on either side of a centre line."""
    shown = signed(unsigned(val) // (normal or 1))
    if not neg:
        depth = _depth(val, 40, total) if pos else 0
        return "|%s%s %-9d\n" % ("@" * depth, " " * (40 - depth), shown)
    if not pos:
        depth = _depth(val, 40, total)
        return "%s%s| %-9d\n" % (" " * (40 - depth), "@" * depth, shown)
    depth = _depth(val, 20, total)
    if val <= 0:
        return "%s%s|%s %-9d\n" % (" " * (20 - depth), "@" * depth, " " * 20, shown)
    return "%s|%s%s %-9d\n" % (" " * 20, "@" * depth, " " * (20 - depth), shown)


def _histogram(data, first, last, labels, normal):
    rows = data[first:last + 1]
    pos, neg = any(v > 0 for v in rows), any(v < 0 for v in rows)
    total = sum(abs(v) for v in rows)
    out = ["\n%16s %41s %-9s\n" % ("value", DIST, "count")]
    for i in range(first, last + 1):
        out.append("%16s " % labels(i) + quant_line(data[i], normal, total, pos, neg))
    return "".join(out)


def _trim(data, scan_end, top):
    """The rows dtrace shows: from one before the first nonzero bucket (of
    the first scan_end) to one after the last; None when all are zero."""
    first = 0
    while first < scan_end and data[first] == 0:
        first += 1
    if first >= scan_end:
        return None
    last = top
    while last > 0 and data[last] == 0:
        last -= 1
    return max(first - 1, 0), min(last + 1, top)


def quantize_text(counts, normal=1):
    data = [signed(c) for c in counts]
    rows = _trim(data, QBUCKETS - 1, QBUCKETS - 1) or (QZERO - 1, QZERO + 1)
    return _histogram(data, rows[0], rows[1], bucket_value, normal)


def lquantize_text(counts, low, step, levels, normal=1):
    data = [signed(c) for c in counts]
    rows = _trim(data, levels + 2, levels + 1) or (0, min(2, levels + 1))

    def label(i):
        if i == 0:
            return "< %d" % low
        if i == levels + 1:
            return ">= %d" % (low + levels * step)
        return "%d" % (low + (i - 1) * step)
    return _histogram(data, rows[0], rows[1], label, normal)


def llquantize_bounds(factor, low, high, nsteps):
    """The lower bound of each llquantize bucket after the first (which holds
    what is below factor^low), the last one's being factor^(high + 1): the
    log-linear layout of dof_llquantize_bucket (scion/dof.h), walked as
    dtrace walks it to print."""
    value = factor ** low
    bounds = []
    for _ in range(low, high + 1):
        end = value * factor
        step = end // nsteps if end > nsteps else 1
        while value < end:
            bounds.append(value)
            value += step
    bounds.append(value)
    return bounds


def llquantize_text(counts, bounds, normal=1):
    """dtrace's llquantize histogram: "< factor^low" first, ">= factor^(high+1)"
    last, each other row labelled with its bucket's lower bound."""
    data = [signed(c) for c in counts]
    n = len(data)
    rows = _trim(data, n, n - 1) or (0, 1)

    def label(i):
        if i == 0:
            return "< %d" % bounds[0]
        if i == n - 1:
            return ">= %d" % bounds[-1]
        return "%d" % bounds[i - 1]
    return _histogram(data, rows[0], rows[1], label, normal)


class Agg:
    """One aggregation's description (from dtc's JSON)."""

    def __init__(self, meta):
        self.id, self.name, self.func = meta["id"], meta.get("name", ""), meta["func"]
        self.keys = meta.get("keys") or []
        if self.func not in NVALS and self.func not in ("lquantize", "llquantize"):
            raise ValueError(f"aggregation {self.id}: unknown function {self.func!r}")
        self.low = self.step = self.levels = 0
        self.bounds = []
        if self.func == "lquantize":
            low, high, step = meta["lquantize"]
            self.low, self.step, self.levels = low, step, (high - low) // step
            self.nvals = self.levels + 2
        elif self.func == "llquantize":
            factor, low, high, nsteps, buckets = meta["llquantize"]
            self.bounds = llquantize_bounds(factor, low, high, nsteps)
            self.nvals = len(self.bounds) + 1
            if self.nvals != buckets:
                raise ValueError(f"aggregation {self.id}: llquantize({factor}, {low}, {high}, "
                                 f"{nsteps}) has {buckets} buckets in the object, "
                                 f"{self.nvals} here")
        else:
            self.nvals = NVALS[self.func]
        # where each key item starts: the kernel pads each to 8 bytes
        # (kernel/trace/dof.c); packed back to back is accepted too
        self.layouts = {}
        for pad in (7, 0):
            offsets, off = [], 0
            for k in self.keys:
                offsets.append(off)
                off += 8 if k["type"] == "int" else (k["size"] + pad) & ~pad
            self.layouts.setdefault(off, offsets)
        self.keybytes = next(iter(self.layouts))
        self.printed = False


class Key:
    """One key item as dtrace records it: kind int, sym (an address, moved
    to the start of its symbol), string or stack; rec its bytes (an int
    has its type's width)."""
    __slots__ = ("kind", "rec", "signed")

    def __init__(self, kind, rec, is_signed=False):
        self.kind, self.rec, self.signed = kind, rec, is_signed

    def number(self):
        return int.from_bytes(self.rec, "little")


class Entry:
    __slots__ = ("agg", "keys", "vals", "normal")

    def __init__(self, agg, keys, vals):
        self.agg, self.keys, self.vals, self.normal = agg, keys, vals, 1


def key_order(e, keypos=0):
    """dtrace's key comparison as a sort key: the number of keys, then each
    key (from keypos on, wrapping) by size, then as an unsigned integer
    when 1, 2, 4 or 8 bytes long, else bytewise."""
    n = len(e.keys)
    kp = keypos if keypos < n else 0
    parts = [n]
    for i in range(n):
        rec = e.keys[(i + kp) % n].rec
        parts.append((len(rec), int.from_bytes(rec, "little") if len(rec) in (1, 2, 4, 8)
                      else rec))
    return tuple(parts)


def value_order(e):
    """dtrace's value comparison as a sort key."""
    f, v = e.agg.func, e.vals
    if f == "avg":
        return (cdiv(signed(v[1]), signed(v[0])) if v[0] else 0,)
    if f == "stddev":
        return (stddev(v[0], v[1], v[2] | v[3] << 64) if v[0] else 0,)
    if f == "quantize":
        return (sum(bucket_value(i) * signed(c) for i, c in enumerate(v)), signed(v[QZERO]))
    if f == "lquantize":
        a, data = e.agg, [signed(c) for c in v]
        top = a.low + a.levels * a.step
        total = data[0] * (a.low - 1) + data[-1] * (top + 1) + sum(
            data[i + 1] * (a.low + i * a.step) for i in range(a.levels))
        zero = data[0] if a.low - 1 == 0 else data[-1] if top + 1 == 0 else 0
        for i in range(a.levels):
            if a.low + i * a.step == 0:
                zero = data[i + 1]
        return (total, zero)
    if f == "llquantize":
        b, data = e.agg.bounds, [signed(c) for c in v]
        total = data[0] * (b[0] - 1) + sum(data[i + 1] * b[i] for i in range(len(b)))
        return (total, data[0] if b[0] - 1 == 0 else 0)
    return (signed(v[0]),)


class Aggregations:
    """Every aggregation of a session: merged snapshots and their printing."""

    def __init__(self, metas, options, symbolize, stackindent=14, rawbytes=False,
                 localtime=time.localtime):
        self.aggs = {m["id"]: Agg(m) for m in metas}
        self.localtime = localtime
        self.entries = {}           # (agg id, key bytes) -> Entry, oldest first
        self.symbolize, self.indent, self.rawbytes = symbolize, stackindent, rawbytes
        opt = options.get
        self.rev = bool(opt("aggsortrev"))
        self.keysort = bool(opt("aggsortkey"))
        self.keypos = opt("aggsortkeypos") or 0
        self.sortpos = opt("aggsortpos") or 0

    # --- merging -----------------------------------------------------------

    def merge(self, chunk):
        """Add one CPU's aggregation chunk (entries of deltas) to the totals."""
        off = 0
        while off + ENTRY.size <= len(chunk):
            aid, kb, vb = ENTRY.unpack_from(chunk, off)
            agg = self.aggs.get(aid)
            if agg is None:
                raise FormatError(f"aggregation data for unknown aggregation {aid}")
            end = off + ENTRY.size + kb + vb
            if kb not in agg.layouts or vb != 8 * agg.nvals or end > len(chunk):
                raise FormatError(f"aggregation {aid}: entry of {kb}+{vb} bytes, expected "
                                  f"{agg.keybytes}+{8 * agg.nvals}")
            keys = self._keys(agg, agg.layouts[kb], chunk[off + ENTRY.size:off + ENTRY.size + kb])
            vals = list(struct.unpack_from("<%dQ" % agg.nvals, chunk, off + ENTRY.size + kb))
            ident = (aid, b"".join(k.rec for k in keys))
            old = self.entries.get(ident)
            if old is None:
                self.entries[ident] = Entry(agg, keys, vals)
            else:
                old.vals = self._combine(agg.func, old.vals, vals)
            off = (end + 7) & ~7

    def _keys(self, agg, offsets, data):
        keys = []
        for k, off in zip(agg.keys, offsets):
            if k["type"] == "int":
                raw = int.from_bytes(data[off:off + 8], "little")
                if k.get("sym", "none") != "none":
                    keys.append(Key("sym", sym_start(raw, self.symbolize).to_bytes(8, "little")))
                else:
                    w = k.get("width", 8)
                    keys.append(Key("int", unsigned(raw, w).to_bytes(w, "little"),
                                    k.get("signed", True)))
            else:
                raw = data[off:off + k["size"]]
                if k["type"] == "string":
                    raw = raw.split(b"\0", 1)[0].ljust(k["size"], b"\0")
                keys.append(Key(k["type"], raw))
        return tuple(keys)

    @staticmethod
    def _combine(func, old, new):
        if func in ("min", "max"):
            pick = min if func == "min" else max
            return [pick(old[0], new[0], key=signed)]
        out = [(a + b) & M64 for a, b in zip(old, new)]
        if func == "stddev":
            sq = ((old[2] | old[3] << 64) + (new[2] | new[3] << 64)) & ((1 << 128) - 1)
            out[2:] = [sq & M64, sq >> 64]
        return out

    # --- actions the consumer runs ------------------------------------------

    def _of(self, aid):
        return [e for e in self.entries.values() if e.agg.id == aid]

    def clear(self, aid):
        for e in self._of(aid):
            e.vals = [0] * len(e.vals)

    def normalize(self, aid, normal):
        if normal == 0:
            # dtrace gives up at the first (newest) entry, resetting it to 1
            newest = self._of(aid)[-1:]
            for e in newest:
                e.normal = 1
            return
        for e in self._of(aid):
            e.normal = normal

    def denormalize(self, aid):
        self.normalize(aid, 1)

    def trunc(self, aid, keep=None):
        """Keep the keep largest entries (the -keep smallest when negative;
        none when None)."""
        keep = keep or 0
        order = sorted(self._of(aid), key=lambda e: (value_order(e), key_order(e)),
                       reverse=keep > 0)
        for e in order[abs(keep):]:
            del self.entries[(aid, b"".join(k.rec for k in e.keys))]

    # --- printing ------------------------------------------------------------

    def _sorted(self, entries):
        if self.keysort:
            order = lambda e: (e.agg.id, key_order(e, self.keypos))  # noqa: E731
        else:
            order = lambda e: (e.agg.id, value_order(e), key_order(e, self.keypos))  # noqa: E731
        return sorted(entries, key=order, reverse=self.rev)

    def _key_text(self, k):
        if k.kind == "stack":
            return print_stack(k.rec, self.indent, self.symbolize)
        if k.kind == "sym":
            return "  %-50s" % sym_name(k.number(), self.symbolize)
        n = len(k.rec)
        if n in (1, 2, 4, 8):
            return int_column(k.number(), n, k.signed)
        return print_bytes(k.rec, -50, False, self.rawbytes)

    def _value_text(self, e):
        f, v, normal = e.agg.func, e.vals, e.normal or 1
        if f == "quantize":
            return quantize_text(v, normal)
        if f == "lquantize":
            return lquantize_text(v, e.agg.low, e.agg.step, e.agg.levels, normal)
        if f == "llquantize":
            return llquantize_text(v, e.agg.bounds, normal)
        if f == "avg":
            return " %16d" % (cdiv(cdiv(signed(v[1]), signed(normal) or 1), signed(v[0]))
                              if v[0] else 0)
        if f == "stddev":
            return " %16d" % stddev(v[0], v[1], v[2] | v[3] << 64, normal)
        return " %16d" % signed(v[0] // normal)

    def _key_arg(self, k):
        if k.kind == "int":
            return Int(k.number(), len(k.rec), k.signed)
        if k.kind == "sym":
            return Int(k.number(), 8, False)
        if k.kind == "stack":
            return Text(print_stack(k.rec, self.indent, self.symbolize))
        return Str(k.rec)

    def _value_arg(self, e):
        f, v, normal = e.agg.func, e.vals, e.normal or 1
        if f in ("quantize", "lquantize", "llquantize"):
            return Text(self._value_text(e))
        if f == "avg":      # dtrace divides unsigned here
            return Int(v[1] // normal // v[0] if v[0] else 0)
        if f == "stddev":
            return Int(stddev(v[0], v[1], v[2] | v[3] << 64, normal))
        return Int(v[0], 8, f != "count", normal)

    def _line(self, rep, values, pieces):
        if pieces is None:
            return ("".join(self._key_text(k) for k in rep.keys) +
                    "".join(self._value_text(e) for e in values) + "\n")
        return render(pieces, [self._key_arg(k) for k in rep.keys],
                      [self._value_arg(e) for e in values], self.symbolize, self.localtime)

    def printa(self, ids, pieces=None):
        """The text of printa(pieces, @ids...) (pieces None: the default
        layout; the caller writes the newline dtrace puts before it)."""
        if len(ids) == 1:
            agg = self.aggs[ids[0]]
            entries = self._sorted(self._of(agg.id))
            agg.printed |= bool(entries)
            return "".join(self._line(e, [e], pieces) for e in entries)
        bundles = self._joined(ids)
        for aid in ids:
            self.aggs[aid].printed |= bool(bundles)
        return "".join(self._line(rep, values, pieces) for rep, values in bundles)

    def _joined(self, ids):
        """Entries of several aggregations bundled by key (zero where an
        aggregation lacks the key), sorted by the values from the
        aggsortpos-th aggregation on, then by key."""
        n = len(ids)
        sortpos = self.sortpos if self.sortpos < n else 0
        slot_of, remap = {}, {}
        for i in range(n):
            aid = ids[(i + sortpos) % n]
            if aid in slot_of:
                remap[i] = slot_of[aid]
            else:
                slot_of[aid] = i
        entries = sorted((e for e in self.entries.values() if e.agg.id in slot_of),
                         key=lambda e: (key_order(e), e.agg.id))
        bundles = []
        for e in entries:
            if bundles and key_order(bundles[-1][0]) == key_order(e):
                bundles[-1][1][slot_of[e.agg.id]] = e
                continue
            slots = [None] * n
            slots[slot_of[e.agg.id]] = e
            bundles.append((e, slots))
        for rep, slots in bundles:
            for j in range(n):
                if slots[j] is None:
                    agg = self.aggs[ids[(j + sortpos) % n]]
                    slots[j] = slots[remap[j]] if j in remap else Entry(
                        agg, rep.keys, [0] * agg.nvals)
        if self.keysort:
            order = lambda b: key_order(b[0], self.keypos)  # noqa: E731
        else:
            order = lambda b: (tuple(value_order(e) for e in b[1]),  # noqa: E731
                               key_order(b[0], self.keypos))
        bundles.sort(key=order, reverse=self.rev)
        return [(rep, [slots[(j - sortpos) % n] for j in range(n)]) for rep, slots in bundles]

    def unprinted(self):
        """What dtrace prints at exit: every entry of the aggregations no
        printa() has printed, aggregation by aggregation."""
        entries = [e for e in self.entries.values() if not e.agg.printed]
        return "".join(self._line(e, [e], None) for e in self._sorted(entries))
