// SPDX-License-Identifier: BSD-2-Clause
/*
 * bench_getpid N: N getpid system calls (the syscall instruction itself,
 * no libc wrapper), then exit 0. The in-kernel benchmark syscall_probe
 * (tests/kernel/bench_syscall.c) runs it with N = 0 and N = 4000 and
 * takes the difference: guest instructions per getpid round trip, with
 * the syscall provider disabled and with one of its probes enabled.
 * No output: it runs without a console.
 */
#include <stdlib.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0;
	for (long i = 0; i < n; i++) {
		long ret;
		__asm__ volatile("syscall" : "=a"(ret) : "a"((long)SYS_getpid) : "rcx", "r11", "memory");
	}
	return 0;
}
