// SPDX-License-Identifier: BSD-2-Clause
/*
 * args: what the kernel puts on a new program's stack, checked against
 * the Linux x86-64 ABI. argv is argc pointers and a NULL, envp follows it
 * and ends in a NULL, the auxiliary vector follows that; every auxv entry
 * getauxval reports is the one on the stack. AT_PAGESZ is 4096, AT_RANDOM
 * points at 16 readable bytes (not all zero), AT_PHDR/AT_PHENT/AT_PHNUM
 * are this program's own program headers (read through __ehdr_start, the
 * ELF header the linker maps), AT_ENTRY is its entry point (_start),
 * AT_BASE is 0 (no interpreter), AT_UID/AT_EUID/AT_GID/AT_EGID match the
 * system calls and AT_SECURE is 0. Prints what it found, then its line.
 */
#include <elf.h>
#include <stdint.h>
#include <sys/auxv.h>
#include "check.h"

extern char **environ;
extern const Elf64_Ehdr __ehdr_start;
extern char _start[];

static const struct { unsigned long type; const char *name; } required[] = {
	{ AT_PHDR, "AT_PHDR" }, { AT_PHENT, "AT_PHENT" }, { AT_PHNUM, "AT_PHNUM" },
	{ AT_PAGESZ, "AT_PAGESZ" }, { AT_ENTRY, "AT_ENTRY" }, { AT_UID, "AT_UID" },
	{ AT_EUID, "AT_EUID" }, { AT_GID, "AT_GID" }, { AT_EGID, "AT_EGID" },
	{ AT_SECURE, "AT_SECURE" }, { AT_RANDOM, "AT_RANDOM" },
};

/* The raw auxv value of type t (after envp's NULL), and whether it is there. */
static int raw_auxv(char **envp, unsigned long t, unsigned long *out)
{
	char **p = envp;
	while (*p)
		p++;
	for (unsigned long *a = (unsigned long *)(p + 1); a[0] != AT_NULL; a += 2)
		if (a[0] == t) {
			*out = a[1];
			return 1;
		}
	return 0;
}

int main(int argc, char **argv, char **envp)
{
	check_start("args", argc, argv);

	CHECK(argc >= 1, "argc %d, expected at least 1", argc);
	CHECK(argv[argc] == NULL, "argv[argc] is %p, expected NULL", (void *)argv[argc]);
	for (int i = 0; i < argc; i++) {
		CHECK(argv[i] != NULL, "argv[%d] NULL", i);
		printf("args: argv[%d] = %s\n", i, argv[i]);
	}
	CHECK(envp == argv + argc + 1, "envp %p, expected argv + argc + 1 = %p", (void *)envp,
	      (void *)(argv + argc + 1));
	CHECK(environ == envp, "environ %p, envp %p", (void *)environ, (void *)envp);
	int nenv = 0;
	for (char **e = envp; *e; e++, nenv++)
		CHECK(strchr(*e, '=') != NULL, "environment string '%s' without '='", *e);
	printf("args: %d environment strings\n", nenv);

	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
		unsigned long raw = 0;
		int there = raw_auxv(envp, required[i].type, &raw);
		CHECK(there, "%s missing from the auxiliary vector", required[i].name);
		errno = 0;
		unsigned long v = getauxval(required[i].type);
		CHECK(there && errno == 0 && v == raw, "%s: getauxval 0x%lx, on the stack 0x%lx",
		      required[i].name, v, raw);
		printf("args: %-10s 0x%lx\n", required[i].name, raw);
	}

	CHECK_EQ(getauxval(AT_PAGESZ), 4096, "AT_PAGESZ");
	const unsigned char *rnd = (const unsigned char *)getauxval(AT_RANDOM);
	int nonzero = 0;
	if (rnd)
		for (int i = 0; i < 16; i++)
			nonzero |= rnd[i];
	CHECK(rnd && nonzero, "AT_RANDOM %p: expected 16 bytes, not all zero", (const void *)rnd);

	const Elf64_Ehdr *eh = &__ehdr_start;
	uintptr_t base = eh->e_type == ET_DYN ? (uintptr_t)eh : 0;
	CHECK(!memcmp(eh->e_ident, ELFMAG, SELFMAG), "no ELF header at __ehdr_start");
	CHECK_EQ(getauxval(AT_PHDR), (uintptr_t)eh + eh->e_phoff, "AT_PHDR (ELF header + e_phoff)");
	CHECK_EQ(getauxval(AT_PHNUM), eh->e_phnum, "AT_PHNUM (e_phnum)");
	CHECK_EQ(getauxval(AT_PHENT), sizeof(Elf64_Phdr), "AT_PHENT");
	CHECK_EQ(getauxval(AT_ENTRY), base + eh->e_entry, "AT_ENTRY (load base + e_entry)");
	CHECK_EQ(getauxval(AT_ENTRY), (uintptr_t)_start, "AT_ENTRY (_start)");
	CHECK_EQ(getauxval(AT_BASE), 0, "AT_BASE (no interpreter)");
	CHECK_EQ(getauxval(AT_UID), getuid(), "AT_UID");
	CHECK_EQ(getauxval(AT_EUID), geteuid(), "AT_EUID");
	CHECK_EQ(getauxval(AT_GID), getgid(), "AT_GID");
	CHECK_EQ(getauxval(AT_EGID), getegid(), "AT_EGID");
	CHECK_EQ(getauxval(AT_SECURE), 0, "AT_SECURE");
	printf("args: %s, loaded at 0x%lx, entry 0x%lx\n", eh->e_type == ET_DYN ? "static PIE" :
	       "static executable", (unsigned long)base, getauxval(AT_ENTRY));
	return check_done();
}
