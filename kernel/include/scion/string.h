/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The kernel's string and memory routines (kernel/lib/string.c) and
 * number parsing for shell commands and boot options.
 */
#ifndef SCION_STRING_H
#define SCION_STRING_H

#include <scion/compiler.h>

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
char *strstr(const char *haystack, const char *needle);
size_t strlcpy(char *dst, const char *src, size_t size);

/* What follows the last '/' of path (all of it when it has none). */
const char *path_last_component(const char *path);
/* Append src to the string in dst (size bytes in all); returns the length it tried to make. */
size_t strlcat(char *dst, const char *src, size_t size);

/* c as a hex digit (0-9, a-f, A-F: 0 to 15); 99 if it is none. */
int digit_value(char c);

/*
 * Parse an unsigned number: decimal, 0x hexadecimal, with an optional
 * size suffix when allow_suffix is set (K, M, G: powers of 1024).
 * Return value: 0, or -EINVAL for a malformed string, -ERANGE on overflow.
 */
int parse_u64(const char *s, uint64_t *out, bool allow_suffix);

#endif
