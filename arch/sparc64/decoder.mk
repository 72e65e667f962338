# SPDX-License-Identifier: BSD-2-Clause
#
# The SPARC V9 decoder's generated tables and host tools, available
# whatever ARCH is (the top Makefile includes this file after it defines
# BUILD, PYTHON, HOST_CC, Q and say): `make test` on x86 runs the
# decoder's unit tests and its objdump oracle (tests/integration/
# test_sparc64_decoder.py), and the sparc64 port's arch.mk can compile
# the same insn_decode.c and build/gen/sparc64_opcodes.c into the kernel
# (both need -I$(BUILD)/gen for sparc64_opcodes.h).
#
#   make check-sparc64-decoder [SPARC64_FILES="..."]   the oracle; by default
#        every ELF file of /usr/sparc64-linux-gnu/lib and the kernel-like
#        object below; ends `checked N instructions in F files: M mismatches`
#   make sparc64-decoder-tests                         the unit tests; end `N passed, M failed`
#   build/host/check-sparc64-decoder --sweep --random 1 500000
#        the oracle on raw words (make test runs it too)
#
# Invariant: nothing here depends on ARCH, and the x86 build never needs
# the cross toolchain: only the kernel-like object and the decoder's
# freestanding cross build do, and they are built (and `make test` asks
# for them) only when sparc64-linux-gnu-gcc exists.

SPARC64_DEC_DIR := arch/sparc64
SPARC64_GEN_SRC := $(BUILD)/gen/sparc64_opcodes.c
SPARC64_GEN_HDR := $(BUILD)/gen/sparc64_opcodes.h
SPARC64_DECODER_SRCS := $(SPARC64_DEC_DIR)/insn_decode.c $(SPARC64_GEN_SRC)
SPARC64_DECODER_DEPS := $(SPARC64_DECODER_SRCS) $(SPARC64_GEN_HDR) $(SPARC64_DEC_DIR)/sparc64_forms.h \
	$(SPARC64_DEC_DIR)/include/arch/insn.h
SPARC64_HOST_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Werror -I$(SPARC64_DEC_DIR)/include \
	-I$(SPARC64_DEC_DIR) -I$(BUILD)/gen
CHECK_SPARC64_DECODER := $(BUILD)/host/check-sparc64-decoder
SPARC64_DECODER_TESTS := $(BUILD)/host/sparc64-decoder-tests

$(SPARC64_GEN_SRC) $(SPARC64_GEN_HDR) &: $(SPARC64_DEC_DIR)/opcodes.map \
		$(SPARC64_DEC_DIR)/tools/gen_sparc64_opcodes.py
	@mkdir -p $(BUILD)/gen
	$(call say,GEN,$(SPARC64_GEN_SRC))
	$(Q)$(PYTHON) $(SPARC64_DEC_DIR)/tools/gen_sparc64_opcodes.py $< --source $(SPARC64_GEN_SRC) \
		--header $(SPARC64_GEN_HDR)

$(CHECK_SPARC64_DECODER): tests/decoder/check_sparc64_decoder.c $(SPARC64_DECODER_DEPS)
	@mkdir -p $(dir $@)
	$(call say,HOSTCC,$@)
	$(Q)$(HOST_CC) $(SPARC64_HOST_CFLAGS) -O2 -o $@ $< $(SPARC64_DECODER_SRCS)

# The unit tests under the sanitizers, like the other host tests.
$(SPARC64_DECODER_TESTS): tests/sparc64_decoder/test_sparc64_decoder.c $(SPARC64_DECODER_DEPS)
	@mkdir -p $(dir $@)
	$(call say,HOSTCC,$@)
	$(Q)$(HOST_CC) $(SPARC64_HOST_CFLAGS) -fsanitize=address,undefined -fno-omit-frame-pointer \
		-o $@ $< $(SPARC64_DECODER_SRCS)

SPARC64_CROSS_FLAGS := -std=gnu11 -O2 -Wall -Wextra -Werror -ffreestanding -nostdlib -fno-pic -fno-pie \
	-mcmodel=medlow -mno-fpu

# Kernel-like code from the cross compiler with the sparc64 kernel's flags
# (PLATFORMS.md); -Av9b lets its inline assembly name UltraSPARC registers.
SPARC64_CROSS_CC := $(shell command -v sparc64-linux-gnu-gcc 2>/dev/null)
SPARC64_KERNEL_LIKE := $(BUILD)/sparc64-decoder/kernel_like.o
$(SPARC64_KERNEL_LIKE): tests/decoder/sparc64_kernel_like.c
	@mkdir -p $(dir $@)
	$(call say,CROSSCC,$@)
	$(Q)sparc64-linux-gnu-gcc $(SPARC64_CROSS_FLAGS) -Wa,-Av9b -c $< -o $@

# The decoder as the sparc64 kernel compiles it (freestanding, big-endian):
# the job checks it needs nothing but its own tables (no libc calls).
SPARC64_CROSS_DECODER := $(BUILD)/sparc64-decoder/insn_decode.o $(BUILD)/sparc64-decoder/sparc64_opcodes.o
$(BUILD)/sparc64-decoder/%.o: $(SPARC64_DEC_DIR)/%.c $(SPARC64_DECODER_DEPS)
	@mkdir -p $(dir $@)
	$(call say,CROSSCC,$@)
	$(Q)sparc64-linux-gnu-gcc $(SPARC64_CROSS_FLAGS) -I$(SPARC64_DEC_DIR)/include -I$(SPARC64_DEC_DIR) \
		-I$(BUILD)/gen -c $< -o $@
$(BUILD)/sparc64-decoder/%.o: $(BUILD)/gen/%.c $(SPARC64_DECODER_DEPS)
	@mkdir -p $(dir $@)
	$(call say,CROSSCC,$@)
	$(Q)sparc64-linux-gnu-gcc $(SPARC64_CROSS_FLAGS) -I$(SPARC64_DEC_DIR)/include -I$(SPARC64_DEC_DIR) \
		-I$(BUILD)/gen -c $< -o $@

SPARC64_DECODER_TOOLS := $(CHECK_SPARC64_DECODER) $(SPARC64_DECODER_TESTS) \
	$(if $(SPARC64_CROSS_CC),$(SPARC64_KERNEL_LIKE) $(SPARC64_CROSS_DECODER))
SPARC64_FILES ?= $(shell for f in /usr/sparc64-linux-gnu/lib/*; do [ -f "$$f" ] && [ ! -L "$$f" ] && \
	head -c 4 "$$f" | grep -q ELF && echo "$$f"; done) $(if $(SPARC64_CROSS_CC),$(SPARC64_KERNEL_LIKE))

.PHONY: check-sparc64-decoder sparc64-decoder-tests
check-sparc64-decoder: $(CHECK_SPARC64_DECODER) $(if $(SPARC64_CROSS_CC),$(SPARC64_KERNEL_LIKE) \
		$(SPARC64_CROSS_DECODER))
	@$(CHECK_SPARC64_DECODER) $(SPARC64_FILES)
sparc64-decoder-tests: $(SPARC64_DECODER_TESTS)
	@$(SPARC64_DECODER_TESTS)

test all: $(SPARC64_DECODER_TOOLS)
