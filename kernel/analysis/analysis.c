// SPDX-License-Identifier: BSD-2-Clause
/*
 * The analysis of the whole kernel: every function of the runtime symbol
 * table, analysed once on first use. functions[i] belongs to
 * kernel_symtab.syms[i]. analysis_mutex guards the results while they are
 * built or forgotten; once built they are only read.
 */
#include <scion/cfg.h>
#include <scion/mm.h>
#include <scion/mutex.h>
#include <scion/printk.h>
#include <scion/errno.h>
#include <arch/cpu.h>
#include <scion/textimage.h>
#include "analysis_internal.h"

static struct mutex analysis_mutex = MUTEX_INIT(analysis_mutex, "analysis");
static struct cfg_function *functions;	/* analysis_mutex while being built */
static bool analysed;			/* analysis_mutex */
static struct cfg_totals totals;	/* analysis_mutex */

/* The text the analysis decodes: the booted image, whatever probes did since. */
const uint8_t *analysis_text(uint64_t addr)
{
	return text_image_ready() ? text_image_bytes(addr) : (const uint8_t *)(uintptr_t)addr;
}

extern char __rodata_start[], __rodata_end[], __text_start[], __text_end[];

static bool within(uint64_t addr, uint64_t len, const char *start, const char *end)
{
	return addr >= (uintptr_t)start && addr <= (uintptr_t)end && len <= (uintptr_t)end - addr;
}

const uint8_t *analysis_table(uint64_t addr, uint64_t len)
{
	if (within(addr, len, __rodata_start, __rodata_end))
		return (const uint8_t *)(uintptr_t)addr;
	if (ARCH_JUMP_TABLES_IN_TEXT && within(addr, len, __text_start, __text_end))
		return analysis_text(addr);
	return NULL;
}

static void release(struct cfg_function *f)
{
	kfree(f->blocks);
	kfree(f->succ);
	kfree(f->calls);
	kfree(f->insns);
}

static void add_totals(const struct cfg_function *f)
{
	totals.functions++;
	totals.bytes += f->sym->size;
	if (f->status != CFG_OK) {
		totals.failed++;
		return;
	}
	totals.analysed++;
	totals.blocks += f->nblocks;
	totals.insns += f->ninsns;
	totals.edges += f->nsucc;
	totals.calls += f->ncalls;
	totals.jump_tables += f->njump_tables;
	totals.unresolved += f->nunresolved;
}

int cfg_analyse_kernel(void)
{
	const struct symtab *st = &kernel_symtab;
	int err = 0;

	/* Done once: later callers (every probe site asks) need not take the lock. */
	if (__atomic_load_n(&analysed, __ATOMIC_ACQUIRE))
		return 0;
	mutex_lock(&analysis_mutex);
	if (analysed)
		goto out;
	uint64_t t0 = arch_cycles();
	functions = kzalloc(st->count * sizeof(*functions));
	if (!functions) {
		err = -ENOMEM;
		goto out;
	}
	totals = (struct cfg_totals){ 0 };
	for (uint32_t i = 0; i < st->count; i++) {
		struct cfg_function *f = &functions[i];
		f->sym = &st->syms[i];
		if (cfg_build_function(f, analysis_text(f->sym->addr)) == -ENOMEM)
			err = -ENOMEM;
		add_totals(f);
	}
	totals.cycles = arch_cycles() - t0;
	__atomic_store_n(&analysed, true, __ATOMIC_RELEASE);
out:
	mutex_unlock(&analysis_mutex);
	return err;
}

void cfg_forget(void)
{
	mutex_lock(&analysis_mutex);
	if (analysed) {
		for (uint32_t i = 0; i < kernel_symtab.count; i++)
			release(&functions[i]);
		kfree(functions);
		functions = NULL;
		__atomic_store_n(&analysed, false, __ATOMIC_RELEASE);
	}
	mutex_unlock(&analysis_mutex);
}

const struct cfg_function *cfg_function_at(uint64_t addr)
{
	const struct ksym *s = symtab_lookup_addr(&kernel_symtab, addr, NULL);

	if (!s || cfg_analyse_kernel())
		return NULL;
	return &functions[s - kernel_symtab.syms];
}

void cfg_get_totals(struct cfg_totals *t)
{
	cfg_analyse_kernel();
	mutex_lock(&analysis_mutex);
	*t = totals;
	mutex_unlock(&analysis_mutex);
}

/* Visit the functions the analysis could not handle (for `analysis`). */
void cfg_foreach_failure(void (*fn)(const struct cfg_function *f))
{
	if (cfg_analyse_kernel())
		return;
	for (uint32_t i = 0; i < kernel_symtab.count; i++)
		if (functions[i].status != CFG_OK)
			fn(&functions[i]);
}
