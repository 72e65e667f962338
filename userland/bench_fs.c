// SPDX-License-Identifier: BSD-2-Clause
/*
 * The file system benchmark of issue 24: one static program (musl-gcc
 * -static) that runs unmodified on Linux and on Scion and measures, with
 * the time-stamp counter, five file operations of the kernel under it on
 * an ext2 file system, the way userland/bench_syscalls.c measures system
 * calls (its opening comment gives the method and why: a warm-up batch,
 * K timed batches of N operations, the minimum and the median; under
 * QEMU's -icount shift=0 every figure is guest instructions).
 *
 *   bench_fs DIR        DIR is made (mkdir) if it is not there; it must be
 *                       on ext2 for the figures to mean what they say
 *
 * Output: bench_syscalls' lines (tools/bench_compare.py parses both):
 *
 *   bench: NAME VALUE insns/op (min of K batches of N; median MEDIAN)
 *   bench: error NAME: WHAT      (a row it could not measure; exit 1)
 *   bench: done
 *
 * The program works in DIR by relative names (it chdirs there), so that
 * both kernels look up the same one component whatever the mount point
 * (Linux's /mnt/bench-fs, Scion's /bench-fs). Names are short and made
 * before a row starts; files a previous run left are unlinked first.
 * Only the operation itself is between the two TSC reads: the closes,
 * unlinks and truncations that set the next batch up are outside.
 *
 * The rows (K is 15; N chosen so that a batch stays well under a 4 ms
 * tick, 4 million instructions at 250 Hz, on both kernels):
 *   fs_open_existing   open(O_RDONLY) of N files that exist and were
 *                      opened in the warm-up batch (the name cache hits);
 *                      the N descriptors are closed after the timing
 *   fs_create          open(O_CREAT|O_EXCL|O_WRONLY, 0644) of N new names;
 *                      closed and unlinked after the timing
 *   fs_write_4k        write of 4096 bytes appending to one file, N a
 *                      batch (new blocks each time); the file is truncated
 *                      to 0 between batches (ftruncate, lseek), untimed
 *   fs_fsync_4k        fsync of a file after an untimed 4 KiB append: only
 *                      the fsync is timed, N a batch, the file truncated to
 *                      0 and synced between batches
 *   fs_unlink          unlink of N files created (and closed) untimed
 *
 * Every row has a twin NAME_cpu, the same windows on the calling thread's
 * CPU clock (bench_report.h). A row that waits for the disk (fsync on
 * both kernels; create and unlink where metadata is written synchronously,
 * as on Scion) is virtual time on the TSC, since under -icount sleep=off
 * the clock jumps over the idle wait; its _cpu twin is the instructions
 * the thread ran. Work done for it elsewhere (an interrupt taken while
 * the CPU idled, a flush or journal thread) is in neither.
 *
 * System calls used: mkdir, chdir, open (musl's open(2) on x86-64), close,
 * write, lseek, ftruncate, fsync, unlink, clock_gettime, exit_group, and what musl's
 * start-up makes. Output goes through snprintf and write, never stdio.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "bench_report.h"

#define BATCHES 15              /* K of every row */
#define MAX_N 100               /* the largest N: the name table's size */
#define BLOCK 4096

static uint64_t values[BATCHES];	/* a row's batches on the TSC */
static uint64_t cpu[BATCHES];		/* ... and on the thread's CPU clock */
static uint64_t clock_overhead;		/* the thread clock's cost inside one window */
static int failed;
static char names[MAX_N][8];
static int fds[MAX_N];
static char block[BLOCK];

static void error(const char *row, const char *what)
{
	char line[200];
	snprintf(line, sizeof(line), "bench: error %s: %s (errno %d)\n", row, what, errno);
	say(line);
	failed = 1;
}

/* names[0..n) = PREFIX0, PREFIX1, ...; none of them left over from a
 * previous run. */
static void make_names(char prefix, int n)
{
	for (int i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "%c%d", prefix, i);
		unlink(names[i]);
	}
}

/* A row and its _cpu twin: N operations a batch, measured in windows windows. */
static void report(const char *row, int n, int windows)
{
	bench_report(row, values, BATCHES, n);
	bench_report_cpu(row, cpu, BATCHES, n, windows, clock_overhead);
}

static void close_all(int n)
{
	for (int i = 0; i < n; i++)
		close(fds[i]);
}

static void bench_open(void)
{
	enum { N = 100 };
	make_names('o', N);
	for (int i = 0; i < N; i++) {
		int fd = open(names[i], O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0) {
			error("fs_open_existing", "cannot create the files");
			return;
		}
		close(fd);
	}
	for (int b = -1; b < BATCHES; b++) {
		uint64_t t = 0, c = 0;
		struct bench_window w = window_open();
		for (int i = 0; i < N; i++)
			fds[i] = open(names[i], O_RDONLY);
		window_close(w, &t, &c);
		for (int i = 0; i < N; i++)
			if (fds[i] < 0) {
				error("fs_open_existing", "open failed");
				return;
			}
		close_all(N);
		if (b >= 0)
			values[b] = t, cpu[b] = c;
	}
	for (int i = 0; i < N; i++)
		unlink(names[i]);
	report("fs_open_existing", N, 1);
}

static void bench_create(void)
{
	enum { N = 50 };
	make_names('c', N);
	for (int b = -1; b < BATCHES; b++) {
		uint64_t t = 0, c = 0;
		struct bench_window w = window_open();
		for (int i = 0; i < N; i++)
			fds[i] = open(names[i], O_CREAT | O_EXCL | O_WRONLY, 0644);
		window_close(w, &t, &c);
		int ok = 1;
		for (int i = 0; i < N; i++) {
			ok &= fds[i] >= 0;
			if (fds[i] >= 0)
				close(fds[i]);
			unlink(names[i]);
		}
		if (!ok) {
			error("fs_create", "open(O_CREAT|O_EXCL) failed");
			return;
		}
		if (b >= 0)
			values[b] = t, cpu[b] = c;
	}
	report("fs_create", N, 1);
}

/* A file of its own for a row: empty, open for writing. */
static int fresh_file(const char *row, const char *name)
{
	unlink(name);
	int fd = open(name, O_CREAT | O_EXCL | O_WRONLY, 0644);
	if (fd < 0)
		error(row, "cannot create its file");
	return fd;
}

/* The file back to empty and its offset to 0, between batches. */
static int empty(int fd)
{
	return ftruncate(fd, 0) == 0 && lseek(fd, 0, SEEK_SET) == 0;
}

static void bench_write(void)
{
	enum { N = 64 };                /* 256 KiB a batch */
	int fd = fresh_file("fs_write_4k", "w");
	if (fd < 0)
		return;
	for (int b = -1; b < BATCHES; b++) {
		if (!empty(fd)) {
			error("fs_write_4k", "ftruncate or lseek failed");
			goto out;
		}
		int ok = 1;
		uint64_t t = 0, c = 0;
		struct bench_window w = window_open();
		for (int i = 0; i < N; i++)
			ok &= write(fd, block, BLOCK) == BLOCK;
		window_close(w, &t, &c);
		if (!ok) {
			error("fs_write_4k", "write failed");
			goto out;
		}
		if (b >= 0)
			values[b] = t, cpu[b] = c;
	}
	report("fs_write_4k", N, 1);
out:
	close(fd);
	unlink("w");
}

static void bench_fsync(void)
{
	enum { N = 8 };
	int fd = fresh_file("fs_fsync_4k", "f");
	if (fd < 0)
		return;
	for (int b = -1; b < BATCHES; b++) {
		if (!empty(fd) || fsync(fd)) {
			error("fs_fsync_4k", "ftruncate, lseek or the untimed fsync failed");
			goto out;
		}
		uint64_t t = 0, c = 0;
		for (int i = 0; i < N; i++) {
			if (write(fd, block, BLOCK) != BLOCK) {
				error("fs_fsync_4k", "write failed");
				goto out;
			}
			struct bench_window w = window_open();
			int r = fsync(fd);
			window_close(w, &t, &c);
			if (r) {
				error("fs_fsync_4k", "fsync failed");
				goto out;
			}
		}
		if (b >= 0)
			values[b] = t, cpu[b] = c;
	}
	report("fs_fsync_4k", N, N);
out:
	close(fd);
	unlink("f");
}

static void bench_unlink(void)
{
	enum { N = 50 };
	make_names('u', N);
	for (int b = -1; b < BATCHES; b++) {
		for (int i = 0; i < N; i++) {
			int fd = open(names[i], O_CREAT | O_EXCL | O_WRONLY, 0644);
			if (fd < 0) {
				error("fs_unlink", "cannot create the files");
				return;
			}
			close(fd);
		}
		int ok = 1;
		uint64_t t = 0, c = 0;
		struct bench_window w = window_open();
		for (int i = 0; i < N; i++)
			ok &= unlink(names[i]) == 0;
		window_close(w, &t, &c);
		if (!ok) {
			error("fs_unlink", "unlink failed");
			return;
		}
		if (b >= 0)
			values[b] = t, cpu[b] = c;
	}
	report("fs_unlink", N, 1);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		say("usage: bench_fs DIR\n");
		return 2;
	}
	if (mkdir(argv[1], 0755) && errno != EEXIST) {
		error("setup", "mkdir DIR failed");
		say("bench: done\n");
		return 1;
	}
	if (chdir(argv[1])) {
		error("setup", "chdir DIR failed");
		say("bench: done\n");
		return 1;
	}
	memset(block, 'b', sizeof(block));
	clock_overhead = thread_cpu_overhead();
	bench_open();
	bench_create();
	bench_write();
	bench_fsync();
	bench_unlink();
	say("bench: done\n");
	return failed;
}
