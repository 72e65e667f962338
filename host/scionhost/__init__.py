# SPDX-License-Identifier: BSD-2-Clause
"""The host side of Scion's control channel, behind the `scion` command.

frame.py is the wire format (kernel/include/scion/chan_proto.h in Python)
and a reference receiver; client.py a session with the kernel (socket,
lock, handshake, requests); tables.py turns the guest's shell tables into
objects for --json; commands.py the subcommands; run.py `scion run`.
"""
