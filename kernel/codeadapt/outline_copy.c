// SPDX-License-Identifier: BSD-2-Clause
/*
 * Outlining's copy and its counts (scion/outline.h): which blocks of a
 * function are cold, by counting splices; and the copy with the cold
 * blocks after the hot ones, built by the arch (scion/outline_arch.h)
 * into patch memory (scion/probe_code.h).
 *
 * Building a copy:
 *   1. check the function: an analysed function's entry, CFG_OK, not in
 *      .text.noprobe (probe_check_address: the kernel's own patching
 *      and trap code must not run from a copy);
 *   2. lay the blocks out: the entry block, the other hot blocks in
 *      address order, then the cold ones in address order;
 *   3. size the copy (the arch's branches are rel32 everywhere, so the
 *      size does not depend on where it will run);
 *   4. reserve patch memory of that size, build again at its address,
 *      and write code and origins in before anything can jump there.
 * Nothing here takes a lock of its own; the probe heap's mutex is taken
 * inside probe_code_*, the coverage run's inside coverage_*.
 */
#include <scion/outline.h>
#include <scion/outline_arch.h>
#include <scion/probe_code.h>
#include <scion/probe.h>
#include <scion/coverage.h>
#include <scion/clock.h>
#include <scion/cfg.h>
#include <scion/mm.h>
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>
#include <arch/mmu.h>

/* Room for one build: the most code a copy may hold. */
#define BUILD_ROOM PROBE_CODE_MAX

static const struct cfg_function *function_of(uint64_t function, char *err, size_t errlen)
{
	const struct cfg_function *f = cfg_function_at(function);
	const char *why;

	if (!f || f->sym->addr != function) {
		snprintf(err, errlen, "%#llx is not the entry of an analysed function",
			 (unsigned long long)function);
		return NULL;
	}
	const char *name = ksym_name(&kernel_symtab, f->sym);
	if (f->status != CFG_OK) {
		snprintf(err, errlen, "%s: its analysis says %s", name,
			 cfg_status_name((enum cfg_status)f->status));
		return NULL;
	}
	if (probe_check_address(function, &why)) {
		snprintf(err, errlen, "%s: %s", name, why);
		return NULL;
	}
	return f;
}

void outline_free(struct outline_copy *c)
{
	if (!c)
		return;
	probe_code_free(c->mem);
	kfree(c->block_at);
	kfree(c);
}

/* Step 2: order[] gets the entry, the hot blocks, then the cold ones. */
static void lay_out(const struct cfg_function *f, const bool *cold, uint32_t *order,
		    struct outline_copy *c)
{
	uint32_t n = 0;

	order[n++] = 0;
	for (uint32_t i = 1; i < f->nblocks; i++)
		if (!cold || !cold[i])
			order[n++] = i;
	c->hot = n;
	for (uint32_t i = 1; i < f->nblocks; i++)
		if (cold && cold[i])
			order[n++] = i;
	c->cold = n - c->hot;
}

int outline_build(uint64_t function, const bool *cold, struct outline_copy **out, char *err,
		  size_t errlen)
{
	const char *why = "";
	int rc = -ENOMEM;

	/* Step 1. */
	const struct cfg_function *f = function_of(function, err, errlen);
	if (!f)
		return -EINVAL;
	struct outline_copy *c = kzalloc(sizeof(*c));
	uint32_t *order = kmalloc(f->nblocks * sizeof(uint32_t));
	/* Sized at the patch arena's start, as site_build.c sizes a patch: any address there
	   gives the same size, and none of them is the original's. */
	struct outline_emit e = { .cap = BUILD_ROOM, .runs_at = PATCH_CODE_BASE,
				  .map_cap = f->ninsns };
	e.code = kmalloc(BUILD_ROOM);
	e.map = kmalloc(f->ninsns * sizeof(*e.map));
	if (c)
		c->block_at = e.block_at = kmalloc(f->nblocks * sizeof(uint32_t));
	if (!c || !order || !e.code || !e.map || !e.block_at) {
		snprintf(err, errlen, "no memory to build a copy");
		goto fail;
	}
	c->function = function;
	c->nblocks = f->nblocks;
	strlcpy(c->name, ksym_name(&kernel_symtab, f->sym), sizeof(c->name));
	lay_out(f, cold, order, c);

	/* Step 3. */
	rc = arch_outline_build(f, order, &e, &why);
	if (rc)
		goto refused;
	/* Step 4. */
	size_t len = e.len;
	if (!probe_code_fits(len, e.nmap)) {
		rc = -ENOSPC;
		why = "the copy and its map of instructions would not fit a patch (16 KB)";
		goto refused;
	}
	c->mem = probe_code_alloc(function, len, e.nmap, &e.runs_at);
	if (!c->mem) {
		rc = -ENOSPC;
		why = "no patch memory for the copy";
		goto refused;
	}
	rc = arch_outline_build(f, order, &e, &why);
	if (!rc && e.len != len) {
		rc = -EINVAL;
		why = "the copy's size depends on where it runs";
	}
	if (rc)
		goto refused;
	probe_code_fill(c->mem, e.code, e.len, e.map, e.nmap);
	c->entry = c->start = e.runs_at;
	c->end = e.runs_at + e.len;
	c->jumps_added = e.jumps_added;
	c->jumps_dropped = e.jumps_dropped;
	c->branches_inverted = e.branches_inverted;
	kfree(order);
	kfree(e.code);
	kfree(e.map);
	*out = c;
	return 0;
refused:
	snprintf(err, errlen, "%s: %s", c->name, why);
fail:
	kfree(order);
	kfree(e.code);
	kfree(e.map);
	if (c)
		outline_free(c);
	else
		kfree(e.block_at);
	return rc;
}

struct count_walk {
	const struct cfg_function *f;
	uint64_t *counts;
};

static bool take_count(const struct coverage_block *b, void *arg)
{
	struct count_walk *w = arg;
	const struct cfg_function *f = w->f;

	if (b->start < f->sym->addr || b->start >= f->sym->addr + f->sym->size)
		return true;	/* another function of the same name */
	const struct cfg_block *blk = cfg_block_at(f, b->start);
	if (!blk || blk->start != b->start)
		return true;
	uint64_t *n = &w->counts[blk - f->blocks];
	*n = b->state == COVERAGE_UNPROBED ? UINT64_MAX : b->state == COVERAGE_MISSED ? 0 : b->hits;
	return true;
}

int outline_count(uint64_t function, unsigned ms, uint64_t *counts, uint32_t nblocks, char *err,
		  size_t errlen)
{
	const struct cfg_function *f = function_of(function, err, errlen);
	const char *why = "";

	if (!f)
		return -EINVAL;
	if (nblocks != f->nblocks) {
		snprintf(err, errlen, "%s has %u blocks, not %u", ksym_name(&kernel_symtab, f->sym),
			 f->nblocks, nblocks);
		return -EINVAL;
	}
	/* A block coverage could not see stays UINT64_MAX: unknown counts as hot. */
	for (uint32_t i = 0; i < nblocks; i++)
		counts[i] = UINT64_MAX;
	const char *spec = ksym_name(&kernel_symtab, f->sym);
	int armed = coverage_start(&spec, 1, 0, &why);
	if (armed < 0) {
		snprintf(err, errlen, "counting %s: %s", spec, why);
		return armed;
	}
	thread_sleep_ms(ms);
	coverage_stop();
	struct count_walk w = { f, counts };
	coverage_foreach_block(take_count, &w);
	return 0;
}
