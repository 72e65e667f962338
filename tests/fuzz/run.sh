#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# Build every libFuzzer target (tests/fuzz/fuzz_*.c) into $BUILD/fuzz/
# ($BUILD is build unless set) and run each for $1 seconds (default 20);
# with a second argument, only the target it names (sfi_verify: fuzz_sfi_verify.c).
# Prints one line per target and `N passed, M failed`; exits non-zero
# when a target fails to build or finds a crash. Corpora are kept in
# $BUILD/fuzz/corpus/NAME between runs; a crash leaves its input as
# $BUILD/fuzz/NAME-crash-* and its log as $BUILD/fuzz/NAME.log (copy a
# fixed one into tests/fuzz/regressions/NAME/: those inputs run first). Uses the
# generated sources and the fixture graft `make fuzz` builds in $BUILD.
#
#   tests/fuzz/run.sh [seconds]      from the top of the tree
#   tests/fuzz/run.sh 60 sfi_verify  one target
#   FUZZ_CC=clang-15 tests/fuzz/run.sh    another clang
#   BUILD=build-x tests/fuzz/run.sh       another build directory

set -u
cd "$(dirname "$0")/../.." || exit 2

SECONDS_PER_TARGET=${1:-20}
ONLY=${2:-}
FUZZ_CC=${FUZZ_CC:-clang}
BUILD=${BUILD:-build}
OUT=$BUILD/fuzz
CFLAGS="-std=gnu11 -g -O1 -Wall -Wextra -Werror -fno-omit-frame-pointer
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
	-Itests/host/include -Ikernel/include -Ikernel -Itests/fuzz -Iarch/x86/include -Iarch/x86
	-Igrafts/include -I$BUILD/gen"

case $SECONDS_PER_TARGET in
''|*[!0-9]*) echo "usage: $0 [seconds [target]]" >&2; exit 2 ;;
esac
if [ -n "$ONLY" ] && [ ! -f "tests/fuzz/fuzz_$ONLY.c" ]; then
	echo "fuzz: no target $ONLY (tests/fuzz/fuzz_$ONLY.c)" >&2
	exit 2
fi
if ! command -v "$FUZZ_CC" >/dev/null 2>&1; then
	echo "fuzz: $FUZZ_CC not found (apt-get install -y clang)" >&2
	exit 2
fi

# The kernel sources each target needs, and the longest input worth trying.
sources() {
	case $1 in
	lineedit) echo kernel/shell/lineedit.c ;;
	bootopt) echo kernel/core/bootopt.c kernel/lib/errno.c ;;
	multiboot2) echo arch/x86/boot/multiboot.c ;;
	glob) echo kernel/lib/glob.c ;;
	insn) echo arch/x86/insn_decode.c "$BUILD/gen/x86_opcodes.c" ;;
	sfi_verify) echo arch/x86/sfi_verify.c arch/x86/sfi_text.c arch/x86/insn_decode.c \
		"$BUILD/gen/x86_opcodes.c" "$BUILD/gen/x86_encodings.c" tests/sfi/window_child.c \
		tests/sfi/window_setup.c tests/sfi/window_states.c tests/sfi/window_seal.S ;;
	graft_elf) echo kernel/graft/elf_load.c kernel/graft/elf_reloc.c arch/x86/elf_reloc.c ;;
	chan_frame) echo kernel/channel/frame.c ;;
	cpio) echo kernel/lib/cpio.c ;;
	ext2) echo $(ls kernel/ext2/*.c | grep -v vfs_ext2) tests/host/ext2_walk.c ;;
	profile_config) echo kernel/monitor/config_check.c kernel/channel/frame.c kernel/channel/wire.c ;;
	dif) echo kernel/trace/dif_verify.c kernel/trace/dif_exec.c kernel/trace/dif_subr.c \
		kernel/trace/dif_subr_search.c kernel/trace/dif_subr_convert.c kernel/trace/dif_jit.c \
		arch/x86/dif_jit.c "$BUILD/gen/x86_encodings.c" tests/host/host_jit_mem.c ;;
	d_parse|d_cg) echo host/dtrace/dt_*.c kernel/trace/dif_verify.c kernel/trace/dif_exec.c \
		kernel/trace/dif_subr.c kernel/trace/dif_subr_search.c kernel/trace/dif_subr_convert.c ;;
	d_oracle) echo host/dtrace/dt_*.c tests/dref/dref_*.c kernel/trace/dif_verify.c \
		$(make -s --no-print-directory print-D_ORACLE_KERNEL_SRCS) tests/host/host_jit_mem.c ;;
	sim_replay) echo kernel/insitu/bcache_replay.c kernel/bcache/cache.c kernel/bcache/api.c \
		kernel/bcache/policy_default.c kernel/lib/errno.c host/sim/current.c tests/fuzz/replay_env.c ;;
	sched_replay) echo kernel/insitu/sched_replay.c kernel/insitu/sched_follow.c \
		kernel/insitu/sched_format.c kernel/sched/runq.c \
		kernel/sched/api.c kernel/sched/policy_default.c kernel/insitu/bcache_replay.c \
		kernel/bcache/cache.c kernel/bcache/api.c kernel/bcache/policy_default.c \
		kernel/lib/errno.c host/sim/current.c tests/fuzz/replay_env.c grafts/sched_lifo.c ;;
	*) return 1 ;;
	esac
}

max_len() {
	case $1 in
	lineedit) echo 8192 ;;
	bootopt) echo 2048 ;;
	multiboot2) echo 16384 ;;
	glob) echo 1000 ;;
	insn) echo 20 ;;
	sfi_verify) echo 8160 ;;
	graft_elf) echo 16384 ;;
	chan_frame) echo 4096 ;;
	cpio) echo 16384 ;;
	ext2) echo 65536 ;;
	profile_config) echo 8192 ;;
	dif) echo 1024 ;;
	d_parse|d_cg) echo 4096 ;;
	d_oracle) echo 8192 ;;
	sim_replay) echo 8192 ;;
	sched_replay) echo 4096 ;;
	esac
}

# A few valid inputs to start from, so the fuzzer begins past the header checks.
seed() {
	dir=$OUT/corpus/$1
	mkdir -p "$dir"
	[ -n "$(ls -A "$dir")" ] && return 0
	case $1 in
	lineedit) printf 'ls -l\r\nab\b\033[A\033[B\033[1;5Cx\025y\003z\n' >"$dir/seed" ;;
	bootopt) printf 'smp=4 quiet never=1 x=\001y unknown  \tsmp=z' >"$dir/seed" ;;
	glob) printf 'a*[b-d]?\\*[!x]\000abcq*y' >"$dir/seed" ;;
	insn) printf '\x48\x8b\x05\x10\x00\x00\x00' >"$dir/seed"; printf '\xc4\xe2\x79\x18\x04\x24' >"$dir/seed2" ;;
	graft_elf) cp "$BUILD/host/graft_fixture.graft" "$dir/seed" ;;
	sfi_verify)
		# The code of every sandboxed graft (its masks are completed by the target).
		for g in "$BUILD"/grafts/*.graft "$BUILD"/grafts/bad/*.graft; do
			[ -f "$g" ] || continue
			f=${g##*/}
			objcopy -O binary --only-section=.text "$g" "$dir/seed-${f%.graft}"
		done
		;;
	chan_frame) printf '\254\134\001\002\001\000\000\000\002\000\000\000\0\0\0\0ok\0\0\0\0' >"$dir/seed" ;;
	cpio)
		# A small archive as `cpio -o -H newc` writes it: ".", "etc", "etc/motd", "hello", a link.
		d=$(mktemp -d)
		mkdir "$d/etc" && printf 'welcome\n' >"$d/etc/motd" && printf '\177ELF' >"$d/hello"
		ln -s hello "$d/link"
		(cd "$d" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --reproducible --quiet) \
			>"$dir/seed"
		rm -rf "$d"
		;;
	ext2)
		# A 64 KiB volume of 1 KiB blocks as mke2fs -d makes it: a file, a directory, links.
		d=$(mktemp -d)
		mkdir "$d/tree" "$d/tree/dir" && printf 'hello\n' >"$d/tree/file"
		head -c 3000 /dev/zero | tr '\0' x >"$d/tree/dir/three-blocks"
		ln -s file "$d/tree/link" && ln -s "$(head -c 80 /dev/zero | tr '\0' y)" "$d/tree/long-link"
		truncate -s 64k "$dir/seed"	# mke2fs leaves a new file's unused tail unwritten
		PATH=$PATH:/usr/sbin mke2fs -q -F -t ext2 -b 1024 -N 16 -d "$d/tree" "$dir/seed" 64k
		rm -rf "$d"
		;;
	profile_config)
		# Mode 1 (the target seals it), then the smallest good file: the header (one
		# resource, one bucket of a day), "cpu.busy" every 100 ms, banded, 0 <= 5 <= 10.
		{
			printf '\1SPCF\1\0\140\0\60\0\30\0\1\0\0\0\1\0\0\0\0\134\46\5\350\3\0\0'
			head -c 36 /dev/zero
			printf 'm'; head -c 31 /dev/zero
			printf 'cpu.busy'; head -c 24 /dev/zero
			printf '\144\0\0\0\144\0\0\0\144\0\0\0\0\0\1\0'
			printf '\5'; head -c 15 /dev/zero; printf '\12'; head -c 7 /dev/zero
		} >"$dir/seed"
		;;
	sim_replay)
		# 4 buffers, 17 blocks; requests (56 bytes: size, type 1, cpu, seq, time, tid,
		# pid, block, u32 in_flight, u32 flags) for blocks 1, 2, 1, 3, 2: reads, then
		# a whole-block write (flags 5) and a synchronous partial one (flags 3).
		seq=0
		for bf in 1:0 2:0 1:0 3:5 2:3; do
			b=${bf%:*} f=${bf#*:} seq=$((seq + 1))
			printf '\70\0\1\0\0\0\0\0\%o\0\0\0\0\0\0\0' "$seq"
			printf '\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0'
			printf '\%o\0\0\0\0\0\0\0\0\0\0\0\%o\0\0\0' "$b" "$f"
		done | { printf '\3\1'; cat; } >"$dir/seed"
		;;
	sched_replay)
		# 2 CPUs, round robin, compact form (thread-1, kind-1, tick step, affinity+1):
		# threads 1 and 2 runnable, charged a tick each; 2 blocks, comes back; both end.
		printf '\1\200\0\0\0\0\1\0\0\0\0\3\1\0\1\3\0\0\1\1\0\0\1\0\2\0\0\2\0\0\1\3\1\0\1\2\0\0' \
			>"$dir/seed"
		printf '\0\1' >"$dir/seed-raw"
		# Follow, compact (op, thread-1, cpu, value): 1 running and 2 queued at the
		# start, 3 runnable, CPU 1 picks, 1 charged a tick, yields, 2 blocks, 3 ends.
		printf '\1\300\0\0\0\1\0\1\0\0\1\2\1\0\6\0\1\0\2\0\0\0\5\0\0\0\3\0\1\0\4\0\0\0' \
			>"$dir/seed-follow"
		printf '\1\100\4\0\1' >"$dir/seed-follow-raw"
		;;
	d_oracle)
		# Decisions, not text: a few arbitrary byte strings (all zeros is the smallest program).
		head -c 64 /dev/zero >"$dir/seed-zeros"
		for i in 1 2 3 4; do
			LC_ALL=C awk -v s="$i" 'BEGIN { srand(s); for (n = 0; n < 3000; n++) printf "%c", int(rand() * 256) }' \
				>"$dir/seed-$i"
		done
		;;
	d_parse|d_cg)
		# The good corpus, each behind a mode byte of 0 (a script, no macro arguments).
		for f in tests/d/good/*.d; do
			{ printf '\0'; cat "$f"; } >"$dir/seed-${f##*/}"
		done
		;;
	multiboot2)
		# Mode byte 0, then: header (total 144); cmdline "a=1"; loader "g";
		# module 0x1000-0x2000 "m"; mmap, one 24-byte entry; ACPI old; end tag.
		fmt='\0\220\0\0\0\0\0\0\0'
		fmt=$fmt'\1\0\0\0\14\0\0\0a=1\0\0\0\0\0'
		fmt=$fmt'\2\0\0\0\12\0\0\0g\0\0\0\0\0\0\0'
		fmt=$fmt'\3\0\0\0\22\0\0\0\0\20\0\0\0\40\0\0m\0\0\0\0\0\0\0'
		fmt=$fmt'\6\0\0\0\50\0\0\0\30\0\0\0\0\0\0\0'
		fmt=$fmt'\0\0\20\0\0\0\0\0\0\0\20\0\0\0\0\0\1\0\0\0\0\0\0\0'
		fmt=$fmt'\16\0\0\0\34\0\0\0RSD PTR \0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0'
		fmt=$fmt'\0\0\0\0\10\0\0\0'
		# shellcheck disable=SC2059
		printf "$fmt" >"$dir/seed"
		;;
	esac
}

mkdir -p "$OUT"
# Objects are compiled once per run and shared by the targets that use a
# source (the D targets share the whole compiler); a new run starts afresh,
# so no object outlives a header it was compiled against.
OBJ=$OUT/obj
rm -rf "$OBJ"
mkdir -p "$OBJ"

# The object of source $1 (compiled now if no target of this run needed it yet).
object() {
	o=$OBJ/$(printf '%s' "$1" | tr '/' '_').o
	# shellcheck disable=SC2086
	[ -f "$o" ] || $FUZZ_CC $CFLAGS -c -o "$o" "$1" || return 1
	echo "$o"
}

passed=0
failed=0
for src in tests/fuzz/fuzz_*.c; do
	name=${src#tests/fuzz/fuzz_}
	name=${name%.c}
	[ -n "$ONLY" ] && [ "$name" != "$ONLY" ] && continue
	bin=$OUT/fuzz_$name
	log=$OUT/$name.log
	if ! srcs=$(sources "$name"); then
		echo "fuzz $name: FAILED: run.sh does not know its kernel sources"
		failed=$((failed + 1))
		continue
	fi
	# shellcheck disable=SC2086
	libs=
	case $srcs in *host/dtrace/*) libs=-lctf-nobfd ;; esac	# the D compiler reads CTF
	: >"$log"
	objs=
	for s in "$src" tests/host/kernel_fakes.c $srcs; do
		o=$(object "$s" 2>>"$log") || { objs=; break; }
		objs="$objs $o"
	done
	# shellcheck disable=SC2086
	if [ -z "$objs" ] || ! $FUZZ_CC $CFLAGS -o "$bin" $objs $libs >>"$log" 2>&1; then
		echo "fuzz $name: FAILED: does not build (see $log)"
		failed=$((failed + 1))
		continue
	fi
	# Inputs that once crashed the target (tests/fuzz/regressions/NAME/) run first, each once.
	if [ -d "tests/fuzz/regressions/$name" ] &&
	   ! "$bin" tests/fuzz/regressions/"$name"/* >"$log" 2>&1; then
		echo "fuzz $name: FAILED: an input that once crashed it does again (see $log)"
		failed=$((failed + 1))
		continue
	fi
	seed "$name"
	# tests/fuzz/NAME.dict, if present: tokens and boundary values for that input format.
	# d_cg reads D source too: it shares d_parse's dictionary.
	dict=
	dictname=$name
	[ "$name" = d_cg ] && dictname=d_parse
	[ -f "tests/fuzz/$dictname.dict" ] && dict=-dict=tests/fuzz/$dictname.dict
	# shellcheck disable=SC2086
	"$bin" -max_total_time="$SECONDS_PER_TARGET" -max_len="$(max_len "$name")" -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$OUT/$name-" $dict \
		"$OUT/corpus/$name" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
	if [ $rc -eq 0 ]; then
		echo "fuzz $name: OK ($SECONDS_PER_TARGET s, ${runs:-?} runs, ${cov:-cov: ?})"
		passed=$((passed + 1))
	else
		why=$(grep -a -m 1 -E 'ERROR: |invariant broken|kernel panic|runtime error' "$log")
		echo "fuzz $name: FAILED: ${why:-exit status $rc} (see $log)"
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
