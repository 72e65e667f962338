// SPDX-License-Identifier: BSD-2-Clause
/* Host tests of symbol table lookups and validation (kernel/sym/symtab.c). */
#include <stdio.h>
#include <string.h>
#include "host_test.h"
#include <scion/symtab.h>
#include <scion/errno.h>

/*
 * A small table like the one tools/gen_symtab.py emits: functions at
 * 0x1000 (0x40 bytes), 0x1040 (0x20), a gap, 0x2000 (0x100), 0x3000 (0x10).
 */
static const char good_strings[] = "\0kmain\0alpha\0pmm_alloc\0pmm_free\0";
enum { S_KMAIN = 1, S_ALPHA = 7, S_PMM_ALLOC = 13, S_PMM_FREE = 23 };

static const struct ksym good_syms[] = {
	{ .addr = 0x1000, .size = 0x40, .name = S_KMAIN, .flags = SYM_GLOBAL },
	{ .addr = 0x1040, .size = 0x20, .name = S_PMM_ALLOC, .flags = SYM_GLOBAL },
	{ .addr = 0x2000, .size = 0x100, .name = S_ALPHA },
	{ .addr = 0x3000, .size = 0x10, .name = S_PMM_FREE, .flags = SYM_INIT },
};
/* alpha, kmain, pmm_alloc, pmm_free */
static const uint32_t good_by_name[] = { 2, 0, 1, 3 };

static const struct symtab good = {
	.syms = good_syms,
	.count = 4,
	.by_name = good_by_name,
	.strings = good_strings,
	.strings_size = sizeof(good_strings),
};

static const char *name_at(uint64_t addr, uint64_t *offset)
{
	const struct ksym *s = symtab_lookup_addr(&good, addr, offset);
	return s ? ksym_name(&good, s) : NULL;
}

static bool same(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

HOST_TEST(symtab_lookup_addr_bounds)
{
	uint64_t off = 12345;

	CHECK(t, same(name_at(0x1000, &off), "kmain") && off == 0, "start of kmain");
	CHECK(t, same(name_at(0x1010, &off), "kmain") && off == 0x10, "inside kmain");
	CHECK(t, same(name_at(0x103f, &off), "kmain") && off == 0x3f, "last byte of kmain");
	CHECK(t, same(name_at(0x1040, &off), "pmm_alloc") && off == 0, "adjacent function");
	CHECK(t, same(name_at(0x105f, &off), "pmm_alloc") && off == 0x1f, "last byte of pmm_alloc");
	CHECK(t, name_at(0x1060, &off) == NULL, "one past the end of pmm_alloc");
	CHECK(t, name_at(0x1800, &off) == NULL, "gap between functions");
	CHECK(t, name_at(0xfff, &off) == NULL, "before the first function");
	CHECK(t, name_at(0, &off) == NULL, "address zero");
	CHECK(t, same(name_at(0x20ff, &off), "alpha") && off == 0xff, "last byte of alpha");
	CHECK(t, name_at(0x2100, &off) == NULL, "one past alpha");
	CHECK(t, same(name_at(0x3000, NULL), "pmm_free"), "NULL offset is allowed");
	CHECK(t, name_at(0x3010, &off) == NULL, "one past the last function");
	CHECK(t, name_at(UINT64_MAX, &off) == NULL, "top of the address space");

	struct symtab empty = { .strings = "", .strings_size = 1 };
	CHECK(t, symtab_lookup_addr(&empty, 0x1000, &off) == NULL, "empty table");
}

HOST_TEST(symtab_lookup_name_present_and_absent)
{
	static const char *const names[] = { "kmain", "alpha", "pmm_alloc", "pmm_free" };

	for (size_t i = 0; i < 4; i++) {
		const struct ksym *s = symtab_lookup_name(&good, names[i]);
		CHECK(t, s && same(ksym_name(&good, s), names[i]), "lookup of %s", names[i]);
	}
	const struct ksym *alloc = symtab_lookup_name(&good, "pmm_alloc");
	CHECK(t, alloc && alloc->addr == 0x1040 && alloc->size == 0x20, "pmm_alloc's symbol");
	CHECK(t, symtab_lookup_name(&good, "pmm") == NULL, "a prefix is not a name");
	CHECK(t, symtab_lookup_name(&good, "pmm_alloc_x") == NULL, "a longer name");
	CHECK(t, symtab_lookup_name(&good, "") == NULL, "empty name");
	CHECK(t, symtab_lookup_name(&good, "aaa") == NULL, "before the first name");
	CHECK(t, symtab_lookup_name(&good, "zzz") == NULL, "after the last name");
	CHECK(t, symtab_lookup_name(&good, "b") == NULL, "between names");
}

HOST_TEST(symtab_lookup_name_duplicates)
{
	/* Two static functions called init in different files. */
	static const char strings[] = "\0init\0main\0";
	static const struct ksym syms[] = {
		{ .addr = 0x100, .size = 0x10, .name = 1 },
		{ .addr = 0x200, .size = 0x10, .name = 6 },
		{ .addr = 0x300, .size = 0x10, .name = 1 },
	};
	static const uint32_t by_name[] = { 0, 2, 1 };
	const struct symtab dup = { syms, 3, by_name, strings, sizeof(strings) };

	CHECK(t, symtab_validate(&dup) == 0, "duplicate names are valid");
	const struct ksym *s = symtab_lookup_name(&dup, "init");
	CHECK(t, s == &syms[0] || s == &syms[2], "one of the duplicates is found");
	CHECK(t, symtab_lookup_name(&dup, "main") == &syms[1], "the other name");
	CHECK(t, symtab_lookup_name(&dup, "ini") == NULL, "absent among duplicates");
}

struct visit_log {
	size_t calls, stop_after;
	uint64_t addrs[8];
};

static bool visit(const struct ksym *s, void *arg)
{
	struct visit_log *log = arg;
	if (log->calls < 8)
		log->addrs[log->calls] = s->addr;
	log->calls++;
	return log->calls != log->stop_after;
}

HOST_TEST(symtab_foreach_glob_counts_and_stops)
{
	struct visit_log log = { 0 };

	CHECK(t, symtab_foreach_glob(&good, "pmm_*", visit, &log) == 2 && log.calls == 2,
	      "pmm_* visits two");
	CHECK(t, log.addrs[0] == 0x1040 && log.addrs[1] == 0x3000, "visited in address order");

	log = (struct visit_log){ 0 };
	CHECK(t, symtab_foreach_glob(&good, "*", visit, &log) == 4 && log.calls == 4, "* visits all");
	for (size_t i = 0; i < 4; i++)
		CHECK(t, log.addrs[i] == good_syms[i].addr, "visit %zu out of order", i);

	log = (struct visit_log){ .stop_after = 2 };
	CHECK(t, symtab_foreach_glob(&good, "*", visit, &log) == 2 && log.calls == 2,
	      "early stop after two");

	log = (struct visit_log){ .stop_after = 1 };
	CHECK(t, symtab_foreach_glob(&good, "*m*", visit, &log) == 1 && log.addrs[0] == 0x1000,
	      "early stop at the first");

	log = (struct visit_log){ 0 };
	CHECK(t, symtab_foreach_glob(&good, "nothing*", visit, &log) == 0 && log.calls == 0,
	      "no match, no call");
}

HOST_TEST(symtab_format_known_and_unknown)
{
	char buf[64];

	CHECK(t, same(symtab_format(&good, 0x1010, buf, sizeof(buf)), "kmain+0x10"), "got %s", buf);
	CHECK(t, same(symtab_format(&good, 0x1040, buf, sizeof(buf)), "pmm_alloc+0x0"), "got %s", buf);
	CHECK(t, same(symtab_format(&good, 0x1800, buf, sizeof(buf)), "0x1800"), "got %s", buf);
	CHECK(t, same(symtab_format(&good, 0xffffffff80001234ull, buf, sizeof(buf)),
		      "0xffffffff80001234"), "got %s", buf);
	CHECK(t, symtab_format(&good, 0x1010, buf, sizeof(buf)) == buf, "returns buf");

	char small[6];
	memset(small, 'X', sizeof(small));
	symtab_format(&good, 0x1010, small, sizeof(small));
	CHECK(t, same(small, "kmain"), "truncated to the buffer: %.6s", small);
}

/* A writable copy of the good table to break one invariant at a time. */
struct table_copy {
	struct ksym syms[4];
	uint32_t by_name[4];
	char strings[sizeof(good_strings)];
	struct symtab t;
};

static void copy_good(struct table_copy *c)
{
	memcpy(c->syms, good_syms, sizeof(good_syms));
	memcpy(c->by_name, good_by_name, sizeof(good_by_name));
	memcpy(c->strings, good_strings, sizeof(good_strings));
	c->t = (struct symtab){ c->syms, 4, c->by_name, c->strings, sizeof(good_strings) };
}

HOST_TEST(symtab_validate_accepts_good_tables)
{
	CHECK(t, symtab_validate(&good) == 0, "the good table");
	struct symtab empty = { .strings = "", .strings_size = 1 };
	CHECK(t, symtab_validate(&empty) == 0, "an empty table");

	/* Aliases: two names at one address are sorted by address too. */
	struct table_copy c;
	copy_good(&c);
	c.syms[1].addr = c.syms[0].addr;
	CHECK(t, symtab_validate(&c.t) == 0, "equal addresses are allowed");
}

HOST_TEST(symtab_validate_rejects_broken_tables)
{
	struct table_copy c;

	copy_good(&c);
	c.syms[2].addr = 0x1030;
	CHECK(t, symtab_validate(&c.t) == -EINVAL, "unsorted addresses");

	copy_good(&c);
	c.by_name[0] = 0;
	c.by_name[1] = 2;
	CHECK(t, symtab_validate(&c.t) == -EINVAL, "unsorted names");

	copy_good(&c);
	c.by_name[3] = 4;
	CHECK(t, symtab_validate(&c.t) == -EINVAL, "name index out of range");

	copy_good(&c);
	c.syms[0].name = sizeof(good_strings);
	CHECK(t, symtab_validate(&c.t) == -EINVAL, "name offset at the end");

	copy_good(&c);
	c.syms[3].name = 0xffffffffu;
	CHECK(t, symtab_validate(&c.t) == -EINVAL, "name offset far out of range");

	copy_good(&c);
	/* pmm_free's terminator and the padding after it. */
	memset(c.strings + S_PMM_FREE + 8, 'x', sizeof(good_strings) - (S_PMM_FREE + 8));
	CHECK(t, symtab_validate(&c.t) == -EINVAL, "unterminated string table");

	copy_good(&c);
	c.t.strings_size = S_PMM_FREE + 3;
	CHECK(t, symtab_validate(&c.t) == -EINVAL, "string table cut inside the last name");
}

/*
 * The name order is checked through by_name, which reaches symbols the
 * validator has not looked at yet: a bad name offset there must be
 * refused before it is read. (Under ASan an out-of-bounds read fails
 * this test even when the result happens to be right.)
 */
HOST_TEST(symtab_validate_checks_names_before_comparing)
{
	static char strings[] = "\0a\0b\0c\0";
	struct ksym syms[3] = {
		{ .addr = 0x100, .size = 1, .name = 1 },
		{ .addr = 0x200, .size = 1, .name = 3 },
		{ .addr = 0x300, .size = 1, .name = 5 },
	};
	uint32_t by_name[3] = { 0, 2, 1 };
	/* syms[2]'s name is just past the end of the string table. */
	syms[2].name = sizeof(strings);
	struct symtab tab = { syms, 3, by_name, strings, sizeof(strings) };

	CHECK(t, symtab_validate(&tab) == -EINVAL, "bad name reached through by_name");
}
