// SPDX-License-Identifier: BSD-2-Clause
/*
 * exec_stack: a hostile program. Copies a few instructions ("mov $42,
 * %eax; ret") onto its stack and calls them. The stack is not executable
 * (the binary's PT_GNU_STACK says RW, and the page tables must set NX),
 * so the kernel must kill it with SIGSEGV. If the code runs, it says so
 * and exits 1.
 */
#include <stdio.h>
#include <string.h>

int main(void)
{
	static const unsigned char code[] = { 0xb8, 0x2a, 0x00, 0x00, 0x00, 0xc3 };
	unsigned char stack_code[16];
	memcpy(stack_code, code, sizeof(code));
	printf("exec_stack: calling code on the stack at %p (expect to be killed by SIGSEGV)\n",
	       (void *)stack_code);
	fflush(stdout);
	int (*fn)(void) = (int (*)(void))(void *)stack_code;
	int r = fn();
	printf("exec_stack: FAIL: code on the stack ran and returned %d\n", r);
	return 1;
}
