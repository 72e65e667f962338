// SPDX-License-Identifier: BSD-2-Clause
/* Misbehaving: calls a kernel function that is not exported to grafts (refused at load). */
#include <graft/test.h>

void printk(const char *fmt, ...);

static long unexported(long a, long b)
{
	printk("a graft should not be able to call this\n");
	return a + b;
}
GRAFT_METHOD(test_method, "unexported", 1, unexported);
