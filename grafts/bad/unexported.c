// SPDX-License-Identifier: BSD-2-Clause
/* Misbehaving: calls a kernel function that is not exported to grafts (refused at load). */
#include <graft/bcache.h>

void printk(const char *fmt, ...);

static int unexported(void)
{
	printk("a graft should not be able to call this\n");
	return 0;
}
GRAFT_METHOD(bcache_evict, "unexported", 1, unexported);
