/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The runtime symbol table: every function in the kernel image with its
 * start, size and name, generated from the linked image at build time
 * (tools/gen_symtab.py) and linked into rodata.
 */
#ifndef SCION_SYMTAB_H
#define SCION_SYMTAB_H

#include <scion/compiler.h>

#define SYM_INIT 0x1u		/* in boot-only text (freed after boot) */
#define SYM_GLOBAL 0x2u		/* external linkage */
#define SYM_NOPROBE 0x4u	/* in .text.noprobe: the probe machinery's own code */

struct ksym {
	uint64_t addr;
	uint32_t size;
	uint16_t flags;
	uint16_t reserved;
	uint32_t name;		/* offset into the string table */
	uint32_t reserved2;
};

struct symtab {
	const struct ksym *syms;	/* sorted by address */
	uint32_t count;
	const uint32_t *by_name;	/* indices into syms, sorted by name */
	const char *strings;
	uint32_t strings_size;
};

extern const struct symtab kernel_symtab;

static inline const char *ksym_name(const struct symtab *t, const struct ksym *s)
{
	return t->strings + s->name;
}

/*
 * symtab_lookup_addr - the function containing addr.
 * Return value: the symbol, or NULL when addr is in no function; *offset
 *   (if not NULL) receives addr - start.
 * Inline: enabling fbt::: asks for every site, and a call would hit the
 * probes already enabled on it (issue 28).
 */
static inline const struct ksym *symtab_lookup_addr(const struct symtab *t, uint64_t addr,
						    uint64_t *offset)
{
	uint32_t lo = 0, hi = t->count;

	/* The last symbol starting at or below addr. */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (t->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	const struct ksym *s = &t->syms[lo - 1];
	if (addr - s->addr >= s->size)
		return NULL;
	if (offset)
		*offset = addr - s->addr;
	return s;
}

/* The symbol named name, or NULL (binary search over the name order). */
const struct ksym *symtab_lookup_name(const struct symtab *t, const char *name);

/*
 * symtab_foreach_glob - call fn for every symbol whose name matches
 * pattern, in address order, until fn returns false.
 * Return value: the number of symbols visited.
 */
size_t symtab_foreach_glob(const struct symtab *t, const char *pattern,
			   bool (*fn)(const struct ksym *s, void *arg), void *arg);

/*
 * symtab_format - write "name+0xoff" (or "0x<addr>" when unknown) into buf.
 * Return value: buf.
 */
char *symtab_format(const struct symtab *t, uint64_t addr, char *buf, size_t size);

/*
 * symbolize_request - the SYMBOLIZE op (scion/chan_proto.h): name each
 *   address given (kernel function, probe patch, graft), for the host.
 * Return value: 0, or -errno after an error answer.
 * Caller's context: the channel's request thread (may sleep).
 */
int symbolize_request(uint32_t seq, const uint8_t *body, uint32_t len);

/* Check the table's invariants (sorted, names in order, in bounds). Return value: 0 or -EINVAL. */
int symtab_validate(const struct symtab *t);

/* Kernel convenience wrapper for kernel_symtab. */
static inline const char *ksym_format(uint64_t addr, char *buf, size_t size)
{
	return symtab_format(&kernel_symtab, addr, buf, size);
}

#endif
