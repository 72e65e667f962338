/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Functions of known layout for the probe tests (test_probe*.c). The
 * labels mark instruction boundaries the tests probe; the comments give
 * the byte offsets and the region a jump probe there detours.
 */
	.section .text

/*
 * uint64_t pf_sum(uint64_t a, uint64_t b): 3a + b + 7, straight line.
 * Entry [0, 7) and pf_sum_mid [7, 14) take jump probes; pf_sum_late is
 * the tests' int3 site.
 */
	.globl pf_sum, pf_sum_mid, pf_sum_late
	.type pf_sum, @function
	.balign 16
pf_sum:
	pushq %rbp			/* 0: 1 byte */
	movq %rsp, %rbp			/* 1: 3 bytes */
	movq %rdi, %rax			/* 4: 3 bytes */
pf_sum_mid:
	imulq $3, %rax, %rax		/* 7: 4 bytes */
	addq %rsi, %rax			/* 11: 3 bytes */
pf_sum_late:
	addq $7, %rax			/* 14: 4 bytes */
	popq %rbp
	ret
	.size pf_sum, . - pf_sum

/* uint64_t pf_rip(uint64_t x): pf_rip_value + x; starts with a RIP-relative load. */
	.globl pf_rip
	.type pf_rip, @function
	.balign 16
pf_rip:
	movq pf_rip_value(%rip), %rax	/* 7 bytes: the whole region */
	addq %rdi, %rax
	ret
	.size pf_rip, . - pf_rip

/* uint64_t pf_short_jmp(uint64_t x): x + 1; its region ends in a 2-byte jmp. */
	.globl pf_short_jmp
	.type pf_short_jmp, @function
	.balign 16
pf_short_jmp:
	movq %rdi, %rax			/* 3 bytes */
	jmp 1f				/* 2 bytes: region [0, 5) */
	ud2
1:	incq %rax
	ret
	.size pf_short_jmp, . - pf_short_jmp

/* uint64_t pf_call(uint64_t x): pf_helper(x) + 1 = 2x + 1; starts with a call. */
	.globl pf_call
	.type pf_call, @function
	.balign 16
pf_call:
	call pf_helper			/* 5 bytes: the whole region */
	incq %rax
	ret
	.size pf_call, . - pf_call

	.type pf_helper, @function
	.balign 16
pf_helper:
	leaq (%rdi, %rdi), %rax
	ret
	.size pf_helper, . - pf_helper

/* uint64_t pf_jcc(uint64_t x): 100 when x is 0, else 200; region ends in a 2-byte jz. */
	.globl pf_jcc
	.type pf_jcc, @function
	.balign 16
pf_jcc:
	testq %rdi, %rdi		/* 3 bytes */
	jz 1f				/* 2 bytes: region [0, 5) */
	movl $200, %eax
	ret
1:	movl $100, %eax
	ret
	.size pf_jcc, . - pf_jcc

/*
 * void probe_clobbering_handler(const struct probe_hit *hit, uint64_t *hits):
 * a probe handler that adds one to *hits and returns with garbage in every
 * caller-saved register, as any C code may: a patch that does not put
 * back a register the probed code still reads gives a wrong result.
 */
	.globl probe_clobbering_handler
	.type probe_clobbering_handler, @function
	.balign 16
probe_clobbering_handler:
	lock incq (%rsi)
	movabsq $0x5ca1ab1e0bad0000, %rax
	leaq 1(%rax), %rcx
	leaq 2(%rax), %rdx
	leaq 6(%rax), %rsi
	leaq 7(%rax), %rdi
	leaq 8(%rax), %r8
	leaq 9(%rax), %r9
	leaq 10(%rax), %r10
	leaq 11(%rax), %r11
	ret
	.size probe_clobbering_handler, . - probe_clobbering_handler

	.section .data
	.balign 8
	.globl pf_rip_value
pf_rip_value:
	.quad 1000
