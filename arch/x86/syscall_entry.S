/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The SYSCALL entry of the Linux x86-64 system-call ABI, and the way
 * back to ring 3 (arch/user.h).
 *
 * SYSCALL leaves rip in rcx and rflags in r11, masks interrupts (SFMASK,
 * arch/x86/user.c) and changes neither rsp nor the GS base. The entry:
 *   1. swapgs: %gs is the per-CPU base again;
 *   2. keep the user rsp at %gs:user_sp and take the thread's kernel
 *      stack top from %gs:kernel_sp;
 *   3. push a struct trap_frame as an interrupt from ring 3 would have
 *      left it (ss, rsp, rflags, cs, rip, error 0, vector
 *      SYSCALL_VECTOR), then the registers as trap_save does;
 *   4. enable interrupts and call x86_syscall(frame), which runs the
 *      call and says whether SYSRET may return (user.c);
 *   5. mask interrupts; either pop the frame, load the user rsp, swapgs
 *      and SYSRET, or leave through trap_return's iretq.
 * SYSRET is taken only when rcx and r11 hold the frame's rip and rflags
 * and rip is canonical (below USER_LIMIT): a SYSRET to a non-canonical
 * address faults in ring 0 on the user stack.
 * This is entry code: it lives in .text.noprobe.
 */
#include "frame_regs.h"
#include <asm_offsets.h>	/* CPU_KERNEL_SP, CPU_USER_SP (asm_offsets.c) */
#define SEL_USER_DATA3  0x1b
#define SEL_USER_CODE3  0x23
#define SYSCALL_VECTOR  0x100	/* not a CPU vector: a frame that a system call built */

	.section .text.noprobe, "ax"
	.globl syscall_entry
	.type syscall_entry, @function
syscall_entry:
	/* Steps 1 and 2. */
	swapgs
	movq %rsp, %gs:CPU_USER_SP
	movq %gs:CPU_KERNEL_SP, %rsp
	/* Step 3. */
	pushq $SEL_USER_DATA3
	pushq %gs:CPU_USER_SP
	pushq %r11
	pushq $SEL_USER_CODE3
	pushq %rcx
	pushq $0
	pushq $SYSCALL_VECTOR
	PUSH_FRAME_REGS
	/* Step 4. */
	movq %rsp, %rdi
	xorl %ebp, %ebp			/* backtraces end here */
	sti
	call x86_syscall
	/* Step 5. */
	cli
	testl %eax, %eax
	jz trap_return
	POP_FRAME_REGS
	movq 40(%rsp), %rsp		/* past vector, error, rip, cs, rflags: the user rsp */
	swapgs
	sysretq
	.size syscall_entry, . - syscall_entry

/* arch_enter_user(struct trap_frame *f): leave through f (arch/user.h). */
	.globl arch_enter_user
	.type arch_enter_user, @function
arch_enter_user:
	cli
	movq %rdi, %rsp
	jmp trap_return
	.size arch_enter_user, . - arch_enter_user
