/* SPDX-License-Identifier: BSD-2-Clause */
/* Interfaces between the files of kernel/graft. */
#ifndef KERNEL_GRAFT_INTERNAL_H
#define KERNEL_GRAFT_INTERNAL_H

#include <scion/graft.h>

/* The point's result as its type's width sees it (0 for void). */
static inline uint64_t graft_point_mask_result(const struct graft_point *p, uint64_t r)
{
	return r & p->result_mask;
}

/* Call p's default implementation with the six argument words. */
uint64_t graft_call_default(const struct graft_point *p, const uint64_t args[6]);

/*
 * graft_reverify - run the sandbox's verifier again over loaded g's text
 *   (`graft verify`; a benchmark of the verifier), timing it; the time
 *   is kept in g->verify_cycles, which GRAFT_LIST reports.
 * Return value: 0 with *cycles set, -EINVAL when g is not sandboxed,
 *   -ENOEXEC when its text no longer verifies; err filled on failure.
 * Caller's context: thread, no spinlocks.
 */
int graft_reverify(struct graft *g, uint64_t *cycles, char *err, size_t errlen);

/* Statistics and the last abort of g (graft.c). Any context. */
static inline void graft_note_invocation(struct graft *g, bool committed, uint64_t cycles)
{
	__atomic_fetch_add(committed ? &g->commits : &g->aborts, 1, __ATOMIC_RELEASE);
	__atomic_fetch_add(&g->cycles, cycles, __ATOMIC_RELAXED);
}
void graft_note_abort(struct graft *g, const char *why);

/* Whether [a, a + len) lies in g's own loaded image. */
bool graft_owns_memory(const struct graft *g, uintptr_t a, size_t len);

/* The graft of the innermost open transaction on this CPU, or NULL. */
struct graft *txn_current_graft(void);

/* Copy a string a graft handed to the API, only as far as it may read;
 * unprintable bytes become '?'. Return value: its length. */
size_t txn_copy_graft_string(char *dst, size_t n, const char *src);

/*
 * The graft area (graft_mem.c): page-granular regions with an unmapped
 * guard page after each. graft_mem_alloc maps zeroed pages read/write;
 * graft_mem_protect sets the final rights (MAP_* of arch/mmu.h).
 * Caller's context: thread, no spinlocks.
 */
uintptr_t graft_mem_alloc(size_t bytes);
/* The same at an address aligned to align (a power of two, at least a page). */
uintptr_t graft_mem_alloc_aligned(size_t bytes, size_t align);
void graft_mem_protect(uintptr_t va, size_t bytes, unsigned map_flags);
void graft_mem_free(uintptr_t va, size_t bytes);
size_t graft_mem_pages_in_use(void);

/* A graft that came as a boot module, loaded or refused (`graft avail`). */
struct graft_boot_module {
	char source[48];
	size_t size;
	struct graft *graft;		/* NULL when refused */
	char error[160];
};
unsigned graft_boot_modules(const struct graft_boot_module **out);

/* Compute each point's budget in cycles (point.c). Caller: graft_init. */
void graft_points_init(void);

#endif
