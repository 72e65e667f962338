// SPDX-License-Identifier: BSD-2-Clause
/*
 * The system call benchmark of issue 23: one static program (musl-gcc
 * -static) that runs unmodified on Linux and on Scion and measures, with
 * the time-stamp counter, six operations of the kernel under it. Under
 * QEMU's -icount shift=0 the guest TSC advances exactly one per guest
 * instruction, so every figure is guest instructions, user and kernel
 * alike; the user part is this same binary's on both kernels.
 *
 *   bench_syscalls [EXEC_TARGET]     EXEC_TARGET defaults to /bench_exec_target
 *
 * Output (stdout, one write per line; tools/bench_compare.py parses it,
 * its ROW_RE is the twin of bench_report.h's printf):
 *
 *   bench: NAME VALUE insns/op (min of K batches of N; median MEDIAN)
 *   ...one line per row, in the order below...
 *   bench: done
 *
 * NAME is [a-z0-9_]+, VALUE and MEDIAN are whole instructions per
 * operation (a batch's total over N, rounded to the nearest), K and N
 * positive integers. A row that cannot be measured prints
 * `bench: error NAME: WHAT` instead and the program exits 1 after `done`.
 * Without icount the unit is TSC ticks, not instructions.
 *
 * Method: each row runs one warm-up batch, then K timed batches of N
 * operations (the TSC read once before and once after a batch); VALUE is
 * the batch with the fewest instructions per operation, MEDIAN the median
 * batch. K is 15, 31 for fork and 63 for execve: on Linux their cost
 * depends on where address space randomization put things (execve from
 * 206000 to 228000 instructions), and more samples keep the minimum from
 * moving between runs. The minimum: interference only ever adds instructions to a batch
 * (a timer tick, another process woken, a slab refill) and differs between
 * kernels (Linux ticks at 250 Hz here, Scion at 100 Hz), while the operation
 * itself is the same every time; batches are sized to stay under a tick
 * (4 million instructions at 250 Hz) so that many have none, and large
 * enough to spread what an allocator does every so many operations (the
 * fault row's 256 pages: about 1.7 million instructions on Linux). The median shows
 * how much interference there was. Each per-operation figure includes the
 * loop and the libc wrapper, a few instructions of this program.
 *
 * The rows:
 *   getpid_round_trip          getpid()
 *   pipe_write_read_1byte      write 1 byte into a pipe, read it back (one process)
 *   fork_exit_wait             fork; the child _exit(0)s; the parent wait4s it
 *   execve_small_program       execve of EXEC_TARGET (bench_exec_target.c) up to
 *                              the first instruction of its main: the TSC is read
 *                              right before execve, passed in argv, and read again
 *                              at the top of the target's main, which sends the
 *                              difference back through a pipe; one exec a batch.
 *                              Includes musl's start-up of the new program.
 *   page_fault_anon_first_touch  the first write to each page of a fresh private
 *                              anonymous mapping of 256 pages (1 MiB: too small
 *                              for a transparent huge page); mmap and munmap are
 *                              outside the timed loop
 *   context_switch_pipe        two processes pass a byte back and forth over two
 *                              pipes; one operation is half a round trip: a
 *                              write, a switch to the other process, its read
 *                              returning
 *
 * System calls used: getpid, write, read, pipe2, fork, execve, wait4,
 * exit_group (_exit), mmap, munmap, and what musl's start-up makes
 * (arch_prctl, set_tid_address). fork is made directly (the syscall
 * instruction): musl's fork() also blocks signals (rt_sigprocmask) and asks
 * gettid around it; pipe2 through syscall(): musl's pipe2(fd, 0) makes
 * pipe(2). Output goes through
 * snprintf and write, never stdio (musl's stdout asks the terminal's size
 * with an ioctl on first use); pipes are never closed (close is not among
 * the calls Scion's processes have at issue 23: five stay open). Run on one CPU, so that the context switch
 * row switches on one CPU on both kernels.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "bench_report.h"

#define BATCHES 15              /* K of most rows */
#define MAX_BATCHES 63          /* K of the execve row */
#define PAGE 4096
#define FAULT_PAGES 256

static uint64_t values[MAX_BATCHES];
static int failed;

/* fork(2) itself, without musl's wrapper (see above). */
static long raw_fork(void)
{
	long ret;
	__asm__ volatile("syscall" : "=a"(ret) : "a"((long)SYS_fork) : "rcx", "r11", "memory");
	return ret;
}

/* pipe2(fd, 0): musl's pipe2 with no flags makes the older pipe(2) call. */
static int make_pipe(int fd[2])
{
	return (int)syscall(SYS_pipe2, fd, 0);
}

static void error(const char *row, const char *what)
{
	char line[160];
	snprintf(line, sizeof(line), "bench: error %s: %s\n", row, what);
	say(line);
	failed = 1;
}

static void bench_getpid(void)
{
	enum { N = 1000 };
	for (int b = -1; b < BATCHES; b++) {
		uint64_t t0 = tsc();
		for (int i = 0; i < N; i++)
			getpid();
		uint64_t t1 = tsc();
		if (b >= 0)
			values[b] = t1 - t0;
	}
	bench_report("getpid_round_trip", values, BATCHES, N);
}

static void bench_pipe(void)
{
	enum { N = 200 };
	int fd[2];
	char c = 'x';
	if (make_pipe(fd)) {
		error("pipe_write_read_1byte", "pipe2 failed");
		return;
	}
	for (int b = -1; b < BATCHES; b++) {
		uint64_t t0 = tsc();
		for (int i = 0; i < N; i++) {
			if (write(fd[1], &c, 1) != 1 || read(fd[0], &c, 1) != 1) {
				error("pipe_write_read_1byte", "write or read failed");
				return;
			}
		}
		uint64_t t1 = tsc();
		if (b >= 0)
			values[b] = t1 - t0;
	}
	bench_report("pipe_write_read_1byte", values, BATCHES, N);
}

static int reap(long pid)
{
	int status;
	return wait4((pid_t)pid, &status, 0, NULL) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0;
}

static void bench_fork(void)
{
	enum { N = 2, K = 31 };
	for (int b = -1; b < K; b++) {
		uint64_t t0 = tsc();
		for (int i = 0; i < N; i++) {
			long pid = raw_fork();
			if (pid == 0)
				_exit(0);
			if (pid < 0 || !reap(pid)) {
				error("fork_exit_wait", "fork or wait4 failed");
				return;
			}
		}
		uint64_t t1 = tsc();
		if (b >= 0)
			values[b] = t1 - t0;
	}
	bench_report("fork_exit_wait", values, K, N);
}

static void hex16(char *out, uint64_t v)
{
	for (int i = 15; i >= 0; i--, v >>= 4)
		out[i] = "0123456789abcdef"[v & 15];
	out[16] = 0;
}

static void bench_execve(const char *target)
{
	int fd[2];
	if (make_pipe(fd)) {
		error("execve_small_program", "pipe2 failed");
		return;
	}
	char start[17] = "0000000000000000", wfd[12];
	snprintf(wfd, sizeof(wfd), "%d", fd[1]);
	char *argv[] = { (char *)target, start, wfd, NULL };
	char *envp[] = { NULL };
	for (int b = -1; b < MAX_BATCHES; b++) {
		long pid = raw_fork();
		if (pid == 0) {
			hex16(start, tsc());
			execve(target, argv, envp);
			_exit(127);
		}
		uint64_t took = 0;
		if (pid < 0 || read(fd[0], &took, sizeof(took)) != sizeof(took) || !reap(pid)) {
			if (pid > 0)
				reap(pid);
			error("execve_small_program", "the target did not run (is EXEC_TARGET there?)");
			return;
		}
		if (b >= 0)
			values[b] = took;
	}
	bench_report("execve_small_program", values, MAX_BATCHES, 1);
}

static void bench_fault(void)
{
	for (int b = -1; b < BATCHES; b++) {
		volatile char *p = mmap(NULL, FAULT_PAGES * PAGE, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			error("page_fault_anon_first_touch", "mmap failed");
			return;
		}
		uint64_t t0 = tsc();
		for (int i = 0; i < FAULT_PAGES; i++)
			p[i * PAGE] = 1;
		uint64_t t1 = tsc();
		munmap((void *)p, FAULT_PAGES * PAGE);
		if (b >= 0)
			values[b] = t1 - t0;
	}
	bench_report("page_fault_anon_first_touch", values, BATCHES, FAULT_PAGES);
}

static void bench_switch(void)
{
	enum { N = 100 };          /* round trips a batch: 2N operations */
	int there[2], back[2], ok = 1;
	char c = 'x';
	if (make_pipe(there) || make_pipe(back)) {
		error("context_switch_pipe", "pipe2 failed");
		return;
	}
	long pid = raw_fork();
	if (pid == 0) {
		for (;;) {
			if (read(there[0], &c, 1) != 1)
				_exit(1);
			if (c == 'q')
				_exit(0);
			if (write(back[1], &c, 1) != 1)
				_exit(1);
		}
	}
	if (pid < 0) {
		error("context_switch_pipe", "fork failed");
		return;
	}
	for (int b = -1; b < BATCHES && ok; b++) {
		uint64_t t0 = tsc();
		for (int i = 0; i < N && ok; i++)
			ok = write(there[1], &c, 1) == 1 && read(back[0], &c, 1) == 1;
		uint64_t t1 = tsc();
		if (b >= 0)
			values[b] = t1 - t0;
	}
	c = 'q';
	if (write(there[1], &c, 1) != 1 || !reap(pid))
		ok = 0;
	if (ok)
		bench_report("context_switch_pipe", values, BATCHES, 2 * N);
	else
		error("context_switch_pipe", "write, read or the partner's exit failed");
}

int main(int argc, char **argv)
{
	const char *target = argc > 1 ? argv[1] : "/bench_exec_target";
	bench_getpid();
	bench_pipe();
	bench_fork();
	bench_execve(target);
	bench_fault();
	bench_switch();
	say("bench: done\n");
	return failed;
}
