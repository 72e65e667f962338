/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Entry stubs for all 256 vectors and the common path into C.
 *
 * Stub n is 16 bytes at trap_stubs + 16 * n. It pushes a zero where the
 * CPU pushes no error code, then the vector number, so every trap
 * reaches trap_common with the same frame (struct trap_frame in
 * arch/trap.h). This is trap entry: it lives in .text.noprobe.
 *
 * Which stack a trap runs on. A sandboxed graft (arch/sfi.h) runs on its
 * window's stack, which it may have filled to the last byte; no kernel
 * code may run there, since a fault it took for lack of room could not
 * be delivered (a double fault in the kernel, not in the graft).
 * Hence:
 *   - Interrupts (vectors >= 32) arrive through IST_ENTRY on a per-CPU
 *     entry stack, so their delivery never depends on the interrupted
 *     stack; NMI and double fault keep their own IST stacks and go
 *     straight to trap_save, where they stay.
 *   - trap_common, in these steps, before it saves anything:
 *       1. take the destination: for an interrupt on the entry stack,
 *          the interrupted stack pointer rounded down to 16 bytes, as
 *          the CPU would have pushed; for an exception, nothing to do
 *          (it was pushed where it happened) unless that is a window;
 *       2. if the interrupted stack pointer lies in the window area,
 *          the destination is instead the kernel stack the graft was
 *          entered from (%gs:8, sandbox_sp), free below that point;
 *       3. copy the seven words of the frame there and switch to it,
 *          using only the two scratch words at %gs:16 and %gs:24
 *          (interrupts are masked: every gate is an interrupt gate);
 *       4. save the registers and call trap_dispatch.
 *     The return path pops that frame: iretq goes back to the
 *     interrupted stack, whichever it was.
 *   - An exception whose frame cannot be pushed on a full window stack
 *     (the CPU's own push, or a stub's) becomes a double fault, which
 *     aborts the graft's transaction (arch_sfi_entry_overflow): it is
 *     synchronous, so nothing else was under way.
 * From ring 3 (step 0), the path is the usual one of x86_64 kernels:
 * swapgs makes %gs the kernel's per-CPU base again (user mode has its
 * own GS base), an exception has arrived on the thread's kernel stack
 * (the TSS's rsp0, set at each switch), and an interrupt's frame is
 * copied there from the entry stack (step 3, destination %gs:kernel_sp).
 * So a user thread's frame always sits at the top of its kernel stack
 * (arch/user.h). NMIs and double faults swap too when they come from
 * ring 3, and every return to ring 3 swaps back just before iretq.
 */
#include "frame_regs.h"
#include <asm_offsets.h>	/* CPU_SANDBOX_SP, CPU_ENTRY_SCRATCH, CPU_KERNEL_SP */
#define FRAME_CS           24	/* struct trap_frame from .vector: vector, error, rip, cs, */
#define FRAME_RSP_HIGH     44	/* rflags, rsp (its high half at 44), ss */
#define FRAME_WORDS        7
#define FIRST_IRQ_VECTOR   32
#define VEC_NMI            2
#define VEC_DOUBLE_FAULT   8
#define SFI_AREA_HIGH_FIRST 0xffffd000	/* the window area's addresses, bits 63..32 (arch/sfi.h) */
#define SFI_AREA_HIGH_LAST  0xffffdfff

	.section .text.noprobe, "ax"
	.balign 16
	.globl trap_stubs
	.type trap_stubs, @function
trap_stubs:
	vector = 0
	.rept 256
	.balign 16
	.if (vector == 8) || ((vector >= 10) && (vector <= 14)) || (vector == 17) || (vector == 21) || (vector == 29) || (vector == 30)
	.else
	pushq $0
	.endif
	pushq $vector
	.if (vector == VEC_NMI) || (vector == VEC_DOUBLE_FAULT)
	jmp trap_save_ist
	.else
	jmp trap_common
	.endif
	vector = vector + 1
	.endr
	.size trap_stubs, . - trap_stubs

	.type trap_save_ist, @function
trap_save_ist:
	testb $3, FRAME_CS(%rsp)
	jz trap_save
	swapgs
	jmp trap_save
	.size trap_save_ist, . - trap_save_ist

	.type trap_common, @function
trap_common:
	/* Step 0. */
	testb $3, FRAME_CS(%rsp)
	jnz from_user
	/* Step 1. */
	cmpq $FIRST_IRQ_VECTOR, (%rsp)
	jae from_entry_stack
	cmpl $SFI_AREA_HIGH_FIRST, FRAME_RSP_HIGH(%rsp)
	jb trap_save
	cmpl $SFI_AREA_HIGH_LAST, FRAME_RSP_HIGH(%rsp)
	ja trap_save
	movq %rax, %gs:CPU_ENTRY_SCRATCH
	jmp to_sandbox_caller
from_entry_stack:
	movq %rax, %gs:CPU_ENTRY_SCRATCH
	movq 40(%rsp), %rax
	andq $-16, %rax
	/* Step 2. */
	cmpl $SFI_AREA_HIGH_FIRST, FRAME_RSP_HIGH(%rsp)
	jb copy_frame
	cmpl $SFI_AREA_HIGH_LAST, FRAME_RSP_HIGH(%rsp)
	ja copy_frame
to_sandbox_caller:
	movq %gs:CPU_SANDBOX_SP, %rax
copy_frame:
	/* Step 3: %rax is the destination's top. */
	movq %rbx, %gs:CPU_ENTRY_SCRATCH+8
	subq $FRAME_WORDS*8, %rax
	.irp word, 0, 1, 2, 3, 4, 5, 6
	movq \word*8(%rsp), %rbx
	movq %rbx, \word*8(%rax)
	.endr
	movq %rax, %rsp
	movq %gs:CPU_ENTRY_SCRATCH+8, %rbx
	movq %gs:CPU_ENTRY_SCRATCH, %rax
	/* Step 4. */
	.globl trap_save
trap_save:
	PUSH_FRAME_REGS
	movq %rsp, %rdi
	cld
	call trap_dispatch
	.globl trap_return
trap_return:
	POP_FRAME_REGS
	addq $16, %rsp
	testb $3, 8(%rsp)		/* the frame's cs: back to ring 3? */
	jz 1f
	swapgs
1:	iretq
from_user:
	swapgs
	cmpq $FIRST_IRQ_VECTOR, (%rsp)
	jb trap_save			/* an exception: already on the kernel stack */
	movq %rax, %gs:CPU_ENTRY_SCRATCH
	movq %gs:CPU_KERNEL_SP, %rax
	jmp copy_frame
	.size trap_common, . - trap_common

	.globl trap_entry_end
trap_entry_end:
