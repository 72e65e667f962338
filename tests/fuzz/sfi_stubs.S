/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The host's stand-ins for the kernel around a sandboxed graft, for
 * fuzz_sfi_verify.c: the entry (the dispatcher's steps 2 to 4 of
 * arch/x86/txn_call.S), an exported API function, and the exit gate.
 * The target copies the API and gate stubs next to its text region,
 * within a rel32 call of it.
 */
	.text
	.globl fuzz_sfi_enter
	.type fuzz_sfi_enter, @function
/* fuzz_sfi_enter(entry, window, stack_top, exit_stub): never returns. */
fuzz_sfi_enter:
	movq %rsi, %r15
	movq %rdx, %rsp
	pushq %rcx
	jmp *%rdi
	.size fuzz_sfi_enter, . - fuzz_sfi_enter

	.globl fuzz_sfi_api, fuzz_sfi_api_end
/* An API function: returns 0 through the graft's own stack. */
fuzz_sfi_api:
	xorl %eax, %eax
	ret
fuzz_sfi_api_end:

	.globl fuzz_sfi_gate, fuzz_sfi_gate_end
/* The exit gate: the graft is done; the process ends at once (exit_group(0)). */
fuzz_sfi_gate:
	movl $231, %eax
	xorl %edi, %edi
	syscall
	ud2
fuzz_sfi_gate_end:

	.section .note.GNU-stack, "", @progbits
