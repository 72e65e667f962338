# SPDX-License-Identifier: BSD-2-Clause
"""`scion trace -x oformat=json`: the consumer's output as JSON lines, one
object per line, instead of dtrace's text (README.md, "scion trace
-x oformat=json", gives the schema):

  {"type": "record", "cpu", "id" (the probe), "probe" ("prov:mod:func:name"),
   "timestamp" (ns since boot), "actions": [A...]}
     A: {"trace": value} {"printf": "the formatted text"} {"stack": ["frame"...]}
        {"tracemem": [byte...]} {"print": "the text print() prints"} {"exit": status} {"printa": ["@name"...]} (the aggregations it
        printed follow as "aggregation" lines)
  {"type": "aggregation", "name": "@name" ("@" for the anonymous one),
   "function", "keys": [value...], and "value" (count, sum, min, max, avg,
   stddev: the number dtrace prints) or "buckets" (quantize, lquantize,
   llquantize: the non-zero ones, each {"value": its lower bound, "count"},
   or {"below": low, "count"} / {"atleast": high, "count"} for the ones
   below and above the range)}

A value is an integer as its type reads it (signed or not), a string, a
kernel symbol ("kernel`name+0x10"), or a struct or array traced whole as
the list of its bytes as they lie in memory ([42, 0, 0, 0]). Aggregations no printa() printed
come at the end, as in dtrace. Drops and errors stay dtrace's lines on
stderr.
"""

import json

from .dagg import bucket_value, stddev
from .dconsumer import Consumer, text_of
from .dprintf import Float, Str, Text, cdiv, print_stack, render, signed, sym_name, unsigned


def _int(value, width, is_signed):
    w = width if width in (1, 2, 4) else 8
    return signed(value, w) if is_signed or w == 8 else unsigned(value, w)


def _text(raw):
    return text_of(raw.split(b"\0", 1)[0].decode("latin-1"))


def _frames(text):
    return [line.strip() for line in text.splitlines() if line.strip()]


class JsonConsumer(Consumer):
    """Consumer whose records and aggregations are JSON lines on out."""

    def _emit(self, obj):
        self.out.write(json.dumps(obj, separators=(",", ":")) + "\n")

    def _record(self, r, following):
        ci = self.epids[r.epid][0]
        prov, mod, func, name = self._names(r.probe)
        actions, after = [], []
        for ai, act in enumerate(self.clauses[ci].get("actions") or []):
            a = self._json_action(act, r.data, self.formats.get((ci, ai)), after)
            if a is not None:
                actions.append(a)
        self._emit({"type": "record", "cpu": r.cpu, "id": r.probe,
                    "probe": "%s:%s:%s:%s" % (prov, mod, func, name), "timestamp": r.ts,
                    "actions": actions})
        for obj in after:
            self._emit(obj)

    def _json_action(self, act, data, pieces, after):
        kind = act["kind"]
        if kind == "trace":
            d = act["data"]
            arg = self._arg(d, data)
            if isinstance(arg, Text):
                return {"trace": _frames(arg.text)}
            if d["type"] == "bytes":
                return {"trace": list(arg.data)}
            if isinstance(arg, Str):
                return {"trace": _text(arg.data)}
            if isinstance(arg, Float):
                return {"trace": arg.value}
            if d.get("sym", "none") != "none":
                return {"trace": sym_name(arg.value, self.symbolize)}
            return {"trace": _int(arg.value, arg.width, arg.signed)}
        if kind == "print":
            return {"print": self._print_text(act, data)}
        if kind == "tracemem":
            return {"tracemem": list(self._tracemem(act, data))}
        if kind == "printf":
            return {"printf": render(pieces, [self._arg(d, data) for d in act.get("args") or []],
                                     (), self.symbolize, self.localtime)}
        if kind == "stack":
            return {"stack": _frames(print_stack(self._field(act["data"], data), self.indent,
                                                 self.symbolize))}
        if kind == "printa":
            names = []
            for aid in act["aggs"]:
                agg = self.aggs.aggs[aid]
                names.append("@" + agg.name)
                entries = self.aggs._sorted(self.aggs._of(aid))
                agg.printed |= bool(entries)
                after.extend(self._aggregation(e) for e in entries)
            return {"printa": names}
        self._action(act, data, pieces)      # exit, clear, trunc, normalize, denormalize
        if kind == "exit":
            return {"exit": self.exit_status}
        return None

    def _key(self, k):
        if k.kind == "int":
            return _int(k.number(), len(k.rec), k.signed)
        if k.kind == "sym":
            return sym_name(k.number(), self.symbolize)
        if k.kind == "stack":
            return _frames(print_stack(k.rec, self.indent, self.symbolize))
        return _text(k.rec)

    def _aggregation(self, e):
        a, v, normal = e.agg, e.vals, e.normal or 1
        obj = {"type": "aggregation", "name": "@" + a.name, "function": a.func,
               "keys": [self._key(k) for k in e.keys]}
        if a.func in ("quantize", "lquantize", "llquantize"):
            obj["buckets"] = self._buckets(a, v, normal)
        elif a.func == "avg":
            obj["value"] = (cdiv(cdiv(signed(v[1]), signed(normal) or 1), signed(v[0]))
                            if v[0] else 0)
        elif a.func == "stddev":
            obj["value"] = stddev(v[0], v[1], v[2] | v[3] << 64, normal)
        else:
            obj["value"] = signed(v[0] // normal)
        return obj

    @staticmethod
    def _buckets(a, counts, normal):
        n, out = len(counts), []
        for i, c in enumerate(counts):
            count = signed(unsigned(c) // normal)
            if not count:
                continue
            if a.func == "quantize":
                out.append({"value": bucket_value(i), "count": count})
            elif i == 0:
                out.append({"below": a.low if a.func == "lquantize" else a.bounds[0],
                            "count": count})
            elif i == n - 1:
                out.append({"atleast": a.low + a.levels * a.step if a.func == "lquantize"
                            else a.bounds[-1], "count": count})
            else:
                out.append({"value": a.low + (i - 1) * a.step if a.func == "lquantize"
                            else a.bounds[i - 1], "count": count})
        return out

    def finish(self):
        self._merge_pending()
        for e in self.aggs._sorted(e for e in self.aggs.entries.values() if not e.agg.printed):
            self._emit(self._aggregation(e))
        self._flush()

