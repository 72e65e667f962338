// SPDX-License-Identifier: BSD-2-Clause
/*
 * sys_count: a known sequence of system calls for the syscall and proc
 * providers' tests (tests/integration/test_proc_trace.py), each made
 * directly (syscall()) so that the libc adds none:
 *
 *   sys_count [SLEEP_MS]
 *
 *   1. nanosleep SLEEP_MS when given (time for a tracer to attach with -p)
 *   2. getpid, exactly 5 times
 *   3. write, exactly 3 times, one line each: "sys_count: line N"
 *   4. read(999, ...): EBADF (9)
 *   5. openat(AT_FDCWD, "/hello", 0), the path in a stack buffer (a page
 *      the program has touched)
 *   6. openat(AT_FDCWD, P, O_CLOEXEC) with P in an anonymous page it
 *      never touched: a tracer's copyinstr of it must fail, the kernel's
 *      own copy succeeds (demand paging) and the call gives ENOENT
 *   7. io_setup(7, &ctx): a call Scion does not implement (ENOSYS)
 *   8. fork; the child execve's /nosuch (ENOENT), then /hello with the
 *      argument "from-sys-count" (it exits 0); the parent wait4's it
 *   9. exit_group(3)
 *
 * Besides those, only what musl's start-up makes before main. On Linux
 * the same program runs too (io_setup then succeeds; nothing checks it there).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

int main(int argc, char **argv)
{
	if (argc > 1) {
		long ms = atol(argv[1]);
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
		syscall(SYS_nanosleep, &ts, NULL);
	}
	for (int i = 0; i < 5; i++)
		syscall(SYS_getpid);
	for (int i = 1; i <= 3; i++) {
		char line[] = "sys_count: line 0\n";
		line[16] = (char)('0' + i);
		syscall(SYS_write, 1, line, strlen(line));
	}
	char byte;
	syscall(SYS_read, 999, &byte, 1);
	char path[] = "/hello";
	long fd = syscall(SYS_openat, AT_FDCWD, path, 0);
	(void)fd;
	char *untouched = (char *)syscall(SYS_mmap, NULL, 4096, PROT_READ | PROT_WRITE,
					  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (untouched != MAP_FAILED)
		syscall(SYS_openat, AT_FDCWD, untouched, O_CLOEXEC);
	uint64_t ctx = 0;
	syscall(SYS_io_setup, 7, &ctx);
	long pid = syscall(SYS_fork);
	if (pid == 0) {
		char *const args[] = { "hello", "from-sys-count", NULL };
		char *const env[] = { NULL };
		syscall(SYS_execve, "/nosuch", args, env);
		syscall(SYS_execve, "/hello", args, env);
		syscall(SYS_exit_group, 127);
	}
	if (pid > 0) {
		int status;
		syscall(SYS_wait4, pid, &status, 0, NULL);
	}
	syscall(SYS_exit_group, 3);
	return 3;
}
