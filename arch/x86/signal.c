// SPDX-License-Identifier: BSD-2-Clause
/*
 * Signal frames of the Linux x86-64 ABI (arch/user.h): what a handler
 * finds on its stack, and what rt_sigreturn takes back from it.
 *
 * From the interrupted stack pointer down: the 128-byte red zone, the
 * FPU state (fxsave's 512 bytes, 64-byte aligned), then struct
 * rt_sigframe: the restorer's address (the handler's return address),
 * the ucontext (flags, link, stack, the registers as struct sigcontext,
 * the mask) and the siginfo. The handler is entered as if called: its
 * stack pointer + 8 is 16-byte aligned.
 *
 * Everything rt_sigreturn reads is the process's to change, so it is a
 * border: segments are not read, flags are merged through a mask of
 * the user-changeable ones, pc and sp must lie in user space (an iretq
 * to a non-canonical pc would fault in the kernel), and MXCSR is masked
 * by what the CPU accepts (fxrstor faults on a reserved bit).
 */
#include <scion/errno.h>
#include <scion/string.h>
#include <scion/thread.h>
#include <arch/linux_abi.h>
#include <arch/mmu.h>
#include <arch/user.h>
#include <arch/x86.h>
#include "fpu.h"
#include "vectors.h"

#define RED_ZONE 128
#define RFLAGS_USER_CHANGEABLE 0x50dd5ull	/* CF PF AF ZF SF TF DF OF RF AC */

struct sigcontext {
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip, eflags;
	uint16_t cs, gs, fs, ss;
	uint64_t err, trapno, oldmask, cr2;
	uint64_t fpstate;
	uint64_t reserved[8];
};

struct ucontext {
	uint64_t flags;
	uint64_t link;
	uint64_t stack_sp;
	int32_t stack_flags, pad;
	uint64_t stack_size;
	struct sigcontext mcontext;
	uint64_t sigmask;
};

struct siginfo {
	int32_t signo, errno_, code, pad;
	union {
		struct { int32_t pid; uint32_t uid; } kill;
		struct { uint64_t addr; } fault;
		uint8_t bytes[112];
	};
};

struct rt_sigframe {
	uint64_t pretcode;
	struct ucontext uc;
	struct siginfo info;
};

_Static_assert(sizeof(struct sigcontext) == 256, "Linux x86-64 struct sigcontext");
_Static_assert(sizeof(struct ucontext) == 304, "Linux x86-64 struct ucontext");
_Static_assert(sizeof(struct siginfo) == 128, "siginfo_t");
_Static_assert(sizeof(struct rt_sigframe) == ARCH_SIGFRAME_BASE, "rt_sigframe");
_Static_assert(ARCH_SIGFRAME_BASE + 64 + ARCH_SIGFRAME_FPU <= ARCH_SIGFRAME_MAX, "room in buf");

size_t arch_signal_frame(const struct trap_frame *f, const struct user_siginfo *si,
			 uint64_t restorer, uint64_t mask, void *buf, uintptr_t *user_addr)
{
	uintptr_t fp_addr = (f->rsp - RED_ZONE - ARCH_SIGFRAME_FPU) & ~63ull;
	uintptr_t frame_addr = ((fp_addr - sizeof(struct rt_sigframe) + 8) & ~15ull) - 8;
	size_t size = f->rsp - RED_ZONE - frame_addr;
	struct rt_sigframe *fr = buf;
	struct thread *t = thread_current();

	memset(buf, 0, size);
	fr->pretcode = restorer;
	struct sigcontext *sc = &fr->uc.mcontext;
	*sc = (struct sigcontext){
		.r8 = f->r8, .r9 = f->r9, .r10 = f->r10, .r11 = f->r11, .r12 = f->r12,
		.r13 = f->r13, .r14 = f->r14, .r15 = f->r15, .rdi = f->rdi, .rsi = f->rsi,
		.rbp = f->rbp, .rbx = f->rbx, .rdx = f->rdx, .rax = f->rax, .rcx = f->rcx,
		.rsp = f->rsp, .rip = f->rip, .eflags = f->rflags, .cs = (uint16_t)f->cs,
		.ss = (uint16_t)f->ss, .err = f->error, .trapno = f->vector < 32 ? f->vector : 0,
		.oldmask = mask, .cr2 = si->addr, .fpstate = fp_addr,
	};
	fr->uc.sigmask = mask;
	fr->info.signo = si->signo;
	fr->info.code = si->code;
	if (si->code <= 0)	/* sent by a process (kill, tkill): who sent it */
		fr->info.kill.pid = si->pid;
	else
		fr->info.fault.addr = si->addr;
	arch_thread_user_sync();
	memcpy((uint8_t *)buf + (fp_addr - frame_addr), t->arch.fpu, ARCH_SIGFRAME_FPU);
	*user_addr = frame_addr;
	return size;
}

void arch_signal_enter(struct trap_frame *f, int sig, uint64_t handler, uintptr_t frame_addr)
{
	const struct rt_sigframe *fr = (const struct rt_sigframe *)0;
	f->rdi = (uint64_t)sig;
	f->rsi = frame_addr + (uintptr_t)&fr->info;
	f->rdx = frame_addr + (uintptr_t)&fr->uc;
	f->rax = 0;
	f->rsp = frame_addr;
	f->rip = handler;
	f->rflags &= ~(RFLAGS_USER_CHANGEABLE & ((1ull << 8) | (1ull << 10)));	/* TF, DF clear */
}

uintptr_t arch_sigreturn_frame_addr(const struct trap_frame *f)
{
	return f->rsp - 8;
}

uintptr_t arch_sigframe_fpstate(const void *buf)
{
	return ((const struct rt_sigframe *)buf)->uc.mcontext.fpstate;
}

int arch_signal_restore(struct trap_frame *f, const void *buf, const void *fpstate, uint64_t *mask)
{
	const struct rt_sigframe *fr = buf;
	const struct sigcontext *sc = &fr->uc.mcontext;
	if (!user_range_ok(sc->rip, 1) || sc->rip >= USER_LIMIT || sc->rsp > USER_LIMIT)
		return -EFAULT;
	f->r8 = sc->r8; f->r9 = sc->r9; f->r10 = sc->r10; f->r11 = sc->r11;
	f->r12 = sc->r12; f->r13 = sc->r13; f->r14 = sc->r14; f->r15 = sc->r15;
	f->rdi = sc->rdi; f->rsi = sc->rsi; f->rbp = sc->rbp; f->rbx = sc->rbx;
	f->rdx = sc->rdx; f->rax = sc->rax; f->rcx = sc->rcx; f->rsp = sc->rsp;
	f->rip = sc->rip;
	f->rflags = (f->rflags & ~RFLAGS_USER_CHANGEABLE) | (sc->eflags & RFLAGS_USER_CHANGEABLE) |
		    RFLAGS_IF | RFLAGS_RESERVED;
	f->cs = SEL_USER_CODE | 3;
	f->ss = SEL_USER_DATA | 3;
	if (fpstate) {
		struct thread *t = thread_current();
		memcpy(t->arch.fpu, fpstate, ARCH_SIGFRAME_FPU);
		t->arch.fpu->mxcsr &= fpu_mxcsr_mask();
		fpu_load_current();
	}
	*mask = fr->uc.sigmask;
	return 0;
}
