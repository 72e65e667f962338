#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Install what building, running and testing Scion needs on Debian 12,
# and say what is installed. Without root, print the command to run.
# `deps.sh bench`: what `make bench` needs besides (the system call
# benchmark's static programs and the initramfs of its Linux run; Debian's
# kernel itself is fetched by tools/bench_linux.py, never installed).
set -euo pipefail

# package:command-or-path (a glob) that proves it is there
needs=(
	"qemu-system-x86:qemu-system-x86_64"
	"grub-pc-bin:/usr/lib/grub/i386-pc/multiboot2.mod"
	"grub-common:grub-mkrescue"
	"xorriso:xorriso"
	"mtools:mformat"
	"gcc:gcc"
	"make:make"
	"binutils:objcopy"
	"python3:python3"
	"git:git"
	"gdb:gdb"
	# The user programs (userland/): musl-gcc -static, and the archive they travel in.
	"musl-tools:musl-gcc"
	"cpio:cpio"
	# The root file system's image: mke2fs -d makes it, e2fsck and debugfs check it.
	"e2fsprogs:/usr/sbin/mke2fs"
	"clang:clang"
	"libzydis-dev:/usr/include/Zydis/Zydis.h"
	"libclang-rt-14-dev:/usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a"
	"babeltrace2:babeltrace2"
	"python3-pyelftools:/usr/lib/python3/dist-packages/elftools/__init__.py"
	# `scion coverage` writes lcov tracefiles; its test renders one with genhtml.
	"lcov:genhtml"
	# libctf: the D compiler reads the kernel's types (kernel.ctf) with it.
	"binutils-dev:/usr/include/ctf-api.h"
	# The profile database and the nightly analysis (host/scionhost/profile/),
	# seen by Debian's /usr/bin/python3; PostgreSQL for its tests.
	"python3-numpy:/usr/lib/python3/dist-packages/numpy/__init__.py"
	"python3-scipy:/usr/lib/python3/dist-packages/scipy/__init__.py"
	"python3-matplotlib:/usr/lib/python3/dist-packages/matplotlib/__init__.py"
	"python3-psycopg2:/usr/lib/python3/dist-packages/psycopg2/__init__.py"
	"postgresql:/usr/lib/postgresql/*/bin/initdb"
	# Experiment sweeps (host/scionhost/sweep/): their test starts a single-node
	# Slurm (slurmctld, slurmd, the client tools) authenticated by munge.
	"slurm-wlm:/usr/sbin/slurmctld"
	"munge:/usr/sbin/munged"
	# The sparc64 port (arch/sparc64/): its cross toolchain, QEMU's sun4u and
	# OpenBIOS; the SPARC decoder's oracle is the cross objdump.
	"gcc-sparc64-linux-gnu:sparc64-linux-gnu-gcc"
	# The patch test's static sparc64 program (tests/sparc64_patch/) needs its libc.
	"libc6-dev-sparc64-cross:/usr/sparc64-linux-gnu/include/stdint.h"
	"binutils-sparc64-linux-gnu:sparc64-linux-gnu-objdump"
	"qemu-system-sparc:qemu-system-sparc64"
	# User-mode sparc64: runs the patch test (tests/sparc64_patch/).
	"qemu-user:qemu-sparc64"
)
if [[ ${1:-} == bench ]]; then
	needs=(
		"musl-tools:musl-gcc"
		"cpio:cpio"
		# tools/adapt_plot.py draws build/bench/adapt/adapt.png.
		"python3-matplotlib:/usr/lib/python3/dist-packages/matplotlib"
	)
fi

missing=()
for entry in "${needs[@]}"; do
	pkg=${entry%%:*}
	probe=${entry#*:}
	if [[ $probe == /* ]]; then
		compgen -G "$probe" >/dev/null || missing+=("$pkg")
	else
		command -v "$probe" >/dev/null 2>&1 || missing+=("$pkg")
	fi
done

[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "scion: installing missing packages: ${missing[*]}" >&2
if [[ $(id -u) -ne 0 ]]; then
	echo "scion: not root; run this once, then try again:" >&2
	echo "  sudo apt-get install -y ${missing[*]}" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y --no-install-recommends "${missing[@]}" >/tmp/scion-apt.log 2>&1; then
	apt-get update >>/tmp/scion-apt.log 2>&1 || true
	if ! apt-get install -y --no-install-recommends "${missing[@]}" >>/tmp/scion-apt.log 2>&1; then
		echo "scion: apt-get failed; its log is /tmp/scion-apt.log" >&2
		tail -n 20 /tmp/scion-apt.log >&2
		exit 1
	fi
fi
echo "scion: installed ${missing[*]}" >&2
