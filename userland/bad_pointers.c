// SPDX-License-Identifier: BSD-2-Clause
/*
 * bad_pointers: a hostile program. Every system call that takes a
 * pointer gets garbage -- NULL, 1, the last page below the canonical
 * hole, the first non-canonical address, the kernel's half, all ones,
 * a buffer running off the end of a mapping -- and lengths that wrap;
 * each must fail with EFAULT (or EINVAL where Linux checks the length
 * first), and the program must live to print its line. Takes the
 * archive's folder as argv[1] on Linux.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include "check.h"

static const uintptr_t bad[] = {
	0, 1, 0xfff, 0x00007ffffffff000ul, 0x0000800000000000ul, 0x0000ffffffffffffull,
	0xffff800000000000ul, 0xffffffff80000000ul, 0xfffffffffffff000ul, ~0ul,
};
#define NBAD (sizeof(bad) / sizeof(bad[0]))

int main(int argc, char **argv)
{
	check_start("bad_pointers", argc, argv);
	char path[512], buf[64];
	int fd = open(check_path(path, sizeof(path), "/etc/motd"), O_RDONLY);
	int dfd = open(check_path(path, sizeof(path), "/etc"), O_RDONLY | O_DIRECTORY);
	CHECK(fd >= 0 && dfd >= 0, "open /etc/motd and /etc: %s", check_errno_name(errno));

	/* A page followed by nothing: the last 8 bytes of the page and 8 beyond. */
	char *page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(page + 4096, 4096);
	char *edge = page + 4096 - 8;

	for (size_t i = 0; i < NBAD; i++) {
		void *p = (void *)bad[i];
		char what[96];
#define T(call, err, name) do { \
	snprintf(what, sizeof(what), "%s with 0x%lx", name, (unsigned long)bad[i]); \
	CHECK_ERR(call, err, what); \
} while (0)
		T(syscall(SYS_read, fd, p, 16), EFAULT, "read into");
		T(syscall(SYS_write, 1, p, 16), EFAULT, "write from");
		T(syscall(SYS_open, p, O_RDONLY), EFAULT, "open of");
		T(syscall(SYS_openat, AT_FDCWD, p, O_RDONLY), EFAULT, "openat of");
		T(syscall(SYS_newfstatat, AT_FDCWD, p, buf, 0), EFAULT, "newfstatat of");
		T(syscall(SYS_fstat, fd, p), EFAULT, "fstat into");
		T(syscall(SYS_getdents64, dfd, p, 4096), EFAULT, "getdents64 into");
		T(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, p), EFAULT, "clock_gettime into");
		T(syscall(SYS_nanosleep, p, NULL), EFAULT, "nanosleep from");
		T(syscall(SYS_uname, p), EFAULT, "uname into");
		T(syscall(SYS_getcwd, p, 256), EFAULT, "getcwd into");
		T(syscall(SYS_chdir, p), EFAULT, "chdir to");
		T(syscall(SYS_pipe2, p, 0), EFAULT, "pipe2 into");
		T(syscall(SYS_getrandom, p, 16, 0), EFAULT, "getrandom into");
		if (bad[i]) {	/* NULL: no new action or mask, only a query */
			T(syscall(SYS_rt_sigaction, SIGUSR1, p, NULL, 8), EFAULT, "rt_sigaction from");
			T(syscall(SYS_rt_sigaction, SIGUSR1, NULL, p, 8), EFAULT, "rt_sigaction into");
			T(syscall(SYS_rt_sigprocmask, SIG_BLOCK, p, NULL, 8), EFAULT,
			  "rt_sigprocmask from");
			T(syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, p, 8), EFAULT,
			  "rt_sigprocmask into");
		}
		T(syscall(SYS_execve, p, NULL, NULL), EFAULT, "execve of");
		/* No child: ECHILD before the status pointer matters. */
		T(syscall(SYS_wait4, -1, p, 0, NULL), ECHILD, "wait4 with no children, status");
	}

	/* Buffers that start in a mapping and run off its end. */
	CHECK_ERR(syscall(SYS_uname, edge), EFAULT, "uname into a buffer that runs off a mapping");
	CHECK_ERR(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, edge + 4), EFAULT,
		  "clock_gettime into a buffer that runs off a mapping");
	CHECK_ERR(syscall(SYS_fstat, fd, edge), EFAULT, "fstat into a buffer that runs off a mapping");
	memcpy(edge, "/etc/mot", 8);	/* no NUL before the end of the mapping */
	CHECK_ERR(syscall(SYS_open, edge, O_RDONLY), EFAULT, "open of a name without its NUL");

	/* Lengths that wrap or reach past user space. */
	CHECK_ERR(syscall(SYS_read, fd, buf, (size_t)-1), EFAULT, "read of 2^64 - 1 bytes");
	CHECK_ERR(syscall(SYS_write, 1, buf, (size_t)-1), EFAULT, "write of 2^64 - 1 bytes");
	CHECK_ERR(syscall(SYS_read, fd, buf, 1ul << 62), EFAULT, "read of 2^62 bytes");
	CHECK_ERR(syscall(SYS_write, 1, buf, 1ul << 47), EFAULT, "write of 2^47 bytes");
	CHECK_ERR(syscall(SYS_getdents64, dfd, buf, 0), EINVAL, "getdents64 of 0 bytes");
	CHECK_ERR(syscall(SYS_rt_sigprocmask, SIG_BLOCK, buf, NULL, (size_t)-1), EINVAL,
		  "rt_sigprocmask with sigset size 2^64 - 1");
	CHECK_ERR(syscall(SYS_mmap, 0, (size_t)-1, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
		  ENOMEM, "mmap of 2^64 - 1 bytes");
	CHECK_ERR(syscall(SYS_munmap, 0xfffffffffffff000ul, 8192), EINVAL,
		  "munmap wrapping around the top");
	close(fd);
	close(dfd);
	return check_done();
}
