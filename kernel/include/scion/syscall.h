/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What a system call's implementation needs, wherever it lives
 * (kernel/proc/ for the portable calls, arch/<arch>/ for the calls only
 * its ABI has): the SYSCALL table entry, the caller's frame, and
 * copying to and from user memory (kernel/proc/uaccess.c).
 */
#ifndef SCION_SYSCALL_H
#define SCION_SYSCALL_H

#include <stdint.h>
#include <stddef.h>
#include <scion/compiler.h>
#include <linux_syscalls.h>

struct trap_frame;

/* The system-call table: every implementation adds itself with SYSCALL. */
typedef int64_t syscall_fn(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
struct syscall_entry {
	unsigned nr;
	const char *name;
	syscall_fn *fn;
};

/*
 * SYSCALL(name) { ... } defines sys_name(a0 .. a5) and enters it in the
 * table under Linux's number SYS_name (linux_syscalls.h, generated from
 * Linux's own header): a misspelt name does not compile.
 */
#define SYSCALL(sname) \
	static syscall_fn sys_##sname; \
	static const struct syscall_entry UNIQUE(syscall_entry_) LINKER_TABLE_ENTRY(syscalls) = { \
		.nr = SYS_##sname, .name = #sname, .fn = sys_##sname, \
	}; \
	static int64_t sys_##sname(__unused uint64_t a0, __unused uint64_t a1, __unused uint64_t a2, \
				   __unused uint64_t a3, __unused uint64_t a4, __unused uint64_t a5)

/* The frame of the system call the calling thread is in (fork, execve, sigreturn). */
struct trap_frame *syscall_frame(void);

/*
 * copyin, copyout - copy n bytes from or to user memory of the calling
 *   process. Return value: 0, or -EFAULT for a range outside user space
 *   or a page that cannot be had. Caller's context: the process's own
 *   thread, no spinlock held (the copy may take a page fault).
 */
int copyin(void *dst, uintptr_t usrc, size_t n);
int copyout(uintptr_t udst, const void *src, size_t n);

/*
 * copyin_str - copy a NUL-terminated user string into dst (size bytes).
 * Return value: its length, -EFAULT, or -ENAMETOOLONG when it does not
 *   fit. Caller's context: as copyin.
 */
int64_t copyin_str(char *dst, uintptr_t usrc, size_t size);

#endif
