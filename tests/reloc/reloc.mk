# SPDX-License-Identifier: BSD-2-Clause
#
# Every port's graft relocations checked against GNU ld on the host
# (tests/reloc/check_relocs.py), whatever ARCH is: a driver per port,
# built from its arch/<port>/elf_reloc.c with its arch/elf.h. The top
# Makefile includes this; `make test` runs them through
# tests/integration/test_relocs.py.

RELOC_PORTS := $(patsubst arch/%/elf_reloc.c,%,$(wildcard arch/*/elf_reloc.c))
RELOC_DRIVERS := $(patsubst %,$(BUILD)/host/reloc-%,$(RELOC_PORTS))

$(BUILD)/host/reloc-%: tests/reloc/reloc_driver.c arch/%/elf_reloc.c arch/%/include/arch/elf.h
	@mkdir -p $(dir $@)
	$(call say,HOSTCC,$@)
	$(Q)$(HOST_CC) -std=gnu11 -O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined \
		-Ikernel/include -Iarch/$*/include -o $@ tests/reloc/reloc_driver.c arch/$*/elf_reloc.c

.PHONY: check-relocs
check-relocs: $(RELOC_DRIVERS)
	@for p in $(RELOC_PORTS); do $(PYTHON) tests/reloc/check_relocs.py --arch $$p \
		--driver $(BUILD)/host/reloc-$$p || exit 1; done
