// SPDX-License-Identifier: BSD-2-Clause
/*
 * fs_writers: processes writing one file system at once. The parent
 * makes fs_writers-dir under argv[1] (Linux: a temporary folder; Scion:
 * "/", the ext2 root) and forks WRITERS children; each, at the same
 * time as the others:
 *   - writes its own file of FILE_BYTES in pieces of varying size (the
 *     file grows through its indirect blocks), fsyncs it, and reads it
 *     back whole;
 *   - creates, renames and unlinks ROUNDS names of its own in the shared
 *     directory, checking each step (the directory's blocks change under
 *     every writer);
 *   - overwrites the middle of its file and reads that back.
 * A child reports each failure on one line and exits with the count of
 * them; the parent then lists the shared directory (only the files the
 * children kept: one each) and checks every file's size.
 *
 * It prints, for people, the wall time the children took together
 * (CLOCK_MONOTONIC): with WRITERS on as many CPUs the file system's
 * locking shows there. Ends with `fs_writers: N passed, M failed`.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include "check.h"

#define WRITERS 4
#define FILE_BYTES (300u * 1024)
#define ROUNDS 40

static char base[512];

static void path_of(char *buf, size_t n, const char *fmt, int who, int i)
{
	char rel[64];
	snprintf(rel, sizeof(rel), fmt, who, i);
	snprintf(buf, n, "%s/%s", base, rel);
}

static uint8_t byte_at(int who, size_t off)
{
	return (uint8_t)(off * 31 + (off >> 12) + (size_t)who * 101);
}

/* The child's own failures, counted and said. */
static int child_failures;

static void child_check(int ok, int who, const char *what, long got)
{
	if (!ok) {
		printf("fs_writers: writer %d: %s (got %ld, errno %d)\n", who, what, got, errno);
		child_failures++;
	}
}

static void write_file(int who)
{
	static uint8_t buf[16384];
	char path[600];
	path_of(path, sizeof(path), "w%d-file", who, 0);
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0644);
	child_check(fd >= 0, who, "create its file", fd);
	if (fd < 0)
		return;
	size_t off = 0;
	for (int piece = 0; off < FILE_BYTES; piece++) {
		size_t n = 1000 + (size_t)(piece * 1777 + who * 313) % 15000;
		if (n > FILE_BYTES - off)
			n = FILE_BYTES - off;
		for (size_t i = 0; i < n; i++)
			buf[i] = byte_at(who, off + i);
		ssize_t w = write(fd, buf, n);
		child_check(w == (ssize_t)n, who, "write a piece", (long)w);
		if (w != (ssize_t)n)
			break;
		off += n;
	}
	child_check(fsync(fd) == 0, who, "fsync", 0);
	size_t bad = 0, total = 0;
	for (off_t at = 0;; ) {
		ssize_t r = pread(fd, buf, sizeof(buf), at);
		if (r <= 0)
			break;
		for (ssize_t i = 0; i < r; i++)
			bad += buf[i] != byte_at(who, (size_t)at + (size_t)i);
		at += r;
		total += (size_t)r;
	}
	child_check(total == FILE_BYTES && bad == 0, who, "read its file back (bytes, wrong bytes)",
		    (long)(total * 1000000 + bad));
	/* An overwrite in the middle, across a block boundary, read back. */
	for (size_t i = 0; i < 5000; i++)
		buf[i] = (uint8_t)~byte_at(who, 100000 + i);
	child_check(pwrite(fd, buf, 5000, 100000) == 5000, who, "overwrite the middle", 0);
	uint8_t back[5000];
	child_check(pread(fd, back, 5000, 100000) == 5000 && !memcmp(back, buf, 5000), who,
		    "read the overwrite back", 0);
	close(fd);
}

static void churn_names(int who)
{
	char a[600], b[600];
	for (int i = 0; i < ROUNDS; i++) {
		path_of(a, sizeof(a), "w%d-n%d", who, i);
		path_of(b, sizeof(b), "w%d-r%d", who, i);
		int fd = open(a, O_WRONLY | O_CREAT | O_EXCL, 0644);
		child_check(fd >= 0, who, "create a name", fd);
		if (fd < 0)
			continue;
		child_check(write(fd, a, 16) == 16, who, "write into it", 0);
		close(fd);
		child_check(rename(a, b) == 0, who, "rename it", 0);
		struct stat st;
		child_check(stat(a, &st) < 0 && errno == ENOENT, who, "the old name is gone", 0);
		child_check(stat(b, &st) == 0 && st.st_size == 16, who, "the new name has 16 bytes",
			    (long)st.st_size);
		child_check(unlink(b) == 0, who, "unlink it", 0);
	}
}

static void writer(int who)
{
	write_file(who);
	churn_names(who);
	fflush(stdout);
	_exit(child_failures > 255 ? 255 : child_failures);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	check_start("fs_writers", argc, argv);
	snprintf(base, sizeof(base), "%s/fs_writers-dir", argc > 1 ? argv[1] : "");
	CHECK_OK(mkdir(base, 0755), "mkdir fs_writers-dir");
	uint64_t start = now_ns();
	pid_t pids[WRITERS];
	for (int w = 0; w < WRITERS; w++) {
		pids[w] = fork();
		if (pids[w] == 0)
			writer(w);
		CHECK(pids[w] > 0, "fork writer %d", w);
	}
	for (int w = 0; w < WRITERS; w++) {
		int status = 0;
		if (pids[w] <= 0)
			continue;
		CHECK(waitpid(pids[w], &status, 0) == pids[w], "wait for writer %d", w);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "writer %d: %d failures (status %#x)", w, WEXITSTATUS(status), status);
	}
	uint64_t took = now_ns() - start;
	printf("fs_writers: %d writers took %llu ms\n", WRITERS,
	       (unsigned long long)(took / 1000000));

	DIR *d = opendir(base);
	CHECK(d != NULL, "opendir fs_writers-dir");
	int entries = 0;
	for (struct dirent *e; d && (e = readdir(d));) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		entries++;
		char path[1200];
		snprintf(path, sizeof(path), "%s/%s", base, e->d_name);
		struct stat st;
		CHECK(stat(path, &st) == 0 && st.st_size == FILE_BYTES, "%s: %lld bytes",
		      e->d_name, (long long)st.st_size);
	}
	if (d)
		closedir(d);
	CHECK_EQ(entries, WRITERS, "entries left in fs_writers-dir");
	return check_done();
}
