/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Ring 3 on x86_64: entering user mode, the system-call register
 * convention of the Linux x86-64 ABI (which user processes speak), and
 * the per-thread user state the arch layer keeps (FPU/SSE registers,
 * the FS base that holds a program's thread pointer).
 *
 * A user thread's kernel stack holds, at its top, the struct trap_frame
 * of its user state whenever it is in the kernel: the system-call entry
 * (arch/x86/syscall_entry.S) and the trap entry (trap_entry.S) both
 * build it there, and arch_enter_user leaves through it.
 */
#ifndef ARCH_USER_H
#define ARCH_USER_H

#include <stdint.h>
#include <stdbool.h>
#include <arch/trap.h>

struct thread;

/* The machine name programs see (uname's machine, AT_PLATFORM). */
#define ARCH_UNAME_MACHINE "x86_64"

/* The user frame at the top of t's kernel stack. */
static inline struct trap_frame *arch_user_frame(uintptr_t stack_top)
{
	return (struct trap_frame *)(stack_top - sizeof(struct trap_frame));
}

static inline bool trap_frame_is_user(const struct trap_frame *f)
{
	return (f->cs & 3) != 0;
}

/*
 * arch_user_frame_init - a fresh user state: every register zero, pc
 *   and sp as given, interrupts enabled, the user segments.
 */
void arch_user_frame_init(struct trap_frame *f, uintptr_t pc, uintptr_t sp);

/*
 * arch_enter_user - leave the kernel for user mode with the state in f.
 * Arguments: f, a user frame (arch_user_frame_init, or a copy of one a
 *   system call or trap built), normally the one at the top of the
 *   calling thread's kernel stack.
 * Caller's context: a user thread (arch_thread_user_init done), no
 *   locks held; interrupts are masked here and come back on in user mode.
 */
__attribute__((noreturn)) void arch_enter_user(struct trap_frame *f);

/* The system call a frame asks for, its arguments (n 0..5), its result. */
static inline uint64_t arch_syscall_nr(const struct trap_frame *f)
{
	return f->rax;
}

static inline uint64_t arch_syscall_arg(const struct trap_frame *f, unsigned n)
{
	switch (n) {
	case 0: return f->rdi;
	case 1: return f->rsi;
	case 2: return f->rdx;
	case 3: return f->r10;
	case 4: return f->r8;
	case 5: return f->r9;
	default: return 0;
	}
}

static inline void arch_syscall_set_return(struct trap_frame *f, int64_t v)
{
	f->rax = (uint64_t)v;
}

/* The user stack pointer of a frame. */
static inline uintptr_t arch_user_sp(const struct trap_frame *f)
{
	return f->rsp;
}

/*
 * arch_thread_user_init - give t the state a user thread needs: an
 *   FPU/SSE save area in its initial (reset) state and a zero FS base.
 *   From then on the scheduler saves and restores them at each switch.
 * Return value: 0 or -ENOMEM. Caller's context: thread, t not running.
 */
int arch_thread_user_init(struct thread *t);

/* Copy src's user state (FPU/SSE registers, FS base) into dst's (fork). */
void arch_thread_user_copy(struct thread *dst, const struct thread *src);

/* Store the calling thread's FPU registers in its save area (before fork copies it). */
void arch_thread_user_sync(void);

/* Release what arch_thread_user_init allocated. Caller: t never runs again. */
void arch_thread_user_release(struct thread *t);

/* Set the calling user thread's thread pointer (FS base), now and at later switches. */
void arch_thread_set_tls(uintptr_t base);
uintptr_t arch_thread_tls(void);

struct user_siginfo;

/* Bytes of the signal frame arch_signal_frame builds (frame and FPU state). */
#define ARCH_SIGFRAME_MAX 1024

/*
 * arch_signal_frame - build, in buf, the frame that runs a signal
 *   handler (Linux x86-64's rt_sigframe: return address = restorer,
 *   ucontext with the registers of f and mask, siginfo, FPU state).
 * Arguments: f, the user state to come back to; restorer, the user
 *   code that calls rt_sigreturn (SA_RESTORER); mask, the signal mask
 *   to restore; buf, ARCH_SIGFRAME_MAX bytes.
 * Return value: its size; *user_addr gets where it must be copied (below
 *   f's stack pointer and the red zone).
 * Caller's context: the thread of the process, on its way to user mode.
 */
size_t arch_signal_frame(const struct trap_frame *f, const struct user_siginfo *si,
			 uint64_t restorer, uint64_t mask, void *buf, uintptr_t *user_addr);

/*
 * arch_signal_enter - make f call handler(sig, &siginfo, &ucontext) on
 *   the frame copied to frame_addr.
 */
void arch_signal_enter(struct trap_frame *f, int sig, uint64_t handler, uintptr_t frame_addr);

/* Where rt_sigreturn finds the frame: the handler's return popped the restorer's address. */
uintptr_t arch_sigreturn_frame_addr(const struct trap_frame *f);

/*
 * arch_signal_restore - rt_sigreturn: take back the registers, FPU state
 *   and mask a frame holds (as the process may have changed them: the
 *   segments are forced to the user's, only user-changeable flags are
 *   taken, the FPU's MXCSR is masked to what the CPU accepts).
 * Arguments: buf, the frame copied in from arch_sigreturn_frame_addr;
 *   fpstate, its FPU area copied in (NULL when the frame has none).
 * Return value: 0 with f and *mask set, or -EFAULT for a frame that
 *   cannot be returned to (pc or sp outside user space).
 */
int arch_signal_restore(struct trap_frame *f, const void *buf, const void *fpstate, uint64_t *mask);

/* Where a frame's FPU state is, as the frame says (0: none). */
uintptr_t arch_sigframe_fpstate(const void *buf);

/* Bytes of the frame (without FPU state) and of the FPU state. */
#define ARCH_SIGFRAME_BASE 440
#define ARCH_SIGFRAME_FPU  512

/* Per-CPU set-up of ring 3: segments, the system-call MSRs, FPU/SSE. Caller: each CPU once. */
void arch_user_cpu_init(void);

#endif
