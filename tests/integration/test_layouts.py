# SPDX-License-Identifier: BSD-2-Clause
"""The host's layouts agree with the C headers they are generated from.

build/gen/scion_layouts.py (tools/gen_layouts.py, run by make) describes
every structure and constant of the wire and record headers for the host.
Here a C program, written from that description and compiled against the
headers, prints what the compiler makes of each: every member's offset,
size, element size and signedness, every structure's size and alignment,
every constant's value. One difference fails. The same program compiled
against a copy of the headers with one member widened and one constant
changed must report both: a layout changed in C is caught wherever
Python still holds the old one. host/scionhost/layouts.py's struct
formats are checked to put each member at its offset. Every request and
answer body the host sends or reads has a structure here, and the host's
code names the members it uses (layouts.layout(NAME, members...)): a
member renamed, added or moved in the header makes the host fail at
import, which a job shows with a regenerated description. No QEMU."""

import os
import shutil
import subprocess
import sys
import tempfile

from wire_build import WIRE_HEADERS, build_wire_program

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Where the headers the description names are (#include <scion/...>, <graft/...>, <arch/...>).
INCLUDE_DIRS = ("kernel/include", "grafts/include", "arch/x86/include")
SIGNED_CODES = set("bhiq")
UNSIGNED_CODES = set("BHIQ")
INT64_MAX = (1 << 63) - 1
# Every structure the host reads or writes: the generator must not leave one out.
DESCRIBED = (
    # frames and the requests and answers of the ops
    "chan_frame_header", "chan_frame_trailer", "chan_request_header", "chan_response_header",
    "chan_data_header", "chan_bulk_request", "chan_bulk_reply", "chan_stream_open_reply",
    "chan_stream_close_request", "chan_stream_totals", "chan_trace_start_request",
    "chan_trace_start_reply", "chan_trace_epid", "chan_rec_put_request", "chan_rec_put_reply",
    "chan_rec_get_request", "chan_rec_get_reply", "chan_sym_request", "chan_sym_record",
    "chan_exec_request", "chan_exec_reply", "chan_exec_resume_request",
    # streams
    "chan_chunk_header", "chan_probe_record", "chan_bench_record", "chan_bench_status",
    "chan_exec_output", "chan_exec_status",
    # structured replies
    "chan_status", "chan_probe_info", "chan_graft_info", "chan_metric_info", "chan_event_info",
    "chan_channel_stats", "chan_list_request", "chan_list_head",
    # recordings and trace data
    "rec_file_header", "rec_head", "rec_common", "rec_bcache_request", "rec_bcache_result",
    "rec_bcache_prefetch", "rec_sched_event", "rec_sched_state", "rec_sched_pick",
    "rec_point_call", "rec_point_done", "dof_rechdr", "dof_error", "dof_aggent", "dof_status",
    # the test disk's sector header (tools/mkdisk.py), the profile configuration
    "blk_pattern_header", "profile_config_header", "profile_config_resource",
    "profile_config_bucket")
# Constants of the API headers read for constants alone (the codes records carry).
DESCRIBED_CONSTANTS = ("BCACHE_NO_BLOCK", "BCACHE_PREFETCH_MAX", "BCACHE_OUTCOME_HIT",
                       "BCACHE_PREFETCH_FAILED", "SCHED_EVENT_RUNNABLE", "SCHED_EVENT_YIELD",
                       "GRAFT_OUTCOME_ABORTED", "CHAN_REC_PUT_FINISH", "CHAN_BENCH_FIGURE",
                       "CHAN_STREAM_SWITCH_MIN_MS")


def load_layouts():
    from scionhost import layouts
    return layouts


def c_program(gen):
    """C source printing what the compiler says of everything gen describes."""
    lines = [f"#include <{h}>" for h in gen.HEADERS]
    lines += ["int printf(const char *, ...);", "int main(void)", "{"]
    for name, info in gen.STRUCTS.items():
        lines.append(f'\tprintf("struct {name} %zu %zu\\n", sizeof(struct {name}), '
                     f'_Alignof(struct {name}));')
        for field, _, code, count in info["fields"]:
            member = f"((struct {name} *)0)->{field}"
            element = member + ("[0]" if count is not None else "")
            sign = "2" if code.startswith("struct ") or code in "c?" else \
                f"(__typeof__({element}))-1 < 0"
            lines.append(f'\tprintf("member {name}.{field} %zu %zu %zu %d\\n", '
                         f"__builtin_offsetof(struct {name}, {field}), "
                         f"{'0' if count == 0 else f'sizeof({member})'}, sizeof({element}), "
                         f"(int)({sign}));")
    for header, values in gen.CONSTANTS.items():
        for cname, value in values.items():
            if isinstance(value, str):
                lines.append(f'\tprintf("const {cname} %s\\n", {cname});')
            elif value > INT64_MAX:
                lines.append(f'\tprintf("const {cname} %llu\\n", (unsigned long long)({cname}));')
            else:
                lines.append(f'\tprintf("const {cname} %lld\\n", (long long)({cname}));')
    lines += ["\treturn 0;", "}"]
    return "\n".join(lines) + "\n"


def expected(gen):
    """The lines c_program must print if the description is right."""
    out = []
    for name, info in gen.STRUCTS.items():
        out.append(f"struct {name} {info['size']} {info['align']}")
        for field, offset, code, count in info["fields"]:
            if code.startswith("struct "):
                element, sign = gen.STRUCTS[code[len("struct "):]]["size"], 2
            else:
                element = {"c": 1, "?": 1}.get(code) or \
                    {"b": 1, "h": 2, "i": 4, "q": 8}[code.lower()]
                sign = 1 if code in SIGNED_CODES else 0 if code in UNSIGNED_CODES else 2
            total = 0 if count == 0 else element * (count or 1)
            out.append(f"member {name}.{field} {offset} {total} {element} {sign}")
    for values in gen.CONSTANTS.values():
        for cname, value in values.items():
            out.append(f"const {cname} {value}")
    return out


def compiler_says(gen, include_dirs, work):
    """Compile and run c_program against include_dirs: (lines, error text)."""
    src, exe = os.path.join(work, "layouts.c"), os.path.join(work, "layouts")
    with open(src, "w") as f:
        f.write(c_program(gen))
    proc = subprocess.run(["gcc", "-std=gnu11", "-w"] +
                          [arg for d in include_dirs for arg in ("-I", d)] + ["-o", exe, src],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        return None, proc.stderr[-2000:]
    run = subprocess.run([exe], capture_output=True, text=True, timeout=60)
    return run.stdout.splitlines(), run.stderr


def differences(got, want):
    return [f"C: {g!r}, Python: {w!r}" for g, w in zip(got, want) if g != w] + \
        ([f"C printed {len(got)} lines, Python expects {len(want)}"] if len(got) != len(want) else [])


def job_agree(ctx):
    layouts = load_layouts()
    gen = layouts._GEN
    include_dirs = [os.path.join(ROOT, d) for d in INCLUDE_DIRS]
    with tempfile.TemporaryDirectory(prefix="scion-layouts-") as work:
        got, err = compiler_says(gen, include_dirs, work)
        ctx.result("program-compiles", got is not None, err)
        if got is None:
            return
        want = expected(gen)
        wrong = differences(got, want)
        ctx.result("every-offset-size-and-constant", not wrong,
                   f"{len(wrong)} differences: " + "; ".join(wrong[:8]))
        for name in DESCRIBED:
            ctx.result(f"described/{name}", name in gen.STRUCTS, "not in the generated module")
        constants = {k for values in gen.CONSTANTS.values() for k in values}
        missing = [c for c in DESCRIBED_CONSTANTS if c not in constants]
        ctx.result("described-constants", not missing, f"not in the generated module: {missing}")

        # The same program against headers where C moved on and Python did not.
        inc = os.path.join(work, "include")
        shutil.copytree(os.path.join(ROOT, "kernel", "include"), inc)
        include_dirs[0] = inc
        path = os.path.join(inc, "scion", "chan_proto.h")
        with open(path) as f:
            text = f.read()
        changed = text.replace("\tuint16_t cpu;\n\tuint16_t size;", "\tuint32_t cpu;\n\tuint16_t size;")
        changed = changed.replace("#define CHAN_MAX_PAYLOAD   262144", "#define CHAN_MAX_PAYLOAD   131072")
        with open(path, "w") as f:
            f.write(changed)
        ctx.result("test-edits-applied", "\tuint32_t cpu;\n\tuint16_t size;" in changed and
                   "131072" in changed, "chan_proto.h no longer has the lines this test edits")
        got2, err = compiler_says(gen, include_dirs, work)
        wrong = differences(got2 or [], want)
        caught = [w for w in wrong if "chan_probe_record.cpu" in w or "chan_probe_record.size" in w]
        ctx.result("a-widened-member-is-caught", bool(caught), "; ".join(wrong[:8]) or err)
        ctx.result("a-changed-constant-is-caught",
                   any("CHAN_MAX_PAYLOAD" in w for w in wrong), "; ".join(wrong[:8]) or err)

        # Generated again from the changed headers, the description follows them.
        out = os.path.join(work, "regen.py")
        proc = regenerate(gen, include_dirs, out)
        regen = {}
        if proc.returncode == 0:
            exec(open(out).read(), regen)
        agrees = False
        if regen:
            class Gen:
                STRUCTS, CONSTANTS = regen["STRUCTS"], regen["CONSTANTS"]
            agrees = not differences(got2 or [], expected(Gen))
        ctx.result("regenerated-from-changed-headers-agrees", agrees, proc.stderr)


def header_path(name, include_dirs):
    """Where #include <name> finds it among include_dirs."""
    return next(os.path.join(d, name) for d in include_dirs
                if os.path.exists(os.path.join(d, name)))


def regenerate(gen, include_dirs, out):
    """tools/gen_layouts.py over the headers gen was made from, found in include_dirs."""
    structural = [h for h in gen.HEADERS if h not in gen.CONSTANT_HEADERS]
    return subprocess.run([sys.executable, os.path.join(ROOT, "tools", "gen_layouts.py")] +
                          [header_path(h, include_dirs) for h in structural] +
                          ["--constants-only"] +
                          [header_path(h, include_dirs) for h in gen.CONSTANT_HEADERS] +
                          ["-o", out], capture_output=True, text=True)


# (structure, header, text in it, the same text changed, a module whose import must then fail)
RENAMES = (
    ("chan_rec_get_request", "chan_proto.h", "\tuint32_t max;\t\t\t/* bytes wanted at most */",
     "\tuint32_t most;", "scionhost.record"),
    ("chan_trace_start_reply", "chan_proto.h", "\tuint32_t nepids;\n", "\tuint32_t epids_n;\n",
     "scionhost.trace"),
    ("chan_bench_record", "chan_proto.h", "\tuint16_t kind;\t\t\t/* enum chan_bench_kind */",
     "\tuint16_t sort;", "scionhost.bench"),
    ("chan_stream_open_reply", "chan_proto.h",
     "\tuint32_t bufsize;\t\t/* bytes per CPU buffer */", "\tuint32_t bufsize, spare;",
     "scionhost.client"),
    ("monitor_rec_round", "monitor_rec.h", "\tuint32_t lost_before;", "\tuint32_t lost;",
     "scionhost.profile.monitor_records"),
)


def job_host_follows_members(ctx):
    """A member renamed, added or moved in a header, generated again: the host code that
    packs or reads that structure fails at import, naming it, instead of sending zeros."""
    layouts = load_layouts()
    gen = layouts._GEN
    for what, header, old, new, module in RENAMES:
        with tempfile.TemporaryDirectory(prefix="scion-layouts-") as work:
            inc = os.path.join(work, "include")
            shutil.copytree(os.path.join(ROOT, "kernel", "include"), inc)
            path = os.path.join(inc, "scion", header)
            with open(path) as f:
                text = f.read()
            if old not in text:
                ctx.result(f"{what}/edit-applies", False, f"{header} no longer has {old!r}")
                continue
            with open(path, "w") as f:
                f.write(text.replace(old, new))
            out = os.path.join(work, "changed.py")
            dirs = [inc] + [os.path.join(ROOT, d) for d in INCLUDE_DIRS[1:]]
            proc = regenerate(gen, dirs, out)
            if proc.returncode != 0:
                ctx.result(f"{what}/regenerated", False, proc.stderr)
                continue
            env = dict(os.environ, SCION_LAYOUTS=out)
            run = subprocess.run([sys.executable, "-c", f"import {module}"], env=env,
                                 capture_output=True, text=True, timeout=60)
            ctx.result(f"{what}/import-fails", run.returncode != 0 and "ImportError" in run.stderr
                       and what in run.stderr, f"exit {run.returncode}: {run.stderr[-400:]}")
    # Packing a member the structure does not have is refused too.
    try:
        layouts.layout("chan_rec_put_request").pack(rec=1, recording=2)
        ctx.result("pack-refuses-unknown-member", False, "packed a member that does not exist")
    except TypeError as e:
        ctx.result("pack-refuses-unknown-member", "recording" in str(e), str(e))


def job_generator_limits(ctx):
    """What the generator does not understand stays out of the description."""
    with tempfile.TemporaryDirectory(prefix="scion-layouts-") as work:
        header = os.path.join(work, "odd.h")
        with open(header, "w") as f:
            f.write("#include <stdint.h>\n#define ODD_N (2u << 3)\n#define ODD_F(x) (x)\n"
                    "enum odd { ODD_A = 3, ODD_B, ODD_C = ODD_N + 1 };\n"
                    "struct odd_ok { uint8_t a; uint64_t b; char c[ODD_N]; uint16_t d[]; };\n"
                    "struct odd_ptr { uint32_t a; void *p; };\n"
                    "struct odd_bits { uint32_t a : 3; };\n"
                    "struct odd_union { union { uint32_t a; } u; };\n")
        out = os.path.join(work, "odd.py")
        proc = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "gen_layouts.py"),
                               header, "-o", out], capture_output=True, text=True)
        gen = {}
        if proc.returncode == 0:
            exec(open(out).read(), gen)
        consts = gen.get("CONSTANTS", {}).get("odd.h", {})
        structs = gen.get("STRUCTS", {})
        ctx.result("constants", consts == {"ODD_N": 16, "ODD_A": 3, "ODD_B": 4, "ODD_C": 17},
                   repr(consts) + proc.stderr)
        ok = structs.get("odd_ok", {})
        ctx.result("natural-alignment", ok.get("size") == 32 and [f[1] for f in ok.get("fields", [])]
                   == [0, 8, 16, 32] and ok["fields"][3][3] == 0, repr(ok))
        ctx.result("pointers-bitfields-unions-left-out",
                   not {"odd_ptr", "odd_bits", "odd_union"} & set(structs), repr(list(structs)))


def job_python_formats(ctx):
    """layouts.Layout puts every member where the description says."""
    layouts = load_layouts()
    wrong = []
    for name in layouts.structs():
        try:
            lay = layouts.layout(name)
        except ValueError as e:
            wrong.append(str(e))
            continue
        for fname, code, count in lay.names:
            offset = next(f[1] for f in lay.fields if f[0] == fname)
            if code == "c":
                marker, value = b"\x5a", b"\x5a"
            elif count:
                marker, value = None, [1] + [0] * (count - 1)
            else:
                marker, value = None, 1
            raw = lay.pack(**{fname: value})
            if marker is not None:
                ok = raw[offset:offset + 1] == marker
            else:
                ok = raw[offset] == 1 and raw.count(0) == len(raw) - 1
            back = lay.unpack(raw)[fname]
            if not ok or (back != value and not (code == "c" and back.rstrip(b"\0") == value)):
                wrong.append(f"{name}.{fname} at {offset}")
    ctx.result("members-at-their-offsets", not wrong, "; ".join(wrong[:10]))


# The headers whose structures cross the control channel: the kernel's wire
# descriptors (tools/gen_layouts.py --c-wire, scion/chan_wire.h) cover them.

WIRE_PROGRAM = r"""
#include <stdio.h>
#include <scion/chan_wire.h>

/* Each structure filled with distinct bytes, swapped by the kernel's routine. */
static void show(const struct chan_wire_layout *l)
{
	unsigned char buf[2 * 512];
	for (unsigned i = 0; i < 2 * l->size; i++)
		buf[i] = (unsigned char)(i * 7 + 1);	/* distinct within 256 bytes */
	printf("%s %u ", l->name, l->size);
	for (unsigned i = 0; i < 2 * l->size; i++)
		printf("%02x", buf[i]);
	chan_wire_swap(l, buf, 2);			/* two records: the stride too */
	printf(" ");
	for (unsigned i = 0; i < 2 * l->size; i++)
		printf("%02x", buf[i]);
	unsigned char same[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	chan_wire_to_le(CHAN_WIRE(chan_bulk_reply), same, 1);	/* this host is little-endian */
	printf(" %d %d\n", CHAN_WIRE_SWAPS, same[0] == 1 && same[7] == 8);
}

int main(void)
{
#define SHOW(name) show(CHAN_WIRE(name));
	CHAN_WIRE_ALL(SHOW)
	return 0;
}
"""


def job_wire_byte_order(ctx):
    """The kernel's byte-order routine (kernel/channel/wire.c) with the descriptors
    generated from the wire headers (wire_build.WIRE_HEADERS): every structure, filled with
    distinct bytes and read as a big-endian machine's native structure, comes out
    as Python's struct '<' packing of the same values (the wire's order); two
    records in a row are both turned; on this little-endian host chan_wire_to_le
    leaves the bytes alone; every structure of those headers has a descriptor;
    and the sparc64 cross compiler sees CHAN_WIRE_SWAPS true."""
    import struct
    layouts = load_layouts()
    gen = layouts._GEN
    wire_structs = [n for n, info in gen.STRUCTS.items()
                    if info["header"] in {os.path.basename(h) for h in WIRE_HEADERS}]
    with tempfile.TemporaryDirectory(prefix="scion-wire-") as work:
        exe = build_wire_program(ctx, work, "wire", WIRE_PROGRAM, ["kernel/channel/wire.c"],
                                 "compiles-with-static-asserts")
        if not exe:
            return
        lines = subprocess.run([exe], capture_output=True, text=True, timeout=60).stdout.splitlines()
        seen, wrong, trivial = set(), [], []
        for line in lines:
            name, size, before, after, swaps, le_noop = line.split()
            seen.add(name)
            lay = layouts.layout(name)
            native = struct.Struct(">" + lay.struct.format[1:])     # a big-endian machine's
            raw, got = bytes.fromhex(before), bytes.fromhex(after)
            want = b"".join(lay.struct.pack(*native.unpack_from(raw, k * lay.size))
                            for k in range(2))
            if int(size) != lay.size or got != want:
                at = next((i for i, (g, w) in enumerate(zip(got, want)) if g != w), None)
                wrong.append(f"{name} ({size} bytes, {lay.size} in Python): first difference "
                             f"at byte {at}: swapped {got[at:at + 8].hex() if at is not None else ''}"
                             f", '<' packing {want[at:at + 8].hex() if at is not None else ''}")
            if any(code not in "cBb?" for _, code, _ in lay.names) and \
                    got == raw:
                trivial.append(name)
            if swaps != "0" or le_noop != "1":
                wrong.append(f"{name}: CHAN_WIRE_SWAPS {swaps} on this little-endian host, "
                             f"to_le left the bytes alone: {le_noop}")
        ctx.result("swapped-equals-struct-le-packing", not wrong and bool(lines),
                   "; ".join(wrong[:5]) or "no output")
        ctx.result("multi-byte-members-turned", not trivial, f"unchanged: {trivial}")
        ctx.result("every-channel-struct-described", set(wire_structs) <= seen,
                   f"no descriptor for {sorted(set(wire_structs) - seen)}")
        ctx.result("described", len(seen) >= 40, f"{len(seen)} descriptors")
        cross = shutil.which("sparc64-linux-gnu-gcc")
        if cross:
            check = os.path.join(work, "be.c")
            with open(check, "w") as f:
                f.write("#include <scion/chan_wire.h>\n"
                        "_Static_assert(CHAN_WIRE_SWAPS, \"sparc64 must convert\");\n")
            proc = subprocess.run([cross, "-std=gnu11", "-fsyntax-only", "-ffreestanding",
                                   "-I", os.path.join(ROOT, "kernel", "include"), "-I", work,
                                   check], capture_output=True, text=True)
            ctx.result("sparc64-converts", proc.returncode == 0, proc.stderr[-1000:])
