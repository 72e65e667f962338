# SPDX-License-Identifier: BSD-2-Clause
#
# The graft build, included by the top Makefile (which defines BUILD, CC,
# OBJCOPY, PYTHON, Q and say, and includes the arch's arch.mk first: the
# machine flags and the sandboxing step are the arch's).
#
#   make grafts      grafts/*.c     -> $(BUILD)/grafts/NAME.graft          (sandboxed)
#                    grafts/bad/*.c -> $(BUILD)/grafts/bad/NAME.graft      (sandboxed)
#                    and the same unsandboxed in $(BUILD)/grafts/trusted/[bad/]NAME.graft
#                    grafts/hostile/*.c -> $(BUILD)/grafts/hostile/NAME.graft (never sandboxed)
#                    A port without a sandbox (empty ARCH_SFI_REWRITER) builds the
#                    trusted/ copies alone (make ARCH=sparc64 grafts: build/sparc64/grafts/trusted/)
#
# A graft is one C file compiled, not linked, into a relocatable ELF64
# object that the kernel's loader (kernel/graft/elf_load.c) links
# against the exported graft API. The flags give it the kernel's code
# model and ABI (ARCH_GRAFT_CFLAGS, and no stack protector) and keep out
# what the loader refuses: common symbols, unwind tables, PIC (GOT and
# PLT relocations). Debug sections are stripped; symbols stay,
# because the loader links through them. Misbehaving grafts for tests
# live in grafts/bad/ and build into their own folder, so nothing
# installs one by accident.
#
# Software fault isolation (the arch's scheme, arch/<arch>/include/arch/sfi.h):
# the graft every test and `make run` use is sandboxed. GCC writes assembly
# with ARCH_GRAFT_SFI_CFLAGS as well, the arch's rewriter
# (ARCH_SFI_REWRITER) rewrites it (masked stores, masked indirect branches
# and returns, the stack guard, bundles, the .note.scion.sfi marker), the
# assembler builds the object and ARCH_SFI_FINISH finishes it in place;
# the loader's verifier checks the result. NAME.s (GCC's) and NAME.sfi.s
# (the rewriter's) stay next to the graft: the rewriter's errors name
# lines of NAME.s. The trusted build (today's recipe, for `graft load
# --trusted`) goes to trusted/.

GRAFT_CFLAGS := -std=gnu11 -O2 -Wall -Wextra -Werror -ffreestanding -fno-builtin \
	-fno-pic -fno-pie $(ARCH_GRAFT_CFLAGS) -fno-stack-protector -fno-asynchronous-unwind-tables \
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

GRAFT_SFI_CFLAGS := $(ARCH_GRAFT_SFI_CFLAGS)
SFI_REWRITER := $(ARCH_SFI_REWRITER)
SFI_FINISH := $(ARCH_SFI_FINISH)

# Every graft depends on the flags it is compiled with (the top Makefile's
# GRAFT_FLAGS_STAMP); the trusted build's name suffix is not among them.
GRAFT_FLAGS_TEXT := $(GRAFT_CFLAGS) $(GRAFT_SFI_CFLAGS)
$(GRAFT_FLAGS_STAMP): FORCE
	@mkdir -p $(dir $@)
	@printf '%s\n' '$(GRAFT_FLAGS_TEXT)' > $@.tmp
	@cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@

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
	$(Q)$(PYTHON) $(SFI_FINISH) $@.o
	$(Q)$(OBJCOPY) --strip-debug $@.o $@
	$(Q)rm -f $@.o
endef

# A trusted build is named NAME-trusted, so that both builds of a graft
# can be loaded at once and compared.
$(BUILD)/grafts/trusted/%.graft: GRAFT_CFLAGS += -DGRAFT_NAME_SUFFIX='"-trusted"'

$(BUILD)/grafts/trusted/bad/%.graft: grafts/bad/%.c $(GRAFT_FLAGS_STAMP) $(GRAFT_HEADERS) $(BAD_GRAFT_HEADERS)
	$(graft_compile)

$(BUILD)/grafts/trusted/%.graft: grafts/%.c $(GRAFT_FLAGS_STAMP) $(GRAFT_HEADERS)
	$(graft_compile)

# Hostile objects for the verifier's tests: assembly, never through the sandboxing step.
$(BUILD)/grafts/hostile/%.graft: grafts/hostile/%.c $(GRAFT_FLAGS_STAMP) $(GRAFT_HEADERS) $(HOSTILE_GRAFT_HEADERS)
	$(graft_compile)

$(BUILD)/grafts/bad/%.graft: grafts/bad/%.c $(GRAFT_FLAGS_STAMP) $(GRAFT_HEADERS) $(BAD_GRAFT_HEADERS) $(SFI_REWRITER) $(SFI_FINISH)
	$(graft_compile_sfi)

$(BUILD)/grafts/%.graft: grafts/%.c $(GRAFT_FLAGS_STAMP) $(GRAFT_HEADERS) $(SFI_REWRITER) $(SFI_FINISH)
	$(graft_compile_sfi)

.PHONY: grafts
ifneq ($(SFI_REWRITER),)
grafts: $(GRAFTS) $(BAD_GRAFTS) $(TRUSTED_GRAFTS) $(HOSTILE_GRAFTS)
	@printf '  %-8s %s\n' GRAFTS '$(words $(GRAFTS)) grafts, $(words $(BAD_GRAFTS)) misbehaving grafts in $(BUILD)/grafts (sandboxed; unsandboxed copies in $(BUILD)/grafts/trusted; $(words $(HOSTILE_GRAFTS)) hostile objects in $(BUILD)/grafts/hostile)'
else
# A port with no sandbox (no ARCH_SFI_REWRITER: sparc64) builds only what it
# can load, the trusted grafts; the hostile objects test the x86 verifier.
grafts: $(TRUSTED_GRAFTS)
	@printf '  %-8s %s\n' GRAFTS '$(words $(TRUSTED_GRAFTS)) trusted grafts in $(BUILD)/grafts/trusted (no sandbox on $(ARCH_NAME): nothing sandboxed is built)'
endif
