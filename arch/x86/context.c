// SPDX-License-Identifier: BSD-2-Clause
/*
 * Initial stack layout of a new thread (see switch.S), and what a switch
 * hands from one thread to the next besides its registers when switch.S
 * finds more to do than the kernel stack's top: user threads' FPU/SSE
 * registers and FS base, and the address space.
 */
#include <arch/context.h>
#include <arch/mmu.h>
#include <arch/trap.h>
#include <arch/x86.h>
#include <scion/thread.h>
#include <scion/cpu.h>
#include "fpu.h"

extern char thread_trampoline[];

/* What arch_switch_stacks pops: rbp, then the return address. */
struct initial_frame {
	uint64_t rbp;
	uint64_t ret;
	uint64_t fake_return;	/* thread_trampoline's "caller": 0 ends backtraces */
};

_Static_assert(offsetof(struct thread, arch.saved_sp) == 0, "switch.S needs saved_sp first");

void arch_context_init(struct thread *t, uintptr_t stack_top)
{
	/*
	 * The top of every stack is kept for the user frame (arch/user.h):
	 * entries from ring 3 build it there, so kernel frames start below.
	 */
	stack_top -= sizeof(struct trap_frame);
	_Static_assert(sizeof(struct trap_frame) % 16 == 0, "stack_top stays 16-byte aligned");
	/*
	 * After the pops and ret, rsp points at fake_return; the trampoline's
	 * call needs rsp 16-byte aligned there, so fake_return sits at
	 * stack_top - 16 (stack_top is 16-byte aligned).
	 */
	struct initial_frame *f = (struct initial_frame *)(stack_top - 8 - sizeof(*f));
	*f = (struct initial_frame){ .ret = (uintptr_t)thread_trampoline };
	t->arch.saved_sp = (uintptr_t)f;
}

void arch_thread_switch_state(struct thread *prev, struct thread *next);

/*
 * The hand-over's part switch.S leaves to C (it has stored next's
 * kernel stack top already): prev's FPU state saved, next's loaded with
 * its FS base, next's address space made active. Interrupts are masked:
 * nothing enters from ring 3 before the switch is done.
 */
void arch_thread_switch_state(struct thread *prev, struct thread *next)
{
	if (prev->arch.fpu)
		__asm__ __volatile__("fxsave64 %0" : "=m"(*prev->arch.fpu));
	if (next->arch.fpu) {
		__asm__ __volatile__("fxrstor64 %0" :: "m"(*next->arch.fpu));
		wrmsr(MSR_FS_BASE, next->arch.fs_base);
	}
	/* Last, a tail call: the function then needs no registers of its own saved. */
	arch_as_activate(next->arch.as);
}
