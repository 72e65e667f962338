// SPDX-License-Identifier: BSD-2-Clause
/*
 * The DIF compiler's executable memory in host processes: one private
 * read/write/execute mapping per program, so AddressSanitizer's view
 * of the heap is untouched and a stray jump lands in unmapped memory.
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <scion/dif_jit.h>
#include "host_jit.h"

bool host_jit_enabled = true;
static size_t live, compiled;

struct host_code {
	void *addr;
	size_t len;
};

void *dif_jit_code_alloc(size_t bytes, uint64_t *runs, uint8_t **writable)
{
	if (!host_jit_enabled || !bytes)
		return NULL;
	struct host_code *c = malloc(sizeof(*c));
	if (!c)
		return NULL;
	c->len = bytes;
	c->addr = mmap(NULL, bytes, PROT_READ | PROT_WRITE | PROT_EXEC,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c->addr == MAP_FAILED) {
		free(c);
		return NULL;
	}
	*runs = (uint64_t)(uintptr_t)c->addr;
	*writable = c->addr;
	live++;
	compiled++;
	return c;
}

void dif_jit_code_free(void *mem)
{
	struct host_code *c = mem;
	munmap(c->addr, c->len);
	free(c);
	live--;
}

size_t host_jit_live(void)
{
	return live;
}

size_t host_jit_compiled(void)
{
	return compiled;
}
