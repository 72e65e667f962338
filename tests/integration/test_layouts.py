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
formats are checked to put each member at its offset. No QEMU."""

import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HEADERS = ("errno.h", "chan_proto.h", "chan_reply.h", "recfmt.h", "dof.h", "dif_exec.h",
           "profile_config.h")
SIGNED_CODES = set("bhiq")
UNSIGNED_CODES = set("BHIQ")


def load_layouts():
    from scionhost import layouts
    return layouts


def c_program(gen):
    """C source printing what the compiler says of everything gen describes."""
    lines = [f"#include <scion/{h}>" for h in HEADERS]
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


def compiler_says(gen, include_dir, work):
    """Compile and run c_program against include_dir: (lines, error text)."""
    src, exe = os.path.join(work, "layouts.c"), os.path.join(work, "layouts")
    with open(src, "w") as f:
        f.write(c_program(gen))
    proc = subprocess.run(["gcc", "-std=gnu11", "-w", "-I", include_dir, "-o", exe, src],
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
    with tempfile.TemporaryDirectory(prefix="scion-layouts-") as work:
        got, err = compiler_says(gen, os.path.join(ROOT, "kernel", "include"), work)
        ctx.result("program-compiles", got is not None, err)
        if got is None:
            return
        want = expected(gen)
        wrong = differences(got, want)
        ctx.result("every-offset-size-and-constant", not wrong,
                   f"{len(wrong)} differences: " + "; ".join(wrong[:8]))
        for name in ("chan_status", "chan_probe_info", "chan_graft_info", "chan_metric_info",
                     "chan_event_info", "chan_channel_stats", "chan_list_head", "chan_sym_record",
                     "chan_frame_header", "chan_chunk_header", "chan_probe_record",
                     "chan_stream_totals", "rec_file_header", "rec_bcache_result",
                     "rec_sched_state", "dof_rechdr", "dof_error", "dof_aggent", "dof_status"):
            ctx.result(f"described/{name}", name in gen.STRUCTS, "not in the generated module")

        # The same program against headers where C moved on and Python did not.
        inc = os.path.join(work, "include")
        shutil.copytree(os.path.join(ROOT, "kernel", "include"), inc)
        path = os.path.join(inc, "scion", "chan_proto.h")
        with open(path) as f:
            text = f.read()
        changed = text.replace("\tuint16_t cpu;\n\tuint16_t size;", "\tuint32_t cpu;\n\tuint16_t size;")
        changed = changed.replace("#define CHAN_MAX_PAYLOAD   262144", "#define CHAN_MAX_PAYLOAD   131072")
        with open(path, "w") as f:
            f.write(changed)
        ctx.result("test-edits-applied", "\tuint32_t cpu;\n\tuint16_t size;" in changed and
                   "131072" in changed, "chan_proto.h no longer has the lines this test edits")
        got2, err = compiler_says(gen, inc, work)
        wrong = differences(got2 or [], want)
        caught = [w for w in wrong if "chan_probe_record.cpu" in w or "chan_probe_record.size" in w]
        ctx.result("a-widened-member-is-caught", bool(caught), "; ".join(wrong[:8]) or err)
        ctx.result("a-changed-constant-is-caught",
                   any("CHAN_MAX_PAYLOAD" in w for w in wrong), "; ".join(wrong[:8]) or err)

        # Generated again from the changed headers, the description follows them.
        out = os.path.join(work, "regen.py")
        proc = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "gen_layouts.py")] +
                              [os.path.join(inc, "scion", h) for h in HEADERS] + ["-o", out],
                              capture_output=True, text=True)
        regen = {}
        if proc.returncode == 0:
            exec(open(out).read(), regen)
        agrees = False
        if regen:
            class Gen:
                STRUCTS, CONSTANTS = regen["STRUCTS"], regen["CONSTANTS"]
            agrees = not differences(got2 or [], expected(Gen))
        ctx.result("regenerated-from-changed-headers-agrees", agrees, proc.stderr)


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
