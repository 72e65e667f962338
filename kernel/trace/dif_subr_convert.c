// SPDX-License-Identifier: BSD-2-Clause
/*
 * DIF subroutines that convert a value: toupper() and tolower() (a copy
 * of a string with its ASCII letters changed), strtoll() (a string's
 * integer), cleanpath() (a path with "//", "/./" and "/../" resolved as
 * text, never looking at a file system) and the byte order conversions
 * htons(), htonl(), htonll() and their inverses ntohs(), ntohl(),
 * ntohll(). Each gives illumos DTrace's answers, edge cases included.
 *
 * Strings are copied into scratch through the fault-tolerant path first
 * (at most strsize - 1 bytes), and the string results are made in that
 * copy, so none is longer than strsize - 1 bytes either.
 */
#include <scion/string.h>
#include <scion/byteorder.h>
#include "dif_internal.h"

static uint64_t address_of(const char *s)
{
	return (uint64_t)(uintptr_t)s;
}

/* toupper(s), tolower(s): only ASCII letters change, as in DTrace (no locale). */
static int change_case(struct run *x, bool upper, uint64_t *out)
{
	long len;
	char *s = dif_string_arg(x, 0, &len);
	if (!s)
		return -1;
	char first = upper ? 'a' : 'A', to = upper ? 'A' : 'a';
	for (long i = 0; i < len; i++)
		if (s[i] >= first && s[i] <= first + 25)
			s[i] = (char)(to + (s[i] - first));
	*out = address_of(s);
	return 0;
}

/* A digit's value in bases up to 36 (letters of either case after 9); 36 for no digit. */
static uint64_t digit(char c)
{
	if (c >= '0' && c <= '9')
		return (uint64_t)(c - '0');
	if (c >= 'a' && c <= 'z')
		return (uint64_t)(c - 'a' + 10);
	if (c >= 'A' && c <= 'Z')
		return (uint64_t)(c - 'A' + 10);
	return 36;
}

/*
 * strtoll(s[, base]): DTrace's parse. Spaces and tabs (only those) before
 * an optional sign, a "0x" or "0X" skipped in base 16 when a hex digit
 * follows, then digits up to the first that is not one in the base; the
 * value is what was read (0 when nothing was), and one too large wraps
 * around rather than stopping at INT64_MAX as C's would. Base 0, Scion's
 * addition (illumos refuses it), picks the base as C does: 16 after
 * "0x", 8 after a leading 0, else 10. A base of 1 or above 36 faults.
 */
static int string_to_int(struct run *x, uint64_t *out)
{
	uint64_t base = x->ntuple == 2 ? x->tuple[1].value : 10;
	if (base == 1 || base > 36)
		return dif_fail(x, DIF_FAULT_BADARG, base);	/* DTrace's illegal operation */
	long len;
	char *s = dif_string_arg(x, 0, &len);
	if (!s)
		return -1;
	long i = 0;
	while (s[i] == ' ' || s[i] == '\t')
		i++;
	bool negative = s[i] == '-';
	if (s[i] == '-' || s[i] == '+')
		i++;
	/* s is NUL-terminated: each test reads a byte only when the one before it matched. */
	bool hex = s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X') && digit(s[i + 2]) < 16;
	if (base == 0)
		base = hex ? 16 : s[i] == '0' ? 8 : 10;
	if (base == 16 && hex)
		i += 2;
	uint64_t v = 0;	/* unsigned, so an overflow wraps as DTrace's does, defined */
	for (; i < len && digit(s[i]) < base; i++)
		v = v * base + digit(s[i]);
	*out = negative ? -v : v;
	return 0;
}

/*
 * cleanpath(path): DTrace's textual clean-up, done in place in the copy
 * (what is written never passes what is read). "//" becomes "/", "/./"
 * becomes "/", and "/../" or a final "/.." takes the output back to the
 * slash before the last component: a final "/.." leaves that slash
 * ("/a/b/.." is "/a/"), and "/.." with nothing before it is "/". Other
 * names beginning with dots ("/.x", "/..x"), a final "/." and a trailing
 * slash are kept as they are, and a relative path's ".." goes back over
 * its first component, slash and all, as in DTrace.
 */
static int clean_path(struct run *x, uint64_t *out)
{
	long len;
	char *s = dif_string_arg(x, 0, &len);
	if (!s)
		return -1;
	long i = 0, j = 0;
	bool wrote = false;
	while (i < len) {
		if (s[i] != '/') {
			s[j++] = s[i++];
			wrote = true;
		} else if (s[i + 1] == '/') {
			i++;					/* "//": the second slash starts over */
		} else if (s[i + 1] == '.' && s[i + 2] == '/') {
			i += 2;					/* "/./": its last slash starts over */
		} else if (s[i + 1] == '.' && s[i + 2] == '.' &&
			   (s[i + 3] == '/' || s[i + 3] == '\0')) {
			while (j > 0 && s[--j] != '/')
				continue;
			i += 3;					/* at the next slash, or the end */
			if (i == len) {
				if (!wrote)
					s[0] = '/';		/* "/.." at the start: the root */
				j++;				/* keep the slash backed up to */
			}
		} else {
			s[j++] = s[i++];			/* the slash of a component */
			wrote = true;
		}
	}
	s[j] = '\0';
	*out = address_of(s);
	return 0;
}

/*
 * htons(), htonl(), htonll(): the low 16, 32 or 64 bits of the value in
 * the network's byte order (big-endian), read as an integer: byte swaps
 * on a little-endian machine, the value itself on a big-endian one. The
 * swap is its own inverse, so ntohs(), ntohl() and ntohll() are the same.
 */
static uint64_t network_order(uint64_t v, unsigned bits)
{
	if (bits == 16)
		return cpu_to_be16((uint16_t)v);
	if (bits == 32)
		return cpu_to_be32((uint32_t)v);
	return cpu_to_be64(v);
}

int dif_subr_convert(struct run *x, unsigned id, uint64_t *out)
{
	uint64_t v = x->ntuple ? x->tuple[0].value : 0;
	switch (id) {
	case DIF_SUBR_TOUPPER:
	case DIF_SUBR_TOLOWER:
		return change_case(x, id == DIF_SUBR_TOUPPER, out);
	case DIF_SUBR_STRTOLL:
		return string_to_int(x, out);
	case DIF_SUBR_CLEANPATH:
		return clean_path(x, out);
	case DIF_SUBR_HTONS:
	case DIF_SUBR_NTOHS:
		*out = network_order(v, 16);
		return 0;
	case DIF_SUBR_HTONL:
	case DIF_SUBR_NTOHL:
		*out = network_order(v, 32);
		return 0;
	case DIF_SUBR_HTONLL:
	case DIF_SUBR_NTOHLL:
		*out = network_order(v, 64);
		return 0;
	}
	return dif_fail(x, DIF_FAULT_ILLOP, id);
}
