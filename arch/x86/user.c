// SPDX-License-Identifier: BSD-2-Clause
/*
 * Ring 3 on x86_64 (arch/user.h): the per-CPU set-up of SYSCALL, the
 * FPU/SSE state of user threads, and the thread pointer.
 *
 * The kernel is built without SSE (-mgeneral-regs-only) and never
 * touches the FPU, so a user thread's FPU/SSE registers stay in the
 * CPU while the kernel runs for it, and only a switch between threads
 * saves and restores them (eagerly: fxsave/fxrstor of the 512-byte
 * legacy area, enough for x87 and SSE, which is all a program gets:
 * CR4.OSXSAVE stays clear, so CPUID tells it AVX is unusable).
 */
#include <scion/thread.h>
#include <scion/mm.h>
#include <scion/errno.h>
#include <scion/string.h>
#include <scion/cpu.h>
#include <scion/printk.h>
#include <arch/user.h>
#include <arch/mmu.h>
#include <scion/proc.h>
#include <arch/x86.h>
#include <arch/cpu.h>
#include "vectors.h"
#include "fpu.h"

#define MSR_STAR     0xc0000081
#define MSR_LSTAR    0xc0000082
#define MSR_SFMASK   0xc0000084
#define EFER_SCE     (1ull << 0)
#define CR0_MP       (1ull << 1)
#define CR0_EM       (1ull << 2)
#define CR0_TS       (1ull << 3)
#define CR0_NE       (1ull << 5)
#define CR4_OSFXSR   (1ull << 9)
#define CR4_OSXMMEXCPT (1ull << 10)
#define RFLAGS_TF    (1ull << 8)
#define RFLAGS_DF    (1ull << 10)
#define RFLAGS_NT    (1ull << 14)
#define RFLAGS_AC    (1ull << 18)
#define FCW_RESET    0x037f
#define MXCSR_RESET  0x1f80

_Static_assert(offsetof(struct cpu, kernel_sp) == 32 && offsetof(struct cpu, user_sp) == 40,
	       "syscall_entry.S and trap_entry.S reach them at %gs:32 and %gs:40");

_Static_assert((SEL_USER_DATA | 3) == 0x1b && (SEL_USER_CODE | 3) == 0x23 &&
	       SEL_USER_CODE == SEL_USER_DATA + 8, "syscall_entry.S's selectors; SYSRET's GDT order");

extern char syscall_entry[];

static uint32_t mxcsr_mask;	/* set by the boot CPU's arch_user_cpu_init */
bool x86_syscall(struct trap_frame *f);

/*
 * Step 4 of syscall_entry.S: run the call, then say whether SYSRET can
 * restore the frame (see there), or iretq must.
 */
bool x86_syscall(struct trap_frame *f)
{
	syscall_handle(f);
	return f->rcx == f->rip && f->r11 == f->rflags && f->rip < USER_LIMIT &&
	       !(f->rflags & RFLAGS_TF) && f->cs == (SEL_USER_CODE | 3) &&
	       f->ss == (SEL_USER_DATA | 3);
}

void arch_user_cpu_init(void)
{
	write_cr0((read_cr0() | CR0_MP | CR0_NE) & ~(CR0_EM | CR0_TS));
	write_cr4(read_cr4() | CR4_OSFXSR | CR4_OSXMMEXCPT);
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
	/*
	 * SYSCALL loads CS from STAR[47:32] and SS 8 above it; SYSRET to
	 * 64-bit mode loads CS from STAR[63:48] + 16 and SS from it + 8, with
	 * RPL 3: hence user data sits just below user code in the GDT.
	 */
	wrmsr(MSR_STAR, ((uint64_t)(SEL_USER_DATA - 8) << 48) | ((uint64_t)SEL_KERNEL_CODE << 32));
	wrmsr(MSR_LSTAR, (uintptr_t)syscall_entry);
	/* The kernel runs its entry with interrupts masked, DF clear, no single-step. */
	wrmsr(MSR_SFMASK, RFLAGS_IF | RFLAGS_TF | RFLAGS_DF | RFLAGS_NT | RFLAGS_AC);
	wrmsr(MSR_KERNEL_GS_BASE, 0);
	if (!mxcsr_mask) {
		/* fxsave reports the mask; 0 means the architectural default. */
		static struct fpu_state probe;
		__asm__ __volatile__("fxsave64 %0" : "=m"(probe));
		mxcsr_mask = probe.mxcsr_mask ? probe.mxcsr_mask : 0xffbf;
	}
}

void arch_user_frame_init(struct trap_frame *f, uintptr_t pc, uintptr_t sp)
{
	memset(f, 0, sizeof(*f));
	f->rip = pc;
	f->rsp = sp;
	f->cs = SEL_USER_CODE | 3;
	f->ss = SEL_USER_DATA | 3;
	f->rflags = RFLAGS_IF | RFLAGS_RESERVED;
}

uint32_t fpu_mxcsr_mask(void)
{
	return mxcsr_mask;
}

/* Load t's FPU registers and TLS into this CPU when t is the thread running here. */
static void load_if_current(struct thread *t)
{
	if (t != thread_current())
		return;
	irqflags_t f = arch_irq_save();
	__asm__ __volatile__("fxrstor64 %0" :: "m"(*t->arch.fpu));
	wrmsr(MSR_FS_BASE, t->arch.fs_base);
	arch_irq_restore(f);
}

int arch_thread_user_init(struct thread *t)
{
	struct fpu_state *fpu = t->arch.fpu;
	if (!fpu)
		fpu = kmalloc(sizeof(*fpu));
	if (!fpu)
		return -ENOMEM;
	if ((uintptr_t)fpu & 15)
		panic("user: the heap gave an FPU area not 16-byte aligned");
	memset(fpu, 0, sizeof(*fpu));
	fpu->fcw = FCW_RESET;
	fpu->mxcsr = MXCSR_RESET;
	t->arch.fs_base = 0;
	t->arch.fpu = fpu;
	load_if_current(t);
	return 0;
}

void fpu_load_current(void)
{
	load_if_current(thread_current());
}

void arch_thread_user_copy(struct thread *dst, const struct thread *src)
{
	if (src == thread_current())
		__asm__ __volatile__("fxsave64 %0" : "=m"(*src->arch.fpu));
	memcpy(dst->arch.fpu, src->arch.fpu, sizeof(*dst->arch.fpu));
	dst->arch.fs_base = src->arch.fs_base;
	load_if_current(dst);
}

void arch_thread_user_sync(void)
{
	struct thread *t = thread_current();
	if (t->arch.fpu)
		__asm__ __volatile__("fxsave64 %0" : "=m"(*t->arch.fpu));
}

void arch_thread_user_release(struct thread *t)
{
	/* Unhooked before it is freed: a switch in between must not save into freed memory. */
	irqflags_t f = arch_irq_save();
	struct fpu_state *fpu = t->arch.fpu;
	t->arch.fpu = NULL;
	arch_irq_restore(f);
	kfree(fpu);
}

void arch_thread_set_tls(uintptr_t base)
{
	thread_current()->arch.fs_base = base;
	wrmsr(MSR_FS_BASE, base);
}

uintptr_t arch_thread_tls(void)
{
	return thread_current()->arch.fs_base;
}
