/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Functions of known shape for the structural-analysis tests
 * (test_cfg.c): a loop, a jump table, a tail call, several returns, an
 * unresolvable indirect jump and a call. The comments give the blocks
 * the analysis must find; the tests also call the functions.
 */
	.section .text

/* long cfg_fix_loop(long n): 1 + 2 + ... + n. Blocks: entry, loop, return. */
	.globl cfg_fix_loop
	.type cfg_fix_loop, @function
	.balign 16
cfg_fix_loop:
	xorl %eax, %eax
	testq %rdi, %rdi
	je 2f
1:	addq %rdi, %rax
	decq %rdi
	jne 1b
2:	ret
	.size cfg_fix_loop, . - cfg_fix_loop

/* int cfg_fix_switch(unsigned x): 10, 20, 30, 40 for 0..3, else -1. */
	.globl cfg_fix_switch, cfg_fix_switch_dispatch
	.type cfg_fix_switch, @function
	.balign 16
cfg_fix_switch:
	cmpl $3, %edi
	ja 9f
	movl %edi, %eax
cfg_fix_switch_dispatch:
	jmp *cfg_fix_table(, %rax, 8)
1:	movl $10, %eax
	ret
2:	movl $20, %eax
	ret
3:	movl $30, %eax
	ret
4:	movl $40, %eax
	ret
9:	movl $-1, %eax
	ret
	.size cfg_fix_switch, . - cfg_fix_switch

	.section .rodata
	.balign 8
cfg_fix_table:
	.quad 1b, 2b, 3b, 4b
	.section .text

/* int cfg_fix_tail(int x): x when x != 0, else a tail call to poke_target. */
	.globl cfg_fix_tail
	.type cfg_fix_tail, @function
	.balign 16
cfg_fix_tail:
	testl %edi, %edi
	jne 1f
	jmp poke_target
1:	movl %edi, %eax
	ret
	.size cfg_fix_tail, . - cfg_fix_tail

/* int cfg_fix_returns(int x): 1 for 1, 2 for 2, else 0; three returns. */
	.globl cfg_fix_returns
	.type cfg_fix_returns, @function
	.balign 16
cfg_fix_returns:
	cmpl $1, %edi
	je 1f
	cmpl $2, %edi
	je 2f
	xorl %eax, %eax
	ret
1:	movl $1, %eax
	ret
2:	movl $2, %eax
	ret
	.size cfg_fix_returns, . - cfg_fix_returns

/* void cfg_fix_indirect(void (*fn)(void)): jumps to fn, which no analysis can know. */
	.globl cfg_fix_indirect
	.type cfg_fix_indirect, @function
	.balign 16
cfg_fix_indirect:
	jmp *%rdi
	.size cfg_fix_indirect, . - cfg_fix_indirect

/*
 * long cfg_fix_call(long n): n + cfg_fix_loop(n). rbx carries n across the
 * call; at the add, rcx is dead (the call clobbered it) and rbx is live.
 */
	.globl cfg_fix_call, cfg_fix_call_site, cfg_fix_call_add
	.type cfg_fix_call, @function
	.balign 16
cfg_fix_call:
	pushq %rbx
	movq %rdi, %rbx
cfg_fix_call_site:
	call cfg_fix_loop
cfg_fix_call_add:
	addq %rbx, %rax
	popq %rbx
	ret
	.size cfg_fix_call, . - cfg_fix_call
	.section .note.GNU-stack, "", @progbits
