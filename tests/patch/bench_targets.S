/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The function the host patch benchmark (bench_patch.c) probes at its
 * entry: uint64_t bench_target(uint64_t x) = 3x + 7. Its first two
 * instructions (BENCH_REGION bytes) are what a jump probe detours; its
 * page is made writable by the benchmark, like kernel text through
 * text_poke.
 *
 * After it, two patches for it written by hand: the floors the built
 * ones are measured against, the least a jump probe that calls C can
 * run. Each saves the caller-saved registers live at bench_target's
 * entry (rdi and rdx: bench_patch.c checks that the kernel's analysis
 * finds these), calls bench_empty (an empty C function) with the stack
 * aligned to 8 bytes as a kernel patch leaves it, puts them back, runs
 * the region it stands for (bench_target's first two instructions, as
 * the relocator copies them) and jumps back after it.
 * bench_floor_call: nothing else.
 * bench_floor_call_flags: rflags saved first and dropped after, which a
 *   kernel patch that masks interrupts must do (to know whether to
 *   unmask them after; user mode cannot run the cli and sti themselves).
 */
#include "bench_patch.h"

	.text
	.balign 64
	.globl bench_target
	.type bench_target, @function
bench_target:
	leaq (%rdi, %rdi, 2), %rax	/* 4 bytes */
	addq $7, %rax			/* 4 bytes: the region is [0, 8) */
	ret
	.size bench_target, . - bench_target

	.balign 64
	.globl bench_floor_call
	.type bench_floor_call, @function
bench_floor_call:
	pushq %rdi
	pushq %rdx
	call bench_empty
	popq %rdx
	popq %rdi
	leaq (%rdi, %rdi, 2), %rax
	addq $7, %rax
	jmp bench_target + BENCH_REGION
	.size bench_floor_call, . - bench_floor_call

	.balign 64
	.globl bench_floor_call_flags
	.type bench_floor_call_flags, @function
bench_floor_call_flags:
	pushfq
	pushq %rdi
	pushq %rdx
	call bench_empty
	popq %rdx
	popq %rdi
	leaq 8(%rsp), %rsp		/* the flags are dead at the entry: not popped */
	leaq (%rdi, %rdi, 2), %rax
	addq $7, %rax
	jmp bench_target + BENCH_REGION
	.size bench_floor_call_flags, . - bench_floor_call_flags

	.balign 64
	.section .note.GNU-stack, "", @progbits
