// SPDX-License-Identifier: BSD-2-Clause
/*
 * Shell commands over the structural analysis: `analysis`, `cfg`, `insn`.
 * What `insn` says of the instruction itself is the arch's
 * (arch_insn_describe); the registers live around it are the analysis's.
 */
#include <scion/cfg.h>
#include <scion/insn_summary.h>
#include <scion/shell.h>
#include <scion/printk.h>
#include <scion/format.h>
#include <scion/string.h>
#include <scion/errno.h>
#include <arch/analysis.h>
#include <arch/timer.h>

const char *cfg_format_regs(uint32_t mask, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned r = 0; r < ARCH_NREGS && n < size; r++)
		if (mask & (1u << r))
			n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? " " : "", arch_reg_name(r));
	if (!n)
		snprintf(buf, size, "-");
	return buf;
}

static const char *end_name(uint8_t kind)
{
	if (kind & CFG_END_JUMP_TABLE) return "jump table";
	if (kind & CFG_END_UNRESOLVED) return "unanalysable jump";
	if (kind & CFG_END_RETURN) return "return";
	if (kind & CFG_END_TAIL_CALL) return "tail call";
	if (kind & CFG_END_STOP) return "stop";
	if (kind & CFG_END_FALLS_OUT) return "falls out";
	return "";
}

static void print_failure(const struct cfg_function *f)
{
	char sym[96];
	printk("  %-28s %s at %s\n", ksym_name(&kernel_symtab, f->sym), cfg_status_name(f->status),
	       ksym_format(f->problem_addr, sym, sizeof(sym)));
}

static int cmd_analysis(int argc, char **argv)
{
	struct cfg_totals t;

	if (argc != 1) {
		printk("%s: takes no arguments\n", argv[0]);
		return -EINVAL;
	}
	if (cfg_analyse_kernel()) {
		printk("analysis: out of memory\n");
		return -ENOMEM;
	}
	cfg_get_totals(&t);
	uint64_t hz = arch_cycles_per_second();
	printk("analysis: %u functions, %u analysed, %u not; %llu blocks, %llu instructions, "
	       "%llu bytes\n", t.functions, t.analysed, t.failed, (unsigned long long)t.blocks,
	       (unsigned long long)t.insns, (unsigned long long)t.bytes);
	printk("  %llu edges, %llu call sites, %u jump tables resolved, %u indirect jumps "
	       "unanalysable\n", (unsigned long long)t.edges, (unsigned long long)t.calls,
	       t.jump_tables, t.unresolved);
	printk("  took %llu cycles (%llu us)\n", (unsigned long long)t.cycles,
	       (unsigned long long)(hz ? t.cycles * 1000000 / hz : 0));
	if (t.failed) {
		printk("not analysed:\n");
		cfg_foreach_failure(print_failure);
	}
	return 0;
}
SHELL_COMMAND(analysis, "", "analyse every kernel function; print totals and failures", cmd_analysis);

static int cmd_cfg(int argc, char **argv)
{
	char regs[160], sym[96];

	if (argc != 2) {
		printk("cfg: usage: cfg <function>\n");
		return -EINVAL;
	}
	const struct ksym *s = symtab_lookup_name(&kernel_symtab, argv[1]);
	if (!s) {
		printk("cfg: no function '%s'\n", argv[1]);
		return -ENOENT;
	}
	const struct cfg_function *f = cfg_function_at(s->addr);
	if (!f) {
		printk("cfg: the analysis could not run (out of memory)\n");
		return -ENOMEM;
	}
	if (f->status != CFG_OK) {
		printk("cfg: %s was not analysed: %s at %s\n", argv[1], cfg_status_name(f->status),
		       ksym_format(f->problem_addr, sym, sizeof(sym)));
		return -EINVAL;
	}
	printk("%s 0x%llx, %u bytes: %u blocks, %u instructions, %u calls, %u jump tables, "
	       "%u unanalysable jumps\n", argv[1], (unsigned long long)s->addr, s->size, f->nblocks,
	       f->ninsns, f->ncalls, f->njump_tables, f->nunresolved);
	for (uint32_t i = 0; i < f->nblocks; i++) {
		const struct cfg_block *b = &f->blocks[i];
		char succ[96];
		size_t n = 0;
		succ[0] = '\0';
		for (uint32_t k = 0; k < b->nsucc && n < sizeof(succ); k++)
			n += (size_t)snprintf(succ + n, sizeof(succ) - n, " %u", f->succ[b->first_succ + k]);
		printk("  block %-3u +0x%-5llx..+0x%-5llx %3u insns ->%-12s %-10s live-in: %s\n", i,
		       (unsigned long long)(b->start - s->addr), (unsigned long long)(b->end - s->addr),
		       b->ninsns, n ? succ : " -", end_name(b->end_kind),
		       cfg_format_regs(b->live_in, regs, sizeof(regs)));
	}
	return 0;
}
SHELL_COMMAND(cfg, "<function>", "basic blocks, edges and live registers of a function", cmd_cfg);

/* "0xADDR", "function" or "function+0xOFF" to an address. */
static int parse_location(const char *arg, uint64_t *addr)
{
	char name[96];
	const char *plus = strchr(arg, '+');
	uint64_t off = 0;

	if (arg[0] == '0' && arg[1] == 'x')
		return parse_u64(arg, addr, false);
	size_t n = plus ? (size_t)(plus - arg) : strlen(arg);
	if (n >= sizeof(name) || (plus && parse_u64(plus + 1, &off, false)))
		return -EINVAL;
	memcpy(name, arg, n);
	name[n] = '\0';
	const struct ksym *s = symtab_lookup_name(&kernel_symtab, name);
	if (!s)
		return -ENOENT;
	*addr = s->addr + off;
	return 0;
}

static int cmd_insn(int argc, char **argv)
{
	char regs[160];
	uint64_t addr;

	if (argc != 2) {
		printk("insn: usage: insn <0xaddress | function | function+0xoffset>\n");
		return -EINVAL;
	}
	int err = parse_location(argv[1], &addr);
	if (err) {
		printk("insn: '%s' is %s\n", argv[1],
		       err == -ENOENT ? "not a kernel function" : "not an address or function+offset");
		return err;
	}
	const struct ksym *s = symtab_lookup_addr(&kernel_symtab, addr, NULL);
	if (!s) {
		printk("insn: 0x%llx is not in kernel text\n", (unsigned long long)addr);
		return -EINVAL;
	}
	err = arch_insn_describe(addr, s->addr + s->size - addr);
	if (err)
		return err;
	uint32_t before, after;
	if (cfg_live_at(addr, &before, &after) == 0) {
		printk("  live before: %s\n", cfg_format_regs(before, regs, sizeof(regs)));
		printk("  free before: %s\n", cfg_format_regs(~before & ARCH_REGS_ALL, regs, sizeof(regs)));
		printk("  live after:  %s\n", cfg_format_regs(after, regs, sizeof(regs)));
		printk("  free after:  %s\n", cfg_format_regs(~after & ARCH_REGS_ALL, regs, sizeof(regs)));
	} else {
		printk("  live registers: unknown (not an instruction boundary of an analysed function)\n");
	}
	return 0;
}
SHELL_COMMAND(insn, "<addr|func+off>", "decode one kernel instruction; its free registers", cmd_insn);
