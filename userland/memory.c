// SPDX-License-Identifier: BSD-2-Clause
/*
 * memory: the address space calls as Linux answers them. brk grows and
 * shrinks the heap (the raw call returns the new break, or the old one
 * when it cannot move it: never -1), anonymous private mappings read as
 * zeros and keep what is written, an unmapped page and a read-only page
 * fault on touch (in a forked child, which must die of SIGSEGV), a large
 * mapping is there at both ends, MAP_FIXED replaces what was mapped, and
 * bad arguments give EINVAL (ENOMEM for mprotect of unmapped memory,
 * EBADF for a file mapping of a bad fd).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "check.h"

#define PAGE 4096ul

/* Run fn in a child; the signal that killed it, or 0 if it exited. */
static int child_dies(void (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	if (pid == 0) {
		fn(arg);
		_exit(0);
	}
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

static void touch(void *p)
{
	*(volatile char *)p = 1;
}

static void heap(void)
{
	uintptr_t start = (uintptr_t)syscall(SYS_brk, 0);
	CHECK(start != 0, "brk(0) gave 0x%lx", (unsigned long)start);
	uintptr_t want = start + 64 * 1024;
	CHECK_EQ(syscall(SYS_brk, want), want, "brk grows by 64 KiB");
	memset((void *)start, 0x5a, 64 * 1024);
	CHECK(((volatile char *)start)[64 * 1024 - 1] == 0x5a, "the grown heap keeps what is written");
	CHECK_EQ(syscall(SYS_brk, start + 4096), start + 4096, "brk shrinks");
	CHECK_EQ(syscall(SYS_brk, 0), start + 4096, "brk(0) after shrinking");
	CHECK_EQ(syscall(SYS_brk, start + (1ul << 46)), start + 4096,
		 "brk too far returns the old break");
	CHECK_EQ(syscall(SYS_brk, start - (1ul << 40)), start + 4096,
		 "brk below the heap's start returns the old break");
	CHECK_EQ(syscall(SYS_brk, start), start, "brk back to the start");
	/* Grown again after shrinking: the pages come back zeroed. */
	CHECK_EQ(syscall(SYS_brk, start + 2 * PAGE), start + 2 * PAGE, "brk grows again");
	uintptr_t page2 = (start + PAGE + PAGE - 1) & ~(PAGE - 1);
	if (page2 + 16 <= start + 2 * PAGE)
		CHECK(((volatile char *)page2)[8] == 0, "a page given back and grown again is zeroed");
	syscall(SYS_brk, start);
}

static void anonymous(void)
{
	size_t len = 1 << 20;
	unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED && (uintptr_t)p % PAGE == 0, "mmap 1 MiB: %p %s", (void *)p,
	      check_errno_name(errno));
	if (p == MAP_FAILED)
		return;
	int zero = 1;
	for (size_t i = 0; i < len; i += 512)
		zero &= p[i] == 0;
	CHECK(zero, "a new anonymous mapping reads as zeros");
	for (size_t i = 0; i < len; i++)
		p[i] = (unsigned char)(i * 7);
	int kept = 1;
	for (size_t i = 0; i < len; i++)
		kept &= p[i] == (unsigned char)(i * 7);
	CHECK(kept, "the mapping keeps what is written");
	CHECK_EQ(munmap(p, len), 0, "munmap 1 MiB");
	CHECK_EQ(child_dies(touch, p), SIGSEGV, "a child touching unmapped memory: killed by");

	unsigned char *r = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	r[0] = 42;
	CHECK_EQ(mprotect(r, PAGE, PROT_READ), 0, "mprotect read-only");
	CHECK_EQ(r[0], 42, "a read-only page still reads");
	CHECK_EQ(child_dies(touch, r), SIGSEGV, "a child writing a read-only page: killed by");
	CHECK_EQ(mprotect(r, PAGE, PROT_READ | PROT_WRITE), 0, "mprotect read-write again");
	r[1] = 1;
	CHECK_EQ(child_dies(touch, r), 0, "a child writing a read-write page: killed by (0: none)");
	munmap(r, PAGE);

	/* A child's writes stay in the child (fork copies private memory). */
	static volatile int shared = 1;
	pid_t pid = fork();
	if (pid == 0) {
		shared = 2;
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	CHECK_EQ(shared, 1, "a forked child's write, seen by the parent");
}

static void large_and_fixed(void)
{
	size_t big = 64ul << 20;
	char *p = mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED, "mmap 64 MiB: %s", check_errno_name(errno));
	if (p != MAP_FAILED) {
		p[0] = 1;
		p[big - 1] = 2;
		CHECK(p[0] == 1 && p[big - 1] == 2 && p[big / 2] == 0, "64 MiB mapping at both ends");
		CHECK_EQ(munmap(p, big), 0, "munmap 64 MiB");
	}

	char *q = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memset(q, 'a', 3 * PAGE);
	char *mid = mmap(q + PAGE, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
			 MAP_FIXED, -1, 0);
	CHECK(mid == q + PAGE, "MAP_FIXED at %p gave %p", (void *)(q + PAGE), (void *)mid);
	CHECK(q[0] == 'a' && q[PAGE] == 0 && q[2 * PAGE - 1] == 0 && q[2 * PAGE] == 'a',
	      "MAP_FIXED replaced the middle page only: %d %d %d", q[0], q[PAGE], q[2 * PAGE]);
	/* Unmap the middle: its neighbours stay. */
	CHECK_EQ(munmap(q + PAGE, PAGE), 0, "munmap the middle page");
	CHECK(q[0] == 'a' && q[2 * PAGE] == 'a', "the pages around an unmapped hole stay");
	CHECK_EQ(child_dies(touch, q + PAGE), SIGSEGV, "touching the hole: killed by");
	CHECK_EQ(munmap(q, 3 * PAGE), 0, "munmap over a hole");
	/* A hint is only a hint, but a free page-aligned one is usually taken. */
	char *hint = mmap(q, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(hint != MAP_FAILED, "mmap with a hint: %s", check_errno_name(errno));
	munmap(hint, PAGE);
}

/*
 * Many small mappings, as a malloc that maps each large block makes:
 * 1000 pages mapped one at a time all work and keep what is written;
 * 120 holes punched among them leave the rest; 200 mappings that
 * alternate rights (no two can be one area) work too.
 */
static void many_mappings(void)
{
	enum { MANY = 1000, HOLES = 120, ALTERNATING = 200 };
	static char *page[MANY];
	int mapped = 0, kept = 0;
	for (int i = 0; i < MANY; i++) {
		page[i] = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (page[i] == MAP_FAILED)
			break;
		page[i][0] = (char)i;
		mapped++;
	}
	CHECK_EQ(mapped, MANY, "one-page mappings made");
	for (int i = 0; i < mapped; i += mapped / HOLES)
		if (munmap(page[i], PAGE) == 0)
			page[i] = NULL;
	for (int i = 0; i < mapped; i++)
		kept += page[i] && page[i][0] == (char)i;
	CHECK_EQ(kept, mapped - (mapped + mapped / HOLES - 1) / (mapped / HOLES),
		 "pages that keep what is written after the holes");
	for (int i = 0; i < mapped; i++)
		if (page[i])
			munmap(page[i], PAGE);
	int alternating = 0;
	for (int i = 0; i < ALTERNATING; i++) {
		int prot = i % 2 ? PROT_READ : PROT_READ | PROT_WRITE;
		page[i] = mmap(NULL, PAGE, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		alternating += page[i] != MAP_FAILED;
	}
	CHECK_EQ(alternating, ALTERNATING, "mappings of alternating rights made");
	for (int i = 0; i < alternating; i++)
		munmap(page[i], PAGE);
}

static void bad_arguments(void)
{
	char *p = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK_ERR(mmap(NULL, 0, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), EINVAL,
		  "mmap of 0 bytes");
	CHECK_ERR(mmap(p + 1, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0),
		  EINVAL, "MAP_FIXED at an unaligned address");
	CHECK_ERR(mmap(NULL, PAGE, PROT_READ, MAP_ANONYMOUS, -1, 0), EINVAL,
		  "mmap neither private nor shared");
	CHECK_ERR(mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, 999, 0), EBADF, "mmap of fd 999");
	CHECK_ERR(mmap(NULL, (size_t)-PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), ENOMEM,
		  "mmap of nearly 2^64 bytes");
	CHECK_ERR(munmap(p + 1, PAGE), EINVAL, "munmap at an unaligned address");
	CHECK_ERR(munmap(p, 0), EINVAL, "munmap of 0 bytes");
	/* Raw: musl's mprotect rounds the address down itself. */
	CHECK_ERR(syscall(SYS_mprotect, p + 1, PAGE, PROT_READ), EINVAL,
		  "mprotect at an unaligned address");
	CHECK_ERR(mprotect(p, PAGE, 0x100), EINVAL, "mprotect with prot 0x100");
	munmap(p, PAGE);
	CHECK_ERR(mprotect(p, PAGE, PROT_READ), ENOMEM, "mprotect of unmapped memory");
	CHECK_EQ(munmap(p, PAGE), 0, "munmap of memory no longer mapped (not an error)");
	CHECK_ERR(syscall(SYS_munmap, 0xffff800000000000ul, PAGE), EINVAL,
		  "munmap of a kernel address");
}

int main(int argc, char **argv)
{
	check_start("memory", argc, argv);
	heap();
	anonymous();
	large_and_fixed();
	many_mappings();
	bad_arguments();
	return check_done();
}
