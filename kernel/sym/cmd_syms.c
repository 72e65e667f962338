// SPDX-License-Identifier: BSD-2-Clause
/* Shell command `syms`: look functions up by pattern or by address. */
#include <scion/shell.h>
#include <scion/symtab.h>
#include <scion/printk.h>
#include <scion/string.h>
#include <scion/errno.h>

static bool print_sym(const struct ksym *s, void *arg)
{
	(void)arg;
	printk("  0x%016llx %6u %s%s\n", (unsigned long long)s->addr, s->size,
	       ksym_name(&kernel_symtab, s), (s->flags & SYM_INIT) ? " [boot]" : "");
	return true;
}

static int cmd_syms(int argc, char **argv)
{
	if (argc != 2) {
		printk("syms: usage: syms <glob> | syms 0x<address>\n");
		return -EINVAL;
	}
	if (argv[1][0] == '0' && argv[1][1] == 'x') {
		uint64_t addr, off;
		if (parse_u64(argv[1], &addr, false)) {
			printk("syms: '%s' is not an address\n", argv[1]);
			return -EINVAL;
		}
		const struct ksym *s = symtab_lookup_addr(&kernel_symtab, addr, &off);
		if (!s) {
			printk("syms: 0x%llx is in no function\n", (unsigned long long)addr);
			return -ENOENT;
		}
		printk("0x%llx is %s+0x%llx\n", (unsigned long long)addr,
		       ksym_name(&kernel_symtab, s), (unsigned long long)off);
		return 0;
	}
	size_t n = symtab_foreach_glob(&kernel_symtab, argv[1], print_sym, NULL);
	printk("%zu function%s match '%s'\n", n, n == 1 ? "" : "s", argv[1]);
	return n ? 0 : -ENOENT;
}
SHELL_COMMAND(syms, "<glob>|0x<addr>", "find kernel functions by name pattern or address", cmd_syms);
