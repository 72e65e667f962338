# SPDX-License-Identifier: BSD-2-Clause
#
# The graft build, included by the top Makefile (which defines BUILD, CC,
# OBJCOPY, PYTHON, Q and say).
#
#   make grafts      grafts/*.c     -> $(BUILD)/grafts/NAME.graft          (sandboxed)
#                    grafts/bad/*.c -> $(BUILD)/grafts/bad/NAME.graft      (sandboxed)
#                    and the same unsandboxed in $(BUILD)/grafts/trusted/[bad/]NAME.graft
#                    grafts/hostile/*.c -> $(BUILD)/grafts/hostile/NAME.graft (never sandboxed)
#
# A graft is one C file compiled, not linked, into a relocatable ELF64
# object that the kernel's loader (kernel/graft/elf_load.c) links
# against the exported graft API. The flags give it the kernel's code
# model and ABI (no red zone, no SSE, no stack protector, no CET) and
# keep out what the loader refuses: common symbols, unwind tables, PIC
# (GOT and PLT relocations). Debug sections are stripped; symbols stay,
# because the loader links through them. Misbehaving grafts for tests
# live in grafts/bad/ and build into their own folder, so nothing
# installs one by accident.
#
# Software fault isolation (arch/x86/include/arch/sfi.h): the graft every
# test and `make run` use is sandboxed. GCC writes assembly with
# GRAFT_SFI_CFLAGS as well, tools/sfi_x86.py rewrites it (masked stores,
# masked indirect branches and returns, the stack guard, 32-byte bundles,
# the .note.scion.sfi marker) and the assembler builds the object; the
# loader's verifier checks the result. NAME.s (GCC's) and NAME.sfi.s (the
# rewriter's) stay next to the graft: the rewriter's errors name lines of
# NAME.s. The trusted build (today's recipe, for `graft load --trusted`)
# goes to trusted/.

GRAFT_CFLAGS := -std=gnu11 -O2 -Wall -Wextra -Werror -ffreestanding -fno-builtin \
	-fno-pic -fno-pie -mcmodel=kernel -mno-red-zone -mgeneral-regs-only -mno-sse \
	-fno-stack-protector -fcf-protection=none -fno-asynchronous-unwind-tables \
	-fno-common -fno-exceptions -Igrafts/include
GRAFT_HEADERS := $(wildcard grafts/include/graft/*.h)

GRAFT_SRCS := $(sort $(wildcard grafts/*.c))
BAD_GRAFT_SRCS := $(sort $(wildcard grafts/bad/*.c))
BAD_GRAFT_HEADERS := $(wildcard grafts/bad/*.h)
GRAFTS := $(patsubst grafts/%.c,$(BUILD)/grafts/%.graft,$(GRAFT_SRCS))
BAD_GRAFTS := $(patsubst grafts/bad/%.c,$(BUILD)/grafts/bad/%.graft,$(BAD_GRAFT_SRCS))

TRUSTED_GRAFTS := $(patsubst $(BUILD)/grafts/%,$(BUILD)/grafts/trusted/%,$(GRAFTS) $(BAD_GRAFTS))
HOSTILE_GRAFT_SRCS := $(sort $(wildcard grafts/hostile/*.c))
HOSTILE_GRAFT_HEADERS := $(wildcard grafts/hostile/*.h)
HOSTILE_GRAFTS := $(patsubst grafts/hostile/%.c,$(BUILD)/grafts/hostile/%.graft,$(HOSTILE_GRAFT_SRCS))

# What the sandbox needs from GCC, each for a reason the rewriter relies on:
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
GRAFT_SFI_CFLAGS := -ffixed-r14 -ffixed-r15 -fno-jump-tables -fno-optimize-sibling-calls \
	-fomit-frame-pointer -falign-functions=32 -mstringop-strategy=unrolled_loop
SFI_REWRITER := tools/sfi_x86.py
SFI_NOPS := tools/sfi_nops.py	# gas's one-byte padding nops become multi-byte nops

# Compile $< into the trusted (unsandboxed) graft $@; the host tests'
# fixture is built this way too (the loader's ELF tests, independent of SFI).
define graft_compile
	@mkdir -p $(dir $@)
	$(call say,GRAFT,$@)
	$(Q)$(CC) $(GRAFT_CFLAGS) -c $< -o $@.o
	$(Q)$(OBJCOPY) --strip-debug $@.o $@
	$(Q)rm -f $@.o
endef

# Compile $< into the sandboxed graft $@: gcc -S, the rewriter, the assembler.
define graft_compile_sfi
	@mkdir -p $(dir $@)
	$(call say,SFI,$@)
	$(Q)$(CC) $(GRAFT_CFLAGS) $(GRAFT_SFI_CFLAGS) -S $< -o $(basename $@).s
	$(Q)$(PYTHON) $(SFI_REWRITER) $(basename $@).s -o $(basename $@).sfi.s
	$(Q)$(CC) -c $(basename $@).sfi.s -o $@.o
	$(Q)$(PYTHON) $(SFI_NOPS) $@.o
	$(Q)$(OBJCOPY) --strip-debug $@.o $@
	$(Q)rm -f $@.o
endef

# A trusted build is named NAME-trusted, so that both builds of a graft
# can be loaded at once and compared.
$(BUILD)/grafts/trusted/%.graft: GRAFT_CFLAGS += -DGRAFT_NAME_SUFFIX='"-trusted"'

$(BUILD)/grafts/trusted/bad/%.graft: grafts/bad/%.c $(GRAFT_HEADERS) $(BAD_GRAFT_HEADERS)
	$(graft_compile)

$(BUILD)/grafts/trusted/%.graft: grafts/%.c $(GRAFT_HEADERS)
	$(graft_compile)

# Hostile objects for the verifier's tests: assembly, never through the sandboxing step.
$(BUILD)/grafts/hostile/%.graft: grafts/hostile/%.c $(GRAFT_HEADERS) $(HOSTILE_GRAFT_HEADERS)
	$(graft_compile)

$(BUILD)/grafts/bad/%.graft: grafts/bad/%.c $(GRAFT_HEADERS) $(BAD_GRAFT_HEADERS) $(SFI_REWRITER) $(SFI_NOPS)
	$(graft_compile_sfi)

$(BUILD)/grafts/%.graft: grafts/%.c $(GRAFT_HEADERS) $(SFI_REWRITER) $(SFI_NOPS)
	$(graft_compile_sfi)

.PHONY: grafts
grafts: $(GRAFTS) $(BAD_GRAFTS) $(TRUSTED_GRAFTS) $(HOSTILE_GRAFTS)
	@printf '  %-8s %s\n' GRAFTS '$(words $(GRAFTS)) grafts, $(words $(BAD_GRAFTS)) misbehaving grafts in $(BUILD)/grafts (sandboxed; unsandboxed copies in $(BUILD)/grafts/trusted; $(words $(HOSTILE_GRAFTS)) hostile objects in $(BUILD)/grafts/hostile)'
