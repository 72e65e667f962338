# SPDX-License-Identifier: BSD-2-Clause
"""`scion bench`: the test kernel's in-kernel benchmarks (tests/kernel/bench_*.c),
run over the control channel, their figures as data.

The kernel's "bench" stream source (kernel/test/bench_stream.c) runs the
benchmarks a selector matches in a thread of their own, with the channel
held (its threads asleep, so none of their instructions is counted in a
figure), and writes one struct chan_bench_record per figure; when the run
is over it sends a struct chan_bench_status. run() opens the stream, waits
for the status, closes the stream and checks that every record arrived:
the kernel's count, the stream's totals and what came must agree, and
nothing may have been dropped. Nothing here reads the shell's text (the
guest's `bench` prints the same figures for people).

tools/bench.py and its companions call run() in their benchmark boots.
"""

import json
import sys
import time

from . import frame
from .client import ChannelLost, ScionError, answer
from .layouts import C, layout, text

RECORD = layout("chan_bench_record", "value", "seq", "kind", "size", "name", "unit")
STATUS = layout("chan_bench_status", "ran", "records", "status", "reserved")
KINDS = {frame.BENCH_FIGURE: "figure", frame.BENCH_CONFIG: "config",
         frame.BENCH_SKIPPED: "skipped"}
BUFSIZE = 16 * 1024         # per CPU: 157 records, twice what a whole run reports (a larger
                            # buffer moves the heap the benchmarks allocate from)
SWITCH_MS = 50              # the records go out at the release, then at this pace
POLL_SECONDS = 0.2
DEFAULT_RUN_TIMEOUT = 3600.0


def decode_records(body, count):
    """A "bench" chunk holding count records -> a list of dicts (kind, name, value,
    unit, seq)."""
    if len(body) != count * RECORD.size:
        raise frame.FrameError(f"bench chunk of {len(body)} bytes cannot hold the {count} "
                               f"records of {RECORD.size} bytes its header announces")
    items = []
    for off in range(0, len(body), RECORD.size):
        r = RECORD.unpack(body, off)
        if r["size"] != RECORD.size:
            raise frame.FrameError(f"bench record at byte {off} says it is {r['size']} bytes, "
                                   f"not {RECORD.size}")
        items.append({"kind": KINDS.get(r["kind"], f"kind {r['kind']}"), "name": text(r["name"]),
                      "value": r["value"], "unit": text(r["unit"]), "seq": r["seq"]})
    return items


def run(client, selector="", timeout=DEFAULT_RUN_TIMEOUT):
    """Run the benchmarks selector matches ("": all). Returns (items in the order the
    kernel reported them, the run's status as a dict). A run that failed (none
    matched, another run in progress), timed out, or whose records did not all arrive
    is a ScionError of one line."""
    items, status = [], []

    def on_chunk(cpu, count, drops, body):
        if cpu == frame.CHUNK_STATUS:
            status.append(answer(STATUS, body, "bench status"))
        else:
            items.extend(decode_records(body, count))

    stream, _, _ = client.stream_open("bench", BUFSIZE, SWITCH_MS, selector, on_chunk)
    deadline = time.monotonic() + timeout
    try:
        while not status and time.monotonic() < deadline:
            client.pump(POLL_SECONDS)
    except ChannelLost:
        raise
    except BaseException:
        try:
            client.stream_close(stream)     # the kernel ends the run after this benchmark
        except ScionError:
            pass
        raise
    # The close sends what the last switch left (the run may have ended just after it).
    totals = client.stream_close(stream)
    if not status:
        raise ScionError(f"bench {selector or '*'}: the run did not end within {timeout:g} s")
    st = status[0]
    if st["status"] < 0:
        raise ScionError(f"bench {selector or '*'}: {frame.errno_name(st['status'])} (" + {
            -C.ENOENT: "no benchmark ran",
            -C.EBUSY: "another run, the shell's `bench`, is in progress",
            -C.EINTR: "the stream closed before the run ended"}.get(st["status"], "failed") + ")")
    if totals["drops"] or not len(items) == totals["records"] == st["records"]:
        raise ScionError(f"bench {selector or '*'}: the kernel reported {st['records']} "
                         f"figures, the stream sent {totals['records']} and dropped "
                         f"{totals['drops']}; {len(items)} arrived")
    items.sort(key=lambda item: item["seq"])
    return items, st


def figures(items):
    """The figures of run()'s items, in order: [{"figure", "value", "unit"}]."""
    return [{"figure": i["name"], "value": i["value"], "unit": i["unit"]}
            for i in items if i["kind"] == "figure"]


def cmd_bench(args):
    from .client import Client
    with Client(args.socket, timeout=args.timeout, wait=args.wait) as client:
        items, st = run(client, args.selector or "", args.run_timeout)
    if args.json:
        print(json.dumps({"items": items, "ran": st["ran"]}, indent=2))
        return 0
    for i in items:
        if i["kind"] == "figure":
            print(f"{i['name']} {i['value']} {i['unit']}")
        elif i["kind"] == "skipped":
            print(f"{i['name']} skipped: needs {i['value']} CPUs", file=sys.stderr)
    print(f"{st['ran']} benchmark{'s' if st['ran'] != 1 else ''} ran", file=sys.stderr)
    return 0


def add_bench(sub, subcommand):
    p = subcommand(sub, "bench", "run the test kernel's in-kernel benchmarks and print their "
                   "figures (the \"bench\" stream; the test kernel only)", cmd_bench,
                   json_flag=True)
    p.add_argument("selector", nargs="?", metavar="SELECTOR",
                   help="benchmarks to run: pattern[,pattern,!pattern] (default: all)")
    p.add_argument("--run-timeout", type=float, default=DEFAULT_RUN_TIMEOUT, metavar="S",
                   help=f"seconds the whole run may take (default {DEFAULT_RUN_TIMEOUT:g})")
