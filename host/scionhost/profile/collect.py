# SPDX-License-Identifier: BSD-2-Clause
"""`scion profile collect`: the kernel's "monitor" stream into a profile
database (SQLite or PostgreSQL, db.py) as one collection.

The stream (kernel/include/scion/monitor_rec.h) describes itself: source
records at open (each becomes a resource: name, unit, kind, scope),
thread records the first time a round samples a thread (rows of
`threads`), process records likewise for a process (rows of
`processes`: the per-process resources' scope ids), rounds of samples (rows of `samples`, burst = 1 for a
burst's 1 ms rounds). Every drain of the stream ends with a status
chunk; the records of one drain are stored together when it arrives:
sources and threads first, then the rounds in sequence order (the
measurement thread may write consecutive rounds from different CPUs'
buffers), each resource's samples of the drain handed to SampleWriter
at once, which commits them in batched transactions.

Invariants:
  * a round's lost_before (samples dropped since the round before) is a
    gap from the calendar time of the round before to this one's, on
    the CPU whose buffer carried it; what the kernel dropped after the
    last round written is a gap up to the calendar at the close (cpu
    -1). The gaps' lost counts sum to the kernel's samples_dropped.
  * at the end the rows stored equal the final status's
    samples_written, the records and drops received equal the stream's
    totals, and every source the kernel wrote arrived; a mismatch is a
    one-line error (exit status 1) and the collection stays incomplete.
  * the collection is marked complete only when it ended as asked: its
    --duration ran out, the calendar reached --until, or a --follow was
    stopped by Ctrl-C or SIGTERM (its only way to end). A --duration stopped early, a channel that
    closed, a stream that could not be read: what was committed is kept,
    consistent, marked incomplete, and the error is one line. A second
    Ctrl-C or SIGTERM while the stream closes gives up at once.
"""

import json
import signal
import socket
import time

from .. import frame
from ..client import ChannelLost, Client, ScionError
from ..layouts import C
from .db import ProfileError, SampleWriter, open_db
from .monitor_records import (BURST, CONTINUED, Process, RecordError, Round, Source, Thread,
                              decode_chunk, decode_status)

DEFAULT_BUFSIZE = frame.STREAM_MAX_BUF   # per CPU: the most a stream may have
DEFAULT_SWITCH_MS = 100
POLL_SECONDS = 0.25
DROP_REASON = "dropped in a full buffer"
TAIL_REASON = "dropped after the last round written"


class Collector:
    """One collection's stream -> SampleWriter. on_chunk is the stream's callback;
    finish() stores the rest and the trailing gap."""

    def __init__(self, db, writer, start_wall_ns):
        self.db, self.writer = db, writer
        self.sources = {}           # index -> (resource_id, Source)
        self.threads = {}           # tid -> name
        self.unnamed = set()        # tids sampled with no thread record (yet)
        self.processes = {}         # pid -> name
        self.unnamed_processes = set()  # pids sampled with no process record (yet)
        self.pending = []           # records of the drain in progress
        self.status = None          # the last status chunk
        self.statuses = 0
        self.records = self.drops = 0
        self.rounds = self.samples = 0
        self.gaps = self.lost = 0
        self.prev_wall = start_wall_ns  # the calendar of the round before (at first: the open)
        self.first_wall = None

    def on_chunk(self, cpu, count, drops, body):
        if cpu == frame.CHUNK_STATUS:
            self.status = decode_status(body)
            self.statuses += 1
            self.process()
            return
        self.pending.extend(decode_chunk(body, count, cpu))
        self.records += count
        self.drops += drops

    def process(self):
        """Store the drain's records: descriptions first, then rounds by seq."""
        pending, self.pending = self.pending, []
        rounds = []
        for rec in pending:
            if isinstance(rec, Round):
                rounds.append(rec)
            elif isinstance(rec, Source):
                self.add_source(rec)
            elif isinstance(rec, Thread):
                self.add_thread(rec.tid, rec.name)
            elif isinstance(rec, Process):
                self.add_process(rec.pid, rec.name)
        rounds.sort(key=lambda r: r.seq)        # stable: a round's parts stay in order
        streams = {}
        for r in rounds:
            self.take_round(r, streams)
        for (rid, scope_id, burst), (wall, mono, values) in streams.items():
            self.writer.add_stream(rid, scope_id, burst, wall, mono, values)

    def add_source(self, src):
        known = self.sources.get(src.index)
        if known:
            if known[1] != src:
                raise RecordError(f"monitor stream: source index {src.index} described twice, "
                                  f"as {known[1].name} and as {src.name}")
            return
        rid = self.db.resource_id(src.name, src.unit, src.kind, src.scope)
        self.sources[src.index] = (rid, src)

    def add_thread(self, tid, name):
        self._name(self.threads, self.unnamed, tid, name, self.writer.add_thread)

    def add_process(self, pid, name):
        self._name(self.processes, self.unnamed_processes, pid, name, self.writer.add_process)

    @staticmethod
    def _name(known, unnamed, key, name, store):
        """A thread's or process's name, the first one given: stored once."""
        if key in known:
            return
        known[key] = name
        unnamed.discard(key)
        store(key, name)

    def take_round(self, r, streams):
        burst = 1 if r.flags & BURST else 0
        if self.first_wall is None:
            self.first_wall = r.wall_ns
        if r.lost_before:
            self.writer.add_gap(r.cpu, min(self.prev_wall, r.wall_ns), r.wall_ns,
                                r.lost_before, DROP_REASON)
            self.gaps += 1
            self.lost += r.lost_before
        if not r.flags & CONTINUED:
            self.rounds += 1
        sources, threads, processes = self.sources, self.threads, self.processes
        for index, scope_id, value in r.samples:
            known = sources.get(index)
            if known is None:
                raise RecordError(f"monitor stream: round {r.seq} has a sample of source "
                                  f"{index}, which the stream never described ("
                                  f"{len(sources)} sources arrived)")
            rid, src = known
            if src.scope == "thread" and scope_id not in threads:
                self.unnamed.add(scope_id)
            elif src.scope == "process" and scope_id not in processes:
                self.unnamed_processes.add(scope_id)
            entry = streams.get((rid, scope_id, burst))
            if entry is None:
                entry = streams[(rid, scope_id, burst)] = ([], [], [])
            entry[0].append(r.wall_ns)
            entry[1].append(r.mono_ns)
            entry[2].append(value)
        self.samples += len(r.samples)
        self.prev_wall = r.wall_ns

    def finish(self, end_wall_ns):
        """After the stream closed: the rest of the records, names for threads no record
        named, the drops after the last round as a gap. Returns the final status."""
        self.process()
        for tid in sorted(self.unnamed - set(self.threads)):
            self.add_thread(tid, f"tid {tid}")
        for pid in sorted(self.unnamed_processes - set(self.processes)):
            self.add_process(pid, f"pid {pid}")
        final = self.status
        if final is None:
            raise ProfileError("monitor stream: no status chunk arrived, so nothing says how "
                               "many samples the kernel wrote")
        rest = final["samples_dropped"] - self.lost
        if rest < 0:
            raise ProfileError(f"monitor stream: the rounds reported {self.lost} samples lost "
                               f"before them; the kernel counted {final['samples_dropped']} "
                               f"dropped in all")
        if rest:
            self.writer.add_gap(-1, self.prev_wall, max(end_wall_ns or 0, self.prev_wall),
                                rest, TAIL_REASON)
            self.gaps += 1
            self.lost += rest
        return final


class Stop:
    """SIGINT / SIGTERM handler: the first asks the loop to stop (what), a second
    gives up at once (KeyboardInterrupt)."""

    def __init__(self):
        self.what = None

    def __call__(self, signum, _frame):
        if self.what:
            raise KeyboardInterrupt
        self.what = signal.Signals(signum).name


def check_end(coll, final, totals, committed):
    """The one-line reason the stream and what was stored disagree, else None."""
    if not final["ended"]:
        return "monitor stream: the kernel's last status does not say the stream ended"
    if final["sources"] != len(coll.sources):
        return (f"monitor stream: the kernel wrote {final['sources']} source records, "
                f"{len(coll.sources)} arrived (a --bufsize too small for them?)")
    if totals["records"] != coll.records or totals["drops"] != coll.drops:
        return (f"monitor stream: the kernel sent {totals['records']} records and "
                f"{totals['drops']} drops, {coll.records} and {coll.drops} arrived")
    if committed != final["samples_written"]:
        return (f"monitor stream: {committed} samples stored, the kernel wrote "
                f"{final['samples_written']}")
    return None


class LiveCollection:
    """The monitor stream open into a new collection of db (one writer's run): what
    collect() runs for a duration, and what a sweep run keeps open over its workload
    (sweep/guest.py). The samples are stored as their drains arrive, while the
    client pumps; end() closes the stream and checks that everything arrived,
    abandon() keeps what was committed, the collection incomplete."""

    def __init__(self, client, db, machine, bufsize=DEFAULT_BUFSIZE,
                 switch_ms=DEFAULT_SWITCH_MS, batch_seconds=2.0, params=None, until_ns=None):
        from .. import monitor
        self.client, self.db = client, db
        before = monitor.control(client, C.MONITOR_CTL_STATUS)
        if before["streaming"]:
            raise ScionError("monitor: another monitor stream is open (one at a time)")
        self.coll = self.writer = None
        early = []

        def on_chunk(cpu, count, drops, body):
            if self.coll:
                self.coll.on_chunk(cpu, count, drops, body)
            else:
                early.append((cpu, count, drops, body))

        self.stream, self.cpus, self.bufsize = client.stream_open("monitor", bufsize,
                                                                  switch_ms, "", on_chunk)
        self.switch_ms = switch_ms
        self.started = time.monotonic()
        try:
            # The calendar runs once sampling does (the open started it if it was off).
            self.opened = opened = monitor.control(client, C.MONITOR_CTL_STATUS)
            mid = db.machine_id(machine, self.cpus, create=True)
            params = dict(params or {}, bufsize=self.bufsize, switch_ms=switch_ms,
                          cpus=self.cpus, kernel=client.kernel_version, scale=opened["scale"],
                          min_interval_ms=opened["min_interval_ms"],
                          burst_ms=opened["burst_ms"], burst_every_s=opened["burst_every_s"])
            if until_ns is not None and opened["wall_ns"] >= until_ns:
                raise ProfileError(f"--until: the calendar is already at {opened['wall_ns']} "
                                   f"ns, past {until_ns} (scion monitor clock sets it)")
            self.cid = db.new_collection(mid, "collect", opened["wall_ns"], params)
            self.writer = SampleWriter(db, self.cid, batch_seconds=batch_seconds)
            coll = Collector(db, self.writer, opened["wall_ns"])
            # DATA that came before STREAM_OPEN's answer was kept by the client.
            early.extend(frame.decode_chunk(data) for sid, data in client.data
                         if sid == self.stream)
            client.data = [d for d in client.data if d[0] != self.stream]
            for chunk in early:
                coll.on_chunk(*chunk)
            self.coll = coll
        except BaseException as e:
            self.abandon(e)
            raise

    def end(self, complete=lambda: True):
        """Close the stream, store the rest, check it, mark the collection complete
        when complete() says so (asked last: a stop may come while the stream closes);
        returns the final status."""
        from .. import monitor
        client, db, coll, cid = self.client, self.db, self.coll, self.cid
        totals = client.stream_close(self.stream)
        self.stream = None
        after = monitor.control(client, C.MONITOR_CTL_STATUS)
        final = coll.finish(after["wall_ns"])
        self.writer.flush()
        if coll.first_wall is not None and coll.first_wall < self.opened["wall_ns"]:
            with db.transaction(doing=f"writing collection {cid}"):
                db.execute("UPDATE collections SET started_ns = ? WHERE collection_id = ?",
                           (coll.first_wall, cid))
        mismatch = check_end(coll, final, totals, self.writer.committed)
        if mismatch:
            raise ProfileError(f"{mismatch}; collection {cid} in {db.where} stays incomplete")
        self.complete = complete()
        self.writer.close(complete=self.complete)
        return final

    def abandon(self, e):
        """After an error e: the stream closed when it can be, what arrived intact kept."""
        client = self.client
        if self.stream is not None and not isinstance(e, ChannelLost):
            try:
                client.watch_stream(self.stream, lambda *chunk: None)   # the rest is dropped
                client.stream_close(self.stream)
            except (ScionError, KeyboardInterrupt):
                pass
        if self.writer is not None and not isinstance(e, ProfileError):
            try:
                if isinstance(e, ChannelLost) and self.coll:
                    self.coll.process()     # the records of the drain the loss cut short
                self.writer.flush()         # what arrived intact is kept
            except (ScionError, KeyboardInterrupt):
                pass


def collect(client, db, machine, bufsize=DEFAULT_BUFSIZE, switch_ms=DEFAULT_SWITCH_MS,
            duration=None, stop=None, progress=None, batch_seconds=2.0, until_ns=None):
    """Collect until duration seconds have passed, or (until_ns) until a round
    written reaches that calendar time (neither: until stop.what is set).
    Returns the summary dict; "complete" says whether it ended as asked."""
    stop = stop or Stop()
    live = LiveCollection(client, db, machine, bufsize, switch_ms, batch_seconds,
                          {"duration_s": duration if duration is not None else "follow",
                           "until_ns": until_ns}, until_ns)
    coll, started = live.coll, live.started
    try:
        deadline = None if duration is None else started + duration
        while not stop.what:
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                break
            if until_ns is not None and coll.status and coll.status["last_wall_ns"] >= until_ns:
                break
            client.pump(POLL_SECONDS if deadline is None else min(POLL_SECONDS, deadline - now))
            if progress:
                elapsed = time.monotonic() - started
                progress.update(f"collect: {coll.samples:,} samples, {coll.rounds:,} rounds, "
                                f"{coll.gaps} gaps, {elapsed:.0f} s",
                                min(1.0, elapsed / duration) if duration else
                                calendar_share(coll, live.opened["wall_ns"], until_ns))
        final = live.end(lambda: (duration is None and until_ns is None) or not stop.what)
    except BaseException as e:
        live.abandon(e)
        raise
    seconds = time.monotonic() - started
    return {"collection": live.cid, "machine": machine, "database": db.where,
            "backend": db.backend, "complete": live.complete, "stopped_by": stop.what,
            "samples": live.writer.committed, "resources": len(coll.sources),
            "threads": len(coll.threads), "gaps": coll.gaps, "lost": coll.lost,
            "rounds": coll.rounds, "seconds": round(seconds, 3), "cpus": live.cpus,
            "bufsize": live.bufsize, "switch_ms": switch_ms, "status": final}


def calendar_share(coll, start_ns, until_ns):
    """How far the calendar has come from the open to --until (None without one)."""
    if until_ns is None or not coll.status or until_ns <= start_ns:
        return None
    return max(0.0, min(1.0, (coll.status["last_wall_ns"] - start_ns) / (until_ns - start_ns)))


def until_arg(text):
    """--until YYYY-MM-DD[THH:MM[:SS]] (UTC) as calendar nanoseconds."""
    import datetime
    try:
        t = datetime.datetime.fromisoformat(text)
    except ValueError:
        raise ProfileError(f"--until {text!r}: give YYYY-MM-DD[THH:MM[:SS]] (UTC)") from None
    return int(t.replace(tzinfo=datetime.timezone.utc).timestamp()) * 10**9


def cmd_collect(args):
    from .cli import progress_of
    if args.duration is not None and args.duration <= 0:
        raise ProfileError("--duration: give a number of seconds above 0")
    progress = progress_of(args)
    stop = Stop()
    old = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    db = None
    try:
        db = open_db(args.db, create=True, lock_timeout=args.lock_timeout)
        with Client(args.socket, timeout=args.timeout, wait=args.wait) as client:
            summary = collect(client, db, args.machine, args.bufsize, args.switch_ms,
                              duration=None if args.follow else args.duration, stop=stop,
                              progress=progress,
                              until_ns=until_arg(args.until) if args.until else None)
    except KeyboardInterrupt:
        raise ProfileError(f"interrupted twice: the stream was abandoned; what was committed "
                           f"is kept, its collection marked incomplete ({args.db})") from None
    except ChannelLost as e:
        raise ProfileError(f"{e}: what arrived is committed, its collection marked incomplete "
                           f"({args.db})") from None
    finally:
        progress.done()
        for s, handler in old.items():
            signal.signal(s, handler)
        if db is not None:
            db.close()
    if not summary["complete"]:
        asked = f"{args.duration:g} s" if args.duration else f"the calendar to {args.until}"
        raise ProfileError(f"interrupted ({summary['stopped_by']}) after {summary['seconds']:g} "
                           f"s of {asked}: the {summary['samples']} samples stored are "
                           f"kept, collection {summary['collection']} marked incomplete "
                           f"({args.db})")
    if args.json:
        print(json.dumps(summary, indent=1))
    else:
        print(f"collect: {summary['samples']} samples of {summary['resources']} resources, "
              f"{summary['threads']} threads, {summary['gaps']} gaps in "
              f"{summary['seconds']:.1f} s into {summary['database']}")
    return 0


def add_collect(psub, subcommand, common, byte_count):
    p = subcommand(psub, "collect", "store the kernel's \"monitor\" stream (its measurement "
                   "thread's samples) in a profile database", cmd_collect, json_flag=True)
    common(p)
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--duration", type=float, metavar="S", help="collect for S seconds")
    g.add_argument("--follow", action="store_true",
                   help="collect until Ctrl-C or SIGTERM (a clean end)")
    g.add_argument("--until", metavar="YYYY-MM-DD[THH:MM]",
                   help="collect until the kernel's calendar reaches this time (UTC): a day "
                        "under a time scale, however fast the guest runs")
    p.add_argument("--machine", default=socket.gethostname(), metavar="NAME",
                   help="the machine's name in the database (default: this host's name)")
    p.add_argument("--bufsize", type=byte_count, default=DEFAULT_BUFSIZE, metavar="B",
                   help=f"bytes per CPU buffer (default {DEFAULT_BUFSIZE // 1024}K)")
    p.add_argument("--switch-ms", type=int, default=DEFAULT_SWITCH_MS, metavar="MS",
                   help=f"how often the buffers are drained (default {DEFAULT_SWITCH_MS})")
