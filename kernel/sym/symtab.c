// SPDX-License-Identifier: BSD-2-Clause
/*
 * Lookups in a symbol table (scion/symtab.h). The tables are read-only
 * after the build, so no lock is needed. Pure code: also built for the
 * host tests.
 */
#include <scion/symtab.h>
#include <scion/glob.h>
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>

const struct ksym *symtab_lookup_name(const struct symtab *t, const char *name)
{
	uint32_t lo = 0, hi = t->count;

	/* The first name not below name. */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (strcmp(ksym_name(t, &t->syms[t->by_name[mid]]), name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < t->count && !strcmp(ksym_name(t, &t->syms[t->by_name[lo]]), name))
		return &t->syms[t->by_name[lo]];
	return NULL;
}

size_t symtab_foreach_glob(const struct symtab *t, const char *pattern,
			   bool (*fn)(const struct ksym *s, void *arg), void *arg)
{
	size_t n = 0;

	for (uint32_t i = 0; i < t->count; i++) {
		if (!glob_match(pattern, ksym_name(t, &t->syms[i])))
			continue;
		n++;
		if (!fn(&t->syms[i], arg))
			break;
	}
	return n;
}

char *symtab_format(const struct symtab *t, uint64_t addr, char *buf, size_t size)
{
	uint64_t off;
	const struct ksym *s = symtab_lookup_addr(t, addr, &off);

	if (s)
		snprintf(buf, size, "%s+0x%llx", ksym_name(t, s), (unsigned long long)off);
	else
		snprintf(buf, size, "0x%llx", (unsigned long long)addr);
	return buf;
}

int symtab_validate(const struct symtab *t)
{
	for (uint32_t i = 0; i < t->count; i++) {
		const struct ksym *s = &t->syms[i];
		if (s->name >= t->strings_size ||
		    strnlen(t->strings + s->name, t->strings_size - s->name) ==
			    t->strings_size - s->name)
			return -EINVAL;
		if (i > 0 && t->syms[i - 1].addr > s->addr)
			return -EINVAL;
		if (t->by_name[i] >= t->count)
			return -EINVAL;
	}
	/*
	 * by_name reaches any symbol, so the name order is compared only
	 * once every name above is known to be in bounds.
	 */
	for (uint32_t i = 1; i < t->count; i++)
		if (strcmp(ksym_name(t, &t->syms[t->by_name[i - 1]]),
			   ksym_name(t, &t->syms[t->by_name[i]])) > 0)
			return -EINVAL;
	return 0;
}
