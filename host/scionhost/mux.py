# SPDX-License-Identifier: BSD-2-Clause
"""The routing table of `scion daemon` (daemon.py): which client owns each
request the daemon forwarded to the kernel and each stream the kernel
opened, and the renaming of both between a client's numbers and the
kernel's.

Invariants:
- every REQUEST goes to the kernel under a sequence number of the
  daemon's own (random start, never 0), so two clients' numbers never
  meet; the RESPONSE or ERROR carrying it goes back to that client under
  the client's number;
- the kernel runs requests one at a time, in the order they arrive
  (kernel/channel/channel.c), so DATA on stream 0 (BULK's) belongs to the
  oldest request still unanswered;
- a stream belongs to the client whose request opened it (the ops in
  OPENERS: their answer names it); the client sees it under a number of
  its own (1, 2, ... per client), in the answer, in its DATA frames and
  in the STREAM_CLOSE it sends;
- a stream whose client has gone is closed by the daemon; its chunks and
  the answer to the close are dropped (nobody is left to read them).
Nothing here touches a socket: the daemon passes the frames in and sends
what comes back.
"""

import random
import struct
from collections import deque, namedtuple

from . import frame
from .layouts import C, layout

_STREAM_CLOSE = layout("chan_stream_close_request", "stream")


def _stream_field(name):
    """(layout, the offset of its `stream` member, a Struct for it)."""
    lay = layout(name)
    for fname, offset, code, count in lay.fields:
        if fname == "stream" and not count:
            return lay, offset, struct.Struct("<" + code)
    raise ImportError(f"struct {name} has no stream member; the daemon cannot route it")


# Ops whose successful answer names a stream the kernel opened for the asker.
OPENERS = {frame.OP_STREAM_OPEN: _stream_field("chan_stream_open_reply"),
           frame.OP_TRACE_START: _stream_field("chan_trace_start_reply"),
           frame.OP_EXEC: _stream_field("chan_exec_reply")}

Request = namedtuple("Request", "owner seq op kstream")     # owner None: the daemon's own
Route = namedtuple("Route", "owner frame")                  # a frame for owner (None: drop)


class Owner:
    """What the table keeps of one client: its streams, by its numbers and the kernel's."""

    def __init__(self, name):
        self.name = name
        self.gone = False
        self.streams = {}           # the client's stream number -> the kernel's
        self._next_stream = 1

    def adopt(self, kstream):
        local = self._next_stream
        self._next_stream += 1
        self.streams[local] = kstream
        return local


class Table:
    def __init__(self, log):
        self.log = log
        self._seq = random.randrange(1, 1 << 31)
        self.pending = {}           # kernel seq -> Request
        self.order = deque()        # kernel seqs, oldest first: the kernel runs them in order
        self.kstreams = {}          # kernel stream -> (owner or None, the owner's number)
        self.early = {}             # kernel stream -> DATA payloads that came before its answer

    def next_seq(self):
        self._seq = self._seq % 0xFFFFFFFF + 1
        return self._seq

    def request(self, owner, seq, payload):
        """A client's REQUEST -> (kernel frame to send, None) or (None, an answer for the
        client at once: an ERROR the kernel would have sent)."""
        op, body = frame.decode_request(payload)
        kstream = None
        if op == frame.OP_STREAM_CLOSE and len(body) == _STREAM_CLOSE.size:
            local = _STREAM_CLOSE.unpack(body)["stream"]
            kstream = owner.streams.get(local)
            if kstream is None:
                text = f"stream close: no open stream {local}".encode()
                return None, frame.encode(frame.ERROR, seq,
                                          frame.encode_status(-C.ENOENT, text))
            payload = payload[:frame.REQUEST_HEADER_BYTES] + _STREAM_CLOSE.pack(stream=kstream)
        kseq = self.next_seq()
        self.pending[kseq] = Request(owner, seq, op, kstream)
        self.order.append(kseq)
        return frame.encode(frame.REQUEST, kseq, payload), None

    def close_stream(self, kstream):
        """The daemon's own STREAM_CLOSE of a stream whose client has gone."""
        self.kstreams[kstream] = (None, 0)
        body = _STREAM_CLOSE.pack(stream=kstream)
        kseq = self.next_seq()
        self.pending[kseq] = Request(None, 0, frame.OP_STREAM_CLOSE, kstream)
        self.order.append(kseq)
        return frame.encode_request(kseq, frame.OP_STREAM_CLOSE, body)

    def forget(self, owner):
        """owner has gone: its answers are dropped from now on; returns the
        kernel frames that close its streams."""
        owner.gone = True
        closes = [self.close_stream(k) for k in owner.streams.values()]
        owner.streams.clear()
        return closes

    def answer(self, f):
        """The kernel's RESPONSE or ERROR -> (Route, kernel frames to send)."""
        req = self.pending.pop(f.seq, None)
        if req is None:
            return Route(None, None), []
        try:
            self.order.remove(f.seq)
        except ValueError:
            pass
        status, body = frame.decode_status(f.payload)
        if req.op == frame.OP_STREAM_CLOSE and req.kstream is not None and \
                (status >= 0 or status == -C.ENOENT):
            owner, local = self.kstreams.pop(req.kstream, (None, 0))
            if owner:
                owner.streams.pop(local, None)
        sends = []
        if req.op in OPENERS and f.type == frame.RESPONSE and status >= 0:
            lay, offset, field = OPENERS[req.op]
            if len(body) >= lay.size and field.unpack_from(body, offset)[0]:
                kstream = field.unpack_from(body, offset)[0]
                if req.owner is None or req.owner.gone:
                    self.early.pop(kstream, None)
                    sends.append(self.close_stream(kstream))
                else:
                    local = req.owner.adopt(kstream)
                    self.kstreams[kstream] = (req.owner, local)
                    body = bytearray(body)
                    field.pack_into(body, offset, local)
                    body = bytes(body)
        if req.owner is None or req.owner.gone:
            return Route(None, None), sends
        return Route(req.owner, frame.encode(f.type, req.seq, frame.encode_status(status, body))), sends

    def claim_early(self, kstream):
        """DATA of kstream that came before the answer naming it, as Routes."""
        owner, local = self.kstreams.get(kstream, (None, 0))
        return [self._data(owner, local, data) for data in self.early.pop(kstream, [])]

    def data(self, f):
        """The kernel's DATA -> a list of Routes (empty: kept until its stream's answer)."""
        kstream, data = frame.decode_data(f.payload)
        if kstream == 0:
            owner = self.pending[self.order[0]].owner if self.order else None
            if owner is None or owner.gone:
                return [Route(None, None)]
            return [Route(owner, frame.encode(frame.DATA, f.seq, f.payload))]
        if kstream not in self.kstreams:
            # The output thread may send a chunk before the channel thread answers
            # the request that opened the stream: kept for the answer.
            if any(self.pending[s].op in OPENERS for s in self.order):
                self.early.setdefault(kstream, []).append(data)
                return []
            return [Route(None, None)]
        owner, local = self.kstreams[kstream]
        return [self._data(owner, local, data)]

    @staticmethod
    def _data(owner, local, data):
        if owner is None or owner.gone:
            return Route(None, None)
        return Route(owner, frame.encode(frame.DATA, 0, frame.encode_data(local, data)))
