// SPDX-License-Identifier: BSD-2-Clause
/*
 * Copying to and from user memory. Every pointer a system call receives
 * is checked against the user range here and copied by the arch's
 * fault-tolerant copy: a bad pointer returns -EFAULT and never faults
 * the kernel. A page the process has not touched yet is given to it on
 * the way (the page-fault handler sees in_uaccess); nothing else here
 * may fault.
 */
#include <scion/errno.h>
#include <scion/thread.h>
#include <arch/safe_read.h>
#include "proc_internal.h"

static int user_copy(void *dst, uint64_t src, size_t n)
{
	struct thread *t = thread_current();
	t->in_uaccess = true;
	int err = arch_safe_read(dst, src, n);
	t->in_uaccess = false;
	return err;
}

int copyin(void *dst, uintptr_t usrc, size_t n)
{
	if (!n)
		return 0;
	if (!user_range_ok(usrc, n))
		return -EFAULT;
	return user_copy(dst, usrc, n);
}

int copyout(uintptr_t udst, const void *src, size_t n)
{
	if (!n)
		return 0;
	if (!user_range_ok(udst, n))
		return -EFAULT;
	/* The same one string move: here the destination is what may fault. */
	return user_copy((void *)udst, (uint64_t)(uintptr_t)src, n);
}

/*
 * copyin_str - copy a NUL-terminated user string into dst (size bytes).
 * Return value: its length, -EFAULT, or -ENAMETOOLONG when it does not
 *   fit (dst is then not terminated).
 */
int64_t copyin_str(char *dst, uintptr_t usrc, size_t size)
{
	for (size_t i = 0; i < size; ) {
		/* Copy up to the end of the source page: the next may not exist. */
		size_t chunk = PAGE_SIZE - ((usrc + i) & (PAGE_SIZE - 1));
		if (chunk > size - i)
			chunk = size - i;
		int err = copyin(dst + i, usrc + i, chunk);
		if (err)
			return err;
		for (size_t k = 0; k < chunk; k++)
			if (dst[i + k] == '\0')
				return (int64_t)(i + k);
		i += chunk;
	}
	return -ENAMETOOLONG;
}
