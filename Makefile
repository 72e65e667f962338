# SPDX-License-Identifier: BSD-2-Clause
#
# Scion: one entry point for building, running, testing and measuring.
#
#   make run [SMP=n] [MEM=size] [TCG=single|multi] [CMDLINE=".."] [GRAFTS=".."]  boot the GRUB ISO
#            [PROGRAMS=all|none|NAMES|FILE.cpio]           (build/userland/rootfs.img, ext2, attached
#            [RUN_DISK=file]                                as vda: the root file system; the program
#                                                           archive as a .cpio module at /archive)
#   make test                                               every test; ends "N passed, M failed"
#   make bench                                              figures under -icount into build/bench/
#   make bench-profile                                      the profile database and nightly analysis
#                                                           figures alone (host only, no QEMU)
#   make bench-linux                                        the system call and file system figures'
#                                                           Linux columns alone (Debian's kernel in
#                                                           the same QEMU, ext2 on virtio-blk)
#   make bench-scion                                        their Scion columns alone (scion exec)
#   make bench-adapt                                        the adaptation loop over a phased block-cache
#                                                           workload: build/bench/adapt/report.md, adapt.png
#   make bench-sweep                                        experiment sweeps' runs per hour, here and
#                                                           through a single-node Slurm started for it
#   make nightly                                            the self-monitoring loop end to end:
#                                                           profile Scion, analyse, load, red flags
#   make squid [SQUID_SCALE=full|small]                     KernInst's Squid study redone on Scion:
#                                                           drill-down, two fixes, build/squid/report.html
#   make gdb [SMP=n]                                        QEMU halted + gdb with symbols
#   make fuzz [FUZZ_SECONDS=n]                              libFuzzer targets, n seconds each
#   make sim                                                the host simulator (scion sim replay)
#   make userland                                           userland/*.c with musl-gcc -static, and
#                                                           build/userland/programs.cpio
#   make kernel | iso | test-kernel | host-tests | deps | clean
#   make ARCH=sparc64 [kernel | grafts | run [CMDLINE=..]]  the sparc64 port (sun4u under OpenBIOS),
#                                                           built in build/sparc64 (arch/sparc64/arch.mk;
#                                                           grafts: the trusted ones alone)
#
# Sources are found by wildcard: adding a file to kernel/ or arch/<arch>/ (its
# boot/ included) adds it to the kernel, one to tests/kernel/ to the test
# kernel (make test-kernel: build/test/); tests, commands and boot options
# register themselves through linker tables. Everything about
# the machine (flags, generated tables, host-buildable sources, image
# conversions, the port's host tools) is in arch/$(ARCH)/arch.mk.

ARCH ?= x86
# The machine's name works too: ARCH=x86_64 is the x86 port.
ifeq ($(ARCH),x86_64)
override ARCH := x86
endif
# A port other than x86 builds in its own folder, so the x86 build in
# build/ is never touched by it: ARCH=sparc64 builds in build/sparc64.
ifeq ($(ARCH),x86)
BUILD ?= build
else
BUILD ?= build/$(ARCH)
endif
SMP ?= 1
MEM ?= 256M
TCG ?= single
CMDLINE ?=
# Debian's interpreter when there is one: only it sees the python3-* packages
# (pyelftools for tools/, numpy, scipy, matplotlib, psycopg2 for the profile
# analysis and its tests), where python3 on PATH may be another (pyenv, a venv).
PYTHON ?= $(if $(wildcard /usr/bin/python3),/usr/bin/python3,python3)
V ?= 0
ifeq ($(V),0)
Q := @
say = @printf '  %-8s %s\n' $(1) $(2)
else
Q :=
say = @true
endif

ARCH_DIR := arch/$(ARCH)
ifeq ($(wildcard $(ARCH_DIR)/arch.mk),)
$(error ARCH=$(ARCH) is not supported yet (no $(ARCH_DIR)/arch.mk); use ARCH=x86)
endif

# Two kernels link the same objects ($(BUILD)/obj). The kernel a user boots
# ($(BUILD)/kernel.elf) has no in-kernel tests or benchmarks and no test.*
# graft points; KERNEL_TESTS=yes links the test kernel, which has them (all
# of tests/kernel/ and the D programs its tests run), into $(BUILD)/test/.
# `make test` and `make bench` build both and boot the test kernel.
KERNEL_TESTS ?= no
TEST_KDIR := $(BUILD)/test
ifeq ($(KERNEL_TESTS),yes)
KDIR := $(TEST_KDIR)
else ifeq ($(KERNEL_TESTS),no)
KDIR := $(BUILD)
else
$(error KERNEL_TESTS=$(KERNEL_TESTS): say yes (the test kernel) or no (the kernel a user boots))
endif
KERNEL := $(KDIR)/kernel.elf
KSYMS := $(KDIR)/kernel.syms
KCTF := $(KDIR)/kernel.ctf
ISO := $(KDIR)/scion.iso
# What compiles kernel and graft objects is a prerequisite of each: these
# files hold the flags and are rewritten only when the flags change (an
# arch.mk edit, say), which then rebuilds everything they compiled.
KERNEL_FLAGS_STAMP := $(BUILD)/flags/kernel.txt
GRAFT_FLAGS_STAMP := $(BUILD)/flags/grafts.txt
include $(ARCH_DIR)/arch.mk

CC := $(CROSS)gcc
LD := $(CROSS)ld
READELF := $(CROSS)readelf
OBJCOPY := $(CROSS)objcopy
NM := $(CROSS)nm

include grafts/grafts.mk
include userland/userland.mk

KERNEL_INCLUDES := -Ikernel/include -I$(ARCH_DIR)/include -Igrafts/include -I$(BUILD)/gen
# -fno-ipa-ra: every call may clobber what the ABI lets it, as the structural
# analysis assumes (arch/*/include/arch/abi.h). With IPA-RA, GCC keeps values in
# caller-saved registers across calls of functions it knows leave them alone, and
# a probe's handler at such a callee's entry would not leave them alone.
KERNEL_CFLAGS := -std=gnu11 -O2 -g -gctf -Wall -Wextra -Werror -ffreestanding -fno-builtin \
	-fno-pic -fno-pie $(ARCH_KERNEL_CFLAGS) -fno-stack-protector -fno-ipa-ra \
	-fno-omit-frame-pointer -fno-optimize-sibling-calls \
	-fno-asynchronous-unwind-tables -fno-tree-loop-distribute-patterns \
	-fno-reorder-blocks-and-partition \
	-fno-strict-aliasing $(KERNEL_INCLUDES)
KERNEL_ASFLAGS := -fno-pic -fno-pie -g $(KERNEL_INCLUDES) -Wa,--noexecstack
KERNEL_LDFLAGS := -nostdlib --no-warn-rwx-segments -z noexecstack $(ARCH_KERNEL_LDFLAGS)

$(KERNEL_FLAGS_STAMP): FORCE
	@mkdir -p $(dir $@)
	@printf '%s\n' '$(KERNEL_CFLAGS)' '$(KERNEL_ASFLAGS)' > $@.tmp
	@cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@

# ARCH_CORE_SRCS: the sources of the portable core (kernel/) the port builds;
# every one of them on x86, a bring-up subset on a new port (its arch.mk says which).
KERNEL_SRCS := $(sort $(ARCH_CORE_SRCS) $(ARCH_KERNEL_SRCS))
# D programs the in-kernel tests run in sessions the kernel starts itself.
KTEST_D_GEN := $(patsubst tests/kernel/%.d,$(BUILD)/gen/ktest_d/%.c,$(wildcard tests/kernel/*.d))
# ARCH_KTEST_LEFT_OUT: test sources a port cannot build yet (its arch.mk says why).
# ARCH_KTEST_SRCS: the port's own fixtures for them (test kernel only).
KTEST_SRCS := $(sort $(filter-out $(ARCH_KTEST_LEFT_OUT),$(wildcard tests/kernel/*.c tests/kernel/*.S)) \
	$(ARCH_KTEST_SRCS))
KERNEL_OBJS := $(patsubst %,$(BUILD)/obj/%.o,$(KERNEL_SRCS)) $(BUILD)/obj/version.o $(ARCH_GEN_OBJS)
ifeq ($(KERNEL_TESTS),yes)
KERNEL_OBJS += $(patsubst %,$(BUILD)/obj/%.o,$(KTEST_SRCS)) \
	$(patsubst $(BUILD)/gen/%.c,$(BUILD)/obj/gen/%.o,$(KTEST_D_GEN))
endif
LAYOUTS_PY := $(BUILD)/gen/scion_layouts.py
# The kernel's wire descriptors (scion/chan_wire.h), generated from the same headers.
WIRE_HEADERS := $(addprefix kernel/include/scion/,chan_proto.h chan_reply.h monitor_rec.h recfmt.h dof.h \
	profile_config.h)
CHAN_WIRE_H := $(BUILD)/gen/chan_wire_layouts.h
# The test disk (virtio-blk, vda): every sector holds a pattern the kernel checks.
DISK := $(BUILD)/disk.img
DISK_SIZE ?= 32M

.PHONY: all kernel iso run run-options test bench bench-baseline bench-channel bench-profile bench-sweep bench-linux bench-scion bench-adapt nightly squid gdb deps \
	deps-bench host-tests fuzz check-decoder sim clean
.DEFAULT_GOAL := all

kernel: $(KERNEL) $(ARCH_IMAGES) $(KSYMS) $(KCTF) $(LAYOUTS_PY)
iso: $(ISO)

# The probe machinery, the patch builder and text patching must never be
# probed: their code goes to .text.noprobe (whose bounds the probe code
# checks); tools/check_noprobe.py proves that what probe context runs is there.
NOPROBE_SRCS := $(filter kernel/probe/% kernel/poke/% $(ARCH_NOPROBE_SRCS),$(KERNEL_SRCS))

$(BUILD)/obj/%.c.o: %.c $(KERNEL_FLAGS_STAMP) | $(ARCH_GEN_HEADERS) $(CHAN_WIRE_H)
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(KERNEL_CFLAGS) -MMD -MP -c $< -o $@
	$(if $(filter $<,$(NOPROBE_SRCS)),$(Q)$(OBJCOPY) --rename-section .text=.text.noprobe $@)

# Other generated C (the in-kernel tests' D programs); the arch's tables have their own rule.
$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c $(KERNEL_FLAGS_STAMP) | $(ARCH_GEN_HEADERS) $(CHAN_WIRE_H)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(KERNEL_CFLAGS) -c $< -o $@

# The offsets of C structures' fields that the port's assembly reaches
# ($(ARCH_ASM_OFFSETS), when its arch.mk names one): that file is compiled to
# assembly only, and each "->NAME VALUE" line in it becomes "#define NAME VALUE"
# in $(BUILD)/gen/asm_offsets.h, so the structures are those numbers' one source.
ASM_OFFSETS_H := $(if $(ARCH_ASM_OFFSETS),$(BUILD)/gen/asm_offsets.h)
ifneq ($(ASM_OFFSETS_H),)
$(ASM_OFFSETS_H): $(ARCH_ASM_OFFSETS) $(KERNEL_FLAGS_STAMP) | $(ARCH_GEN_HEADERS) $(CHAN_WIRE_H)
	@mkdir -p $(dir $@) $(BUILD)/obj/gen
	$(call say,GEN,$@)
	$(Q)$(CC) $(KERNEL_CFLAGS) -MMD -MP -MT $@ -MF $(BUILD)/obj/gen/asm_offsets.d -S $< -o $@.s
	$(Q){ printf '/* Generated from %s by the Makefile: offsets for assembly. */\n' '$<'; \
		sed -n 's/^[[:space:]]*\.ascii "->\([A-Z0-9_]*\) \([0-9]*\)"$$/#define \1 \2/p' \
		$@.s; } > $@.tmp
	$(Q)rm -f $@.s && mv $@.tmp $@
endif

$(BUILD)/obj/%.S.o: %.S $(KERNEL_FLAGS_STAMP) | $(ASM_OFFSETS_H)
	@mkdir -p $(dir $@)
	$(call say,AS,$<)
	$(Q)$(CC) $(KERNEL_ASFLAGS) -MMD -MP -c $< -o $@

# The version string changes with the commit and with uncommitted changes.
# build/version.txt holds it for the host command `scion` (the handshake).
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
$(BUILD)/version.c: FORCE
	@mkdir -p $(dir $@)
	@printf '/* Generated by the Makefile. */\nconst char scion_version[] = "%s";\nconst char scion_build_info[] = "%s, %s";\n' \
		'$(VERSION)' '$(shell $(CC) -dumpfullversion)' '$(ARCH_NAME)' > $@.$$$$.tmp; \
		cmp -s $@.$$$$.tmp $@ && rm $@.$$$$.tmp || mv $@.$$$$.tmp $@
	@printf '%s\n' '$(VERSION)' > $(BUILD)/version.txt
$(BUILD)/obj/version.o: $(BUILD)/version.c $(KERNEL_FLAGS_STAMP)
	$(Q)$(CC) $(KERNEL_CFLAGS) -c $< -o $@

# The host's description of every wire and record layout, generated from the
# headers that define them (host/scionhost/layouts.py reads it;
# tests/integration/test_layouts.py checks it against the compiler).
# The graft API's headers give only constants: the codes recfmt.h's records carry
# (monitor.h: the source kinds and scopes the monitor stream's records carry).
LAYOUT_HEADERS := $(addprefix kernel/include/scion/,errno.h chan_proto.h chan_reply.h recfmt.h dof.h \
	dif_exec.h profile_config.h monitor_rec.h blk_pattern.h)
LAYOUT_CONSTANT_HEADERS := kernel/include/scion/graft.h kernel/include/scion/monitor.h \
	kernel/include/scion/coverage.h kernel/include/scion/codeadapt.h \
	kernel/include/scion/outline.h \
	grafts/include/graft/bcache.h grafts/include/graft/sched.h
$(LAYOUTS_PY): $(LAYOUT_HEADERS) $(LAYOUT_CONSTANT_HEADERS) tools/gen_layouts.py
	@mkdir -p $(dir $@)
	$(call say,GEN,$@)
	$(Q)$(PYTHON) tools/gen_layouts.py $(LAYOUT_HEADERS) --constants-only \
		$(LAYOUT_CONSTANT_HEADERS) -o $@

# The kernel's byte-order descriptors of the channel's structures (scion/chan_wire.h).
$(CHAN_WIRE_H): $(WIRE_HEADERS) tools/gen_layouts.py Makefile
	@mkdir -p $(dir $@)
	$(call say,GEN,$@)
	$(Q)$(PYTHON) tools/gen_layouts.py --c-wire $(WIRE_HEADERS) -o $@

# Two link passes: the symbol table of the first image goes into the second.
$(BUILD)/symtab-empty.c: tools/gen_symtab.py
	@mkdir -p $(dir $@)
	$(Q)$(PYTHON) tools/gen_symtab.py --empty -o $@
$(KDIR)/symtab.c: $(KDIR)/kernel.stage1.elf tools/gen_symtab.py tools/elf64.py
	$(call say,SYMTAB,$@)
	$(Q)$(PYTHON) tools/gen_symtab.py $< -o $@
$(KDIR)/symtab.o: $(KDIR)/symtab.c $(KERNEL_FLAGS_STAMP)
	$(Q)$(CC) $(KERNEL_CFLAGS) -c $< -o $@
$(BUILD)/obj/symtab-empty.o: $(BUILD)/symtab-empty.c $(KERNEL_FLAGS_STAMP)
	$(Q)$(CC) $(KERNEL_CFLAGS) -c $< -o $@

$(KDIR)/kernel.stage1.elf: $(KERNEL_OBJS) $(BUILD)/obj/symtab-empty.o $(KDIR)/ctf_id.o \
		$(ARCH_DIR)/kernel.ld
	@mkdir -p $(dir $@)
	$(call say,LD,$@)
	$(Q)$(LD) $(KERNEL_LDFLAGS) -o $@ $(KERNEL_OBJS) $(BUILD)/obj/symtab-empty.o $(KDIR)/ctf_id.o \
		$(ARCH_KERNEL_LIBS)

$(KERNEL): $(KERNEL_OBJS) $(KDIR)/symtab.o $(KDIR)/ctf_id.o $(ARCH_DIR)/kernel.ld
	$(call say,LD,$@)
	$(Q)$(LD) $(KERNEL_LDFLAGS) -o $@.tmp $(KERNEL_OBJS) $(KDIR)/symtab.o $(KDIR)/ctf_id.o \
		$(ARCH_KERNEL_LIBS)
	$(Q)$(PYTHON) tools/gen_symtab.py $@.tmp -o $(KDIR)/symtab-check.c --check $(KDIR)/symtab.c
	$(Q)$(PYTHON) tools/text_hash.py $@.tmp
	$(Q)mv $@.tmp $@

# The kernel's C types for D (curthread, args[], `name, struct casts): gcc's
# CTF (-gctf) of every object, merged by a relocatable link, which keeps the
# function and variable indexes a final link drops (binutils 2.40), and
# taken out raw; `scion trace` hands it to dtc (-T) from beside kernel.syms.
# Its id (tools/gen_ctf_id.py) is linked into the kernel, which refuses a
# trace program compiled against other types.
$(KCTF): $(KERNEL_OBJS)
	@mkdir -p $(dir $@)
	$(call say,CTF,$@)
	$(Q)$(LD) -r -o $@.o $(KERNEL_OBJS) && $(OBJCOPY) --dump-section .ctf=$@.tmp $@.o && \
		rm $@.o && mv $@.tmp $@
$(KDIR)/ctf_id.c: $(KCTF) tools/gen_ctf_id.py
	@mkdir -p $(dir $@)
	$(Q)$(PYTHON) tools/gen_ctf_id.py $< -o $@
$(KDIR)/ctf_id.o: $(KDIR)/ctf_id.c $(KERNEL_FLAGS_STAMP)
	$(Q)$(CC) $(KERNEL_CFLAGS) -c $< -o $@

# Every symbol of the image, data included, with sizes where they have one: for D's
# `name (scion trace gives it to dtc -K) and the host's naming of kernel code addresses.
$(KSYMS): $(KERNEL)
	$(call say,NM,$@)
	$(Q)$(NM) --defined-only -n -S $< > $@.tmp && mv $@.tmp $@

# The ISO's GRUB menu carries CMDLINE; rebuild it only when CMDLINE changes.
$(KDIR)/iso-cmdline: FORCE
	@mkdir -p $(dir $@)
	@echo '$(CMDLINE)' > $@.$$$$.tmp; cmp -s $@.$$$$.tmp $@ && rm $@.$$$$.tmp || mv $@.$$$$.tmp $@

# GRAFTS: the grafts the ISO hands the kernel as multiboot2 modules
# (loaded at boot, listed by `graft avail`, installed with `graft
# install`): names of grafts/NAME.c or grafts/bad/NAME.c, paths of .graft
# files, or all (every graft in grafts/, the default).
GRAFTS ?= all
graft_file = $(if $(filter %.graft,$(1)),$(1),$(if $(wildcard grafts/$(1).c),$(BUILD)/grafts/$(1).graft,$(if \
	$(wildcard grafts/bad/$(1).c),$(BUILD)/grafts/bad/$(1).graft,$(error GRAFTS: no graft '$(1)' \
	(give names of grafts/NAME.c or grafts/bad/NAME.c, .graft paths, or all)))))
GRAFT_WORDS := $(patsubst all,$(patsubst grafts/%.c,%,$(GRAFT_SRCS)),$(GRAFTS))
ISO_GRAFTS := $(foreach w,$(GRAFT_WORDS),$(call graft_file,$(w)))

$(KDIR)/iso-grafts: FORCE
	@mkdir -p $(dir $@)
	@echo '$(ISO_GRAFTS)' > $@.$$$$.tmp; cmp -s $@.$$$$.tmp $@ && rm $@.$$$$.tmp || mv $@.$$$$.tmp $@

# PROGRAMS (userland/userland.mk): the program archive the ISO hands the
# kernel as a module whose name ends in .cpio; all (the default) is
# $(BUILD)/userland/programs.cpio, none is no archive.
$(KDIR)/iso-programs: FORCE
	@mkdir -p $(dir $@)
	@echo '$(ISO_PROGRAMS)' > $@.$$$$.tmp; cmp -s $@.$$$$.tmp $@ && rm $@.$$$$.tmp || mv $@.$$$$.tmp $@

# ANON (a D script, `make run ANON=SCRIPT.d`): anonymous tracing from boot.
# dtc compiles it against this kernel's symbols and types into boot.anon,
# which the ISO hands the kernel as a module (kernel/trace/anon.c);
# `scion trace -a` claims it.
ANON ?=
ISO_ANON := $(if $(ANON),$(KDIR)/boot.anon)
$(KDIR)/boot.anon: $(ANON) $(DTC) $(KSYMS) $(KCTF) FORCE
	$(call say,DTC,$(ANON))
	$(Q)$(DTC) -K $(KSYMS) -T $(KCTF) -o $@ -s $(ANON)
$(KDIR)/iso-anon: FORCE
	@mkdir -p $(dir $@)
	@echo '$(ANON)' > $@.$$$$.tmp; cmp -s $@.$$$$.tmp $@ && rm $@.$$$$.tmp || mv $@.$$$$.tmp $@

# The ISO's recipe is the arch's (arch.mk); what it carries is chosen here.
$(ISO): $(KDIR)/iso-cmdline $(KDIR)/iso-grafts $(ISO_GRAFTS) $(KDIR)/iso-programs $(ISO_PROGRAMS) \
	$(KDIR)/iso-anon $(ISO_ANON)

deps:
	@qemu/deps.sh

# What `make bench` needs beyond `make test`: musl-tools and cpio.
deps-bench:
	@qemu/deps.sh bench

# The system call and file system benchmarks' programs (issues 23, 24) are
# userland/bench_*.c, built like every program of userland/ (userland/userland.mk).
BENCH_USERLAND := $(patsubst userland/%.c,$(BUILD)/userland/%,$(wildcard userland/bench_*.c))

$(DISK): tools/mkdisk.py $(LAYOUTS_PY)
	$(call say,MKDISK,$@)
	$(Q)SCION_LAYOUTS=$(LAYOUTS_PY) $(PYTHON) tools/mkdisk.py $@ --size $(DISK_SIZE)

# Refuse bad SMP/MEM values before building anything. Both boots go
# through the host command `scion run` (host/scionhost/run.py).
CONTROL_SOCKET ?= $(BUILD)/control.sock
SCION_RUN = $(PYTHON) host/scion --socket $(CONTROL_SOCKET) run --no-build \
	--smp '$(SMP)' --mem '$(MEM)' --tcg '$(TCG)'
run-options: $(LAYOUTS_PY)
	@$(SCION_RUN) --caller 'make run' --check

# make run's disk is a copy of the root image, so that what a session
# writes never reaches the image the tests and benchmarks boot, and lasts
# from one session to the next. A rebuilt root image (new programs)
# replaces the copy; the last one is kept beside it as .prev.
# RUN_DISK=$(DISK): the block cache's pattern disk instead (its `bcache workload`).
RUN_DISK_COPY := $(BUILD)/run-disk.img
RUN_DISK ?= $(RUN_DISK_COPY)
$(RUN_DISK_COPY): $(ROOTFS)
	@if [ -f $@ ]; then mv $@ $@.prev; echo "make run: $(ROOTFS) was rebuilt, so $@ is a" \
		"fresh copy of it; the last session's disk is $@.prev"; fi
	$(Q)cp $(ROOTFS) $@
# A port whose machine boots another way says how in ARCH_RUN (its arch.mk)
# and what that needs built in ARCH_RUN_DEPS.
ifdef ARCH_RUN
run: deps $(ARCH_RUN_DEPS)
	@$(ARCH_RUN)
else
run: run-options deps iso $(RUN_DISK)
	@$(SCION_RUN) --caller 'make run' --iso $(ISO) --disk $(RUN_DISK)
endif

gdb: run-options deps iso $(DISK)
	@$(SCION_RUN) --caller 'make gdb' --iso $(ISO) --disk $(DISK) --disk-snapshot --gdb \
		--kernel-symbols $(KERNEL)

# Host unit tests: tests/host/*.c with the pure kernel sources they test.
HOST_CC ?= gcc
HOST_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined \
	-fno-omit-frame-pointer -Itests/host/include -Ikernel/include -Ikernel -Itests/host \
	-I$(ARCH_DIR)/include -I$(ARCH_DIR) -Igrafts/include -I$(BUILD)/gen
# Every port's graft relocations against GNU ld (make check-relocs).
include tests/reloc/reloc.mk
HOST_KERNEL_SRCS := kernel/lib/glob.c kernel/lib/errno.c kernel/lib/cpio.c kernel/fs/archive.c \
	$(filter-out kernel/ext2/vfs_ext2%,$(wildcard kernel/ext2/*.c)) kernel/sym/symtab.c kernel/core/bootopt.c \
	kernel/shell/lineedit.c kernel/mm/pmm.c kernel/mm/kmalloc.c kernel/mm/ranges.c \
	$(ARCH_HOST_SRCS) kernel/graft/elf_load.c kernel/graft/elf_reloc.c
HOST_KERNEL_SRCS += kernel/dev/virtqueue.c kernel/channel/frame.c kernel/trace/dif_verify.c \
	kernel/trace/dif_exec.c kernel/trace/dif_subr.c kernel/trace/dif_subr_search.c \
	kernel/trace/dif_subr_convert.c kernel/trace/dif_jit.c
HOST_KERNEL_PRIVATE_HEADERS := kernel/fs/archive_internal.h kernel/ext2/ext2_internal.h kernel/ext2/ext2_layout.h kernel/dev/virtio.h kernel/channel/frame.h kernel/trace/dif_internal.h
HOST_TEST_SRCS := $(sort $(wildcard tests/host/*.c) $(wildcard tests/host/*.S))
HOST_TESTS := $(BUILD)/host/unit-tests

# The graft loader's tests use a real graft, built like every graft and
# embedded in the test binary, and the corrupted copies of it that
# tools/mkcorrupt_grafts.py writes (read at run time from GRAFT_CORRUPT_DIR).
GRAFT_FIXTURE := $(BUILD)/host/graft_fixture.graft
GRAFT_CORRUPT_DIR := $(BUILD)/host/corrupt-grafts
HOST_TEST_GEN := $(BUILD)/gen/graft_fixture.c
$(GRAFT_FIXTURE): tests/host/fixtures/graft_fixture.c $(GRAFT_FLAGS_STAMP) $(GRAFT_HEADERS)
	$(graft_compile)
$(BUILD)/gen/graft_fixture.c: $(GRAFT_FIXTURE) tools/embed_file.py
	$(Q)$(PYTHON) tools/embed_file.py $< graft_fixture -o $@
$(GRAFT_CORRUPT_DIR)/expected.txt: $(GRAFT_FIXTURE) tools/mkcorrupt_grafts.py
	$(call say,CORRUPT,$(GRAFT_CORRUPT_DIR))
	$(Q)$(PYTHON) tools/mkcorrupt_grafts.py $< $(GRAFT_CORRUPT_DIR)

host-tests: $(HOST_TESTS)
$(HOST_TESTS): $(HOST_KERNEL_PRIVATE_HEADERS)
$(HOST_TESTS): $(HOST_TEST_SRCS) $(HOST_KERNEL_SRCS) $(ARCH_GEN_HEADERS) $(HOST_TEST_GEN) \
		$(GRAFT_CORRUPT_DIR)/expected.txt $(wildcard tests/host/include/arch/*.h tests/host/*.h \
		kernel/include/scion/*.h kernel/graft/*.h grafts/include/graft/*.h)
	@mkdir -p $(dir $@)
	$(call say,HOSTCC,$@)
	$(Q)$(HOST_CC) $(HOST_CFLAGS) -DGRAFT_CORRUPT_DIR='"$(abspath $(GRAFT_CORRUPT_DIR))"' -o $@ \
		$(HOST_USERLAND_CFLAGS) $(HOST_TEST_SRCS) $(HOST_KERNEL_SRCS) $(HOST_USERLAND_SRCS) \
		$(HOST_TEST_GEN) $(DTRACE_LDLIBS)

# libFuzzer targets: tests/fuzz/fuzz_*.c, FUZZ_SECONDS each (needs clang).
FUZZ_SECONDS ?= 20
FUZZ_CC ?= clang

fuzz: $(ARCH_GEN_SRCS) $(GRAFT_FIXTURE) grafts
	@BUILD='$(BUILD)' FUZZ_CC='$(FUZZ_CC)' tests/fuzz/run.sh $(FUZZ_SECONDS)

# ---- The D compiler's front end (host/dtrace/) -------------------------
# A portable host library: its sources join the host unit tests (with the
# sanitizers) and the fuzz target tests/fuzz/fuzz_d_parse.c; the corpus of
# good and bad D programs in tests/d/ is read at run time from D_CORPUS_DIR.
# build/host/dcheck compiles a D program and prints the checked AST or the
# errors: dcheck [-C] [-x opt=val] (-s FILE | -n PROGRAM) [args...].
# build/host/dtc generates its code (DIF programs checked by the kernel's
# verifier, the trace object of kernel/include/scion/dof.h) and prints the
# JSON the host consumer reads: dtc [-C] [-x opt=val] [-o FILE] (-s FILE |
# -n PROGRAM) [args...].
DTRACE_TOOLS := host/dtrace/dcheck.c host/dtrace/dtc.c host/dtrace/dt_driver.c
DTRACE_LIB_SRCS := $(filter-out $(DTRACE_TOOLS),$(wildcard host/dtrace/*.c)) \
	kernel/trace/dif_verify.c
DTRACE_LIB_HEADERS := $(wildcard host/dtrace/*.h) kernel/include/scion/dif.h \
	kernel/include/scion/dof.h
HOST_USERLAND_SRCS := $(filter-out kernel/%,$(DTRACE_LIB_SRCS))
# libctf (binutils-dev) reads the kernel's types and keeps the program's.
DTRACE_LDLIBS := -lctf-nobfd
HOST_USERLAND_CFLAGS = -Ihost/dtrace -DD_CORPUS_DIR='"$(abspath tests/d)"'
$(HOST_TESTS): $(HOST_USERLAND_SRCS) $(DTRACE_LIB_HEADERS)
DCHECK := $(BUILD)/host/dcheck
DTC := $(BUILD)/host/dtc
# dt_driver.c: the command line and source reading both tools share.
$(BUILD)/host/dcheck $(BUILD)/host/dtc: $(BUILD)/host/%: host/dtrace/%.c \
		host/dtrace/dt_driver.c $(DTRACE_LIB_SRCS) $(DTRACE_LIB_HEADERS)
	@mkdir -p $(dir $@)
	$(call say,HOSTCC,$@)
	$(Q)$(HOST_CC) $(HOST_CFLAGS) -o $@ $< host/dtrace/dt_driver.c $(DTRACE_LIB_SRCS) \
		$(DTRACE_LDLIBS)
.PHONY: dcheck dtc
dcheck: $(DCHECK)
dtc: $(DTC)
host-tests: $(DCHECK) $(DTC)
# ---- end of the D compiler's block -------------------------------------------

# The D programs of the in-kernel tests (KTEST_D_GEN, above), compiled by
# dtc and embedded as d_object_<name>.
$(BUILD)/gen/ktest_d/%.json: tests/kernel/%.d $(DTC)
	@mkdir -p $(dir $@)
	$(call say,DTC,$<)
	$(Q)$(DTC) -o $@ -s $<
.PRECIOUS: $(BUILD)/gen/ktest_d/%.json $(BUILD)/gen/ktest_d/%.c
$(BUILD)/gen/ktest_d/%.c: $(BUILD)/gen/ktest_d/%.json tools/embed_file.py
	$(Q)$(PYTHON) tools/embed_file.py --hex-field object_hex $< d_object_$(subst -,_,$*) -o $@

# ---- The D oracle (tests/dref/) ---------------------------------------------------
# build/host/d-oracle: random D programs and fixed regressions, compiled by the
# library above and run two ways whose results must agree: by a reference
# evaluator of the checked program, and by the kernel's own trace machinery
# (kernel/trace/ built for the host over tests/dref/dref_kernel.c: dof_load,
# trace_probe_handler and the ECB, DIF, variable and buffer code behind it).
# `make test` runs it (tests/integration/test_d_oracle.py); d-oracle --seed N
# --programs N picks the programs, --only I runs one. tests/fuzz/fuzz_d_oracle.c
# drives the same comparison from fuzz input.
D_ORACLE := $(BUILD)/host/d-oracle
D_ORACLE_KERNEL_SRCS := kernel/trace/dif_exec.c kernel/trace/dif_subr.c \
	kernel/trace/dif_subr_search.c kernel/trace/dif_subr_convert.c kernel/trace/ecb.c \
	kernel/trace/env.c kernel/trace/dynvar.c kernel/trace/plan.c \
	kernel/trace/aggbuf.c kernel/tbuf/tbuf.c kernel/trace/spec.c kernel/trace/dof.c \
	kernel/trace/session_state.c kernel/trace/session_read.c kernel/trace/bufpolicy.c \
	kernel/lib/hash.c kernel/trace/dif_jit.c $(ARCH_DIF_JIT_SRCS)
D_ORACLE_SRCS := $(sort $(wildcard tests/dref/*.c)) tests/host/kernel_fakes.c \
	tests/host/host_jit_mem.c
$(D_ORACLE): $(D_ORACLE_SRCS) $(D_ORACLE_KERNEL_SRCS) $(DTRACE_LIB_SRCS) $(DTRACE_LIB_HEADERS) \
		$(ARCH_GEN_HEADERS) \
		$(wildcard tests/dref/*.h tests/host/include/arch/*.h kernel/trace/*.h \
		kernel/include/scion/*.h)
	@mkdir -p $(dir $@)
	$(call say,HOSTCC,$@)
	$(Q)$(HOST_CC) $(HOST_CFLAGS) -o $@ $(D_ORACLE_SRCS) $(D_ORACLE_KERNEL_SRCS) \
		$(DTRACE_LIB_SRCS) $(DTRACE_LDLIBS)
.PHONY: d-oracle print-D_ORACLE_KERNEL_SRCS print-KERNEL_CFLAGS
# How kernel code compiles, for tests that compile a fragment (test_sdt_types.py).
print-KERNEL_CFLAGS:
	@echo $(KERNEL_CFLAGS)
d-oracle: $(D_ORACLE)
# The kernel files the oracle runs, for tests/fuzz/run.sh's d_oracle target.
print-D_ORACLE_KERNEL_SRCS:
	@echo $(D_ORACLE_KERNEL_SRCS)
host-tests: $(D_ORACLE)
# ---- end of the D oracle's block ---------------------------------------------------


include host/sim/sim.mk
include arch/sparc64/decoder.mk
include tests/sparc64_analysis/analysis.mk

# The test kernel, after everything it shares with the first is built (so
# the two makes never write the same file).
.PHONY: test-kernel
test-kernel: kernel iso grafts
	@$(MAKE) --no-print-directory KERNEL_TESTS=yes kernel iso

# `make test`: the dependencies first (qemu/deps.sh may install packages the
# build needs), then the build on every core, then the tests (two jobs at once).
TEST_BUILD_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
.PHONY: test test-build
test:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory -j$(TEST_BUILD_JOBS) test-build
	@$(PYTHON) tests/run_tests.py --build $(BUILD) --kernel-dir $(TEST_KDIR)

test-build: kernel iso test-kernel grafts userland host-tests $(SIM) $(ARCH_TEST_TOOLS) $(DISK) \
		$(RELOC_DRIVERS)

bench: deps deps-bench test-kernel grafts $(DTC) $(ARCH_BENCH_TOOLS) $(SIM) $(DISK) $(BENCH_USERLAND) \
		$(USERLAND_ARCHIVE) $(ROOTFS)
	@$(PYTHON) tools/bench.py --kernel $(TEST_KDIR)/$(notdir $(QEMU_KERNEL)) --disk $(DISK) \
		--out $(BUILD)/bench $(ARCH_BENCH_ARGS) --programs $(USERLAND_ARCHIVE) \
		--sim $(SIM) --userland $(BUILD)/userland --linux-dir $(BUILD)/linux

# tools/bench_goals.py: `make bench` compares its figures with the previous
# run's (build/bench/results.prev.json), else with the baseline committed in
# tools/bench_baseline.json, and flags what got worse; this target makes the
# last run's figures the committed baseline.
bench-baseline:
	@$(PYTHON) tools/bench_goals.py $(BUILD)/bench/results.json

# tools/bench.py's control channel figures alone (both devices), into
# build/bench/channel.json.
bench-channel: deps test-kernel $(LAYOUTS_PY)
	@$(PYTHON) tools/bench.py --kernel $(TEST_KDIR)/$(notdir $(QEMU_KERNEL)) \
		--out $(BUILD)/bench --channel-only

# tools/bench_profile.py: also part of `make bench`; alone, it merges its
# figures into build/bench/results.json.
bench-profile: deps $(LAYOUTS_PY)
	@$(PYTHON) tools/bench_profile.py --out $(BUILD)/bench

# tools/bench_linux.py: also part of `make bench`; alone, it fetches Debian's
# kernel and the modules ext2 on virtio-blk needs into build/linux/ (once),
# boots it on an initramfs of the bench programs with a fresh ext2 image
# as vda and merges the Linux columns (syscalls, fs) into
# build/bench/results.json.
bench-linux: deps deps-bench $(BENCH_USERLAND)
	@$(PYTHON) tools/bench_linux.py --out $(BUILD)/bench --userland $(BUILD)/userland \
		--linux-dir $(BUILD)/linux

# tools/bench_scion.py: also part of `make bench`; alone, it boots the test
# kernel with the program archive, runs bench_syscalls through `scion exec`,
# boots it again with the root image as vda for bench_fs, and merges the
# Scion columns (syscalls, fs) into build/bench/results.json.
bench-scion: deps deps-bench test-kernel $(BENCH_USERLAND) $(USERLAND_ARCHIVE) $(ROOTFS)
	@$(PYTHON) tools/bench_scion.py --kernel $(TEST_KDIR)/$(notdir $(QEMU_KERNEL)) \
		--userland $(BUILD)/userland --out $(BUILD)/bench

# tools/bench_adapt.py: also part of `make bench`; alone, it boots the test
# kernel with the policy grafts twice (the adaptation loop off, recorded;
# on, watched), replays the recording per phase with the simulator, writes
# build/bench/adapt/report.md and adapt.png and merges the figures
# ("adapt") into build/bench/results.json.
bench-adapt: deps deps-bench test-kernel grafts $(DTC) $(SIM) $(DISK)
	@$(PYTHON) tools/bench_adapt.py --kernel $(TEST_KDIR)/$(notdir $(QEMU_KERNEL)) \
		--disk $(DISK) --sim $(SIM) --out $(BUILD)/bench

# tools/bench_sweep.py: the example sweep (30 runs) here two at a time, then as one Slurm
# array job on a single-node Slurm it starts (as root); merges its figures
# ("sweep") into build/bench/results.json. Not part of `make bench`.
bench-sweep: deps kernel grafts $(DTC) $(DISK) $(LAYOUTS_PY)
	@$(PYTHON) tools/bench_sweep.py --out $(BUILD)/bench

# tools/nightly.py: collect days from Scion running `daily`, analyse, feed back.
nightly: deps kernel $(LAYOUTS_PY)
	@$(PYTHON) tools/nightly.py --kernel $(BUILD)/$(notdir $(QEMU_KERNEL)) --out $(BUILD)/nightly

# tools/squid_study.py: the Squid study (the proxy on a grown root image,
# the profiler's drill-down, fix 1 and fix 2), its report by squid_report.py.
SQUID_SCALE ?= full
squid: deps kernel userland $(DTC) $(LAYOUTS_PY)
	@$(PYTHON) tools/squid_study.py --scale $(SQUID_SCALE) --kernel-dir $(BUILD) \
		--out $(BUILD)/squid

# A port that cannot build all of this yet names what `make` builds in ARCH_ALL.
ifdef ARCH_ALL
all: $(ARCH_ALL)
else
all: kernel iso test-kernel grafts userland host-tests $(SIM) $(ARCH_HOST_TOOLS) $(DISK)
endif

clean:
	rm -rf $(BUILD)

FORCE:

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
