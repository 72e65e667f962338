// SPDX-License-Identifier: BSD-2-Clause
/* Reading the .text of x86-64 ELF files (see elf_text.h). */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "elf_text.h"

uint8_t *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *buf = n > 0 ? malloc((size_t)n) : NULL;
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
		errno = EIO;
	}
	fclose(f);
	*size = buf ? (size_t)n : 0;
	return buf;
}

int elf_text(const char *path, uint8_t **image, struct section *text)
{
	size_t size;
	uint8_t *buf = read_file(path, &size);
	if (!buf)
		return -errno;
	const Elf64_Ehdr *eh = (const void *)buf;
	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_machine != EM_X86_64 ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > size ||
	    eh->e_shstrndx >= eh->e_shnum) {
		free(buf);
		return -ENOEXEC;
	}
	const Elf64_Shdr *sh = (const void *)(buf + eh->e_shoff);
	const Elf64_Shdr *strtab = &sh[eh->e_shstrndx];
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_name >= strtab->sh_size || strtab->sh_offset + sh[i].sh_name >= size)
			continue;
		const char *name = (const char *)buf + strtab->sh_offset + sh[i].sh_name;
		if (strcmp(name, ".text") || sh[i].sh_type != SHT_PROGBITS ||
		    sh[i].sh_offset + sh[i].sh_size > size)
			continue;
		*image = buf;
		text->bytes = buf + sh[i].sh_offset;
		text->addr = sh[i].sh_addr;
		text->size = sh[i].sh_size;
		return 0;
	}
	free(buf);
	return -ENOENT;
}
