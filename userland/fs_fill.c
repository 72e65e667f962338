// SPDX-License-Identifier: BSD-2-Clause
/*
 * fs_fill: a full disk costs nothing already written. In a fresh
 * directory (argv[1], default /fill), write files of 64 KiB until a
 * write fails: the error is ENOSPC (a short write first is fine), every
 * file written before reads back whole, a new file cannot be created or
 * grown, and once they are all removed the space is back: as many files
 * fit again. Meant for a small volume (test_fs.py makes one); on a large
 * one it stops after 4096 files and checks the rest.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include "check.h"

#define FILE_BYTES (64 * 1024)
#define MAX_FILES 4096

static char buf[FILE_BYTES], back[FILE_BYTES];

static void pattern(int n)
{
	for (int i = 0; i < FILE_BYTES; i++)
		buf[i] = (char)(n * 31 + i * 7 + (i >> 9));
}

/* Fill dir; returns the number of whole files written. */
static int fill(const char *dir, int *err)
{
	char path[256];
	int n;
	*err = 0;
	for (n = 0; n < MAX_FILES; n++) {
		snprintf(path, sizeof(path), "%s/f%04d", dir, n);
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0) {
			*err = errno;
			break;
		}
		pattern(n);
		ssize_t done = 0, w = 0;
		while (done < FILE_BYTES && (w = write(fd, buf + done, FILE_BYTES - done)) > 0)
			done += w;
		if (w < 0)
			*err = errno;
		close(fd);
		if (done < FILE_BYTES) {
			unlink(path);	/* the partial one goes */
			break;
		}
	}
	return n;
}

int main(int argc, char **argv)
{
	check_start("fs_fill", argc, argv);
	const char *dir = argc > 1 && argv[1][0] == '/' ? argv[1] : "/fill";
	CHECK_EQ(mkdir(dir, 0755), 0, "mkdir (it must not exist yet)");
	int err;
	int files = fill(dir, &err);
	CHECK(files > 2 && files < MAX_FILES && err == ENOSPC, "%d files, then %s", files,
	      check_errno_name(err));
	char path[256];
	int intact = 0;
	for (int n = 0; n < files; n++) {
		snprintf(path, sizeof(path), "%s/f%04d", dir, n);
		int fd = open(path, O_RDONLY);
		pattern(n);
		ssize_t got = fd >= 0 ? read(fd, back, FILE_BYTES) : -1;
		intact += got == FILE_BYTES && !memcmp(buf, back, FILE_BYTES);
		if (fd >= 0)
			close(fd);
	}
	CHECK_EQ(intact, files, "files that read back whole after the disk filled");
	snprintf(path, sizeof(path), "%s/more", dir);
	int fd = open(path, O_WRONLY | O_CREAT, 0644);
	if (fd >= 0) {
		char big[8192] = { 1 };
		ssize_t w;
		while ((w = write(fd, big, sizeof(big))) > 0)
			;
		CHECK(w < 0 && errno == ENOSPC, "growing a file on a full disk: %s",
		      w < 0 ? check_errno_name(errno) : "no error");
		close(fd);
		unlink(path);
	} else {
		CHECK(errno == ENOSPC, "creating on a full disk: %s", check_errno_name(errno));
	}
	for (int n = 0; n < files; n++) {
		snprintf(path, sizeof(path), "%s/f%04d", dir, n);
		if (unlink(path))
			CHECK(0, "unlink %s: %s", path, check_errno_name(errno));
	}
	int again = fill(dir, &err);
	CHECK(again >= files - 1 && again <= files + 1, "after removing them, %d files fit again "
	      "(%d before)", again, files);
	return check_done();
}
