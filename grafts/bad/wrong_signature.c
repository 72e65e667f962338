// SPDX-License-Identifier: BSD-2-Clause
/*
 * Misbehaving: claims bcache.evict with a signature it does not have (as
 * a graft built against an older header would): refused at load.
 */
#include <graft/graft.h>

static int half(int a)
{
	return a / 2;
}

__attribute__((section(GRAFT_MANIFEST_SECTION), used, aligned(8)))
const struct graft_manifest graft_manifest = {
	.magic = GRAFT_MANIFEST_MAGIC, .abi = GRAFT_ABI_VERSION, .version = 1,
	.name = "wrong-signature", .point = "bcache.evict", .signature = "int (int a)",
	.entry = (uint64_t)(uintptr_t)half,
};
