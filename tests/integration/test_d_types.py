# SPDX-License-Identifier: BSD-2-Clause
"""D with the kernel's own C types (build/test/kernel.ctf, from gcc's CTF):
`scion trace` hands dtc the types beside kernel.syms, and on one booted
test kernel (two CPUs, the control channel):

  - typed kernel variables: `online_count is the number of CPUs (read as
    the type an extern declaration gives it), and
    `cpu_table[1].index is 1 (an array of struct cpu, indexed and read
    through .);
  - curthread is the kernel's struct thread *: curthread->tid is tid,
    curthread->se.tid agrees, and Scion's older member name
    curthread->ticks_run (a built-in) reads what curthread->se.ticks_run
    reads from memory;
  - typed args[] of fbt: thread_create's args[0] (const char *name) and
    args[3] (int cpu) over `sched run n=3`, which creates three
    "sched-run" threads on any CPU (-1); its return's args[1] is the new
    struct thread *, whose tid is nonzero;
  - typed args[] of the statically defined probes (scion/sdt_types.h):
    at every sched:::on-cpu, args[2] is curthread and its tid is arg0,
    args[3] is curthread->cpu and its index is arg1; at off-cpu args[2]
    (the next thread) has tid arg0 and args[3]->index is cpu; at every
    lockstat:::spin-acquire args[0]->holder_cpu is this CPU; a clause of
    two probe names, and an index past a probe's arguments, are refused;
    `scion trace -l -v` lists each probe's argument types (sdt's and
    fbt's; None for a probe that has none), as dtrace -lv does;
  - stackdepth is the number of frames stack() prints at the same firing;
    printa's %k prints a stack() key's frames where the format puts it,
    -x stackindent spaces deep;
  - a member struct thread does not have is a compile error naming the
    type; args[] past the parameters, and of a glob, are refused;
  - a program compiled against another kernel's types (the user kernel's
    kernel.ctf, build/kernel.ctf) is refused by this kernel with one line;
  - alloca's scratch is written through members, elements and *p (=, ++,
    op=), and filled by bcopy from a kernel object (`cpu_table[1]); a
    store to the kernel's own memory (`online_count), and a bcopy into
    it, are D's invalid address errors at their addresses, and the
    variable still reads what it did;
  - a fixed-size array and a struct declared global keep their contents
    from one firing of fbt::bcache_read:entry to the next (the histogram
    sums to the calls counted), a clause-local array starts zeroed at
    each firing (its maximum is 1), and a variable index past the end is
    D's "index out of bounds" error;
  - tracemem() prints the bytes at an address as dtrace's hex dump (all
    of them, or the dynamic size's first ones), and as a list of bytes
    under -x oformat=json;
  - print(*curthread) lays the kernel's struct thread out by its C type
    as illumos dtrace prints it (its tid, name, state by enumerator, a
    function pointer by symbol, nested structs), and print() of a scalar
    names its type; a struct too big to record is refused;
  - struct values of an associative array and a thread-local struct
    (made zeroed on first use, written in place) count what
    bcache_read saw, per key and for the thread;
  - trace() of a struct variable prints its bytes as dtrace does (a hex
    dump, little-endian here), and -x oformat=json gives them as a list;
  - toupper, tolower, strtoll, cleanpath and htons ... ntohll give
    DTrace's results in the kernel (x86 swaps bytes for the network's
    order), and strtoll's base 37 is the illegal operation error.
"""

import json
import os
import re
import shutil
import tempfile

from common import poweroff
from test_channel import channel_boot, scion

KVARS = r'''
extern unsigned short online_count;	/* an extern declaration overrides the CTF's type */

BEGIN
{
	printf("online %u\n", `online_count);
	printf("cpu1 %u\n", `cpu_table[1].index);
	printf("tid %d %d\n", curthread->tid == tid, curthread->se.tid == tid);
	printf("ticks %d\n", curthread->ticks_run == curthread->se.ticks_run);
	printf("name %s\n", curthread->name);
	exit(0);
}
'''

ARGS = r'''
fbt::thread_create:entry
/stringof(args[0]) == "sched-run"/
{
	printf("create %s on %d\n", stringof(args[0]), args[3]);
}

fbt::thread_create:return
/args[1] != NULL/
{
	@made = sum(args[1]->tid != 0 && args[1]->tid == args[1]->se.tid);
}
'''

SDT_ARGS = r'''
sched:::on-cpu
{
	@on[args[2] == curthread && args[2]->tid == arg0 && args[3] == curthread->cpu &&
	    args[3]->index == arg1] = count();
}

sched:::off-cpu
{
	@off[args[2]->tid == arg0 && args[3]->index == cpu] = count();
}

lockstat:::spin-acquire
{
	@spin[args[0]->holder_cpu == cpu] = count();
}

END
{
	printa("on %d %@d\n", @on);
	printa("off %d %@d\n", @off);
	printa("spin %d %@d\n", @spin);
}
'''


STRUCT_VALUES = r'''
struct st { long n; long sum; long last; };
struct st by_mod[long];
self struct st mine;

fbt::bcache_read:entry
{
	by_mod[arg0 % 3].n++;
	by_mod[arg0 % 3].sum += arg0;
	self->mine.n++;
	self->mine.last = arg0;
}

fbt::bcache_read:return
/self->mine.n == 9/
{
	printf("mine %d %d\n", self->mine.n, self->mine.last);
}

END
{
	printf("mods %d %d %d %d %d %d %d\n", by_mod[0].n, by_mod[0].sum, by_mod[1].n,
	    by_mod[1].sum, by_mod[2].n, by_mod[2].sum, by_mod[7].n);
}
'''

SCRATCH = r'''
struct rec {
	int count;
	long total;
	char tag[8];
	struct rec *next;
};

BEGIN
{
	this->r = (struct rec *)alloca(sizeof (struct rec));
	this->r->count = 20;
	this->r->count++;
	this->r->count *= 2;
	this->r->total = -5;
	this->r->total -= 10;
	this->r->next = this->r;
	this->r->next->tag[0] = 'o';
	this->r->tag[1] = 'k';
	this->p = (int *)alloca(4 * sizeof (int));
	this->p[3] = 7;
	*this->p = this->p[3] * 6;
	this->c = (struct cpu *)alloca(64);	/* its head: struct cpu is larger than scratch */
	bcopy(&`cpu_table[1], this->c, 64);
	printf("rec %d %d %s %d\n", this->r->count, this->r->total, stringof(this->r->tag),
	    this->r->next == this->r);
	printf("ints %d %d %d\n", this->p[0], this->p[1], this->p[3]);
	printf("copied %u\n", this->c->index);
	exit(0);
}

ERROR
{
	exit(1);
}
'''

VARIABLES = r'''
struct tally {
	int n;
	long blocks;
};

int hist[4];
struct tally t;
this int tmp[2];

fbt::bcache_read:entry
{
	hist[t.n & 3]++;
	t.n++;
	t.blocks += 1;
	this->tmp[1]++;
	@calls = count();
	@local = max(this->tmp[1]);
}

END
{
	printf("hist %d %d %d %d n %d blocks %d\n", hist[0], hist[1], hist[2], hist[3], t.n,
	    t.blocks);
}
'''

OUT_OF_BOUNDS = "int a[4]; BEGIN { this->i = 4; a[this->i] = 1; }"
TRACE_STRUCT = ("struct pair { int a; short b; }; struct pair p; "
                "BEGIN { p.a = 0x01020304; p.b = -1; trace(p); exit(0); }")
KERNEL_STORE = "BEGIN { *(unsigned short *)&`online_count = 9; }"
KERNEL_BCOPY = "BEGIN { bcopy(&`cpu_table[0], &`cpu_table[1], 8); }"


def check_scratch_memory(ctx, sock):
    rc, out, err = scion(ctx, sock, "trace", "-q", "-n", SCRATCH, timeout=120)
    ctx.result("alloca-stores", rc == 0 and "rec 42 -15 ok 1\n" in out and
               "ints 42 0 7\n" in out, f"exit {rc}: {out}{err}")
    ctx.result("bcopy-from-the-kernel", "copied 1\n" in out, f"exit {rc}: {out}{err}")
    for name, script in (("store", KERNEL_STORE), ("bcopy", KERNEL_BCOPY)):
        rc, out, err = scion(ctx, sock, "trace", "-q", "-n", script, "--run", "cpus",
                             timeout=120)
        ctx.result(f"kernel-{name}-refused", re.search(r"invalid address \(0x[0-9a-f]+\)",
                                                      err) is not None, f"exit {rc}: {out}{err}")
    rc, out, err = scion(ctx, sock, "trace", "-q", "-n", VARIABLES, "--run",
                         "bcache run seq n=6 start=100", timeout=120)
    m = re.search(r"hist (\d+) (\d+) (\d+) (\d+) n (\d+) blocks (\d+)", out)
    counts = re.findall(r"^\s+(\d+)\s*$", out, re.M)
    hist = [int(x) for x in m.groups()[:4]] if m else []
    ctx.result("array-and-struct-variables", rc == 0 and m is not None and len(counts) == 2 and
               int(m.group(5)) == int(counts[0]) >= 6 and sum(hist) == int(m.group(5)) and
               int(m.group(6)) == int(m.group(5)) and max(hist) - min(hist) <= 1 and
               int(counts[1]) == 1, f"exit {rc}: {out}{err}")
    rc, out, err = scion(ctx, sock, "trace", "-q", "-n", TRACE_STRUCT, timeout=120)
    ctx.result("trace-struct-bytes", rc == 0 and re.search(r"^\s+0: 04 03 02 01 ff ff 00 00 ",
                                                           out, re.M) is not None,
               f"exit {rc}: {out}{err}")
    rc, out, err = scion(ctx, sock, "trace", "-q", "-x", "oformat=json", "-n", TRACE_STRUCT,
                         timeout=120)
    traced = [a.get("trace") for line in out.splitlines() if line.startswith("{")
              for a in json.loads(line).get("actions", [])]
    ctx.result("trace-struct-json", rc == 0 and [4, 3, 2, 1, 255, 255, 0, 0] in traced,
               f"exit {rc}: {out}{err}")
    rc, out, err = scion(ctx, sock, "trace", "-q", "-n", OUT_OF_BOUNDS, "--run", "cpus",
                         timeout=120)
    ctx.result("index-out-of-bounds", "index out of bounds" in err, f"exit {rc}: {out}{err}")
    rc, out, err = scion(ctx, sock, "trace", "-q", "-n", "BEGIN { printf(\"%u %u\\n\", "
                         "`online_count, `cpu_table[1].index); exit(0); }", timeout=120)
    ctx.result("kernel-memory-unchanged", rc == 0 and out.strip() == "2 1", f"exit {rc}: {out}{err}")


def check_sdt_args(ctx, sock):
    rc, out, err = scion(ctx, sock, "trace", "-q", "-n", SDT_ARGS, "--run",
                         "sched run n=3 rounds=1 compute=1 sleep=1", timeout=180)
    for probe in ("on", "off", "spin"):
        keys = {int(k): int(n) for k, n in re.findall(rf"^{probe} (\d+) (\d+)$", out, re.M)}
        ctx.result(f"sdt-args-{probe}", rc == 0 and list(keys) == [1] and keys[1] > 0,
                   f"exit {rc}: {out}{err}")
    rc, out, err = scion(ctx, sock, "trace", "-n",
                         "sched:::on-cpu, sched:::off-cpu { trace(args[2]); }")
    ctx.result("sdt-args-of-two-names-refused", rc != 0 and "args[ ] needs the clause's "
               "probes to be one probe name of one provider" in err, f"exit {rc}: {out}{err}")
    rc, out, err = scion(ctx, sock, "trace", "-n", "lockstat:::spin-spin { trace(args[2]); }")
    ctx.result("sdt-args-index-out-of-range", rc != 0 and "index 2 is out of range for "
               "lockstat:::spin-spin args[ ] (it has 2 arguments)" in err,
               f"exit {rc}: {out}{err}")


TRACEMEM = ("BEGIN { this->p = (char *)alloca(20); this->p[0] = 'S'; this->p[1] = 'c'; "
            "this->p[17] = 0x7f; tracemem(this->p, 20); tracemem(this->p, 20, 2); "
            "tracemem(&`online_count, 4); exit(0); }")


def check_tracemem(ctx, sock):
    rc, out, err = scion(ctx, sock, "trace", "-q", "-n", TRACEMEM)
    header = " " * 13 + "0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef\n"
    full = (header + "         0: 53 63" + " 00" * 14 + "  Sc..............\n"
            "        10: 00 7f 00 00" + "   " * 12 + "  ....\n")
    ctx.result("tracemem-hex-dump", rc == 0 and out.startswith("\n" + full + "\n" + header +
               "         0: 53 63" + "   " * 14 + "  Sc\n\n" + header +
               "         0: 02 00 00 00"), f"exit {rc}: {out!r}{err}")
    rc, out, err = scion(ctx, sock, "trace", "-q", "-x", "oformat=json", "-n", TRACEMEM)
    actions = [json.loads(line)["actions"] for line in out.splitlines()
               if line.startswith("{") and json.loads(line).get("type") == "record"]
    want = [[{"tracemem": [83, 99] + [0] * 15 + [127, 0, 0]}, {"tracemem": [83, 99]},
             {"tracemem": [2, 0, 0, 0]}, {"exit": 0}]]
    ctx.result("tracemem-json", rc == 0 and actions == want, f"exit {rc}: {out}{err}")


def check_print(ctx, sock):
    rc, out, err = scion(ctx, sock, "trace", "-q", "-n", "BEGIN { printf(\"tid %x\\n\", tid); "
                         "print(*curthread); printf(\"\\n\"); print(curthread->se.tid); "
                         "exit(0); }")
    tid = re.search(r"^tid ([0-9a-f]+)$", out, re.M)
    ctx.result("print-struct-thread", rc == 0 and tid is not None and
               out.count("\nstruct thread {\n    arch = {\n") == 1 and
               f"\n    tid = 0x{tid.group(1)}\n" in out and "\n    state = THREAD_RUNNING\n" in
               out and "\n    name = [ \"channel\" ]\n" in out and
               "\n    entry = kernel`channel_thread\n" in out and
               "\n    se = {\n        run_node = {\n" in out and
               f"}}\nuint64_t 0x{tid.group(1)}" in out, f"exit {rc}: {out}{err}")
    rc, out, err = scion(ctx, sock, "trace", "-n", "BEGIN { print(`cpu_table[1]); }")
    ctx.result("print-too-big-refused", rc != 0 and "print( ) of struct cpu: " in err and
               "at most 16384 are recorded" in err, f"exit {rc}: {out}{err}")


def check_listed_arg_types(ctx, sock):
    rc, out, err = 0, "", ""
    for spec in ("sched:::on-cpu", "fbt::thread_create:entry", "profile:::tick-1s"):
        r, o, e = scion(ctx, sock, "trace", "-l", "-v", "-n", spec)
        rc, out, err = rc or r, out + o, err + e
    blocks = re.findall(r"^\s*\d+\s+(\S+)\s+\S+\s+(\S+)\s+(\S+)\n\n\tArgument Types\n"
                        r"((?:\t\t.*\n)+)", out, re.M)
    listed = {f"{p}::{f}:{n}": body for p, f, n, body in blocks}
    on_cpu = [body for probe, body in listed.items() if probe.startswith("sched::") and
              probe.endswith(":on-cpu")]
    ctx.result("list-v-sdt-arg-types", rc == 0 and on_cpu != [] and all(
        body == "\t\targs[0]: uint64_t\n\t\targs[1]: unsigned int\n"
                "\t\targs[2]: struct thread *\n\t\targs[3]: struct cpu *\n" for body in on_cpu),
        f"exit {rc}: {out}{err}")
    ctx.result("list-v-fbt-arg-types", listed.get("fbt::thread_create:entry", "").startswith(
        "\t\targs[0]: char *\n") and listed["fbt::thread_create:entry"].count("args[") == 4,
        f"{out}{err}")
    r, o, e = scion(ctx, sock, "trace", "-v", "-n", "BEGIN { exit(0); }")
    ctx.result("v-without-l-refused", r == 1 and o == "" and e == "scion: -v goes with -l: "
               "it lists each probe's argument types\n", f"exit {r}: {o}{e}")
    ctx.result("list-v-none", re.search(r" tick-1s\n\n\tArgument Types\n\t\tNone\n\n", out)
               is not None, f"{out}{err}")


CONVERT = r"""
BEGIN
{
	printf("case %s|%s|%s\n", toupper("scion Trace 1"), tolower("SCION Trace 1"),
	    toupper(tolower(probename)));
	printf("strtoll %d %d %d %d %d\n", strtoll("  -0x1f", 16), strtoll("0755", 0),
	    strtoll("z", 36), strtoll("12j"), strtoll("101", 2));
	printf("cleanpath %s %s\n", cleanpath("/usr/./lib//../bin/"), cleanpath("/a/b/.."));
	printf("hton %x %x %x\n", htons(0x1234), htonl(0x12345678), htonll(0x0102030405060708));
	printf("ntoh %x %x %x\n", ntohs(0x3412), ntohl(0x78563412), ntohll(0x0807060504030201));
	exit(0);
}
"""


def check_converting_subroutines(ctx, sock):
    """toupper, tolower, strtoll, cleanpath and the byte order conversions in
    the kernel: x86 is little-endian, so htonl and its kin swap the bytes
    (test_sparc64_wire.py's check_trace sees the identity on sparc64); a
    base strtoll refuses is the kernel's illegal-operation error."""
    rc, out, err = scion(ctx, sock, "trace", "-q", "-n", CONVERT)
    want = ("case SCION TRACE 1|scion trace 1|BEGIN\n"
            "strtoll -31 493 35 12 5\n"
            "cleanpath /usr/bin/ /a/\n"
            "hton 3412 78563412 807060504030201\n"
            "ntoh 1234 12345678 102030405060708\n")
    ctx.result("converting-subroutines", rc == 0 and want in out, f"exit {rc}: {out}{err}")
    rc, out, err = scion(ctx, sock, "trace", "-q", "-n", "BEGIN { this->b = 37; "
                         "trace(strtoll(\"10\", this->b)); }", "--run", "cpus", timeout=120)
    ctx.result("strtoll-bad-base-faults", "illegal operation in action #2 at DIF offset 4" in err
               and out.strip() == "", f"exit {rc}: {out!r} {err!r}")


def job_kernel_types(ctx):
    boot, sock = channel_boot(ctx, "dtypes", smp=2, single_thread_tcg=True)
    try:
        rc, out, err = scion(ctx, sock, "trace", "-q", "-n", KVARS, timeout=120)
        ctx.result("kernel-variables", rc == 0 and "online 2\n" in out and "cpu1 1\n" in out,
                   f"exit {rc}: {out}{err}")
        ctx.result("curthread-typed", "tid 1 1\n" in out and "ticks 1\n" in out and
                   re.search(r"name \S+", out) is not None, f"{out}{err}")

        rc, out, err = scion(ctx, sock, "trace", "-q", "-n", ARGS, "--run",
                             "sched run n=3 rounds=1 compute=1 sleep=1", timeout=180)
        creates = re.findall(r"create (\S+) on (-?\d+)", out)
        ctx.result("fbt-args-entry", rc == 0 and creates == [("sched-run", "-1")] * 3,
                   f"exit {rc}: {out}{err}")
        made = re.search(r"^\s+(\d+)\s*$", out, re.M)
        ctx.result("fbt-args-return", made is not None and int(made.group(1)) >= 3,
                   f"{out}{err}")

        check_sdt_args(ctx, sock)
        rc, out, err = scion(ctx, sock, "trace", "-q", "-n", STRUCT_VALUES, "--run",
                             "bcache run seq n=9 start=100", timeout=120)
        ctx.result("struct-values-of-associative-arrays", rc == 0 and
                   "mods 3 315 3 309 3 312 0\n" in out, f"exit {rc}: {out}{err}")
        ctx.result("thread-local-struct", "mine 9 108\n" in out, f"exit {rc}: {out}{err}")
        check_listed_arg_types(ctx, sock)
        check_tracemem(ctx, sock)
        check_print(ctx, sock)
        rc, out, err = scion(ctx, sock, "trace", "-q", "-n", "fbt::bcache_read:entry "
                             "{ printf(\"depth %d\\n\", stackdepth); stack(); exit(0); }",
                             "--run", "bcache run seq n=1 start=100", timeout=120)
        depth = re.search(r"depth (\d+)", out)
        frames = re.findall(r"^\s+kernel`\S+", out, re.M)
        ctx.result("stackdepth-is-stacks-frames", rc == 0 and depth is not None and
                   int(depth.group(1)) == len(frames) > 1, f"exit {rc}: {out}{err}")

        rc, out, err = scion(ctx, sock, "trace", "-q", "-x", "stackindent=3", "-n",
                             "fbt::bcache_read:entry { @[stack()] = count(); } "
                             "END { printa(\"calls:%k=%@d\\n\", @); }",
                             "--run", "bcache run seq n=3 start=100", timeout=120)
        stacks = re.findall(r"^calls:\n((?: {3}kernel`\S+\n)+)=(\d+)$", out, re.M)
        ctx.result("printa-k-prints-stack-keys", rc == 0 and stacks != [] and
                   sum(int(n) for _, n in stacks) == 3 and
                   all(f.split()[0].startswith("kernel`bcache_workload_run") for f, _ in stacks),
                   f"exit {rc}: {out}{err}")

        rc, out, err = scion(ctx, sock, "trace", "-n",
                             "fbt::thread_create:return { trace(args[1]->nosuch); }")
        ctx.result("missing-member-named", rc != 0 and
                   "nosuch is not a member of struct thread" in err, f"exit {rc}: {out}{err}")
        rc, out, err = scion(ctx, sock, "trace", "-n",
                             "fbt::thread_create:entry { trace(args[4]); }")
        ctx.result("args-index-out-of-range", rc != 0 and "index 4 is out of range for "
                   "fbt::thread_create:entry" in err, f"exit {rc}: {out}{err}")
        rc, out, err = scion(ctx, sock, "trace", "-n",
                             "fbt::thread_*:entry { trace(args[0]); }")
        ctx.result("args-of-a-glob-refused", rc != 0 and "args[ ] needs the clause's probes "
                   "to be one function's" in err, f"exit {rc}: {out}{err}")

        # The user kernel's types are another kernel's: this (test) kernel refuses them.
        other = os.path.join(ctx.build, "kernel.ctf")
        if os.path.abspath(os.path.dirname(ctx.ksyms)) == os.path.abspath(ctx.build):
            other = os.path.join(ctx.build, "test", "kernel.ctf")
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copy(ctx.ksyms, os.path.join(tmp, "kernel.syms"))
            shutil.copy(other, os.path.join(tmp, "kernel.ctf"))
            rc, out, err = scion(ctx, sock, "trace", "-n", "BEGIN { trace(curthread->tid); "
                                 "exit(0); }", env={"SCION_KSYMS": os.path.join(tmp,
                                                                                "kernel.syms")})
        ctx.result("other-kernels-types-refused", rc != 0 and
                   "compiled against another kernel's types" in err and
                   len(err.strip().splitlines()) == 1, f"exit {rc}: {out}{err}")
        check_scratch_memory(ctx, sock)
        check_converting_subroutines(ctx, sock)
        rc, out, err = scion(ctx, sock, "trace", "-q", "-n", "BEGIN { trace(1); exit(0); }")
        ctx.result("channel-fine-after", rc == 0, f"exit {rc}: {out}{err}")
    finally:
        poweroff(ctx, boot)
