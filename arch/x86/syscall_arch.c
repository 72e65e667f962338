// SPDX-License-Identifier: BSD-2-Clause
/*
 * The system calls only the x86-64 Linux ABI has: arch_prctl (the
 * thread pointer in FS, which musl's start-up sets) and rt_sigreturn
 * (back from a signal handler through the frame signal.c built).
 */
#include <scion/errno.h>
#include <scion/proc.h>
#include <scion/syscall.h>
#include <arch/mmu.h>
#include <arch/user.h>

#define LINUX_ARCH_SET_GS 0x1001
#define LINUX_ARCH_SET_FS 0x1002
#define LINUX_ARCH_GET_FS 0x1003
#define LINUX_ARCH_GET_GS 0x1004

SYSCALL(arch_prctl)
{
	switch (a0) {
	case LINUX_ARCH_SET_FS:
		if (a1 >= USER_LIMIT)
			return -EPERM;
		arch_thread_set_tls(a1);
		return 0;
	case LINUX_ARCH_GET_FS: {
		uint64_t v = arch_thread_tls();
		return copyout(a1, &v, sizeof(v)) ? -EFAULT : 0;
	}
	default:
		return -EINVAL;	/* GS is the kernel's (swapgs) */
	}
}

/*
 * Return from a handler: the frame is the process's, read as any user
 * memory and checked by arch_signal_restore; one it cannot return
 * through kills the process with SIGSEGV, as on Linux.
 * Return value: the interrupted code's rax, so that the dispatcher's
 * store of the result leaves it as it was.
 */
SYSCALL(rt_sigreturn)
{
	struct trap_frame *f = syscall_frame();
	uint8_t frame[ARCH_SIGFRAME_BASE], fpu[ARCH_SIGFRAME_FPU];
	uint64_t mask;
	if (copyin(frame, arch_sigreturn_frame_addr(f), sizeof(frame)))
		goto bad;
	uintptr_t fp = arch_sigframe_fpstate(frame);
	if (fp && copyin(fpu, fp, sizeof(fpu)))
		goto bad;
	if (arch_signal_restore(f, frame, fp ? fpu : NULL, &mask))
		goto bad;
	proc_signal_set_mask(mask);
	return (int64_t)f->rax;
bad:
	proc_signal_bad_frame();
	return -EFAULT;
}
