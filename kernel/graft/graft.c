// SPDX-License-Identifier: BSD-2-Clause
/*
 * Loaded grafts: linking an image into the graft area, checking its
 * manifest against the graft point it names, the registry, and the
 * grafts that arrive as boot modules.
 *
 * Loading: (1) graft_elf_load lays the sections out in freshly mapped
 * read/write regions, applies the relocations and resolves undefined
 * symbols against the graft_exports table only (and, for the sandboxing
 * step's masks, the text region's base and mask); a sandboxed graft's
 * text region is a power of two, aligned to its size, filled with ud2
 * and ending in the exit stub (arch_sfi_text_init) before the sections
 * are copied in; (2) the manifest's point must exist with the same
 * signature, its name must be new; (3) software fault isolation: the
 * verifier (arch/sfi.h) reads the whole text while it is still writable
 * data that nothing can run, and refuses the graft unless every
 * instruction follows the scheme; then each CPU gets its window (a
 * stack and an alias of the data). A trusted load skips step 3 and
 * refuses an image the sandboxing step built (its code needs its
 * window to run); a machine without a sandbox (FEATURE_SANDBOX,
 * arch/features.h) refuses a sandboxed load before step 1; (4) the
 * regions get their final rights: text read+execute, rodata
 * read-only, data read/write. Any failure frees the regions and leaves
 * one line in err.
 *
 * The registry (graft_registry, a mutex) lists every loaded graft in
 * load order. Grafts stay loaded (and their statistics kept) until the
 * kernel stops. Each keeps a copy of its image, from which a private
 * copy (its own code and data, never registered or installed) can be
 * linked for a simulation instance (kernel/insitu/).
 */
#include <scion/graft.h>
#include <scion/txn.h>
#include <scion/mm.h>
#include <scion/mutex.h>
#include <scion/boot.h>
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>
#include <scion/printk.h>
#include <scion/channel.h>
#include <scion/symtab.h>
#include <scion/features.h>
#include <arch/mmu.h>
#include <arch/cpu.h>
#include "graft_internal.h"
#include "elf_load.h"

static struct mutex graft_registry = MUTEX_INIT(graft_registry, "graft-registry");
static LIST_HEAD(grafts);		/* graft_registry */
static struct spinlock abort_lock = SPINLOCK_INIT("graft-abort-note");

static struct graft_boot_module boot_grafts[BOOT_MAX_MODULES];	/* written once by graft_init */
static unsigned nboot_grafts;

struct load_ctx {
	enum graft_load_mode mode;
	uintptr_t region[GRAFT_REGIONS];
	size_t region_size[GRAFT_REGIONS];
};

/* The sandboxing step's masks refer to these; the loader resolves them for the text region. */
#define SFI_TEXT_BASE_SYMBOL "__sfi_text_base"
#define SFI_TEXT_MASK_SYMBOL "__sfi_text_mask"

static void *load_alloc(void *opaque, enum graft_region region, size_t size)
{
	struct load_ctx *ctx = opaque;
	size_t align = PAGE_SIZE;
	if (region == GRAFT_REGION_TEXT && ctx->mode == GRAFT_SANDBOXED)
		size = align = (size_t)arch_sfi_text_size(size);
	uintptr_t va = graft_mem_alloc_aligned(size, align);
	if (!va)
		return NULL;
	if (region == GRAFT_REGION_TEXT && ctx->mode == GRAFT_SANDBOXED)
		arch_sfi_text_init((uint8_t *)va, va, size, (uintptr_t)arch_sfi_exit);
	ctx->region[region] = va;
	ctx->region_size[region] = size;
	return (void *)va;
}

/*
 * The exported API's addresses, and the text region's base and mask.
 * Those two are only known once the text is allocated: before that
 * (the loader's first half checks only that a symbol resolves) they
 * are a stand-in.
 */
static uint64_t load_resolve(void *opaque, const char *name)
{
	struct load_ctx *ctx = opaque;
	uintptr_t text = ctx->region[GRAFT_REGION_TEXT];
	if (!strcmp(name, SFI_TEXT_BASE_SYMBOL))
		return text ? text : 1;
	if (!strcmp(name, SFI_TEXT_MASK_SYMBOL))
		return text ? sfi_text_mask((uint32_t)ctx->region_size[GRAFT_REGION_TEXT]) : 1;
	LINKER_TABLE_FOREACH(struct graft_export, graft_exports, e)
		if (!strcmp(e->name, name))
			return e->address;
	return 0;
}

static bool is_exported_entry(void *opaque, uint64_t addr)
{
	(void)opaque;
	LINKER_TABLE_FOREACH(struct graft_export, graft_exports, e)
		if (e->address == addr)
			return true;
	return false;
}

/* The verifier over g's text as loaded. 0, or -1 with err filled. */
static int verify_text(const struct graft *g, char *err, size_t errlen)
{
	const struct sfi_layout layout = {
		.text = g->region[GRAFT_REGION_TEXT], .text_size = g->region_size[GRAFT_REGION_TEXT],
		.entry = g->entry,
		.data = g->region[GRAFT_REGION_DATA], .data_size = g->region_size[GRAFT_REGION_DATA],
		.exit_gate = (uintptr_t)arch_sfi_exit, .is_api_entry = is_exported_entry,
	};
	uint8_t *marks = kmalloc(layout.text_size);
	char why[SFI_ERR_MAX];
	if (!marks) {
		snprintf(err, errlen, "out of memory for the verifier");
		return -1;
	}
	int rc = sfi_verify((const uint8_t *)layout.text, &layout, marks, why);
	kfree(marks);
	if (rc)
		snprintf(err, errlen, "%s", why);
	return rc ? -1 : 0;
}

/* Step 3: the verifier over the text, then the windows. 0, or -1 with err filled. */
static int sandbox(struct graft *g, char *err, size_t errlen)
{
	if (verify_text(g, err, errlen))
		return -1;
	if (arch_sfi_create(&g->sfi, g->region[GRAFT_REGION_TEXT], g->region_size[GRAFT_REGION_TEXT],
			    g->region[GRAFT_REGION_DATA], g->region_size[GRAFT_REGION_DATA], err, errlen))
		return -1;
	g->sandboxed = true;
	return 0;
}

int graft_reverify(struct graft *g, uint64_t *cycles, char *err, size_t errlen)
{
	if (!g->sandboxed) {
		snprintf(err, errlen, "'%s' is %s: it was not verified", g->name,
			 g->builtin ? "built into the kernel" : "trusted");
		return -EINVAL;
	}
	uint64_t start = arch_cycles();
	int rc = verify_text(g, err, errlen);
	*cycles = arch_cycles() - start;
	if (!rc)
		WRITE_ONCE(g->verify_cycles, *cycles);	/* GRAFT_LIST reports it (a benchmark reads it) */
	return rc ? -ENOEXEC : 0;
}

static const struct graft_load_ops load_ops = {
	.alloc = load_alloc,
	.resolve = load_resolve,
};

static void free_regions(struct load_ctx *ctx)
{
	for (unsigned r = 0; r < GRAFT_REGIONS; r++)
		graft_mem_free(ctx->region[r], ctx->region_size[r]);
}

/* Caller holds graft_registry. */
static struct graft *find_locked(const char *name)
{
	list_foreach(&grafts, it) {
		struct graft *g = list_entry(it, struct graft, node);
		if (!strcmp(g->name, name))
			return g;
	}
	return NULL;
}

static const char *check_manifest(const struct graft_manifest *m, const struct graft_point **point,
				  char *err, size_t errlen)
{
	const struct graft_point *p = graft_point_find(m->point);
	if (!p) {
		snprintf(err, errlen, "graft '%s' names graft point '%s', which does not exist "
			 "(`graft points` lists them)", m->name, m->point);
		return err;
	}
	if (strcmp(p->signature, m->signature)) {
		snprintf(err, errlen, "graft '%s' has signature '%s' but %s is '%s'", m->name,
			 m->signature, p->name, p->signature);
		return err;
	}
	*point = p;
	return NULL;
}

/* Steps 1 to 4 of loading: a graft descriptor over freshly linked regions, or NULL. */
static struct graft *link_image(const void *image, size_t size, const char *source,
				enum graft_load_mode mode, char *err, size_t errlen)
{
	struct load_ctx ctx = { .mode = mode };
	struct graft_image im;
	const struct graft_point *point = NULL;

	/* A machine without a sandbox says so before anything is linked or allocated. */
	if (mode == GRAFT_SANDBOXED && machine_lacks(FEATURE_SANDBOX)) {
		snprintf(err, errlen, "%s", machine_lacks_reason(FEATURE_SANDBOX));
		return NULL;
	}
	if (graft_elf_load(image, size, &load_ops, &ctx, &im, err, errlen)) {
		free_regions(&ctx);
		return NULL;
	}
	if (mode == GRAFT_TRUSTED && im.sfi_note) {
		snprintf(err, errlen, "built by the sandboxing step (%s): it runs only sandboxed; "
			 "load it without --trusted, or load the build in build/grafts/trusted/",
			 GRAFT_SFI_NOTE);
		free_regions(&ctx);
		return NULL;
	}
	if (check_manifest(im.manifest, &point, err, errlen)) {
		free_regions(&ctx);
		return NULL;
	}
	struct graft *g = kzalloc(sizeof(*g));
	void *copy = g ? kmalloc(size) : NULL;
	if (!copy) {
		snprintf(err, errlen, "out of memory for the graft's descriptor");
		kfree(g);
		free_regions(&ctx);
		return NULL;
	}
	memcpy(copy, image, size);
	g->image = copy;
	g->image_size = size;
	strlcpy(g->name, im.manifest->name, sizeof(g->name));
	strlcpy(g->source, source, sizeof(g->source));
	g->version = im.manifest->version;
	g->point = point;
	g->entry = im.entry;
	g->code_start = ctx.region[GRAFT_REGION_TEXT];
	g->code_end = g->code_start + ctx.region_size[GRAFT_REGION_TEXT];
	for (unsigned r = 0; r < GRAFT_REGIONS; r++) {
		g->region[r] = ctx.region[r];
		g->region_size[r] = ctx.region_size[r];
	}
	if (mode == GRAFT_SANDBOXED && sandbox(g, err, errlen)) {
		kfree(g->image);
		kfree(g);
		free_regions(&ctx);
		return NULL;
	}
	graft_mem_protect(ctx.region[GRAFT_REGION_TEXT], ctx.region_size[GRAFT_REGION_TEXT], MAP_EXEC);
	/* The text was written as data: instruction fetch must see it, not what the pages held. */
	arch_sync_code_range(ctx.region[GRAFT_REGION_TEXT], ctx.region_size[GRAFT_REGION_TEXT]);
	graft_mem_protect(ctx.region[GRAFT_REGION_RODATA], ctx.region_size[GRAFT_REGION_RODATA], 0);
	return g;
}

static void unlink_image(struct graft *g)
{
	if (g->sandboxed)
		arch_sfi_destroy(&g->sfi);
	for (unsigned r = 0; r < GRAFT_REGIONS; r++)
		graft_mem_free(g->region[r], g->region_size[r]);
	kfree(g->image);
	kfree(g);
}

struct graft *graft_load(const void *image, size_t size, const char *source,
			 enum graft_load_mode mode, char *err, size_t errlen)
{
	struct graft *g = link_image(image, size, source, mode, err, errlen);
	if (!g)
		return NULL;
	mutex_lock(&graft_registry);
	if (find_locked(g->name)) {
		mutex_unlock(&graft_registry);
		snprintf(err, errlen, "a graft named '%s' is already loaded", g->name);
		unlink_image(g);
		return NULL;
	}
	list_add_tail(&grafts, &g->node);
	mutex_unlock(&graft_registry);
	char line[GRAFT_LOAD_LINE];
	graft_load_line(line, sizeof(line), source, g, NULL);
	channel_event("%s", line);
	return g;
}

size_t graft_load_line(char *buf, size_t size, const char *source, const struct graft *g,
		       const char *why)
{
	int n = g ? snprintf(buf, size - 1, "graft: %s: loaded '%s' for %s (version %u%s)", source,
			     g->name, g->point->name, g->version, g->sandboxed || g->builtin ? ""
			     : ", trusted")
		  : snprintf(buf, size - 1, "graft: %s: refused: %s", source, why);
	return (size_t)n < size - 1 ? (size_t)n : size - 2;
}

struct graft *graft_load_private(const struct graft *g, char *err, size_t errlen)
{
	if (!g->image) {
		snprintf(err, errlen, "'%s' is built into the kernel: it has no image to copy", g->name);
		return NULL;
	}
	char source[sizeof(g->source)];
	snprintf(source, sizeof(source), "copy of %s", g->name);
	struct graft *copy = link_image(g->image, g->image_size, source,
					g->sandboxed ? GRAFT_SANDBOXED : GRAFT_TRUSTED, err, errlen);
	if (copy)
		copy->quiet = true;
	return copy;
}

void graft_unload_private(struct graft *g)
{
	if (g)
		unlink_image(g);
}

struct graft *graft_create_builtin(const char *name, const char *point, void *fn)
{
	const struct graft_point *p = graft_point_find(point);
	uint64_t off;
	const struct ksym *s = symtab_lookup_addr(&kernel_symtab, (uintptr_t)fn, &off);
	if (!p || !s || off)
		return NULL;
	struct graft *g = kzalloc(sizeof(*g));
	if (!g)
		return NULL;
	strlcpy(g->name, name, sizeof(g->name));
	strlcpy(g->source, "built in", sizeof(g->source));
	g->point = p;
	g->entry = (uintptr_t)fn;
	g->code_start = s->addr;
	g->code_end = s->addr + s->size;
	g->builtin = true;
	return g;
}

void graft_destroy_builtin(struct graft *g)
{
	if (!g)
		return;
	graft_remove(g);
	kfree(g);
}

struct graft *graft_find(const char *name)
{
	mutex_lock(&graft_registry);
	struct graft *g = find_locked(name);
	mutex_unlock(&graft_registry);
	return g;
}

struct scoped_removal {
	uint64_t tid;
	unsigned removed;
};

static void remove_if_scoped(struct graft *g, void *arg)
{
	struct scoped_removal *r = arg;
	if (READ_ONCE(g->scope_tid) == r->tid && READ_ONCE(g->installed) && graft_remove(g) == 0)
		r->removed++;
}

unsigned graft_remove_scoped(uint64_t tid)
{
	struct scoped_removal r = { tid, 0 };
	if (tid)
		graft_foreach(remove_if_scoped, &r);
	return r.removed;
}

void graft_foreach(void (*fn)(struct graft *g, void *arg), void *arg)
{
	mutex_lock(&graft_registry);
	list_foreach(&grafts, it)
		fn(list_entry(it, struct graft, node), arg);
	mutex_unlock(&graft_registry);
}

bool graft_owns_memory(const struct graft *g, uintptr_t a, size_t len)
{
	if (g->sandboxed && arch_sfi_owns_stack(&g->sfi, a, len))
		return true;
	for (unsigned r = 0; r < GRAFT_REGIONS; r++)
		if (g->region[r] && a >= g->region[r] && a + len <= g->region[r] + g->region_size[r] &&
		    a + len >= a)
			return true;
	return false;
}

/* An invocation is counted when it ends, as a commit or an abort: one
 * atomic add per invocation, and the three figures always agree. */
void graft_counts(const struct graft *g, struct graft_counts *out)
{
	out->commits = __atomic_load_n(&g->commits, __ATOMIC_ACQUIRE);
	out->aborts = __atomic_load_n(&g->aborts, __ATOMIC_ACQUIRE);
	out->invocations = out->commits + out->aborts;
}

void graft_note_abort(struct graft *g, const char *why)
{
	irqflags_t f = spin_lock_irqsave(&abort_lock);
	strlcpy(g->last_abort, why, sizeof(g->last_abort));
	spin_unlock_irqrestore(&abort_lock, f);
}

void graft_last_abort(const struct graft *g, char *buf, size_t n)
{
	irqflags_t f = spin_lock_irqsave(&abort_lock);
	strlcpy(buf, g->last_abort, n);
	spin_unlock_irqrestore(&abort_lock, f);
}

/* Whether the module's command line asks for a trusted load: "NAME.graft trusted". */
static bool boot_module_trusted(const struct boot_module *m)
{
	const char *space = strchr(m->cmdline, ' ');
	return space && !strcmp(space + 1, "trusted");
}

void graft_init(void)
{
	graft_points_init();
	for (unsigned i = 0; i < boot_info.nmodules; i++) {
		const struct boot_module *m = &boot_info.modules[i];
		if (boot_module_is_profile_config(m))
			continue;	/* the monitor's (monitor_config_boot) */
		if (boot_module_is_program_archive(m))
			continue;	/* the program archive's (archive_init) */
		if (boot_module_is_anonymous_trace(m))
			continue;	/* anonymous tracing's (trace_anon_boot) */
		struct graft_boot_module *b = &boot_grafts[nboot_grafts++];
		boot_module_name(m, b->source, sizeof(b->source));
		b->size = m->phys_end - m->phys_start;
		b->graft = graft_load(phys_to_virt(m->phys_start), b->size, b->source,
				      boot_module_trusted(m) ? GRAFT_TRUSTED : GRAFT_SANDBOXED,
				      b->error, sizeof(b->error));
		char line[GRAFT_LOAD_LINE];
		graft_load_line(line, sizeof(line), b->source, b->graft, b->error);
		printk("%s\n", line);
	}
}

unsigned graft_boot_modules(const struct graft_boot_module **out)
{
	*out = boot_grafts;
	return nboot_grafts;
}
