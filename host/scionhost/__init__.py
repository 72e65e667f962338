# SPDX-License-Identifier: BSD-2-Clause
"""The host side of Scion's control channel, behind the `scion` command.

layouts.py holds the kernel's binary layouts and constants as the build
generates them from the C headers; frame.py is the wire format
(kernel/include/scion/chan_proto.h) and a reference receiver; client.py a
session with the kernel (socket, lock, handshake, requests), through
daemon.py (`scion daemon`, sharing the channel among clients; its
routing table is mux.py) unless SCION_NO_DAEMON=1; replies.py
the structured replies (scion/chan_reply.h) the commands read, never the
shell's text; bench.py the in-kernel benchmarks' figures from the "bench"
stream; commands.py the subcommands; run.py `scion run`.
"""
