// SPDX-License-Identifier: BSD-2-Clause
/*
 * jump_kernel: a hostile program. Says what it is about to do, then
 * calls an address in the kernel's half (0xffffffff80100000, where the
 * kernel's text would be): ring 3 may not run there, so the kernel must
 * kill it with SIGSEGV and carry on. Prints nothing after the call; if
 * it ever returns, it says so and exits 1.
 */
#include <stdio.h>

#define KERNEL_TEXT 0xffffffff80100000ul

int main(void)
{
	printf("jump_kernel: calling 0x%lx (expect to be killed by SIGSEGV)\n", KERNEL_TEXT);
	fflush(stdout);
	void (*fn)(void) = (void (*)(void))KERNEL_TEXT;
	fn();
	printf("jump_kernel: FAIL: the call returned\n");
	return 1;
}
