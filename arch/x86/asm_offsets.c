// SPDX-License-Identifier: BSD-2-Clause
/*
 * The offsets of struct cpu's and struct thread's fields that the x86
 * assembly reaches (switch.S, syscall_entry.S, trap_entry.S, txn_call.S),
 * taken from the compiler so the C structures are their one source.
 * Never linked: the Makefile compiles this file to assembly only and
 * turns each "->NAME VALUE" line into "#define NAME VALUE" in
 * $(BUILD)/gen/asm_offsets.h, which those files include. It is not in
 * the kernel's sources (arch.mk leaves it out).
 */
#include <stddef.h>
#include <scion/cpu.h>
#include <scion/thread.h>

#define ASM_OFFSET(name, value) \
	__asm__ __volatile__("\n.ascii \"->" #name " %c0\"" : : "i"(value))

void asm_offsets(void);

void asm_offsets(void)
{
	ASM_OFFSET(CPU_SANDBOX_SP, offsetof(struct cpu, sandbox_sp));
	ASM_OFFSET(CPU_ENTRY_SCRATCH, offsetof(struct cpu, entry_scratch));
	ASM_OFFSET(CPU_KERNEL_SP, offsetof(struct cpu, kernel_sp));
	ASM_OFFSET(CPU_USER_SP, offsetof(struct cpu, user_sp));
	ASM_OFFSET(CPU_TSS_RSP0, offsetof(struct cpu, arch.tss.rsp[0]));
	ASM_OFFSET(CPU_ACTIVE_AS, offsetof(struct cpu, arch.active_as));
	ASM_OFFSET(THREAD_SAVED_SP, offsetof(struct thread, arch.saved_sp));
	ASM_OFFSET(THREAD_AS, offsetof(struct thread, arch.as));
	ASM_OFFSET(THREAD_FPU, offsetof(struct thread, arch.fpu));
	ASM_OFFSET(THREAD_STACK_TOP, offsetof(struct thread, stack_top));
}
