// SPDX-License-Identifier: BSD-2-Clause
/* Misbehaving: names a graft point that does not exist: refused at load. */
#include <graft/graft.h>

static long nothing(long a)
{
	return a;
}

__attribute__((section(GRAFT_MANIFEST_SECTION), used, aligned(8)))
const struct graft_manifest graft_manifest = {
	.magic = GRAFT_MANIFEST_MAGIC, .abi = GRAFT_ABI_VERSION, .version = 1,
	.name = "no-such-point", .point = "bcache.teleport", .signature = "long (long a)",
	.entry = (uint64_t)(uintptr_t)nothing,
};
