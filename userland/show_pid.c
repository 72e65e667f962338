// SPDX-License-Identifier: BSD-2-Clause
/*
 * show_pid [N]: prints "show_pid: pid P" N times (default 1), each P from
 * its own getpid system call (no libc cache), and exits 0. The code
 * adaptation test runs it with a process's own version of the kernel's
 * getpid installed for it alone (scion codeadapt version --pid).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1;

	for (long i = 0; i < n; i++)
		printf("show_pid: pid %ld\n", syscall(SYS_getpid));
	return 0;
}
