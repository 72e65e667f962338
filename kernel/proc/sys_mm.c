// SPDX-License-Identifier: BSD-2-Clause
/*
 * Memory system calls: brk, mmap (anonymous and private only: there is
 * no file to map until the file-system issue), munmap, mprotect, and
 * madvise (advice taken, nothing done). Pages come on first touch.
 */
#include <scion/errno.h>
#include "proc_internal.h"

#define LINUX_PROT_READ  1
#define LINUX_PROT_WRITE 2
#define LINUX_PROT_EXEC  4
#define LINUX_MAP_SHARED    0x01
#define LINUX_MAP_PRIVATE   0x02
#define LINUX_MAP_FIXED     0x10
#define LINUX_MAP_ANONYMOUS 0x20
#define LINUX_MAP_NORESERVE 0x4000
#define LINUX_MAP_FIXED_NOREPLACE 0x100000
#define LINUX_MAP_STACK     0x20000
#define LINUX_MAP_POPULATE  0x8000

static unsigned prot_of(uint64_t prot)
{
	return ((prot & LINUX_PROT_WRITE) ? MAP_WRITE : 0) | ((prot & LINUX_PROT_EXEC) ? MAP_EXEC : 0);
}

SYSCALL(brk)
{
	struct vm *vm = &proc_current()->vm;
	uintptr_t want = a0;
	if (want < vm->brk_start || want > vm->brk_start + BRK_ROOM)
		return (int64_t)vm->brk;
	uintptr_t old_end = ALIGN_UP(vm->brk, PAGE_SIZE), new_end = ALIGN_UP(want, PAGE_SIZE);
	if (new_end > old_end) {
		if (vm_add_area(vm, old_end, new_end, MAP_WRITE, VMA_BRK))
			return (int64_t)vm->brk;
	} else if (new_end < old_end) {
		vm_remove_range(vm, new_end, old_end);
	}
	vm->brk = want;
	return (int64_t)vm->brk;
}

SYSCALL(mmap)
{
	struct vm *vm = &proc_current()->vm;
	uintptr_t addr = a0;
	uint64_t len = a1, prot = a2, flags = a3;
	int fd = (int)a4;
	const uint64_t known = LINUX_MAP_SHARED | LINUX_MAP_PRIVATE | LINUX_MAP_FIXED |
			       LINUX_MAP_ANONYMOUS | LINUX_MAP_NORESERVE | LINUX_MAP_STACK |
			       LINUX_MAP_POPULATE | LINUX_MAP_FIXED_NOREPLACE;
	if (!len || (flags & ~known) || (prot & ~(uint64_t)7))
		return -EINVAL;
	if ((flags & (LINUX_MAP_SHARED | LINUX_MAP_PRIVATE)) != LINUX_MAP_PRIVATE)
		return -EINVAL;	/* shared mappings need a file or another process: not yet */
	if (!(flags & LINUX_MAP_ANONYMOUS)) {
		struct file *f = fd_get(proc_current(), fd);
		if (!f)
			return -EBADF;
		file_put(f);
		return -ENODEV;	/* no mappable files yet */
	}
	if (len > USER_LIMIT)
		return -ENOMEM;
	len = ALIGN_UP(len, PAGE_SIZE);
	if (len / PAGE_SIZE > PROC_PAGE_LIMIT)
		return -ENOMEM;
	bool fixed = flags & (LINUX_MAP_FIXED | LINUX_MAP_FIXED_NOREPLACE);
	if (fixed) {
		if ((addr & (PAGE_SIZE - 1)) || !user_range_ok(addr, len))
			return -EINVAL;
		if (flags & LINUX_MAP_FIXED_NOREPLACE) {
			for (uintptr_t a = addr; a < addr + len; a += PAGE_SIZE)
				if (vm_find(vm, a))
					return -EEXIST;
		} else {
			vm_remove_range(vm, addr, addr + len);
		}
	} else {
		addr = vm_find_gap(vm, len);
		if (!addr)
			return -ENOMEM;
	}
	int err = vm_add_area(vm, addr, addr + len, prot_of(prot), VMA_ANON);
	if (err)
		return err == -EEXIST ? -ENOMEM : err;
	return (int64_t)addr;
}

SYSCALL(munmap)
{
	uintptr_t addr = a0;
	uint64_t len = a1;
	if ((addr & (PAGE_SIZE - 1)) || !len || !user_range_ok(addr, len))
		return -EINVAL;
	return vm_remove_range(&proc_current()->vm, addr, addr + ALIGN_UP(len, PAGE_SIZE));
}

SYSCALL(mprotect)
{
	struct vm *vm = &proc_current()->vm;
	uintptr_t addr = a0;
	uint64_t len = ALIGN_UP(a1, PAGE_SIZE);
	if ((addr & (PAGE_SIZE - 1)) || (a2 & ~(uint64_t)7) || !user_range_ok(addr, len))
		return -EINVAL;
	if (!len)
		return 0;
	/* Every page must be mapped (ENOMEM otherwise, as Linux). */
	for (uintptr_t a = addr; a < addr + len; a += PAGE_SIZE)
		if (!vm_find(vm, a))
			return -ENOMEM;
	unsigned prot = prot_of(a2);
	/* Split the areas at the range's ends, then set the rights of what lies inside. */
	for (uintptr_t a = addr; a < addr + len;) {
		struct vm_area *area = vm_find(vm, a);
		uintptr_t end = area->end < addr + len ? area->end : addr + len;
		enum vm_kind kind = area->kind;
		if (area->prot != prot) {
			/* Re-create [a, end) with the new rights, keeping its pages. */
			struct vm_area saved = *area;
			if (saved.start < a) {
				area->end = a;
			} else {
				area->start = end;
			}
			if (saved.start < a && saved.end > end) {
				int err = vm_add_area(vm, end, saved.end, saved.prot, kind);
				if (err)
					return err;
			}
			if (area->start >= area->end) {
				/* The whole area changes: drop it. */
				for (unsigned i = 0; i < vm->nareas; i++)
					if (&vm->areas[i] == area) {
						for (unsigned k = i; k + 1 < vm->nareas; k++)
							vm->areas[k] = vm->areas[k + 1];
						vm->nareas--;
						break;
					}
			}
			int err = vm_add_area(vm, a, end, prot, kind);
			if (err)
				return err;
			vm_protect(vm, a, end, prot);
		}
		a = end;
	}
	return 0;
}

SYSCALL(madvise)
{
	if (a0 & (PAGE_SIZE - 1))
		return -EINVAL;
	return 0;
}
