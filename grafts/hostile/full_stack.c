// SPDX-License-Identifier: BSD-2-Clause
/*
 * Hostile at run time, not at load: it follows the scheme, so the
 * verifier admits it. test.method(a, b) moves its stack pointer to
 * a & 0x7fff bytes above the bottom of its window's stack (through the
 * stack guard), then, by b:
 *   0  spins: the timer interrupt, whose watchdog aborts it, arrives
 *      with the stack full;
 *   1  reads address 0: the page fault arrives with the stack full (the
 *      CPU's push of its frame, or trap entry's, may not fit);
 *   2  calls graft_log, then returns 42: the API stack probe before the
 *      call aborts it when less than SFI_API_STACK is left.
 * None of these may take the kernel down: interrupts arrive on their own
 * stack, trap entry moves a fault off the window, an exception that
 * cannot be pushed aborts the graft, and no API function runs short of
 * stack (arch/x86/trap_entry.S, arch/sfi.h).
 */
#include "hostile.h"

HOSTILE_METHOD("full-stack",
	"movl %edi, %r14d\n"
	".bundle_lock\n"
	"andq $0x7fff, %r14\n"
	"orq %r15, %r14\n"
	"movq %r14, %rsp\n"
	".bundle_unlock\n"
	"cmpq $1, %rsi\n"
	"je 2f\n"
	"cmpq $2, %rsi\n"
	"je 3f\n"
	"1: jmp 1b\n"
	"2: movq 0, %rax\n"
	"jmp 1b\n"
	"3: leaq full_stack_message(%rip), %rdi\n"
	".bundle_lock\n"
	"testb %al, -0x4000(%rsp)\n"		/* the API stack probe */
	"call graft_log\n"
	".bundle_unlock\n"
	/* Back to the top, where the dispatcher pushed the exit stub's address. */
	"movl $0x7fe8, %r14d\n"
	".bundle_lock\n"
	"andq $0x7fff, %r14\n"
	"orq %r15, %r14\n"
	"movq %r14, %rsp\n"
	".bundle_unlock\n"
	"movl $42, %eax\n"
	HOSTILE_RETURN);

const char full_stack_message[] = "called with a full stack";
