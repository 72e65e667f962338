/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Instructions for the decoder's unit tests (test_insn.c), assembled by
 * gas so the tests never spell out encodings. CASE name, instruction
 * defines name and name_end around one instruction. A few encodings gas
 * refuses to produce (invalid in 64-bit mode, odd prefixes) are .byte
 * lines, each with the instruction it stands for.
 */
	.macro CASE name, insn:vararg
	.globl \name, \name\()_end
\name:
	\insn
\name\()_end:
	.endm

	.section .rodata
	.p2align 4
CASE mov_rbx_rax, movq %rbx, %rax
CASE mov_bl_al, movb %bl, %al
CASE mov_ebx_eax, movl %ebx, %eax
CASE mov_bx_ax, movw %bx, %ax
CASE add_rbx_rax, addq %rbx, %rax
CASE adc_rbx_rax, adcq %rbx, %rax
CASE inc_rax, incq %rax
CASE jne_far, jne .+0x1000
CASE jl_near, jl .+0x20
CASE call_rel, call .+0x12345
CASE ret_plain, ret
CASE ret_imm, ret $16
CASE jmp_rax, jmp *%rax
CASE jmp_rip, jmp *0x10(%rip)
CASE lea_sib, leaq 8(%rbx,%rcx,4), %rdx
CASE mov_rip_load, movq 0x100(%rip), %rax
CASE mov_rip_store_imm, movl $7, 0x40(%rip)
CASE push_rbx, pushq %rbx
CASE pop_r12, popq %r12
CASE rep_movsb, rep movsb
CASE cmpxchg_rcx_mem, lock cmpxchgq %rcx, (%rdx)
CASE div_rcx, divq %rcx
CASE xor_eax_eax, xorl %eax, %eax
CASE movzx_al_esp, movzbl %al, %esp
CASE movzx_ah_edi, movzbl %ah, %edi
CASE movsx_sil_edi, movsbl %sil, %edi
CASE movabs_imm, movabsq $0x1122334455667788, %rax
CASE ud2_case, ud2
CASE syscall_case, syscall
CASE cpuid_case, cpuid
CASE shl_cl, shlq %cl, %rax
CASE shl_one, shlq $1, %rax
CASE shl_imm4, shlq $4, %rax
CASE rcl_imm4, rclq $4, %rax
CASE setne_al, setne %al
CASE cmovge_case, cmovgeq %rbx, %rax
CASE jrcxz_case, jrcxz .+0x10
CASE loop_case, loop .+0x10
CASE int3_case, int3
CASE hlt_case, hlt
CASE mov_cr3, movq %cr3, %rax
CASE vaddps_case, vaddps %ymm1, %ymm2, %ymm3
CASE evex_case, vaddps %zmm1, %zmm2, %zmm3
CASE nop_long, nopw 0x0(%rax,%rax,1)
CASE pause_case, pause
CASE xchg_r8, xchgq %r8, %rax
CASE r12_base, movq (%r12), %rax
CASE r13_base, movq (%r13), %rax
CASE index_r12, movq (%rax,%r12,2), %rbx
CASE endbr_case, endbr64
/* shl $0, %rax: a count of 0 leaves the flags alone (gas would drop it). */
CASE shl_imm0, .byte 0x48, 0xc1, 0xe0, 0x00
/* push %es: invalid in 64-bit mode. */
CASE push_es, .byte 0x06
/* data16 rex.W call rel32: REX.W wins over 66, so the offset is 32 bits. */
CASE rexw_data16_call, .byte 0x66, 0x48, 0xe8, 0x00, 0x01, 0x00, 0x00
/* data16 jmp rel16: 16-bit offset and target (objdump's and AMD's reading). */
CASE data16_jmp, .byte 0x66, 0xe9, 0x10, 0x00
/* 15 segment prefixes and then a nop: 16 bytes, over the limit. */
CASE too_long, .byte 0x2e,0x2e,0x2e,0x2e,0x2e,0x2e,0x2e,0x2e,0x2e,0x2e,0x2e,0x2e,0x2e,0x2e,0x2e,0x90
/* rex.W before a VEX prefix: the CPU raises #UD. */
CASE rex_vex, .byte 0x48, 0xc5, 0xf8, 0x58, 0xc1
	.section .note.GNU-stack, "", @progbits
