/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fixtures for the text_poke tests: a function whose one instruction the
 * tests rewrite, and the alternative form of that instruction, assembled
 * into rodata (never executed there) so no test spells out raw bytes.
 * Both forms differ in their immediate only.
 */
	.section .text
	.balign 16
	.globl poke_target, poke_target_insn, poke_target_insn_end
	.type poke_target, @function
poke_target:
poke_target_insn:
	movl $1, %eax
poke_target_insn_end:
	ret
	.size poke_target, . - poke_target

	.section .rodata
	.globl poke_alt_insn, poke_alt_insn_end
poke_alt_insn:
	movl $2, %eax
poke_alt_insn_end:
