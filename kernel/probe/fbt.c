// SPDX-License-Identifier: BSD-2-Clause
/*
 * The fbt provider (function boundary tracing): for every function the
 * structural analysis read and that may be probed, fbt:kernel:F:entry at
 * its first instruction and fbt:kernel:F:return at each instruction that
 * leaves it: every return, and every unconditional jump to another
 * function (a tail call leaves the caller's frame as a return would).
 *
 * Aliases (two names, one address) get probes under the name the analysis
 * kept. Functions with no way out (they never return) have no return
 * probe.
 */
#include <scion/probe.h>
#include <scion/cfg.h>
#include <scion/symtab.h>
#include <scion/mm.h>
#include <scion/printk.h>
#include "probe_internal.h"

/* The exits of f into sites (room for f->nblocks); returns how many. */
static uint32_t exits(const struct cfg_function *f, uint64_t *sites)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < f->nblocks; i++) {
		const struct cfg_block *b = &f->blocks[i];
		struct insn_summary in;
		uint64_t at;
		if (!(b->end_kind & (CFG_END_RETURN | CFG_END_TAIL_CALL)) ||
		    cfg_block_control(b, &at, &in))
			continue;
		bool leaves = in.cls == INSN_CLASS_RETURN ||
			      ((b->end_kind & CFG_END_TAIL_CALL) && in.cls == INSN_CLASS_JUMP);
		const char *why;
		if (leaves && !probe_check_address(at, &why))
			sites[n++] = at;
	}
	return n;
}

static void fbt_provide(void)
{
	const char *why;
	uint32_t functions = 0, skipped = 0;

	if (cfg_analyse_kernel()) {
		printk("fbt: no memory for the analysis; no fbt probes\n");
		return;
	}
	for (uint32_t i = 0; i < kernel_symtab.count; i++) {
		const struct ksym *sym = &kernel_symtab.syms[i];
		const struct cfg_function *f;
		if (sym->flags & (SYM_INIT | SYM_NOPROBE) || !sym->size)
			continue;
		f = cfg_function_at(sym->addr);
		if (!f || f->sym != sym || f->status != CFG_OK || probe_check_address(sym->addr, &why)) {
			skipped++;
			continue;
		}
		const char *name = ksym_name(&kernel_symtab, sym);
		uint64_t *sites = kmalloc((f->nblocks ? f->nblocks : 1) * sizeof(uint64_t));
		if (!sites || !probe_create("fbt", "kernel", name, "entry", &sym->addr, 1)) {
			kfree(sites);
			printk("fbt: out of memory after %u functions\n", functions);
			return;
		}
		uint32_t n = exits(f, sites);
		if (n && !probe_create("fbt", "kernel", name, "return", sites, n))
			printk("fbt: out of memory for %s:return\n", name);
		kfree(sites);
		functions++;
	}
	(void)skipped;
}

PROBE_PROVIDER(fbt_provider, "fbt", fbt_provide, NULL);
