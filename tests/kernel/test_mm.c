// SPDX-License-Identifier: BSD-2-Clause
/*
 * In-kernel tests of memory: the page allocator and heap on the live
 * system, page permissions of the kernel image, and stack guard pages.
 */
#include <scion/ktest.h>
#include <scion/mm.h>
#include <scion/thread.h>
#include <scion/string.h>
#include <scion/errno.h>
#include <arch/mmu.h>
#include <arch/trap.h>

extern char poke_target[];
static const uint64_t rodata_word = 0x5c10;
static uint64_t data_word = 1;

KTEST(mm_pages_alloc_free, 1)
{
	struct pmm_stats before, after;
	uint64_t blocks[8];

	pmm_get_stats(&before);
	for (unsigned order = 0; order < 8; order++) {
		blocks[order] = pmm_alloc(order);
		KT_ASSERT(t, blocks[order] != PHYS_NONE, "order %u allocation failed", order);
		KT_EXPECT(t, (blocks[order] & ((PAGE_SIZE << order) - 1)) == 0,
			  "order %u block 0x%llx is misaligned", order,
			  (unsigned long long)blocks[order]);
		memset(phys_to_virt(blocks[order]), (int)order, PAGE_SIZE << order);
	}
	for (unsigned order = 0; order < 8; order++) {
		const uint8_t *p = phys_to_virt(blocks[order]);
		for (size_t i = 0; i < (PAGE_SIZE << order); i += 512)
			KT_EXPECT(t, p[i] == order, "order %u block overwritten", order);
		pmm_free(blocks[order], order);
	}
	pmm_get_stats(&after);
	KT_EXPECT(t, after.free_pages == before.free_pages, "free pages %llu before, %llu after",
		  (unsigned long long)before.free_pages, (unsigned long long)after.free_pages);
	KT_EXPECT(t, pmm_alloc(PMM_MAX_ORDER + 1) == PHYS_NONE, "an impossible order was granted");
}

KTEST(mm_kmalloc_sizes, 1)
{
	static const size_t sizes[] = { 1, 15, 16, 17, 100, 512, 2048, 2049, 4096, 10000, 65536 };
	void *ptrs[ARRAY_SIZE(sizes)];
	struct kmalloc_stats before, after;

	kmalloc_get_stats(&before);
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		ptrs[i] = kmalloc(sizes[i]);
		KT_ASSERT(t, ptrs[i], "kmalloc(%zu) failed", sizes[i]);
		KT_EXPECT(t, ((uintptr_t)ptrs[i] & 15) == 0, "kmalloc(%zu) not 16-byte aligned",
			  sizes[i]);
		memset(ptrs[i], (int)i + 1, sizes[i]);
	}
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		const uint8_t *p = ptrs[i];
		for (size_t k = 0; k < sizes[i]; k++)
			if (p[k] != (uint8_t)(i + 1)) {
				ktest_fail(t, __FILE__, __LINE__,
					   "object %zu (size %zu) overwritten at %zu", i, sizes[i], k);
				return;
			}
		kfree(ptrs[i]);
	}
	kmalloc_get_stats(&after);
	KT_EXPECT(t, after.bytes_in_use == before.bytes_in_use,
		  "bytes in use %llu before, %llu after", (unsigned long long)before.bytes_in_use,
		  (unsigned long long)after.bytes_in_use);
	uint8_t *z = kzalloc(300);
	KT_ASSERT(t, z, "kzalloc failed");
	for (int i = 0; i < 300; i++)
		KT_EXPECT(t, z[i] == 0, "kzalloc left byte %d non-zero", i);
	kfree(z);
	kfree(NULL);
}

KTEST_NEEDS(mm_image_permissions, 1, FEATURE_PAGE_PERMISSIONS)
{
	unsigned f;

	KT_EXPECT(t, arch_translate((uintptr_t)poke_target, &f) != UINT64_MAX &&
		     (f & MAP_EXEC) && !(f & MAP_WRITE), "text must be executable, read-only");
	KT_EXPECT(t, arch_translate((uintptr_t)&rodata_word, &f) != UINT64_MAX &&
		     !(f & (MAP_EXEC | MAP_WRITE)), "rodata must be read-only, no-execute");
	KT_EXPECT(t, arch_translate((uintptr_t)&data_word, &f) != UINT64_MAX &&
		     (f & MAP_WRITE) && !(f & MAP_EXEC), "data must be writable, no-execute");
	void *alias = phys_to_virt(virt_to_phys(poke_target));
	KT_EXPECT(t, arch_translate((uintptr_t)alias, &f) != UINT64_MAX &&
		     !(f & (MAP_EXEC | MAP_WRITE)), "the direct-map alias of text must be read-only");
	void *heap = kmalloc(64);
	KT_EXPECT(t, arch_translate((uintptr_t)heap, &f) != UINT64_MAX && (f & MAP_WRITE) &&
		     !(f & MAP_EXEC), "heap must be writable, no-execute");
	kfree(heap);
	KT_EXPECT(t, arch_translate(0x1000, NULL) == UINT64_MAX, "the lower half must be unmapped");
}

KTEST(mm_stack_guard_page, 1)
{
	struct thread *me = thread_current();
	uintptr_t guard = me->stack_base - PAGE_SIZE;

	KT_EXPECT(t, arch_translate(me->stack_base, NULL) != UINT64_MAX, "stack base unmapped");
	KT_EXPECT(t, arch_translate(guard, NULL) == UINT64_MAX, "guard page below the stack is mapped");
	KT_EXPECT(t, vmap_is_guard(guard), "vmap_is_guard does not know the guard page");
	uintptr_t sp = arch_current_fp();
	KT_EXPECT(t, sp >= me->stack_base && sp < me->stack_top, "running outside its own stack");
}

/*
 * Large buffers (kernel/mm/vbuf.c): mapped page by page and writable
 * throughout, an unmapped gap after each, every page given back on free,
 * and the same area taken again; sizes refused with -EINVAL.
 */
KTEST(mm_large_buffers, 1)
{
	struct pmm_stats before, after;
	struct vbuf a, b;
	const size_t size = (5u << 20) + 123;	/* past kmalloc's 4 MiB, not page-sized */

	/* The area's page tables stay once made: make them, then count pages. */
	KT_ASSERT(t, vbuf_alloc(&a, size) == 0 && vbuf_alloc(&b, PAGE_SIZE) == 0, "no large buffer");
	vbuf_free(&a);
	vbuf_free(&b);
	pmm_get_stats(&before);
	KT_ASSERT(t, vbuf_alloc(&a, size) == 0, "5 MiB: no large buffer");
	KT_EXPECT(t, a.size == ALIGN_UP(size, PAGE_SIZE), "size %zu", a.size);
	for (size_t off = 0; off < a.size; off += PAGE_SIZE)
		a.data[off] = (uint8_t)(off >> 12);
	bool same = true;
	for (size_t off = 0; off < a.size; off += PAGE_SIZE)
		same = same && a.data[off] == (uint8_t)(off >> 12);
	KT_EXPECT(t, same, "a page reads back differently");
	KT_EXPECT(t, arch_translate((uintptr_t)a.data + a.size, NULL) == UINT64_MAX,
		  "the page after the buffer is mapped");
	KT_ASSERT(t, vbuf_alloc(&b, PAGE_SIZE) == 0, "a second buffer");
	KT_EXPECT(t, b.data >= a.data + a.size + PAGE_SIZE || b.data + b.size <= a.data,
		  "the buffers overlap or touch");
	uint8_t *first = a.data;
	vbuf_free(&a);
	vbuf_free(&b);
	KT_EXPECT(t, a.data == NULL && a.pages == NULL, "freeing leaves the buffer described");
	KT_EXPECT(t, arch_translate((uintptr_t)first, NULL) == UINT64_MAX, "still mapped after free");
	pmm_get_stats(&after);
	KT_EXPECT(t, after.free_pages == before.free_pages, "%lld pages not given back",
		  (long long)(before.free_pages - after.free_pages));
	KT_ASSERT(t, vbuf_alloc(&a, PAGE_SIZE) == 0, "the area taken again");
	KT_EXPECT(t, a.data == first, "freed granules are not reused");
	vbuf_free(&a);
	KT_EXPECT(t, vbuf_alloc(&a, 0) == -EINVAL && a.data == NULL, "size 0 accepted");
	KT_EXPECT(t, vbuf_alloc(&a, (size_t)1 << 40) == -EINVAL, "1 TiB accepted");
}
