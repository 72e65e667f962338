/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * printf-style formatting into a bounded buffer (kernel/lib/format.c).
 *
 * Conversions: %d %i %u %x %X %o %p %s %c %%, with the length modifiers
 * hh h l ll z t j, the flags - 0 + space #, a field width and a precision
 * (both may be *). %p prints 0x and 16 hex digits. A NULL %s prints
 * "(null)". The result is always NUL-terminated when size > 0.
 */
#ifndef SCION_FORMAT_H
#define SCION_FORMAT_H

#include <stdarg.h>
#include <scion/compiler.h>

/* Return value: the length the full output would have had (like C99). */
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int snprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);

#endif
