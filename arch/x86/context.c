// SPDX-License-Identifier: BSD-2-Clause
/* Initial stack layout of a new thread (see switch.S). */
#include <arch/context.h>
#include <scion/thread.h>

extern char thread_trampoline[];

/* What arch_context_switch pops: r15 r14 r13 r12 rbx rbp, then the return address. */
struct initial_frame {
	uint64_t r15, r14, r13, r12, rbx, rbp;
	uint64_t ret;
	uint64_t fake_return;	/* thread_trampoline's "caller": 0 ends backtraces */
};

_Static_assert(offsetof(struct thread, arch.saved_sp) == 0, "switch.S needs saved_sp first");

void arch_context_init(struct thread *t, uintptr_t stack_top)
{
	/*
	 * After the pops and ret, rsp points at fake_return; the trampoline's
	 * call needs rsp 16-byte aligned there, so fake_return sits at
	 * stack_top - 16 (stack_top is 16-byte aligned).
	 */
	struct initial_frame *f = (struct initial_frame *)(stack_top - 8 - sizeof(*f));
	*f = (struct initial_frame){ .ret = (uintptr_t)thread_trampoline };
	t->arch.saved_sp = (uintptr_t)f;
}
