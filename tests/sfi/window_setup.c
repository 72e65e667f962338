// SPDX-License-Identifier: BSD-2-Clause
/*
 * The window child's own side (see window_child.h): after fork, lay the
 * child's address space out so that the CPU classifies every access of
 * the graft code the parent runs in it:
 *   - the window (window_layout.h): its reserve [W - 4 GiB, W + 8 GiB)
 *     PROT_NONE, except the window's stack at W and the alias of the
 *     graft's data; the data itself; the text region, read and execute;
 *   - everything else of the user half [WINDOW_USER_LO, WINDOW_USER_HI)
 *     readable: every hole is mapped PROT_READ (anonymous, no reserve,
 *     huge zero pages where it can), every mapping without read
 *     permission (ASan's shadow gap, guard gaps) is replaced by such a
 *     mapping, the vDSO and vvar pages (which can raise SIGBUS on a
 *     read) are unmapped and filled like a hole;
 *   - then every writable mapping other than the window's stack, the
 *     data and its alias is made read-only, by window_seal.S, which then
 *     stops the child with int3 for the parent.
 * Invariants afterwards: a read anywhere in the user half outside the
 * reserve never faults; a write outside the stack, the data and its
 * alias always faults with its address (SEGV_ACCERR); the child never
 * runs its own code again, and the kernel never writes its memory (rseq
 * is unregistered first; the parent delivers no signal and runs no
 * system call).
 *
 * It runs between fork and the seal in a child of a process that may
 * have had other threads (libFuzzer's): no malloc, no stdio, only
 * system calls and static buffers.
 */
#define _GNU_SOURCE	/* MAP_FIXED_NOREPLACE, MADV_HUGEPAGE */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include "window_layout.h"
#include "window_setup.h"

#define MAX_REGIONS 4096
#define RSEQ_FLAG_UNREGISTER 1
#define RSEQ_SIG 0x53053053	/* x86's rseq signature (glibc's) */

struct region {
	uint64_t lo, hi;
	bool r, w, x;
	bool special;		/* [vdso], [vvar], [vvar_vclock] */
};

static char maps_text[1 << 20];
static struct region regions[MAX_REGIONS];
static struct window_seal_range seal_list[MAX_REGIONS];
static int error_fd = -1;

/* One line to the parent ("what 0xaddr: errno N"), then exit 1. */
static void fail(const char *what, uint64_t addr)
{
	char line[160], *p = line;
	int e = errno;
	size_t n = strlen(what);

	if (n > 100)
		n = 100;
	memcpy(p, what, n);
	p += n;
	memcpy(p, " 0x", 3);
	p += 3;
	for (int shift = 60; shift >= 0; shift -= 4)
		*p++ = "0123456789abcdef"[(addr >> shift) & 15];
	memcpy(p, ": errno ", 8);
	p += 8;
	char digits[12];
	int nd = 0;
	do {
		digits[nd++] = (char)('0' + e % 10);
		e /= 10;
	} while (e && nd < 11);
	while (nd)
		*p++ = digits[--nd];
	*p++ = '\n';
	if (write(error_fd, line, (size_t)(p - line)) < 0)
		_exit(2);
	_exit(1);
}

static uint64_t parse_hex(const char **s)
{
	uint64_t v = 0;
	for (;; (*s)++) {
		char ch = **s;
		unsigned d = ch >= '0' && ch <= '9' ? (unsigned)(ch - '0') :
			     ch >= 'a' && ch <= 'f' ? (unsigned)(ch - 'a' + 10) : 16;
		if (d == 16)
			return v;
		v = v << 4 | d;
	}
}

/* /proc/self/maps into regions[], in address order; returns how many. */
static unsigned read_maps(void)
{
	int fd = open("/proc/self/maps", O_RDONLY);
	size_t len = 0;
	ssize_t got;
	unsigned n = 0;

	if (fd < 0)
		fail("open /proc/self/maps", 0);
	while ((got = read(fd, maps_text + len, sizeof(maps_text) - 1 - len)) > 0)
		len += (size_t)got;
	close(fd);
	if (got < 0 || len >= sizeof(maps_text) - 1)
		fail("read /proc/self/maps (or it is too long), bytes", len);
	maps_text[len] = '\0';
	for (const char *s = maps_text; *s; n++) {
		if (n == MAX_REGIONS)
			fail("more mappings than the child can list", n);
		struct region *r = &regions[n];
		r->lo = parse_hex(&s);
		s++;
		r->hi = parse_hex(&s);
		s++;
		r->r = s[0] == 'r';
		r->w = s[1] == 'w';
		r->x = s[2] == 'x';
		const char *eol = strchr(s, '\n');
		const char *name = memchr(s, '[', (size_t)(eol - s));
		r->special = name && (!strncmp(name, "[vdso]", 6) || !strncmp(name, "[vvar", 5));
		s = eol + 1;
	}
	return n;
}

static void map_fixed(uint64_t addr, uint64_t len, int prot, int flags, int fd, const char *what)
{
	void *p = mmap((void *)(uintptr_t)addr, len, prot, flags, fd, 0);
	if (p != (void *)(uintptr_t)addr)
		fail(what, addr);
}

/* Readable memory over [lo, hi): anonymous, no swap reserved, huge zero pages where it can. */
static void map_readable(uint64_t lo, uint64_t hi, int extra_flags)
{
	map_fixed(lo, hi - lo, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | extra_flags, -1,
		  "map the hole (read-only) at");
	madvise((void *)(uintptr_t)lo, hi - lo, MADV_HUGEPAGE);	/* best effort: fewer page tables */
}

/* The same over [lo, hi), leaving out the window's reserve. */
static void fill(uint64_t lo, uint64_t hi, int extra_flags)
{
	if (lo < WINDOW_USER_LO)
		lo = WINDOW_USER_LO;
	if (hi > WINDOW_USER_HI)
		hi = WINDOW_USER_HI;
	if (lo >= hi)
		return;
	if (lo < WINDOW_RESERVE_LO && hi > WINDOW_RESERVE_LO) {
		fill(lo, WINDOW_RESERVE_LO, extra_flags);
		fill(WINDOW_RESERVE_HI, hi, extra_flags);
		return;
	}
	if (lo >= WINDOW_RESERVE_LO && hi <= WINDOW_RESERVE_HI)
		return;
	if (lo < WINDOW_RESERVE_HI && hi > WINDOW_RESERVE_HI)
		lo = WINDOW_RESERVE_HI;
	map_readable(lo, hi, extra_flags);
}

static void map_window(const int fds[3], uint64_t text_size)
{
	const int anon = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;

	map_fixed(WINDOW_RESERVE_LO, WINDOW_RESERVE_HI - WINDOW_RESERVE_LO, PROT_NONE,
		  anon | MAP_FIXED_NOREPLACE, -1, "reserve the window at");
	map_fixed(WINDOW_BASE, SFI_STACK_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fds[1],
		  "map the window's stack at");
	map_fixed(WINDOW_DATA_ALIAS, WINDOW_DATA_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		  fds[2], "map the data's alias at");
	map_fixed(WINDOW_DATA, WINDOW_DATA_SIZE, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_FIXED_NOREPLACE, fds[2], "map the data at");
	map_fixed(WINDOW_TEXT, text_size, PROT_READ | PROT_EXEC, MAP_SHARED | MAP_FIXED_NOREPLACE,
		  fds[0], "map the text at");
	map_fixed(WINDOW_TARGET, WINDOW_PAGE, PROT_READ, anon | MAP_FIXED_NOREPLACE, -1,
		  "map the target page at");
}

/* Whether [lo, hi) is one of the three mappings the graft may write. */
static bool graft_writable(uint64_t lo, uint64_t hi)
{
	return (lo >= WINDOW_BASE && hi <= WINDOW_STACK_TOP) ||
	       (lo >= WINDOW_DATA_ALIAS && hi <= WINDOW_DATA_ALIAS + WINDOW_DATA_SIZE) ||
	       (lo >= WINDOW_DATA && hi <= WINDOW_DATA + WINDOW_DATA_SIZE);
}

/* The kernel writes an rseq area on every return to user mode: stop that before the seal. */
static void unregister_rseq(void)
{
	extern const ptrdiff_t __rseq_offset __attribute__((weak));
	extern const unsigned int __rseq_size __attribute__((weak));

	if (!&__rseq_offset || !&__rseq_size || !__rseq_size)
		return;
	void *area = (char *)__builtin_thread_pointer() + __rseq_offset;
	/* glibc registers 32 bytes whatever __rseq_size says (it says 20 from 2.40). */
	if (syscall(SYS_rseq, area, 32, RSEQ_FLAG_UNREGISTER, RSEQ_SIG) &&
	    syscall(SYS_rseq, area, __rseq_size, RSEQ_FLAG_UNREGISTER, RSEQ_SIG) && errno != EINVAL)
		fail("unregister rseq at", (uint64_t)(uintptr_t)area);
}

void window_setup_child(const int fds[3], uint64_t text_size, int err_fd)
{
	unsigned n;

	error_fd = err_fd;
	if (ptrace(PTRACE_TRACEME, 0, 0, 0))
		fail("PTRACE_TRACEME", 0);
	map_window(fds, text_size);

	/* vDSO and vvar: no C code will call them again, and a read of vvar can raise SIGBUS. */
	n = read_maps();
	for (unsigned i = 0; i < n; i++)
		if (regions[i].special && regions[i].hi <= WINDOW_USER_HI &&
		    munmap((void *)(uintptr_t)regions[i].lo, regions[i].hi - regions[i].lo))
			fail("unmap the vDSO at", regions[i].lo);
	/* Mappings a read would fault on: readable memory instead (the reserve stays). */
	n = read_maps();
	for (unsigned i = 0; i < n; i++)
		if (!regions[i].r)
			fill(regions[i].lo, regions[i].hi, MAP_FIXED);
	/* The holes. */
	n = read_maps();
	uint64_t prev = 0;
	for (unsigned i = 0; i <= n; i++) {
		uint64_t lo = i < n ? regions[i].lo : WINDOW_USER_HI;
		if (lo > prev)
			fill(prev, lo, MAP_FIXED_NOREPLACE);
		if (i < n && regions[i].hi > prev)
			prev = regions[i].hi;
	}

	unregister_rseq();
	n = read_maps();
	unsigned nseal = 0;
	for (unsigned i = 0; i < n; i++) {
		const struct region *r = &regions[i];
		if (!r->w || graft_writable(r->lo, r->hi))
			continue;
		seal_list[nseal++] = (struct window_seal_range){
			.addr = r->lo, .len = r->hi - r->lo,
			.prot = PROT_READ | (r->x ? PROT_EXEC : 0),
		};
	}
	close(err_fd);
	window_seal(seal_list, nseal);
}
