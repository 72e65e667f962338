// SPDX-License-Identifier: BSD-2-Clause
/*
 * Loading a static executable into a new memory map (execve and the
 * kernel's spawn): ELF64 ET_EXEC, or ET_DYN without an interpreter
 * (static PIE, placed at PIE_LOAD_BASE), and the initial stack Linux
 * builds: argc, argv, envp, the auxiliary vector, and the strings and
 * random bytes they point at.
 *
 * The file is a border: every header field is checked before anything
 * is allocated (offsets and sizes inside the file with overflow-safe
 * arithmetic, segments inside the user range and below the stack area,
 * in ascending order, the entry inside an executable segment), and a
 * refusal names the field. The old map is replaced only once the new
 * one is complete, so a failed execve leaves the caller as it was.
 */
#include <scion/vfs.h>
#include <scion/elf64.h>
#include <scion/errno.h>
#include <scion/mm.h>
#include <scion/printk.h>
#include <scion/random.h>
#include <scion/string.h>
#include <arch/elf.h>
#include <arch/user.h>
#include "proc_internal.h"

#define MAX_PHDRS 64
#define AT_NULL 0
#define AT_PHDR 3
#define AT_PHENT 4
#define AT_PHNUM 5
#define AT_PAGESZ 6
#define AT_BASE 7
#define AT_FLAGS 8
#define AT_ENTRY 9
#define AT_UID 11
#define AT_EUID 12
#define AT_GID 13
#define AT_EGID 14
#define AT_PLATFORM 15
#define AT_HWCAP 16
#define AT_CLKTCK 17
#define AT_SECURE 23
#define AT_RANDOM 25
#define AT_EXECFN 31
#define AUXV_PAIRS 18

#define EXEC_FILE_MAX (64ull << 20)

struct image {
	const uint8_t *file;
	size_t size;
	struct vbuf copy;		/* the file read into memory, when its file system does not keep it there */
	struct elf64_header eh;
	struct elf64_program ph[MAX_PHDRS];
	uint64_t bias;			/* added to every vaddr (static PIE) */
	uint64_t phdr_addr;		/* where the program headers are in memory */
	uintptr_t image_end;		/* the highest segment's end, page aligned */
};

static int refuse(const char *path, const char *why)
{
	printk("exec: %s: %s\n", path, why);
	return -ENOEXEC;
}

static bool in_file(const struct image *im, uint64_t off, uint64_t len)
{
	return off <= im->size && len <= im->size - off;
}

/* Check the header and program headers; fill bias, phdr_addr, image_end. */
static int check_image(struct image *im, const char *path)
{
	struct elf64_header *eh = &im->eh;
	if (im->size < sizeof(*eh))
		return refuse(path, "shorter than an ELF header");
	memcpy(eh, im->file, sizeof(*eh));
	if (memcmp(eh->ident, "\177ELF", 4))
		return refuse(path, "not an ELF file");
	if (eh->ident[ELF_IDENT_CLASS] != ELF_CLASS_64 || eh->ident[ELF_IDENT_DATA] != ARCH_ELF_DATA ||
	    eh->ident[ELF_IDENT_VERSION] != ELF_VERSION_CURRENT)
		return refuse(path, "not a 64-bit " ARCH_ELF_DATA_NAME " ELF file");
	if (eh->machine != ARCH_ELF_MACHINE)
		return refuse(path, "not an " ARCH_ELF_MACHINE_NAME " program");
	if (eh->type != ELF_TYPE_EXEC && eh->type != ELF_TYPE_DYN)
		return refuse(path, "not an executable (ELF type is neither EXEC nor DYN)");
	if (eh->phentsize != sizeof(struct elf64_program) || eh->phnum == 0 || eh->phnum > MAX_PHDRS)
		return refuse(path, "bad program header size or count");
	if (!in_file(im, eh->phoff, (uint64_t)eh->phnum * sizeof(struct elf64_program)))
		return refuse(path, "program headers past the end of the file");
	memcpy(im->ph, im->file + eh->phoff, eh->phnum * sizeof(struct elf64_program));

	uint64_t lowest = UINT64_MAX, prev_end = 0;
	unsigned loads = 0;
	for (unsigned i = 0; i < eh->phnum; i++) {
		const struct elf64_program *ph = &im->ph[i];
		if (ph->type == PT_INTERP)
			return refuse(path, "dynamically linked (has an interpreter): build it with -static");
		if (ph->type == PT_DYNAMIC && eh->type == ELF_TYPE_EXEC)
			return refuse(path, "dynamically linked (has a dynamic section)");
		if (ph->type != PT_LOAD || ph->memsz == 0)
			continue;
		if (ph->filesz > ph->memsz)
			return refuse(path, "a segment's file size exceeds its memory size");
		if (!in_file(im, ph->offset, ph->filesz))
			return refuse(path, "a segment lies past the end of the file");
		if (ph->vaddr + ph->memsz < ph->vaddr)
			return refuse(path, "a segment wraps around the address space");
		if (ph->vaddr < prev_end)
			return refuse(path, "segments out of order or overlapping");
		prev_end = ph->vaddr + ph->memsz;
		if (lowest == UINT64_MAX)
			lowest = ph->vaddr;
		loads++;
	}
	if (!loads)
		return refuse(path, "no loadable segment");
	im->bias = eh->type == ELF_TYPE_DYN ? PIE_LOAD_BASE - (lowest & ~(PAGE_SIZE - 1)) : 0;
	uint64_t low = (lowest & ~(PAGE_SIZE - 1)) + im->bias, high = prev_end + im->bias;
	if (high < low || low < USER_BASE || high > MMAP_TOP - BRK_ROOM)
		return refuse(path, "segments outside the user address range");
	if ((high - low) / PAGE_SIZE > PROC_PAGE_LIMIT)
		return refuse(path, "larger than a process may be");
	im->image_end = (uintptr_t)ALIGN_UP(high, PAGE_SIZE);

	bool entry_ok = false;
	im->phdr_addr = 0;
	for (unsigned i = 0; i < eh->phnum; i++) {
		const struct elf64_program *ph = &im->ph[i];
		if (ph->type == PT_PHDR)
			im->phdr_addr = ph->vaddr + im->bias;
		if (ph->type != PT_LOAD || ph->memsz == 0)
			continue;
		if ((ph->flags & PF_X) && eh->entry >= ph->vaddr && eh->entry < ph->vaddr + ph->memsz)
			entry_ok = true;
		if (!im->phdr_addr && eh->phoff >= ph->offset && eh->phoff - ph->offset < ph->filesz)
			im->phdr_addr = ph->vaddr + (eh->phoff - ph->offset) + im->bias;
	}
	if (!entry_ok)
		return refuse(path, "the entry point is not in an executable segment");
	return 0;
}

static unsigned segment_prot(const struct elf64_program *ph)
{
	return ((ph->flags & PF_W) ? MAP_WRITE : 0) | ((ph->flags & PF_X) ? MAP_EXEC : 0);
}

/* Copy n bytes to user address va of vm, whose pages are mapped. */
static void write_mapped(struct vm *vm, uintptr_t va, const void *src, size_t n)
{
	const uint8_t *s = src;
	while (n) {
		size_t chunk = PAGE_SIZE - (va & (PAGE_SIZE - 1));
		if (chunk > n)
			chunk = n;
		uint64_t pa = arch_as_translate(vm->as, va, NULL);
		memcpy(phys_to_virt(pa), s, chunk);
		va += chunk;
		s += chunk;
		n -= chunk;
	}
}

/* Map every page of the segments (rights merged where two share a page) and copy the file bytes. */
static int load_segments(struct vm *vm, const struct image *im)
{
	uintptr_t mapped_end = 0;
	for (unsigned i = 0; i < im->eh.phnum; i++) {
		const struct elf64_program *ph = &im->ph[i];
		if (ph->type != PT_LOAD || ph->memsz == 0)
			continue;
		unsigned prot = segment_prot(ph);
		uintptr_t start = (uintptr_t)ALIGN_DOWN(ph->vaddr + im->bias, PAGE_SIZE);
		uintptr_t end = (uintptr_t)ALIGN_UP(ph->vaddr + im->bias + ph->memsz, PAGE_SIZE);
		if (start < mapped_end) {
			/* The page shared with the previous segment takes both rights. */
			struct vm_area *a = vm_find(vm, start);
			if (a && a->prot != (a->prot | prot)) {
				uintptr_t shared_end = mapped_end;
				vm_remove_range(vm, start, shared_end);
				int err = vm_add_area(vm, start, shared_end, a->prot | prot, VMA_IMAGE);
				if (err)
					return err;
				for (uintptr_t va = start; va < shared_end; va += PAGE_SIZE) {
					int e = vm_populate(vm, va, a->prot | prot);
					if (e)
						return e;
				}
			}
			start = mapped_end;
		}
		if (start < end) {
			int err = vm_add_area(vm, start, end, prot, VMA_IMAGE);
			if (err)
				return err;
			for (uintptr_t va = start; va < end; va += PAGE_SIZE) {
				err = vm_populate(vm, va, prot);
				if (err)
					return err;
			}
			mapped_end = end;
		}
		write_mapped(vm, ph->vaddr + im->bias, im->file + ph->offset, ph->filesz);
	}
	return 0;
}

/*
 * Build the initial stack at the top of the stack area: from the top
 * down the strings (execfn, envp, argv), the platform name, 16 random
 * bytes; then, 16-byte aligned, argc, argv[], NULL, envp[], NULL and
 * the auxiliary vector, ending at the returned stack pointer.
 */
static int build_stack(struct vm *vm, const struct image *im, const char *path,
		       char *const *argv, unsigned argc, char *const *envp, unsigned envc,
		       uintptr_t *sp_out)
{
	size_t strings = strlen(path) + 1 + sizeof(ARCH_UNAME_MACHINE) + 16;
	for (unsigned i = 0; i < argc; i++)
		strings += strlen(argv[i]) + 1;
	for (unsigned i = 0; i < envc; i++)
		strings += strlen(envp[i]) + 1;
	size_t words = 1 + argc + 1 + envc + 1 + 2 * AUXV_PAIRS;
	size_t total = ALIGN_UP(strings, 16) + ALIGN_UP(words * 8, 16);
	if (total > STACK_SIZE_MAX / 4)
		return -E2BIG;

	int err = vm_add_area(vm, STACK_TOP - STACK_SIZE_MAX, STACK_TOP, MAP_WRITE, VMA_STACK);
	if (err)
		return err;
	uintptr_t low = (uintptr_t)ALIGN_DOWN(STACK_TOP - total, PAGE_SIZE);
	for (uintptr_t va = low; va < STACK_TOP; va += PAGE_SIZE)
		if ((err = vm_populate(vm, va, MAP_WRITE)))
			return err;

	uint8_t *buf = kzalloc(total);
	if (!buf)
		return -ENOMEM;
	uintptr_t base = STACK_TOP - total;	/* user address of buf[0] */
	size_t top = total;			/* strings fill down from here */
#define PUT_STRING(s) ({ size_t n_ = strlen(s) + 1; top -= n_; memcpy(buf + top, (s), n_); base + top; })
	uintptr_t execfn = PUT_STRING(path);
	uint64_t *argp = kmalloc((argc + envc + 1) * sizeof(uint64_t));
	if (!argp) {
		kfree(buf);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < envc; i++)
		argp[argc + i] = PUT_STRING(envp[i]);
	for (unsigned i = 0; i < argc; i++)
		argp[i] = PUT_STRING(argv[i]);
	uintptr_t platform = PUT_STRING(ARCH_UNAME_MACHINE);
#undef PUT_STRING
	top -= 16;
	random_bytes(buf + top, 16);
	uintptr_t random = base + top;

	uint64_t *w = (uint64_t *)buf;	/* the vector starts at buf[0], 16-byte aligned */
	size_t k = 0;
	w[k++] = argc;
	for (unsigned i = 0; i < argc; i++)
		w[k++] = argp[i];
	w[k++] = 0;
	for (unsigned i = 0; i < envc; i++)
		w[k++] = argp[argc + i];
	w[k++] = 0;
	const uint64_t auxv[AUXV_PAIRS][2] = {
		{ AT_PHDR, im->phdr_addr }, { AT_PHENT, sizeof(struct elf64_program) },
		{ AT_PHNUM, im->eh.phnum }, { AT_PAGESZ, PAGE_SIZE }, { AT_BASE, 0 },
		{ AT_FLAGS, 0 }, { AT_ENTRY, im->eh.entry + im->bias }, { AT_UID, 0 },
		{ AT_EUID, 0 }, { AT_GID, 0 }, { AT_EGID, 0 }, { AT_PLATFORM, platform },
		{ AT_HWCAP, 0 }, { AT_CLKTCK, 100 }, { AT_SECURE, 0 }, { AT_RANDOM, random },
		{ AT_EXECFN, execfn }, { AT_NULL, 0 },
	};
	memcpy(&w[k], auxv, sizeof(auxv));
	kfree(argp);
	write_mapped(vm, base, buf, total);
	kfree(buf);
	*sp_out = base;
	return 0;
}

/*
 * The executable at path, in memory: in place when its file system keeps
 * it there (the boot archive), else read whole into im->copy. -ENOENT
 * and the walk's errors, -EACCES (not a regular file with an execute
 * bit), -ENOEXEC (larger than EXEC_FILE_MAX), -ENOMEM, -EIO.
 */
static int open_image(struct image *im, const char *path)
{
	struct vnode *v;
	int err = vfs_walk(path, true, &v);
	if (err)
		return err;
	const void *in_memory = v->fs->ops->contents ? v->fs->ops->contents(v) : NULL;
	if ((v->mode & VFS_S_IFMT) != VFS_S_IFREG || !(v->mode & 0111))
		err = -EACCES;
	else if (v->size > EXEC_FILE_MAX)
		err = refuse(path, "larger than the loader takes");
	else if (in_memory || v->size == 0)
		im->file = in_memory;
	else if (!(err = vbuf_alloc(&im->copy, (size_t)v->size))) {
		int64_t got = v->fs->ops->read(v, 0, im->copy.data, (size_t)v->size);
		err = got < 0 ? (int)got : (uint64_t)got != v->size ? -EIO : 0;
		im->file = im->copy.data;
	}
	im->size = (size_t)v->size;
	vnode_put(v);
	return err;
}

int exec_load(struct process *p, const char *path, char *const *argv, unsigned argc,
	      char *const *envp, unsigned envc, struct trap_frame *frame)
{
	struct image *im = kzalloc(sizeof(*im));
	if (!im)
		return -ENOMEM;
	int err = open_image(im, path);
	if (!err)
		err = check_image(im, path);
	/* Two maps are too large for the kernel stack: the new one and the old one. */
	struct vm *vm = kzalloc(2 * sizeof(*vm)), *old = vm + 1;
	uintptr_t sp = 0;
	if (!err && !vm)
		err = -ENOMEM;
	if (!err)
		err = vm_init(vm);
	if (!err) {
		err = load_segments(vm, im);
		if (!err)
			err = build_stack(vm, im, path, argv, argc, envp, envc, &sp);
		if (err) {
			vm_destroy(vm);
		} else {
			vm->brk_start = vm->brk = im->image_end;
			/* The new map replaces the old; the thread runs in it from now on. */
			*old = p->vm;
			p->vm = *vm;
			p->vm.faults = old->faults;	/* usage counts survive exec, as in Linux */
			/*
			 * execve: the caller is p's own thread (by its proc, not
			 * p->thread, which a new process's creator may not have
			 * set yet when the thread already runs).
			 */
			struct thread *me = thread_current();
			if (me->proc == p) {
				irqflags_t f = arch_irq_save();
				me->arch.as = p->vm.as;
				arch_as_activate(p->vm.as);
				arch_irq_restore(f);
			}
			if (p->vfork_parent)
				proc_vfork_release(p);	/* the old map is the parent's */
			else
				vm_destroy(old);
			arch_user_frame_init(frame, im->eh.entry + im->bias, sp);
		}
	}
	kfree(vm);
	vbuf_free(&im->copy);
	kfree(im);
	return err;
}
