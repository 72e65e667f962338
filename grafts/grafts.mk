# SPDX-License-Identifier: BSD-2-Clause
#
# The graft build, included by the top Makefile (which defines BUILD, CC,
# OBJCOPY, Q and say).
#
#   make grafts      grafts/*.c     -> $(BUILD)/grafts/NAME.graft
#                    grafts/bad/*.c -> $(BUILD)/grafts/bad/NAME.graft
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

# Compile $< into the graft $@ (used for the host tests' fixture too).
define graft_compile
	@mkdir -p $(dir $@)
	$(call say,GRAFT,$@)
	$(Q)$(CC) $(GRAFT_CFLAGS) -c $< -o $@.o
	$(Q)$(OBJCOPY) --strip-debug $@.o $@
	$(Q)rm -f $@.o
endef

$(BUILD)/grafts/bad/%.graft: grafts/bad/%.c $(GRAFT_HEADERS) $(BAD_GRAFT_HEADERS)
	$(graft_compile)

$(BUILD)/grafts/%.graft: grafts/%.c $(GRAFT_HEADERS)
	$(graft_compile)

.PHONY: grafts
grafts: $(GRAFTS) $(BAD_GRAFTS)
	@printf '  %-8s %s\n' GRAFTS '$(words $(GRAFTS)) grafts, $(words $(BAD_GRAFTS)) misbehaving grafts in $(BUILD)/grafts'
