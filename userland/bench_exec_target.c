// SPDX-License-Identifier: BSD-2-Clause
/*
 * The small program bench_syscalls.c execs for its execve_small_program
 * row: `bench_exec_target START FD` reads the time-stamp counter first
 * thing in main, subtracts START (16 hex digits: the counter its parent
 * read right before execve) and writes the difference, 8 bytes in the
 * machine's order, to file descriptor FD (a pipe inherited across the
 * exec), then exits 0. Without arguments it exits 0 at once.
 */
#include <stdint.h>
#include <unistd.h>

static inline uint64_t tsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return (uint64_t)hi << 32 | lo;
}

int main(int argc, char **argv)
{
	uint64_t now = tsc(), start = 0;
	int fd = 0;
	if (argc < 3)
		_exit(0);
	for (const char *p = argv[1]; *p; p++)
		start = start << 4 | (uint64_t)(*p <= '9' ? *p - '0' : *p - 'a' + 10);
	for (const char *p = argv[2]; *p; p++)
		fd = fd * 10 + (*p - '0');
	uint64_t took = now - start;
	_exit(write(fd, &took, sizeof(took)) == sizeof(took) ? 0 : 1);
}
