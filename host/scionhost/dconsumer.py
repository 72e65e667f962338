# SPDX-License-Identifier: BSD-2-Clause
"""The consumer of `scion trace`: decodes what a tracing session sends
back (records, aggregation chunks, status; layouts in
kernel/include/scion/dof.h) with the clause layouts of dtc's JSON
metadata, and prints it the way illumos dtrace(1M) does: the
"CPU ID FUNCTION:NAME" lines unless quiet, trace() data at dtrace's
widths, printf/printa (dprintf.py, dagg.py), stack(), run-time errors
and drops as "dtrace: ..." lines, and the aggregations left unprinted
at the end. Aggregation snapshots are merged every aggrate (when the
program sets one other than dtrace's 1s default; else every snapshot);
bufpolicy=fill's filled CPUs are reported once. djson.py prints the same
data as JSON lines (-x oformat=json).

    c = Consumer(meta, epids, probe_name, symbolize, sys.stdout, sys.stderr, quiet)
    c.snapshot(records, aggs, status)   # once per switch interval
    ...
    c.finish()                          # after the last snapshot
"""

import time

from .dagg import Aggregations
from .dprint import print_value
from .layouts import C, layout
from .dprintf import (Float, FormatError, Int, Str, Text, float_column, int_column, parse,
                      print_bytes, print_stack, render, signed, sym_name, unsigned)

RECHDR = layout("dof_rechdr").ordered("epid", "probe_id", "timestamp")
ERROR = layout("dof_error").ordered("epid", "action", "pc", "fault", "addr")
STATUS = layout("dof_status").ordered("dynvar_drops", "spec_drops", "spec_unavail", "agg_drops",
                                      "errors", "flags", "exit_status", "filled_cpus")
EPID_ERROR = C.DOF_EPID_ERROR
STATUS_EXITED = C.DOF_STATUS_EXITED
STATUS_ENDED = C.DOF_STATUS_ENDED
STATUS_FILLED = C.DOF_STATUS_FILLED
DTRACE_DEFAULT_AGGRATE_NS = 1000000000
PC_NONE = C.DIF_PC_NONE
# enum dif_fault_kind (scion/dif_exec.h) in dtrace's words; a subroutine argument out of range
# (the kernel's "illegal argument") is what dtrace calls an illegal operation.
FAULTS = ("no error", "invalid address", "invalid alignment", "divide-by-zero",
          "out of scratch space", "tuple stack overflow", "dynamic variable drop",
          "illegal operation", "illegal operation", "index out of bounds")
assert len(FAULTS) == C.DIF_FAULT_KINDS, "FAULTS must name every enum dif_fault_kind"
ADDRESS_FAULTS = (C.DIF_FAULT_BADADDR, C.DIF_FAULT_ALIGN)     # the messages that show the address
STATUS_DROPS = (("dynamic variable drop", ""), ("speculative drop", ""),
                ("failed speculation", " (no speculative buffer available)"),
                ("aggregation drop", ""))

ConsumerError = FormatError


def text_of(json_bytes):
    """A D string from dtc's JSON (a code point per byte) as text."""
    return json_bytes.encode("latin-1", "replace").decode("utf-8", "replace")


class Record:
    __slots__ = ("cpu", "epid", "probe", "ts", "data")

    def __init__(self, cpu, epid, probe, ts, data):
        self.cpu, self.epid, self.probe, self.ts, self.data = cpu, epid, probe, ts, data


def _word_at_end(name, word):
    """dtrace's flowindent test: word ends the name, alone or after a '-'."""
    i = name.find(word)
    return i >= 0 and i + len(word) == len(name) and (i == 0 or name[i - 1] == "-")


class Consumer:
    """Turns one session's data into dtrace's output on out (and err)."""

    def __init__(self, meta, epids, probe_name, symbolize, out, err, quiet=False,
                 localtime=time.localtime, clock=time.monotonic):
        opts = meta.get("options") or {}
        # aggrate: how often the aggregations taken are merged into what printa()
        # shows; dtrace's default (1s, as given or not) merges every snapshot
        rate = opts.get("aggrate") or DTRACE_DEFAULT_AGGRATE_NS
        self.aggrate = None if rate == DTRACE_DEFAULT_AGGRATE_NS else rate / 1e9
        self.clock, self._agg_at, self._pending = clock, None, []
        self.filled = 0                     # bufpolicy=fill: the CPUs whose buffer filled
        self.quiet = bool(quiet or opts.get("quiet"))
        self.flow = bool(opts.get("flowindent"))
        self.rawbytes = bool(opts.get("rawbytes"))
        self.indent = 14 if opts.get("stackindent") is None else opts["stackindent"]
        self.clauses = meta.get("clauses") or []
        self.epids = {int(k): tuple(v) for k, v in epids.items()}
        self.probe_name, self.symbolize, self.out, self.err = probe_name, symbolize, out, err
        self.localtime = localtime          # %Y's time zone (dtrace: the local one)
        self.aggs = Aggregations(meta.get("aggs") or [], opts, symbolize, self.indent,
                                 self.rawbytes, localtime)
        self.formats = {}
        for ci, clause in enumerate(self.clauses):
            for ai, act in enumerate(clause.get("actions") or []):
                if act["kind"] in ("printf", "printa") and act.get("format") is not None:
                    self.formats[ci, ai] = parse(text_of(act["format"]))
        self.exited, self.exit_status = False, 0
        self._heading = False
        self._status = (0, 0, 0, 0)
        self._last = None                   # (epid, probe id) of the last record
        self._flow_indent = 0

    # --- one switch interval ----------------------------------------------

    def snapshot(self, records, aggs, status=None):
        """records: [(cpu, chunk, drops)], aggs: [(cpu, chunk)], status: the
        struct dof_status bytes (or None). The aggregations join what printa()
        shows at the next aggrate tick (all of them at the last snapshot)."""
        self._pending.extend(chunk for _, chunk in aggs)
        now = self.clock()
        ended = status is not None and len(status) >= STATUS.size and \
            STATUS.unpack_from(status)[5] & STATUS_ENDED
        if self.aggrate is None or ended or self._agg_at is None or \
                now - self._agg_at >= self.aggrate:
            self._merge_pending()
            self._agg_at = now
        if status is not None:
            self._check_status(status)
        recs = []
        for cpu, chunk, _ in records:
            recs.extend(self._split(cpu, chunk))
        recs.sort(key=lambda r: r.ts)
        for i, r in enumerate(recs):
            if r.epid == EPID_ERROR:
                self._error(r)
            else:
                self._record(r, recs[i + 1] if i + 1 < len(recs) else None)
            self._last = (r.epid, None if r.epid == EPID_ERROR else r.probe)
        for cpu, _, drops in records:
            if drops:
                self.err.write("dtrace: %d drop%s on CPU %d\n" % (drops, "s" * (drops > 1), cpu))
        self._flush()

    def _merge_pending(self):
        for chunk in self._pending:
            self.aggs.merge(chunk)
        self._pending = []

    def finish(self):
        """The end of tracing: a blank line, then every aggregation that no
        printa() printed (dtrace's dtrace_aggregate_print at exit)."""
        self._merge_pending()
        self.out.write("\n" + self.aggs.unprinted())
        self._flush()

    def _flush(self):
        for stream in (self.out, self.err):
            flush = getattr(stream, "flush", None)
            if flush:
                flush()

    def _check_status(self, data):
        if len(data) < STATUS.size:
            raise ConsumerError(f"status of {len(data)} bytes, expected {STATUS.size}")
        dyn, spec, unavail, aggd, _errors, flags, status, filled = STATUS.unpack_from(data)
        new = (dyn, spec, unavail, aggd)
        for (what, detail), n, o in zip(STATUS_DROPS, new, self._status):
            if n != o:
                d = (n - o) & ((1 << 64) - 1)
                self.err.write("dtrace: %d %s%s%s\n" % (d, what, "s" * (d > 1), detail))
        self._status = new
        if flags & STATUS_EXITED and not self.exited:
            self.exited, self.exit_status = True, status
        if flags & STATUS_FILLED and filled & ~self.filled:
            for cpu in range(64):
                if filled & ~self.filled & (1 << cpu):
                    self.err.write("dtrace: buffer on CPU %d filled (bufpolicy=fill): tracing "
                                   "stopped; the oldest records are kept\n" % cpu)
            self.filled |= filled

    def _split(self, cpu, chunk):
        out, off = [], 0
        while off + RECHDR.size <= len(chunk):
            epid, probe, ts = RECHDR.unpack_from(chunk, off)
            if epid == EPID_ERROR:
                size = RECHDR.size + ERROR.size
            elif epid in self.epids:
                size = self.clauses[self.epids[epid][0]]["size"]
            else:
                raise ConsumerError(f"record with unknown EPID {epid} on CPU {cpu}")
            if size < RECHDR.size or off + size > len(chunk):
                raise ConsumerError(f"EPID {epid}: record of {size} bytes at offset {off} "
                                    f"of a {len(chunk)}-byte chunk on CPU {cpu}")
            out.append(Record(cpu, epid, probe, ts, chunk[off:off + size]))
            off += (size + 7) & ~7
        return out

    def _names(self, probe):
        names = self.probe_name(probe)
        return tuple(names) if names else ("", "", "", "")

    # --- errors ------------------------------------------------------------

    def _error(self, r):
        epid, action, pc, fault, addr = ERROR.unpack_from(r.data, RECHDR.size)
        probe = self.epids.get(epid, (None, r.probe))[1]
        where = "predicate" if action == 0 else "action #%d" % action
        self.err.write("dtrace: error on enabled probe ID %d (ID %d: %s): %s%s in %s%s\n" % (
            epid, probe, ":".join(self._names(probe)),
            FAULTS[fault] if fault < len(FAULTS) else "unknown fault",
            " (0x%x)" % addr if fault in ADDRESS_FAULTS else "", where,
            "" if pc == PC_NONE else " at DIF offset %d" % pc))

    # --- records -----------------------------------------------------------

    def _record(self, r, following):
        ci = self.epids[r.epid][0]
        clause = self.clauses[ci]
        out = []
        if not self._heading:
            self._heading = True
            if self.flow:
                out.append("%3s %-41s\n" % ("CPU", "FUNCTION"))
            elif not self.quiet:
                out.append("%3s %6s %32s\n" % ("CPU", "ID", "FUNCTION:NAME"))
        if self.flow:
            out.append("%3d %-41s " % (r.cpu, self._flow_name(r, following)))
        elif not self.quiet:
            _, _, func, name = self._names(r.probe)
            out.append("%3d %6d %32s " % (r.cpu, r.probe, func + ":" + name))
        for ai, act in enumerate(clause.get("actions") or []):
            out.append(self._action(act, r.data, self.formats.get((ci, ai))))
        if not self.quiet:
            out.append("\n")
        self.out.write("".join(out))

    def _flow_name(self, r, following):
        """flowindent: entries indent by 2 and show ->, returns <- (=> and
        <= for syscall), others "| "; an entry right after another ECB of
        the same probe, or a return right before one, is not indented."""
        prov, _, func, name = self._names(r.probe)
        flow = "entry" if _word_at_end(name, "entry") else \
            "return" if _word_at_end(name, "return") else None
        if flow == "entry" and self._last and self._last[0] != r.epid and \
                self._last[1] == r.probe:
            flow = None
        if flow == "return" and following is not None and following.epid != EPID_ERROR and \
                following.epid != r.epid and following.probe == r.probe:
            flow = None
        syscall = prov == "syscall"
        prefix = {"entry": " => " if syscall else " -> ",
                  "return": " <= " if syscall else " <- "}.get(flow, "| ")
        if flow == "return" and self._flow_indent > 0:
            self._flow_indent -= 2
        text = " " * self._flow_indent + prefix + func + ("" if flow else ":" + name)
        if flow == "entry":
            self._flow_indent += 2
        return text

    def _field(self, d, data):
        off, size = d["offset"], d["size"]
        if off < RECHDR.size or off + size > len(data):
            raise ConsumerError(f"data at {off}+{size} outside a {len(data)}-byte record")
        return data[off:off + size]

    def _arg(self, d, data):
        raw = self._field(d, data)
        if d["type"] in ("string", "bytes"):    # bytes: a struct or array traced whole
            return Str(raw)
        if d["type"] == "stack":
            return Text(print_stack(raw, self.indent, self.symbolize))
        if d["type"] == "float":
            return Float(int.from_bytes(raw, "little"), d.get("width", 8))
        return Int(int.from_bytes(raw, "little"), d.get("width", 8), d.get("signed", True))

    def _trace(self, d, data):
        arg = self._arg(d, data)
        if isinstance(arg, Text):
            return arg.text
        if isinstance(arg, Str):
            return print_bytes(arg.data, -33, self.quiet, self.rawbytes)
        if isinstance(arg, Float):
            return float_column(arg.value, self.quiet)
        if d.get("sym", "none") != "none":
            return "  %-50s" % sym_name(arg.value, self.symbolize)
        return int_column(arg.value, arg.width, arg.signed, self.quiet)

    def _print_text(self, act, data):
        """print(x): x laid out by its C type (dprint.py)."""
        d = act["data"]
        raw = self._field(d, data) if d["type"] == "bytes" else None
        return print_value(act.get("ctype"), raw, None if raw is not None else
                           self._arg(d, data), act.get("big_endian", False), self.symbolize)

    def _tracemem(self, act, data):
        """tracemem(addr, size[, dynsize])'s bytes: the first dynsize of them when given
        (clamped to 0..size, as dtrace does)."""
        raw = self._field(act["data"], data)
        d = act.get("dynsize")
        if d is not None:
            n = self._arg(d, data).as_signed(8)
            raw = raw[:max(0, min(n, len(raw)))]
        return raw

    def _action(self, act, data, pieces):
        kind = act["kind"]
        if kind == "trace":
            return self._trace(act["data"], data)
        if kind == "print":
            return ("" if self.quiet else " ") + self._print_text(act, data)
        if kind == "tracemem":      # always the hex dump, as dtrace prints it
            return print_bytes(self._tracemem(act, data), -33, self.quiet, True)
        if kind == "printf":
            return render(pieces, [self._arg(d, data) for d in act.get("args") or []], (),
                          self.symbolize, self.localtime)
        if kind == "printa":
            if pieces is None:
                return "\n" + self.aggs.printa(act["aggs"])
            return self.aggs.printa(act["aggs"], pieces)
        if kind == "stack":
            return print_stack(self._field(act["data"], data), self.indent, self.symbolize)
        if kind == "exit":
            self.exited, self.exit_status = True, self._arg(act["data"], data).as_signed(4)
        elif kind == "clear":
            self.aggs.clear(act["agg"])
        elif kind == "trunc":
            d = act.get("data")
            self.aggs.trunc(act["agg"], None if d is None else
                            signed(self._arg(d, data).value, d.get("width", 8)))
        elif kind == "normalize":
            d = act["data"]
            self.aggs.normalize(act["agg"], unsigned(self._arg(d, data).value,
                                                     d.get("width", 8)))
        elif kind == "denormalize":
            self.aggs.denormalize(act["agg"])
        return ""
