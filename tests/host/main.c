// SPDX-License-Identifier: BSD-2-Clause
/*
 * Host unit test runner: runs the tests of the host_tests linker section
 * (all, or those named on the command line). The kernel services the
 * tested sources need are in kernel_fakes.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "host_test.h"
#include <arch/mmu.h>
#include <scion/mm.h>
#include "mm/mm_internal.h"

extern const struct host_test __start_host_tests[], __stop_host_tests[];


void host_arena_reset(size_t size)
{
	free((void *)host_phys_base);
	host_phys_base = (uintptr_t)aligned_alloc(4096, size);
	if (!host_phys_base) {
		perror("arena");
		exit(2);
	}
	memset((void *)host_phys_base, 0xa5, size);
	host_phys_size = size;
}

static struct page *heap_descriptors;

void host_heap_reset(uint64_t npages)
{
	host_arena_reset(npages * PAGE_SIZE);
	free(heap_descriptors);
	heap_descriptors = calloc(npages, sizeof(*heap_descriptors));
	pmm_init(heap_descriptors, npages);
	pmm_add_free(PAGE_SIZE, npages * PAGE_SIZE);
	kmalloc_init();
}

void host_fail(struct host_test_ctx *t, const char *file, int line, const char *fmt, ...)
{
	if (t->failed)
		return;
	t->failed = true;
	const char *base = strrchr(file, '/');
	int n = snprintf(t->why, sizeof(t->why), "%s:%d: ", base ? base + 1 : file, line);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->why + n, sizeof(t->why) - (size_t)n, fmt, ap);
	va_end(ap);
}

static bool selected(int argc, char **argv, const char *name)
{
	if (argc < 2)
		return true;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], name))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (const struct host_test *ht = __start_host_tests; ht < __stop_host_tests; ht++) {
		if (!selected(argc, argv, ht->name))
			continue;
		struct host_test_ctx ctx = { .name = ht->name };
		host_printk_take();
		ht->fn(&ctx);
		if (ctx.failed) {
			printf("host %s: FAILED: %s\n", ht->name, ctx.why);
			failed++;
		} else {
			printf("host %s: OK\n", ht->name);
			passed++;
		}
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
