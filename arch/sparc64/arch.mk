# SPDX-License-Identifier: BSD-2-Clause
#
# The sparc64 port's build (sun4u under QEMU and OpenBIOS), included by the
# top Makefile for ARCH=sparc64; it defines the variables arch/x86/arch.mk
# lists (the port contract). BUILD defaults to build/sparc64, so the x86
# build in build/ is never touched. Tools: Debian's gcc-sparc64-linux-gnu
# and binutils-sparc64-linux-gnu; QEMU: qemu-system-sparc64 (`make deps`).
#
#   make ARCH=sparc64 kernel    build/sparc64/kernel.elf (and kernel.syms)
#   make ARCH=sparc64 KERNEL_TESTS=yes kernel
#                               the test kernel, build/sparc64/test/kernel.elf
#   make ARCH=sparc64 run [CMDLINE="test=* panic=exit" | CMDLINE=selftest=all]
#                               boot it to the scion> shell, console on this terminal
#
# THE PORTABLE CORE: ARCH_CORE_SRCS is all of kernel/ except the directories
# listed below, each left out for a reason the port does not meet yet; what
# the rest of the core calls in them is refused, with a one-line reason, by
# arch/sparc64/absent.c. Machine features the port lacks are refused by
# their hooks (absent_machine.c) and listed in arch/features.h, which the
# in-kernel tests consult (SKIPPED). The SPARC V9 decoder (insn_decode.c,
# its tables from opcodes.map by decoder.mk's generator) and the structural
# analysis over it (kernel/analysis/, insn_summary.c, analysis/jump_table.c,
# insn_describe.c) are in the kernel: `analysis`, `cfg`, `insn` work.

ARCH_NAME := sparc64
CROSS := sparc64-linux-gnu-

# Left out of the portable core, and why (each needs what the port lacks):
#   kernel/proc/   user processes speak the Linux x86-64 ABI (arch/user.h): none here;
#                  arch/sparc64/absent.c refuses its API
CORE_LEFT_OUT := kernel/proc/%
ARCH_CORE_SRCS := $(filter-out $(CORE_LEFT_OUT),$(wildcard kernel/*/*.c kernel/*/*.S))

# The in-kernel tests the sparc64 test kernel cannot build (make KERNEL_TESTS=yes),
# and why; every other test is built, and one that needs a feature the port
# lacks says `test NAME: SKIPPED (reason)` at run time (arch/features.h):
#   test_cfg.c bench_analysis.c cfg_fixtures.S probe_fixture.S poke_fixture.S
#     test_probe_x86.c   the decoder, CFG and x86 probe tests and their
#                  fixtures: x86 instructions, arch/insn.h (test_probe_sparc64.c
#                  is this port's)
#   test_trace_state.c  Linux x86-64 system-call numbers (proc/)
#   test_poke.c bench_core.c  text poking of x86 instruction fixtures (poke_fixture.S)
#   test_fault.c   x86 fault vectors (#PF, #DE, #UD) and their kill-the-thread path;
#                  sparc64's fault reports are checked by sparc64.machine_layer
#   test_coverage.c  block coverage of the x86 CFG fixtures (cfg_fixtures.S), whose
#                  blocks are known; bench_coverage.c runs here too
#   test_codeadapt.c bench_codeadapt.c  code adaptations: this port's patches
#                  cannot redirect calls yet (ARCH_PROBE_REDIRECTS): installs are refused
#   test_outline.c  outlining: copies of the x86 CFG fixtures and x86 refusals
#                  (arch_safe_read's fixup); arch/sparc64/outline.c refuses every
#                  function (bench_outline.c runs here and reports the refusal)
#   test_switch_x86.c switch_fixture.S  x86's callee-saved registers across a switch
ARCH_KTEST_LEFT_OUT := $(addprefix tests/kernel/,test_cfg.c bench_analysis.c \
	cfg_fixtures.S probe_fixture.S poke_fixture.S test_probe_x86.c test_trace_state.c \
	test_poke.c bench_core.c test_fault.c test_coverage.c test_codeadapt.c \
	bench_codeadapt.c test_outline.c test_switch_x86.c switch_fixture.S)
# pf_sum and the probe tests' fixtures in SPARC (probe_fixture.S is x86's), and
# s_annul, every branch kind, which the qemu-user patch test runs too.
ARCH_KTEST_SRCS := $(ARCH_DIR)/ktest_fixtures.S tests/sparc64_patch/annul.S

# -mcmodel=medlow: the image is linked at 0x40004000 (below 4 GB);
# -mno-fpu: no floating point in the kernel (FP is disabled); -mcpu=ultrasparc
# (V9a): the ancillary state registers of %tick_cmpr and SOFTINT.
ARCH_KERNEL_CFLAGS := -mcmodel=medlow -mno-fpu -mcpu=ultrasparc
# libgcc: 64-bit multiply and count-leading-zeros helpers GCC calls (__multi3, __clzdi2).
ARCH_KERNEL_LDFLAGS := -z max-page-size=8192 -T $(ARCH_DIR)/kernel.ld
ARCH_KERNEL_LIBS := $(shell $(CROSS)gcc -mcpu=ultrasparc -print-libgcc-file-name)

ARCH_KERNEL_SRCS := $(filter-out $(ARCH_DIR)/ktest_fixtures.S,$(wildcard $(ARCH_DIR)/*.c $(ARCH_DIR)/*.S \
	$(ARCH_DIR)/boot/*.c $(ARCH_DIR)/boot/*.S $(ARCH_DIR)/analysis/*.c $(ARCH_DIR)/patch/*.c))
# The trap table and what runs at TL > 0 sit in their own sections
# (.text.traptable, .text.tl1: kernel.ld puts them in the no-probe range);
# the splicer, what the breakpoint handler runs and what probe handlers ask
# of the machine (probe_return.c: the value at a return) are probe context.
ARCH_NOPROBE_SRCS := $(wildcard $(ARCH_DIR)/patch/*.c) $(ARCH_DIR)/probe_site.c $(ARCH_DIR)/splice.c \
	$(ARCH_DIR)/probe_return.c $(ARCH_DIR)/springboard.c
# The decoder's opcode tables, generated from opcodes.map (decoder.mk's rule,
# named here by path because decoder.mk is included after this file).
ARCH_GEN_SRCS := $(BUILD)/gen/sparc64_opcodes.c
ARCH_GEN_HEADERS := $(BUILD)/gen/sparc64_opcodes.h
ARCH_GEN_OBJS := $(BUILD)/obj/gen/sparc64_opcodes.o
$(ARCH_GEN_OBJS): $(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c $(KERNEL_FLAGS_STAMP) $(ARCH_GEN_HEADERS)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(KERNEL_CFLAGS) -I$(ARCH_DIR) -c $< -o $@
ARCH_HOST_SRCS :=
# No DIF compiler yet: host tools that run trace programs interpret them.
ARCH_DIF_JIT_SRCS := $(ARCH_DIR)/dif_jit.c

# Grafts: trusted only. `make ARCH=sparc64 grafts` builds grafts/*.c and
# grafts/bad/*.c into build/sparc64/grafts/trusted/ (relocatable objects with
# R_SPARC_* relocations, the kernel's code model: the graft area is below
# 4 GB), loaded with `scion graft load --trusted`. The x86 SFI sandbox has no
# SPARC counterpart yet: no rewriter, so nothing sandboxed is built, and a
# sandboxed load is refused with arch/features.h's one line (FEATURE_SANDBOX).
# -mno-app-regs: GCC then leaves %g2-%g4 alone and declares no register use
# (the psABI's unnamed STT_REGISTER symbols, which the loader would refuse as
# undefined symbols without a name). The port's host tools and benchmarks: not yet.
ARCH_GRAFT_CFLAGS := -mcmodel=medlow -mno-fpu -mno-app-regs
ARCH_GRAFT_SFI_CFLAGS :=
ARCH_SFI_REWRITER :=
ARCH_SFI_FINISH :=
ARCH_HOST_TOOLS :=
ARCH_TEST_TOOLS :=
ARCH_BENCH_TOOLS :=
ARCH_BENCH_ARGS :=

# `make ARCH=sparc64` builds the kernel and the trusted grafts (no ISO, test
# kernel or host tools for this port yet).
ARCH_ALL := kernel grafts

# OpenBIOS loads kernel.elf itself (QEMU's -kernel): no other image.
QEMU_KERNEL := $(KERNEL)
ARCH_IMAGES :=

# `make run ARCH=sparc64 [CMDLINE=...]`: the kernel on QEMU's sun4u, the
# console on this terminal (or a pipe), the control channel (a second
# -serial: the EBus UART at 0x2f8) on the UNIX socket $(CONTROL_SOCKET),
# build/sparc64/control.sock, for `host/scion --socket PATH ...` (the same
# arguments as qemu/machine.py's sparc64_qemu_command; a stale socket is
# removed first, as machine.control_channel_arguments does). -action panic=exit-failure with
# pvpanic-pci: a panic ends QEMU with status 1. The device must sit on the
# second bridge's bus (bus=pciB): sun4u's root bus has no free slot.
SPARC64_QEMU := qemu-system-sparc64 -M sun4u -nographic -vga none -no-reboot \
	-device pvpanic-pci,bus=pciB -action panic=exit-failure
# The root disk: a small ext2 image of $(ARCH_DIR)/rootfs/ (the x86 root image
# holds x86-64 programs) plus numbers.txt (seq 1 5000: an indirect block at
# 1 KiB blocks). make run attaches a copy, run-root.img, as virtio-blk on
# pciB (the root bus is full), writable: what a session writes lasts, and a
# rebuilt image replaces the copy. tests/integration/test_sparc64_blk.py
# boots the same arguments (SPARC64_ROOT_LINES is its line count).
SPARC64_ROOT_DIR := $(ARCH_DIR)/rootfs
SPARC64_ROOT_LINES := 5000
SPARC64_ROOTFS := $(BUILD)/rootfs.img
SPARC64_RUN_ROOT := $(BUILD)/run-root.img
$(SPARC64_ROOTFS): $(shell find $(SPARC64_ROOT_DIR) -type f) $(ARCH_DIR)/arch.mk
	@mkdir -p $(dir $@)
	$(Q)rm -rf $@.d && cp -r $(SPARC64_ROOT_DIR) $@.d && seq 1 $(SPARC64_ROOT_LINES) > $@.d/numbers.txt
	$(Q)$$(command -v mke2fs || echo /usr/sbin/mke2fs) -q -F -t ext2 -b 1024 -L scion-sparc64 \
		-d $@.d $@ 4M && rm -rf $@.d
$(SPARC64_RUN_ROOT): $(SPARC64_ROOTFS)
	$(Q)cp $< $@
sparc64-rootfs: $(SPARC64_ROOTFS)
.PHONY: sparc64-rootfs
ARCH_RUN_DEPS := kernel $(SPARC64_RUN_ROOT)
ARCH_RUN = rm -f '$(CONTROL_SOCKET)' && $(SPARC64_QEMU) -kernel $(KERNEL) \
	$(if $(CMDLINE),-append '$(CMDLINE)') -serial mon:stdio \
	-chardev 'socket,id=control,path=$(CONTROL_SOCKET),server=on,wait=off' \
	-serial chardev:control \
	-drive 'file=$(SPARC64_RUN_ROOT),format=raw,if=none,id=root' \
	-device virtio-blk-pci,drive=root,bus=pciB
