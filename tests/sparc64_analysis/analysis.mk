# SPDX-License-Identifier: BSD-2-Clause
#
# The structural analysis on SPARC V9, tested on the host whatever ARCH
# is (the top Makefile includes this file after arch/sparc64/decoder.mk,
# whose variables it uses): the portable kernel/analysis/cfg_build.c and
# liveness.c compiled with -Iarch/sparc64/include over the sparc64
# backend (arch/sparc64/insn_summary.c, arch/sparc64/analysis/jump_table.c
# and their headers) and the decoder,
# under ASan and UBSan, with the test files of tests/sparc64_analysis/
# (tests/host/include supplies the host's arch/mmu.h, which scion/mm.h
# wants). The hand-written functions of cases.S are assembled and linked
# by the cross toolchain at a fixed address.
#
#   make sparc64-analysis-tests    the cases, then the consistency sweep over
#        SPARC64_KERNEL_ELF (if built) and SPARC64_FILES (decoder.mk: the
#        cross toolchain's libraries); ends `N passed, M failed`
#
# Invariant: like decoder.mk, the x86 build never needs the cross
# toolchain: cases.elf is built only when sparc64-linux-gnu-gcc exists.

SPARC64_ANALYSIS_TESTS := $(BUILD)/host/sparc64-analysis-tests
SPARC64_ANALYSIS_CASES := $(BUILD)/sparc64-analysis/cases.elf
SPARC64_ANALYSIS_SRCS := $(sort $(wildcard tests/sparc64_analysis/*.c)) kernel/analysis/cfg_build.c \
	kernel/analysis/liveness.c $(SPARC64_DEC_DIR)/insn_summary.c $(SPARC64_DEC_DIR)/analysis/jump_table.c
SPARC64_KERNEL_ELF ?= build/sparc64/kernel.elf

$(SPARC64_ANALYSIS_TESTS): $(SPARC64_ANALYSIS_SRCS) $(SPARC64_DECODER_DEPS) \
		$(wildcard tests/sparc64_analysis/*.h kernel/analysis/*.h kernel/include/scion/*.h \
		$(SPARC64_DEC_DIR)/include/arch/*.h)
	@mkdir -p $(dir $@)
	$(call say,HOSTCC,$@)
	$(Q)$(HOST_CC) $(SPARC64_HOST_CFLAGS) -fsanitize=address,undefined -fno-omit-frame-pointer \
		-Itests/host/include -Ikernel/include -o $@ $(SPARC64_ANALYSIS_SRCS) $(SPARC64_DECODER_SRCS)

$(SPARC64_ANALYSIS_CASES): tests/sparc64_analysis/cases.S
	@mkdir -p $(dir $@)
	$(call say,CROSSAS,$@)
	$(Q)sparc64-linux-gnu-gcc -fno-pic -fno-pie -c $< -o $(@:.elf=.o)
	$(Q)sparc64-linux-gnu-ld -Ttext=0x100000 -e fix_leaf -o $@ $(@:.elf=.o)

.PHONY: sparc64-analysis-tests
sparc64-analysis-tests: $(SPARC64_ANALYSIS_TESTS) $(SPARC64_ANALYSIS_CASES) \
		$(if $(SPARC64_CROSS_CC),$(SPARC64_KERNEL_LIKE))
	@$(SPARC64_ANALYSIS_TESTS) $(SPARC64_ANALYSIS_CASES) --sweep $(wildcard $(SPARC64_KERNEL_ELF)) \
		$(SPARC64_FILES)

test all: $(SPARC64_ANALYSIS_TESTS) $(if $(SPARC64_CROSS_CC),$(SPARC64_ANALYSIS_CASES))
