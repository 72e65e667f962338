// SPDX-License-Identifier: BSD-2-Clause
/*
 * fs_crash: a write workload to be killed. Forever (or argv[1] files):
 * write crash.d/tmp-N (a size and bytes that N decides), fsync it,
 * rename it to crash.d/fN (replacing nothing), and only then print
 * "fs_crash: synced fN SIZE". Every file so announced must read back
 * intact after the machine is killed at any moment; test_fs.py checks
 * that, and that e2fsck finds nothing worse than leaks. Byte j of file
 * N is (N * 131 + j * 7 + (j >> 8)) & 0xff.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static unsigned char buf[1 << 16];

int main(int argc, char **argv)
{
	long count = argc > 1 ? atol(argv[1]) : -1;
	mkdir("/crash.d", 0755);
	for (long n = 0; count < 0 || n < count; n++) {
		size_t size = 1000 + (size_t)(n * 7919) % 60000;
		for (size_t j = 0; j < size; j++)
			buf[j] = (unsigned char)(n * 131 + j * 7 + (j >> 8));
		char tmp[64], final[64];
		snprintf(tmp, sizeof(tmp), "/crash.d/tmp-%ld", n);
		snprintf(final, sizeof(final), "/crash.d/f%ld", n);
		int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, buf, size) != (ssize_t)size || fsync(fd)) {
			perror("fs_crash");
			return 1;
		}
		close(fd);
		if (rename(tmp, final)) {
			perror("fs_crash: rename");
			return 1;
		}
		printf("fs_crash: synced f%ld %zu\n", n, size);
		fflush(stdout);
	}
	return 0;
}
