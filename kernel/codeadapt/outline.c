// SPDX-License-Identifier: BSD-2-Clause
/*
 * Outlining as a code adaptation (scion/outline.h): a copy built by
 * outline_copy.c, installed with an unconditional redirect at the
 * original's entry (codeadapt_install, CODEADAPT_OUTLINE), and the shell's
 *   codeadapt outline FUNC [ms=N] [cold=C]
 * which counts FUNC's blocks for N ms (default 1000) while the system
 * runs, takes as cold the blocks that ran at most C times (default 0),
 * builds and installs the copy and prints one line: the adaptation's id,
 * the hot and cold blocks and the copy's size.
 *
 * The adaptation owns the copy once installed: its release callback
 * frees it, after the registry has seen that nothing runs in it.
 * Lock order: none here (codeadapt's and the probe heap's are inside).
 */
#include <scion/outline.h>
#include <scion/codeadapt.h>
#include <scion/cfg.h>
#include <scion/symtab.h>
#include <scion/printk.h>
#include <scion/string.h>
#include <scion/format.h>
#include <scion/mm.h>
#include <scion/errno.h>

#define DEFAULT_MS 1000

static void release_copy(void *owner)
{
	outline_free(owner);
}

int outline_install(struct outline_copy *c, char *err, size_t errlen)
{
	struct codeadapt_spec s = {
		.kind = CODEADAPT_OUTLINE, .function = c->function, .version = c->entry,
		.version_start = c->start, .version_end = c->end, .arg = -1, .tid = 0,
		.source = "outline", .release = release_copy, .owner = c,
	};
	return codeadapt_install(&s, err, errlen);	/* releases c on failure */
}

int outline_function(uint64_t function, unsigned ms, uint64_t threshold, uint32_t *hot,
		     uint32_t *cold, uint32_t *size, char *err, size_t errlen)
{
	const struct cfg_function *f = cfg_function_at(function);
	struct outline_copy *c;

	if (!f || f->sym->addr != function) {
		snprintf(err, errlen, "%#llx is not the entry of an analysed function",
			 (unsigned long long)function);
		return -EINVAL;
	}
	/* Its blocks past the entry would count nothing while calls go to another version. */
	struct codeadapt_info a;
	if (codeadapt_find(function, &a)) {
		snprintf(err, errlen, "codeadapt: %s is adapted already (%u)", a.function, a.id);
		return -EEXIST;
	}
	/* A function that cannot be copied is refused before N ms of counting, not after. */
	int rc = outline_build(function, NULL, &c, err, errlen);
	if (rc)
		return rc;
	outline_free(c);
	uint64_t *counts = kmalloc(f->nblocks * sizeof(uint64_t));
	bool *is_cold = kmalloc(f->nblocks * sizeof(bool));
	rc = -ENOMEM;
	if (!counts || !is_cold) {
		snprintf(err, errlen, "no memory for %u block counts", f->nblocks);
		goto out;
	}
	rc = outline_count(function, ms, counts, f->nblocks, err, errlen);
	if (rc)
		goto out;
	outline_cold_from_counts(counts, f->nblocks, threshold, is_cold);
	rc = outline_build(function, is_cold, &c, err, errlen);
	if (rc)
		goto out;
	*hot = c->hot;
	*cold = c->cold;
	*size = (uint32_t)(c->end - c->start);
	rc = outline_install(c, err, errlen);
out:
	kfree(counts);
	kfree(is_cold);
	return rc;
}

/* ms=N or cold=C into *ms / *threshold; false (and a line) when word is neither. */
static bool parse_option(const char *word, uint64_t *ms, uint64_t *threshold)
{
	if (!strncmp(word, "ms=", 3) && !parse_u64(word + 3, ms, false) && *ms &&
	    *ms <= OUTLINE_MAX_MS)
		return true;
	if (!strncmp(word, "cold=", 5) && !parse_u64(word + 5, threshold, false))
		return true;
	printk("codeadapt: '%s' is neither ms=N (1 to %u) nor cold=C\n", word, OUTLINE_MAX_MS);
	return false;
}

static int cmd_outline(int argc, char **argv)
{
	uint64_t ms = DEFAULT_MS, threshold = 0;
	uint32_t hot = 0, cold = 0, size = 0;
	char err[160];

	if (argc < 2 || argc > 4) {
		printk("codeadapt: usage: codeadapt outline FUNC [ms=N] [cold=C]\n");
		return -EINVAL;
	}
	for (int i = 2; i < argc; i++)
		if (!parse_option(argv[i], &ms, &threshold))
			return -EINVAL;
	const struct ksym *s = symtab_lookup_name(&kernel_symtab, argv[1]);
	if (!s || !s->size) {
		printk("codeadapt: no kernel function %s\n", argv[1]);
		return -ENOENT;
	}
	int id = outline_function(s->addr, (unsigned)ms, threshold, &hot, &cold, &size, err,
				  sizeof(err));
	if (id < 0) {
		/* The registry's lines name themselves already; the builder's do not. */
		printk("%s%s\n", strncmp(err, "codeadapt:", 10) ? "codeadapt: outline " : "", err);
		return id;
	}
	printk("codeadapt: %d: %s outlined: %u hot blocks, %u cold out of line, %u bytes\n", id,
	       argv[1], hot, cold, size);
	return 0;
}
CODEADAPT_COMMAND(outline, "FUNC [ms=N] [cold=C]", cmd_outline);
