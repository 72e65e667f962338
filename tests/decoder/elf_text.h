/* SPDX-License-Identifier: BSD-2-Clause */
/* Reading files and the .text of x86-64 ELF files, for the decoder's host tools. */
#ifndef ELF_TEXT_H
#define ELF_TEXT_H

#include <stddef.h>
#include <stdint.h>

struct section {
	uint8_t *bytes;
	uint64_t addr;
	uint64_t size;
};

/* The whole file in a malloc'd buffer (*size bytes), or NULL with errno set. */
uint8_t *read_file(const char *path, size_t *size);

/*
 * elf_text - the .text section of an ELF64 x86-64 file. *image receives
 * the file's bytes (free it); text->bytes points inside them.
 * Return value: 0, -errno, -ENOEXEC (not x86-64 ELF), -ENOENT (no .text).
 */
int elf_text(const char *path, uint8_t **image, struct section *text);

#endif
