// SPDX-License-Identifier: BSD-2-Clause
/*
 * Function copies in the patch heap (scion/probe_code.h): a patch whose
 * header says PATCH_COPY_MAGIC and carries one map entry per copied
 * instruction, so probe_patch_origin can name the original of any pc in
 * the copy. A copy may span pages (patch_alloc up to PATCH_UNITS_MAX
 * units); it is written through the direct map page by page
 * (patch_write) before its entry is published, and freed like any
 * retired patch. Everything here runs under probe_mutex.
 */
#include <scion/probe_code.h>
#include <scion/mm.h>
#include <scion/string.h>
#include "probe_internal.h"

/* The header and map before the code, rounded so the code starts 16-byte aligned. */
static size_t header_bytes(unsigned nmap)
{
	return ALIGN_UP(sizeof(struct patch_header) + nmap * sizeof(struct probe_patch_origin), 16);
}

bool probe_code_fits(size_t code_bytes, unsigned nmap)
{
	return nmap && nmap <= UINT16_MAX && code_bytes <= PROBE_CODE_MAX &&
	       header_bytes(nmap) + code_bytes <= (size_t)PATCH_UNITS_MAX * 64;
}

struct probe_code *probe_code_alloc(uint64_t function, size_t code_bytes, unsigned nmap,
				    uint64_t *runs_at)
{
	size_t header = header_bytes(nmap);

	if (!probe_code_fits(code_bytes, nmap))
		return NULL;
	mutex_lock(&probe_mutex);
	struct patch *p = patch_alloc((uint32_t)(header + code_bytes));
	if (p) {
		p->entry = p->addr + header;
		/* The header's magic stays 0 until the fill: origins are not looked up before. */
		struct patch_header h = { .magic = 0, .nmap = (uint16_t)nmap,
					  .code_offset = (uint16_t)header, .site = function };
		patch_write(p, 0, &h, sizeof(h));
		*runs_at = p->entry;
	}
	mutex_unlock(&probe_mutex);
	return (struct probe_code *)p;
}

void probe_code_fill(struct probe_code *c, const void *code, size_t len,
		     const struct probe_patch_origin *map, unsigned nmap)
{
	struct patch *p = (struct patch *)c;
	struct patch_header h;
	struct probe_patch_origin o;

	mutex_lock(&probe_mutex);
	uint32_t header = (uint32_t)(p->entry - p->addr);
	patch_write(p, header, code, len);
	for (unsigned i = 0; i < nmap; i++) {
		o = (struct probe_patch_origin){ (uint16_t)(map[i].code + header), map[i].orig };
		patch_write(p, (uint32_t)(sizeof(h) + i * sizeof(o)), &o, sizeof(o));
	}
	memcpy(&h, (const void *)(uintptr_t)p->addr, sizeof(h));	/* what the alloc wrote */
	h.magic = PATCH_COPY_MAGIC;
	h.nmap = (uint16_t)nmap;
	patch_write(p, 0, &h, sizeof(h));
	mutex_unlock(&probe_mutex);
}

void probe_code_free(struct probe_code *c)
{
	if (!c)
		return;
	mutex_lock(&probe_mutex);
	patch_retire((struct patch *)c);
	mutex_unlock(&probe_mutex);
}
