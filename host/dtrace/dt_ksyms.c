// SPDX-License-Identifier: BSD-2-Clause
/*
 * Kernel symbols for D's `name and kernel`name: the address of a symbol
 * of the kernel the program will run on, looked up in its symbol list
 * (dt_compile_args.ksyms: `nm --defined-only -S` lines, "ADDRESS [SIZE]
 * TYPE NAME", which the build writes next to the kernel and `scion trace`
 * hands dtc).
 * The compiler resolves them, as dtrace does from the kernel's symbol
 * tables: the running kernel is the build the list came from, since the
 * control channel refuses a kernel of another build.
 *
 * Without types (Scion has no CTF), `name is the symbol's address, as
 * &`name is: read the object with a cast, *(int *)&`name.
 */
#include <stdlib.h>
#include <string.h>
#include "dt_impl.h"

/* Parse one "ADDRESS [SIZE] TYPE NAME" line at s (up to end); false if it is not one. */
static bool parse_line(const char *s, const char *end, uint64_t *addr, char *type,
		       const char **name, size_t *len)
{
	char *after;
	if (s == end || !strchr("0123456789abcdefABCDEF", *s))
		return false;
	*addr = strtoull(s, &after, 16);
	if (after + 3 <= end && after[0] == ' ' && after[2] != ' ' &&
	    strchr("0123456789abcdefABCDEF", after[1]))
		strtoull(after + 1, &after, 16);	/* the size, which lookups do not need */
	if (after + 3 > end || after[0] != ' ' || after[2] != ' ')
		return false;
	*type = after[1];
	*name = after + 3;
	*len = (size_t)(end - *name);
	return *len > 0;
}

bool dt_ksym_lookup(const char *table, const char *name, size_t len, uint64_t *addr)
{
	bool found = false;
	for (const char *line = table; line && *line;) {
		const char *nl = strchr(line, '\n'), *end = nl ? nl : line + strlen(line);
		uint64_t a;
		char type;
		const char *n;
		size_t nlen;
		bool match = parse_line(line, end, &a, &type, &n, &nlen) && nlen == len &&
			     !memcmp(n, name, len);
		/* A global (upper-case type) wins over a static of the same name. */
		if (match && type >= 'A' && type <= 'Z') {
			*addr = a;
			return true;
		}
		if (match && !found) {
			*addr = a;
			found = true;
		}
		line = nl ? nl + 1 : NULL;
	}
	return found;
}
