// SPDX-License-Identifier: BSD-2-Clause
/*
 * Freestanding string and memory routines. The compiler may emit calls
 * to memcpy/memset/memmove/memcmp itself, so these keep their standard
 * names and contracts. The bulk routines move 8-byte words once the
 * destination is aligned: boot zeroes megabytes of page descriptors.
 */
#include <scion/string.h>
#include <scion/errno.h>

typedef uint64_t __attribute__((may_alias, aligned(1))) unaligned_word;

void *memcpy(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	while (n && ((uintptr_t)d & 7)) {
		*d++ = *s++;
		n--;
	}
	for (; n >= 8; n -= 8, d += 8, s += 8)
		*(uint64_t *)d = *(const unaligned_word *)s;
	while (n--)
		*d++ = *s++;
	return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (d == s || n == 0)
		return dst;
	if (d < s) {
		return memcpy(dst, src, n);	/* copies upwards: safe when d < s */
	} else {
		while (n--)
			d[n] = s[n];
	}
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	uint64_t word = 0x0101010101010101ull * (unsigned char)c;

	while (n && ((uintptr_t)d & 7)) {
		*d++ = (unsigned char)c;
		n--;
	}
	for (; n >= 8; n -= 8, d += 8)
		*(uint64_t *)d = word;
	while (n--)
		*d++ = (unsigned char)c;
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	/* Equal words are skipped eight bytes at a time; the first that differs is compared bytewise. */
	for (; n >= 8 && *(const unaligned_word *)x == *(const unaligned_word *)y; n -= 8)
		x += 8, y += 8;
	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		if (!*a)
			return 0;
	}
	return 0;
}

char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (!*s)
			return NULL;
	}
}

char *strstr(const char *haystack, const char *needle)
{
	size_t n = strlen(needle);
	for (; *haystack; haystack++)
		if (!strncmp(haystack, needle, n))
			return (char *)haystack;
	return n ? NULL : (char *)haystack;
}

size_t strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size) {
		size_t n = len < size - 1 ? len : size - 1;
		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}

size_t strlcat(char *dst, const char *src, size_t size)
{
	size_t used = strnlen(dst, size);

	if (used == size)
		return size + strlen(src);
	return used + strlcpy(dst + used, src, size - used);
}

int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

int parse_u64(const char *s, uint64_t *out, bool allow_suffix)
{
	unsigned base = 10;
	uint64_t v = 0;
	const char *p = s;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	if (digit_value(*p) >= (int)base)
		return -EINVAL;
	for (; *p; p++) {
		int d = digit_value(*p);
		if (d >= (int)base)
			break;
		if (v > (UINT64_MAX - (uint64_t)d) / base)
			return -ERANGE;
		v = v * base + (uint64_t)d;
	}
	if (*p && allow_suffix && !p[1]) {
		unsigned shift;
		switch (*p) {
		case 'k': case 'K': shift = 10; break;
		case 'm': case 'M': shift = 20; break;
		case 'g': case 'G': shift = 30; break;
		default: return -EINVAL;
		}
		if (v > (UINT64_MAX >> shift))
			return -ERANGE;
		v <<= shift;
		p++;
	}
	if (*p)
		return -EINVAL;
	*out = v;
	return 0;
}

const char *path_last_component(const char *path)
{
	const char *last = path;
	for (const char *p = path; *p; p++)
		if (*p == '/')
			last = p + 1;
	return last;
}
