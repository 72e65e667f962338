# SPDX-License-Identifier: BSD-2-Clause
"""Code addresses named for the host (the SYMBOLIZE op, kernel/sym/symbolize.c)
and stack() frames named wherever the kernel can name them.

- SYMBOLIZE over the channel: a function's first byte, an address inside
  it, the byte after a function that ends in a call (looked up as a
  return address), trap entry, a loaded graft's text, an address nothing
  holds; malformed requests get one line and change nothing;
- `scion trace` stacks: sampled on every CPU (idle loops entered through
  assembly on the secondary CPUs, interrupts through trap entry) and from
  a jump probe's handler; no frame prints as a bare address.
"""

import os
import re

from common import graft_path, poweroff
from test_channel import channel_boot, scion
from scionhost import frame, replies
from scionhost.client import Client
from scionhost.layouts import text

BARE = re.compile(r"^\s+0x[0-9a-f]+\s*$", re.M)


def kernel_symbols(ctx):
    """{name: (address, size)} of the kernel's functions, from the ELF."""
    import subprocess
    out = subprocess.run(["nm", "-S", ctx.kernel_elf], capture_output=True,
                         text=True, check=True).stdout
    syms = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "tT":
            syms[parts[3]] = (int(parts[0], 16), int(parts[1], 16))
    return syms


def ask(client, pairs):
    body = b"".join(frame.SYM_REQUEST.pack(address=addr, flags=flags) for addr, flags in pairs)
    status, reply = client.request(frame.OP_SYMBOLIZE, body)
    records = []
    for i in range(len(reply) // frame.SYM_RECORD_BYTES):
        r = frame.SYM_RECORD.unpack(reply, i * frame.SYM_RECORD_BYTES)
        records.append((r["start"], r["offset"], r["kind"], r["name"][:r["name_len"]].decode()))
    return status, records, reply


def job_symbolize_op(ctx):
    syms = kernel_symbols(ctx)
    boot, sock = channel_boot(ctx, "symbolize", smp=2)
    try:
        rc, out, err = scion(ctx, sock, "graft", "load", graft_path(ctx, "evict_clock"))
        ctx.result("graft-loaded", rc == 0, out + err)
        with Client(sock) as client:
            clock = [r for r in replies.request_list(client, frame.OP_GRAFT_LIST, "chan_graft_info")
                     if text(r["name"]) == "clock"]
            graft_text = clock[0]["text_start"] if clock else None
            online, online_size = syms["cpu_online_main"]
            stubs, _ = syms["trap_stubs"]
            pairs = [(syms["pf_sum"][0], 0), (syms["pf_sum"][0] + 3, 0),
                     (online + online_size, frame.SYM_RETURN_ADDRESS), (stubs + 0x35, 0),
                     (0x10, 0)]
            if graft_text:
                pairs.append((graft_text + 8, 0))
            status, records, reply = ask(client, pairs)
            ctx.result("answers-one-record-each", status == 0 and len(records) == len(pairs),
                       f"status {status}, {len(reply)} bytes for {len(pairs)} addresses")
            want = [(syms["pf_sum"][0], 0, frame.SYM_KERNEL, "pf_sum"),
                    (syms["pf_sum"][0], 3, frame.SYM_KERNEL, "pf_sum"),
                    (online, online_size, frame.SYM_KERNEL, "cpu_online_main"),
                    (stubs, 0x35, frame.SYM_KERNEL, "trap_stubs"),
                    (0, 0, frame.SYM_UNKNOWN, "")]
            for (what, w), got in zip(zip(["function-start", "inside", "return-address-at-end",
                                           "trap-entry", "nothing"], want), records):
                ctx.result(what, got == w, f"{got} != {w}")
            if graft_text and len(records) == len(pairs):
                ctx.result("graft-text", records[-1][2:] == (frame.SYM_GRAFT, "clock") and
                           records[-1][1] == 8, f"{records[-1]}")
            else:
                ctx.result("graft-text", False, f"no graft 'clock' in GRAFT_LIST: {clock}")
            # The host names kernel addresses from build/kernel.syms as the kernel does.
            from scionhost import ksyms, trace
            table = ksyms.load(ctx.ksyms)
            asked = trace.Symbols(client)               # every address asked of the kernel
            local = trace.Symbols(client, table)        # kernel text named on the host
            sample = [(start + off, ret) for start, _, _ in table.functions[::7]
                      for off in (0, 1, 5) for ret in (False, True)]
            sample += [(table.text[1] - 1, False), (table.text[0], True)]
            differ, retried = [], []
            for a, r in sample:
                if asked(a, return_address=r) == local(a, return_address=r):
                    continue
                # Asked again, raw: a request the channel lost or refused once (a loaded
                # CI host has shown one in 1500) says so here, and is asked a third time.
                flags = frame.SYM_RETURN_ADDRESS if r else 0
                status, body = client.request(frame.OP_SYMBOLIZE,
                                              frame.SYM_REQUEST.pack(address=a, flags=flags))
                again = (trace.symbol_name(body[:frame.SYM_RECORD_BYTES])
                         if status >= 0 and len(body) == frame.SYM_RECORD_BYTES else None)
                retried.append((hex(a), status, body[:80]))
                if again != local(a, return_address=r):
                    differ.append((hex(a), r, asked(a, return_address=r), again,
                                   local(a, return_address=r)))
            ctx.result("host-names-kernel-text-as-the-kernel", table and not differ and
                       len(retried) <= 2 and len(sample) > 1000,
                       f"{len(sample)} addresses; differ: {differ[:5]}; asked again: {retried[:5]}")
            # Malformed: not a whole number of pairs, or too many.
            for what, body in (("odd-length", b"\x00" * 17),
                               ("too-many", b"\x00" * 16 * (frame.SYM_MAX_ADDRESSES + 1))):
                status, reply = client.request(frame.OP_SYMBOLIZE, body)
                line = reply.decode("utf-8", "replace")
                ctx.result(f"refuses-{what}", status < 0 and "symbolize:" in line and
                           line.count("\n") <= 1, f"status {status}: {line!r}")
        rc, out, err = scion(ctx, sock, "shell", "testpoint", "2", "40")
        ctx.result("kernel-fine", "= 42" in out, out + err)
    finally:
        poweroff(ctx, boot)


def job_stack_frames_named(ctx):
    boot, sock = channel_boot(ctx, "stack-frames", smp=2, single_thread_tcg=True)
    try:
        programs = {
            "sampled": "profile-100 { @[stack()] = count(); } tick-1s { exit(0); }",
            "interrupts": "fbt::timer_interrupt:entry { @[stack()] = count(); } "
                          "tick-1s { exit(0); }",
            "jump-probe": "fbt::pf_sum:entry { @[stack()] = count(); } "
                          "tick-100ms { exit(0); }",
        }
        for name, program in programs.items():
            if name == "jump-probe":
                scion(ctx, sock, "shell", "testpoint", "1", "2")
            rc, out, err = scion(ctx, sock, "trace", "-q", "-n", program, timeout=120)
            frames = re.findall(r"^\s+(\S+`\S+)\s*$", out, re.M)
            ctx.result(f"{name}/ran", rc == 0 and (frames or name == "jump-probe"), out + err)
            ctx.result(f"{name}/no-bare-addresses", not BARE.search(out), out)
            if name == "sampled":
                ctx.result("sampled/secondary-cpu-entry", any(f.startswith("kernel`ap_entry+")
                                                              for f in frames), out)
            if name == "interrupts":
                ctx.result("interrupts/through-trap-entry", any(f.startswith("kernel`trap_common+")
                                                                for f in frames), out)
    finally:
        poweroff(ctx, boot)
