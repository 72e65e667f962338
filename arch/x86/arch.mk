# SPDX-License-Identifier: BSD-2-Clause
#
# The x86_64 port's build, included by the top Makefile for ARCH=x86 (the
# default). Everything the build knows about the machine is here, so the
# top Makefile and grafts/grafts.mk name no machine flag; a port adds its
# own arch/<arch>/arch.mk defining the same variables:
#
#   ARCH_NAME              the machine, as the version string says it (x86_64)
#   CROSS                  the toolchain prefix ("": the host's gcc builds x86_64)
#   ARCH_KERNEL_CFLAGS     code model, ABI and instruction set of kernel C code
#   ARCH_KERNEL_LDFLAGS    page size and linker script
#   ARCH_CORE_SRCS         the portable core's sources (kernel/) the port builds:
#                          all of them here; a new port names a bring-up subset
#   ARCH_KERNEL_SRCS       the port's kernel sources, its boot code included
#   ARCH_NOPROBE_SRCS      those of them that probe context runs (.text.noprobe)
#   ARCH_GEN_OBJS          objects built from generated sources (the opcode tables)
#   ARCH_GEN_SRCS          generated C sources the host builds use as well
#   ARCH_GEN_HEADERS       generated headers every kernel object may include
#   ARCH_HOST_SRCS         the port's sources plain enough for the host unit tests
#   ARCH_GRAFT_CFLAGS      what a graft object needs to link into this kernel
#   ARCH_GRAFT_SFI_CFLAGS  what the sandboxing step needs from the compiler
#   ARCH_SFI_REWRITER      the sandboxing step (assembly in, sandboxed assembly out)
#   ARCH_SFI_FINISH        run on the sandboxed object before it is stripped
#   QEMU_KERNEL            the image QEMU's -kernel boots (tests, bench)
#   ARCH_IMAGES            images `make kernel` builds besides kernel.elf
#   ARCH_HOST_TOOLS        the port's host tools `make all` builds
#   ARCH_TEST_TOOLS        those `make test` needs
#   ARCH_BENCH_TOOLS, ARCH_BENCH_ARGS  what `make bench` needs of them
#   ARCH_RUN, ARCH_RUN_DEPS  (optional) how `make run` boots a machine that
#                          does not boot the GRUB ISO, and what it needs built
#   ARCH_ALL               (optional) what `make` builds, for a port that cannot
#                          build everything `all` names yet
#   ARCH_KTEST_LEFT_OUT    in-kernel test sources (tests/kernel/) the port does not
#                          build: another machine's instruction-level tests
#   ARCH_KTEST_SRCS        (optional) the port's own test fixtures
#   ARCH_ASM_OFFSETS       (optional) a C file, never linked, whose ASM_OFFSET lines give
#                          the port's assembly its offsets into C structures (the top
#                          Makefile makes them $(BUILD)/gen/asm_offsets.h)
#
# and the rules for the generated tables, the image conversions (the
# 32-bit ELF copy QEMU's -kernel loads multiboot1 images from, the GRUB
# ISO) and the port's host tools: the decoder's objdump oracle and
# benchmark, the probe-hit benchmark of the patch builder and the SFI
# proof. The top Makefile defines BUILD, KERNEL, ISO, PYTHON, HOST_CC,
# HOST_CFLAGS, Q and say before including this file.

ARCH_NAME := x86_64
CROSS :=

# -mcmodel=kernel: the image and the patch and graft areas live in the top
# 2 GiB (rel32 reach); no red zone, since interrupts push onto the stack
# in place; no SSE or MMX (their state is not saved); no CET. With no SSE,
# C needs its stack aligned to 8 bytes only (as Linux builds it): a probe
# patch calls its handler without aligning the stack.
ARCH_KERNEL_CFLAGS := -mcmodel=kernel -mno-red-zone -mgeneral-regs-only \
	-mno-mmx -mno-sse -mno-sse2 -fcf-protection=none -mno-omit-leaf-frame-pointer \
	-mpreferred-stack-boundary=3
ARCH_KERNEL_LDFLAGS := -z max-page-size=4096 -T $(ARCH_DIR)/kernel.ld

ARCH_CORE_SRCS := $(wildcard kernel/*/*.c kernel/*/*.S)
# asm_offsets.c is never linked: it gives the assembly its offsets into C structures
# (the top Makefile's $(BUILD)/gen/asm_offsets.h).
ARCH_ASM_OFFSETS := $(ARCH_DIR)/asm_offsets.c
ARCH_KERNEL_SRCS := $(filter-out $(ARCH_ASM_OFFSETS),$(wildcard $(ARCH_DIR)/*.c $(ARCH_DIR)/*.S \
	$(ARCH_DIR)/boot/*.c $(ARCH_DIR)/boot/*.S))
# The patch builder, the relocator and the probe protocol's x86 half run
# under the probe machinery and in patches: never probed.
# The other machine's instruction-level probe tests.
ARCH_KTEST_LEFT_OUT := tests/kernel/test_probe_sparc64.c

ARCH_NOPROBE_SRCS := $(ARCH_DIR)/patch_emit.c $(ARCH_DIR)/relocate.c $(ARCH_DIR)/probe_site.c \
	$(ARCH_DIR)/splice.c

# The decoder's opcode tables and the patch builder's encodings, generated
# from the readable map.
X86_GEN := $(ARCH_DIR)/tools/gen_x86_opcodes.py
ARCH_GEN_SRCS := $(BUILD)/gen/x86_opcodes.c $(BUILD)/gen/x86_encodings.c
ARCH_GEN_HEADERS := $(BUILD)/gen/x86_encodings.h $(BUILD)/gen/linux_syscalls.h
ARCH_GEN_OBJS := $(BUILD)/obj/gen/x86_opcodes.o $(BUILD)/obj/gen/x86_encodings.o \
	$(BUILD)/obj/gen/linux_syscalls.o

# User processes speak the Linux x86-64 system-call ABI: its numbers and
# names come from Linux's own UAPI header (linux-libc-dev).
ARCH_SYSCALL_HEADER := /usr/include/x86_64-linux-gnu/asm/unistd_64.h
$(BUILD)/gen/linux_syscalls.c $(BUILD)/gen/linux_syscalls.h &: $(ARCH_SYSCALL_HEADER) tools/gen_syscalls.py
	@mkdir -p $(BUILD)/gen
	$(call say,GEN,$(BUILD)/gen/linux_syscalls.c)
	$(Q)$(PYTHON) tools/gen_syscalls.py $< --header $(BUILD)/gen/linux_syscalls.h \
		--source $(BUILD)/gen/linux_syscalls.c

$(ARCH_GEN_SRCS) $(BUILD)/gen/x86_encodings.h &: $(ARCH_DIR)/opcodes.map $(X86_GEN)
	@mkdir -p $(BUILD)/gen
	$(call say,GEN,$(BUILD)/gen/x86_opcodes.c)
	$(Q)$(PYTHON) $(X86_GEN) $< -o $(BUILD)/gen/x86_opcodes.c --encodings $(BUILD)/gen
$(ARCH_GEN_OBJS): $(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c $(KERNEL_FLAGS_STAMP) $(ARCH_DIR)/x86_opcodes.h $(ARCH_GEN_HEADERS)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(KERNEL_CFLAGS) -I$(ARCH_DIR) -c $< -o $@

# Host unit tests: the multiboot parser, the decoder, the patch builder and
# relocator, jump-table slices, the SFI verifier, the graft relocations,
# the DIF compiler.
ARCH_HOST_SRCS := $(ARCH_DIR)/boot/multiboot.c $(ARCH_DIR)/insn_decode.c $(BUILD)/gen/x86_opcodes.c \
	$(ARCH_DIR)/patch_emit.c $(ARCH_DIR)/relocate.c $(ARCH_DIR)/jump_table.c \
	$(ARCH_DIR)/sfi_verify.c $(BUILD)/gen/x86_encodings.c $(ARCH_DIR)/elf_reloc.c \
	$(ARCH_DIR)/dif_jit.c
# The DIF compiler alone, for the host tools that run trace programs (the D oracle).
ARCH_DIF_JIT_SRCS := $(ARCH_DIR)/dif_jit.c $(BUILD)/gen/x86_encodings.c

# ---- Grafts ---------------------------------------------------------------------
# A graft is compiled, not linked, into a relocatable object the kernel's
# loader links against the exported API: the kernel's code model and ABI
# (no red zone, no SSE, no CET, 8-byte stack alignment), so its relocations
# are the few arch/x86/elf_reloc.c applies.
ARCH_GRAFT_CFLAGS := -mcmodel=kernel -mno-red-zone -mgeneral-regs-only -mno-sse \
	-fcf-protection=none -mpreferred-stack-boundary=3

# What the sandbox (arch/x86/include/arch/sfi.h) needs from GCC, each for a
# reason the rewriter relies on:
#   -ffixed-r14 -ffixed-r15       %r14 is the sandbox's scratch register and %r15
#                                 the window base: GCC must never allocate them
#   -fno-jump-tables              a switch's jump table would branch to case labels
#                                 that are not bundle starts
#   -fno-optimize-sibling-calls   no tail call (jmp) into the graft API, which the
#                                 verifier refuses
#   -fomit-frame-pointer          no leave / mov %rbp, %rsp epilogue (the default at
#                                 -O2; stated because the rewriter depends on it)
#   -falign-functions=32          functions at bundle starts (the rewriter adds
#                                 .p2align 5 to every function label as well)
#   -mstringop-strategy=unrolled_loop  struct copies and clears as plain moves, not
#                                 rep movs / rep stos (string instructions are refused)
ARCH_GRAFT_SFI_CFLAGS := -ffixed-r14 -ffixed-r15 -fno-jump-tables -fno-optimize-sibling-calls \
	-fomit-frame-pointer -falign-functions=32 -mstringop-strategy=unrolled_loop
# GCC's assembly -> masked stores and branches, the stack guard, 32-byte bundles.
ARCH_SFI_REWRITER := $(ARCH_DIR)/tools/sfi_x86.py
# gas's one-byte padding nops become multi-byte nops.
ARCH_SFI_FINISH := $(ARCH_DIR)/tools/sfi_nops.py

# ---- Images ---------------------------------------------------------------------
# QEMU's -kernel loads multiboot1 images only from 32-bit ELF files.
QEMU_KERNEL := $(KDIR)/kernel32.elf
ARCH_IMAGES := $(QEMU_KERNEL)
$(QEMU_KERNEL): $(KERNEL)
	$(call say,OBJCOPY,$@)
	$(Q)$(OBJCOPY) -O elf32-i386 $< $@

# The GRUB ISO: the kernel as a multiboot2 image, the grafts, the program
# archive and an anonymous trace as its modules (the top Makefile adds
# ISO_GRAFTS, ISO_PROGRAMS, ISO_ANON and the files holding CMDLINE, GRAFTS,
# PROGRAMS and ANON to the prerequisites).
$(ISO): $(KERNEL) $(ARCH_DIR)/boot/grub.cfg.in
	@rm -rf $(KDIR)/iso && mkdir -p $(KDIR)/iso/boot/grub $(KDIR)/iso/boot/grafts $(BUILD)/tmp
	$(call say,ISO,$@)
	$(Q)cp $(KERNEL) $(KDIR)/iso/boot/scion.elf
	$(Q)for g in $(ISO_GRAFTS); do cp $$g $(KDIR)/iso/boot/grafts/; \
		printf '\tmodule2 /boot/grafts/%s %s\n' "$${g##*/}" "$${g##*/}"; done > $(KDIR)/iso-modules
	$(Q)for p in $(ISO_PROGRAMS) $(ISO_ANON); do cp $$p $(KDIR)/iso/boot/; \
		printf '\tmodule2 /boot/%s %s\n' "$${p##*/}" "$${p##*/}"; done >> $(KDIR)/iso-modules
	$(Q)sed -e 's|@CMDLINE@|$(CMDLINE)|' -e '/@MODULES@/{r $(KDIR)/iso-modules' -e 'd}' \
		$(ARCH_DIR)/boot/grub.cfg.in > $(KDIR)/iso/boot/grub/grub.cfg
	$(Q)TMPDIR=$(abspath $(BUILD)/tmp) grub-mkrescue -o $@ $(KDIR)/iso 2> $(KDIR)/grub-mkrescue.log \
		|| { cat $(KDIR)/grub-mkrescue.log; exit 1; }

# ---- The port's host tools -------------------------------------------------------
# The decoder on the host: the objdump oracle, with Zydis as a second opinion when installed.
DECODER_SRCS := $(ARCH_DIR)/insn_decode.c $(BUILD)/gen/x86_opcodes.c
ZYDIS := $(wildcard /usr/include/Zydis/Zydis.h)
SECOND_OPINION := $(if $(ZYDIS),tests/decoder/zydis_glue.c,tests/decoder/no_second_opinion.c)
SECOND_OPINION_LIBS := $(if $(ZYDIS),-lZydis,)
DECODER_HOST_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -I$(ARCH_DIR)/include -I$(ARCH_DIR) \
	-Itests/decoder
CHECK_DECODER := $(BUILD)/host/check-decoder
FILES ?= $(KERNEL)

BENCH_DECODER := $(BUILD)/host/bench-decoder
DECODER_TOOL_DEPS := $(DECODER_SRCS) $(SECOND_OPINION) tests/decoder/elf_text.c \
	$(wildcard tests/decoder/*.h) $(ARCH_DIR)/include/arch/insn.h $(ARCH_DIR)/x86_opcodes.h

$(BUILD)/host/%-decoder: tests/decoder/%_decoder.c $(DECODER_TOOL_DEPS)
	@mkdir -p $(dir $@)
	$(call say,HOSTCC,$@)
	$(Q)$(HOST_CC) $(DECODER_HOST_CFLAGS) -o $@ $< tests/decoder/elf_text.c $(DECODER_SRCS) \
		$(SECOND_OPINION) $(SECOND_OPINION_LIBS)

.PHONY: check-decoder
check-decoder: $(CHECK_DECODER) $(KERNEL)
	@$(CHECK_DECODER) $(FILES)

# The patch builder on the host: nanoseconds per probe hit (make bench).
# Optimized and without sanitizers, as the kernel is built; its targets
# run on the host's stack like kernel code: no red zone; linked at a low
# address (no PIE), so the addresses its patches push fit in 32 bits as
# the kernel's do.
BENCH_PATCH := $(BUILD)/host/bench-patch
PATCH_HOST_SRCS := tests/patch/bench_patch.c tests/patch/bench_targets.S $(ARCH_DIR)/patch_emit.c \
	$(ARCH_DIR)/relocate.c $(BUILD)/gen/x86_encodings.c $(DECODER_SRCS)
PATCH_BENCH_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -mno-red-zone -fno-pie -no-pie \
	-Ikernel/include -I$(ARCH_DIR)/include -I$(ARCH_DIR) -I$(BUILD)/gen
$(BENCH_PATCH): $(PATCH_HOST_SRCS) $(ARCH_GEN_HEADERS) \
		$(ARCH_DIR)/include/arch/patch.h kernel/include/scion/probe_arch.h
	@mkdir -p $(dir $@)
	$(call say,HOSTCC,$@)
	$(Q)$(HOST_CC) $(PATCH_BENCH_CFLAGS) -o $@ $(PATCH_HOST_SRCS)

# The SFI proof (tests/sfi/): build/host/sfi-proof runs every instruction
# form the sandbox's verifier accepts, single-stepped in a traced child
# laid out like a graft's window, and fails a form when the CPU shows it
# escaped (tests/sfi/sfi_proof.c).
#   make sfi-proof            the self-test, then the quick sample (`make test` runs both)
#   make sfi-proof FULL=1     the self-test, then the exhaustive enumeration (hours)
# Built without ASan, for speed; UBSan stays on. tests/fuzz/fuzz_sfi_verify.c
# shares the window child (run.sh builds it).
SFI_PROOF := $(BUILD)/host/sfi-proof
SFI_PROOF_SRCS := $(sort $(wildcard tests/sfi/*.c tests/sfi/*.S)) $(ARCH_DIR)/sfi_verify.c \
	$(ARCH_DIR)/sfi_text.c $(ARCH_DIR)/insn_decode.c $(BUILD)/gen/x86_opcodes.c \
	$(BUILD)/gen/x86_encodings.c
SFI_PROOF_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -fsanitize=undefined \
	-fno-sanitize-recover=undefined -fno-omit-frame-pointer -Itests/sfi -Ikernel/include \
	-I$(ARCH_DIR)/include -I$(ARCH_DIR) -I$(BUILD)/gen
$(SFI_PROOF): $(SFI_PROOF_SRCS) $(wildcard tests/sfi/*.h) $(ARCH_GEN_HEADERS) \
		$(ARCH_DIR)/include/arch/sfi.h $(ARCH_DIR)/include/arch/insn.h $(ARCH_DIR)/x86_opcodes.h
	@mkdir -p $(dir $@)
	$(call say,HOSTCC,$@)
	$(Q)$(HOST_CC) $(SFI_PROOF_CFLAGS) -o $@ $(SFI_PROOF_SRCS)
.PHONY: sfi-proof
sfi-proof: $(SFI_PROOF)
	@$(SFI_PROOF) --self-test
	@$(SFI_PROOF) $(if $(FULL),--full,--quick)

ARCH_HOST_TOOLS := $(CHECK_DECODER) $(BENCH_DECODER) $(BENCH_PATCH)
ARCH_TEST_TOOLS := $(CHECK_DECODER) $(SFI_PROOF)
ARCH_BENCH_TOOLS := $(BENCH_DECODER) $(BENCH_PATCH)
ARCH_BENCH_ARGS := --decoder-bench $(BENCH_DECODER) --patch-bench $(BENCH_PATCH)
