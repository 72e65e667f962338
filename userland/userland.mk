# SPDX-License-Identifier: BSD-2-Clause
#
# The userland build, included by the top Makefile (which defines BUILD,
# Q and say).
#
#   make userland    userland/NAME.c -> $(BUILD)/userland/NAME      (static, ET_EXEC)
#                    userland/hello.c, args.c -> $(BUILD)/userland/hello-pie, args-pie (static PIE)
#                    all of them, and userland/root/ (etc/motd), ->
#                    $(BUILD)/userland/programs.cpio                 (cpio newc)
#                    and $(BUILD)/userland/rootfs.img               (ext2, mke2fs -d)
#
# Each program is one C file built with Debian's musl-gcc (package
# musl-tools) into an unmodified static Linux x86-64 binary: the same
# file runs on Linux (where the test programs must pass: that is what
# they are checked against) and on Scion. userland/include/ holds what
# the programs share (check.h). The static PIE needs its own start file
# (rcrt1.o) and link flags because musl-gcc's specs file does not know
# -static-pie.
#
# The archive holds every program at its root and userland/root/'s tree
# (etc/motd), in C-locale order, owned by 0:0, with inode numbers from
# --reproducible, modes 0755 for programs and directories and 0644 for
# the rest (whatever the umask), and every mtime the last commit's, so
# that the same sources give the same bytes. A boot module whose name ends in .cpio is
# the program archive (kernel/fs/archive.c); PROGRAMS picks what `make
# run`'s ISO carries: all (programs.cpio), none, a .cpio file, or names
# of programs (packed, with userland/root/, into selected.cpio).

USERLAND_CC ?= musl-gcc
USERLAND_DIR := $(BUILD)/userland
USERLAND_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Iuserland/include
USERLAND_HEADERS := $(wildcard userland/include/*.h)
USERLAND_SRCS := $(sort $(wildcard userland/*.c))
USERLAND_NAMES := $(patsubst userland/%.c,%,$(USERLAND_SRCS))
USERLAND_PIE_NAMES := hello-pie args-pie
USERLAND_PROGRAMS := $(addprefix $(USERLAND_DIR)/,$(USERLAND_NAMES) $(USERLAND_PIE_NAMES))
USERLAND_ROOT_FILES := $(shell find userland/root -type f 2>/dev/null)
USERLAND_ARCHIVE := $(USERLAND_DIR)/programs.cpio
ROOTFS := $(USERLAND_DIR)/rootfs.img
USERLAND_MTIME := $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
MUSL_LIB := /usr/lib/x86_64-linux-musl

.PHONY: userland
userland: $(USERLAND_PROGRAMS) $(USERLAND_ARCHIVE) $(ROOTFS)

# The root file system: an ext2 image (tools/mkrootfs.py, mke2fs -d) of
# every program at its root, userland/root/'s tree and /fsdata, the tree
# the file system tests read back. `make run` attaches it as vda.
ROOTFS_SIZE ?= 64M
$(ROOTFS): tools/mkrootfs.py $(USERLAND_PROGRAMS) $(USERLAND_ROOT_FILES)
	$(call say,MKROOTFS,$@)
	$(Q)$(PYTHON) tools/mkrootfs.py --out $@ --size $(ROOTFS_SIZE) \
		--staging $(USERLAND_DIR)/rootfs --root userland/root $(USERLAND_PROGRAMS)

# What is missing, said before the first compile rather than as "command not found".
need_tool = @command -v $(1) >/dev/null 2>&1 || { echo "userland: $(1) not found: apt-get \
	install $(2) (make deps installs it)" >&2; exit 1; }

$(USERLAND_DIR)/%: userland/%.c $(USERLAND_HEADERS)
	@mkdir -p $(dir $@)
	$(call need_tool,$(USERLAND_CC),musl-tools)
	$(call say,MUSLCC,$@)
	$(Q)$(USERLAND_CC) -static $(USERLAND_CFLAGS) -o $@ $<

$(USERLAND_DIR)/%-pie: userland/%.c $(USERLAND_HEADERS)
	@mkdir -p $(dir $@)
	$(call need_tool,$(USERLAND_CC),musl-tools)
	$(call say,MUSLCC,$@)
	$(Q)$(USERLAND_CC) -static-pie -fPIE $(USERLAND_CFLAGS) -nostartfiles -o $@ \
		$(MUSL_LIB)/rcrt1.o $(MUSL_LIB)/crti.o \
		$$($(USERLAND_CC) -print-file-name=crtbeginS.o) $< \
		$$($(USERLAND_CC) -print-file-name=crtendS.o) $(MUSL_LIB)/crtn.o \
		-Wl,-static,-pie,--no-dynamic-linker,-z,text

# pack_archive OUT, PROGRAMS: a staging tree (programs at the root, then
# userland/root/), packed in a fixed order with fixed owners and mtimes.
define pack_archive
	$(call need_tool,cpio,cpio)
	@rm -rf $(1).tree && mkdir -p $(1).tree
	$(call say,CPIO,$(1))
	$(Q)cp $(2) $(1).tree/
	$(Q)cp -R userland/root/. $(1).tree/
	$(Q)find $(1).tree -type d -exec chmod 0755 {} + && find $(1).tree -type f -exec chmod 0644 {} +
	$(Q)cd $(1).tree && chmod 0755 $(notdir $(2))
	$(Q)find $(1).tree -exec touch -h -d @$(USERLAND_MTIME) {} +
	$(Q)cd $(1).tree && find . | LC_ALL=C sort | \
		cpio -o -H newc -R 0:0 --reproducible --quiet > $(abspath $(1)).tmp
	$(Q)mv $(1).tmp $(1) && rm -rf $(1).tree
endef

$(USERLAND_ARCHIVE): $(USERLAND_PROGRAMS) $(USERLAND_ROOT_FILES)
	$(call pack_archive,$@,$(USERLAND_PROGRAMS))

# What the ISO carries (ISO_PROGRAMS, empty for none).
PROGRAMS ?= all
ifeq ($(PROGRAMS),all)
ISO_PROGRAMS := $(USERLAND_ARCHIVE)
else ifeq ($(PROGRAMS),none)
ISO_PROGRAMS :=
else ifneq ($(filter %.cpio,$(PROGRAMS)),)
ifneq ($(words $(PROGRAMS)),1)
$(error PROGRAMS: one .cpio file, or names of programs, or all, or none)
endif
ISO_PROGRAMS := $(PROGRAMS)
else
USERLAND_SELECTED := $(foreach p,$(PROGRAMS),$(if $(filter $(p),$(USERLAND_NAMES) \
	$(USERLAND_PIE_NAMES)),$(USERLAND_DIR)/$(p),$(error PROGRAMS: no program '$(p)' (give \
	names of userland/NAME.c or NAME-pie, a .cpio file, all or none))))
ISO_PROGRAMS := $(USERLAND_DIR)/selected.cpio
$(USERLAND_DIR)/selected-names: FORCE
	@mkdir -p $(dir $@)
	@echo '$(PROGRAMS)' > $@.$$$$.tmp; cmp -s $@.$$$$.tmp $@ && rm $@.$$$$.tmp || mv $@.$$$$.tmp $@
$(USERLAND_DIR)/selected.cpio: $(USERLAND_SELECTED) $(USERLAND_ROOT_FILES) \
		$(USERLAND_DIR)/selected-names
	$(call pack_archive,$@,$(USERLAND_SELECTED))
endif
