/* SPDX-License-Identifier: BSD-2-Clause */
/* Room for the text hash that tools/text_hash.py writes after the link. */
	.section .text_hash, "a"
	.balign 8
	.quad 0
	.section .note.GNU-stack, "", @progbits
