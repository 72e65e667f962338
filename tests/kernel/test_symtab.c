// SPDX-License-Identifier: BSD-2-Clause
/* In-kernel tests of the runtime symbol table against the running image. */
#include <scion/ktest.h>
#include <scion/symtab.h>
#include <scion/thread.h>
#include <scion/string.h>
#include <arch/stack.h>

extern char __text_start[], __init_text_end[];
void kernel_main(void);
void arch_boot_main(void);

static bool count_one(const struct ksym *s, void *arg)
{
	(void)s;
	(*(unsigned *)arg)++;
	return true;
}

KTEST(symtab_by_name_and_address, 1)
{
	const struct ksym *s = symtab_lookup_name(&kernel_symtab, "thread_create");
	KT_ASSERT(t, s, "thread_create not in the symbol table");
	KT_EXPECT(t, s->addr == (uintptr_t)thread_create, "thread_create at 0x%llx, table says 0x%llx",
		  (unsigned long long)(uintptr_t)thread_create, (unsigned long long)s->addr);
	uint64_t off = 0;
	const struct ksym *at = symtab_lookup_addr(&kernel_symtab, (uintptr_t)thread_create + 5, &off);
	KT_EXPECT(t, at == s && off == 5, "thread_create+5 resolves to %s+%llu",
		  at ? ksym_name(&kernel_symtab, at) : "nothing", (unsigned long long)off);
	KT_EXPECT(t, !symtab_lookup_name(&kernel_symtab, "no_such_function"), "phantom symbol");
	KT_EXPECT(t, !symtab_lookup_addr(&kernel_symtab, 0x1000, NULL), "user address resolved");
	char buf[64];
	KT_EXPECT(t, !strcmp(ksym_format((uintptr_t)thread_create + 16, buf, sizeof(buf)),
			     "thread_create+0x10"), "formatted as '%s'", buf);
}

KTEST(symtab_covers_text, 1)
{
	const struct symtab *st = &kernel_symtab;
	KT_ASSERT(t, st->count > 100, "only %u functions", st->count);
	KT_EXPECT(t, symtab_validate(st) == 0, "table invariants broken");
	for (uint32_t i = 0; i < st->count; i++) {
		const struct ksym *s = &st->syms[i];
		KT_ASSERT(t, s->addr >= (uintptr_t)__text_start && s->addr + s->size <= (uintptr_t)__init_text_end,
			  "%s lies outside kernel text", ksym_name(st, s));
		KT_ASSERT(t, s->size > 0, "%s has size 0", ksym_name(st, s));
	}
	const struct ksym *boot = symtab_lookup_name(st, "arch_boot_main");
	KT_EXPECT(t, boot && (boot->flags & SYM_INIT), "arch_boot_main not marked boot-only");
	const struct ksym *km = symtab_lookup_name(st, "thread_create");
	KT_EXPECT(t, km && !(km->flags & SYM_INIT) && (km->flags & SYM_GLOBAL), "thread_create flags");
	/* Static functions are in the table too: this file's tests and its helper. */
	KT_EXPECT(t, symtab_lookup_name(st, "count_one") != NULL, "static function missing");
	unsigned n = 0;
	symtab_foreach_glob(st, "ktest_symtab_*", count_one, &n);
	KT_EXPECT(t, n >= 1, "glob ktest_symtab_* found %u functions", n);
}

/*
 * A kernel stack walk (arch_stack_walk, what trace's stack() uses) from a
 * captured frame: this function first, then the runner's thread function
 * that called it (on sparc64 the walk flushes the register windows and
 * follows the save areas' %i7).
 */
static __noinline unsigned walk_here(uint64_t *pcs, unsigned max)
{
	struct trap_frame f = { 0 };
	trap_frame_capture(&f);
	return arch_stack_walk(&f, false, pcs, max);
}

KTEST(stack_walk_names_the_callers, 1)
{
	uint64_t pcs[8];
	char name[64];

	unsigned n = walk_here(pcs, 8);
	KT_ASSERT(t, n >= 3, "only %u frames", n);
	ksym_format(pcs[0], name, sizeof(name));
	KT_EXPECT(t, !strncmp(name, "walk_here", 9), "frame 0 is %s", name);
	ksym_format(pcs[1] - 1, name, sizeof(name));
	KT_EXPECT(t, !strncmp(name, "ktest_stack_walk_names_the_callers+", 35), "frame 1 is %s", name);
	ksym_format(pcs[2] - 1, name, sizeof(name));
	KT_EXPECT(t, !strncmp(name, "test_thread+", 12), "frame 2 is %s", name);
}
