// SPDX-License-Identifier: BSD-2-Clause
/*
 * fs_tree: walk a directory tree (argv[1], default /fsdata) and print
 * one line summing it up: counts of files, directories and links, the
 * bytes of the files, and a digest of everything read: per entry, in
 * byte order of names, depth first, FNV-1a 64 over its type letter
 * (f, d, l), its path, a NUL, its size in decimal, a NUL and its
 * contents (a file) or target (a link), folded into the total. The test
 * compares the line with tools/mkrootfs.py's tree_digest of the tree the
 * image was made from (and runs this program on Linux over that tree).
 * Reads files in odd-sized pieces, so that reads cross blocks.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull
#define PIECE 3001

static uint64_t total = FNV_OFFSET;
static unsigned long files, dirs, links;
static unsigned long long bytes;
static int errors;

static uint64_t fnv(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;
	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * FNV_PRIME;
	return h;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void fail(const char *what, const char *path)
{
	printf("fs_tree: %s %s: %s\n", what, path, strerror(errno));
	errors++;
}

static uint64_t head(char kind, const char *path, unsigned long long size)
{
	char num[32];
	uint64_t h = fnv(FNV_OFFSET, &kind, 1);
	h = fnv(h, path, strlen(path) + 1);
	int n = snprintf(num, sizeof(num), "%llu", size);
	return fnv(h, num, (size_t)n + 1);
}

static void fold(uint64_t h)
{
	unsigned char le[8];
	for (int i = 0; i < 8; i++)
		le[i] = (unsigned char)(h >> (8 * i));
	total = fnv(total, le, 8);
}

static void walk(const char *real, const char *shown)
{
	DIR *d = opendir(real);
	if (!d) {
		fail("opendir", real);
		return;
	}
	size_t n = 0, cap = 64;
	char **names = malloc(cap * sizeof(*names));
	for (;;) {
		errno = 0;
		struct dirent *e = readdir(d);
		if (!e) {
			if (errno)
				fail("readdir", real);
			break;
		}
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (n == cap)
			names = realloc(names, (cap *= 2) * sizeof(*names));
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), by_name);
	static char buf[PIECE];
	for (size_t i = 0; i < n; i++) {
		char *rpath = malloc(strlen(real) + strlen(names[i]) + 2);
		char *spath = malloc(strlen(shown) + strlen(names[i]) + 2);
		sprintf(rpath, "%s/%s", real, names[i]);
		sprintf(spath, "%s/%s", shown, names[i]);
		struct stat st;
		if (lstat(rpath, &st)) {
			fail("lstat", rpath);
		} else if (S_ISLNK(st.st_mode)) {
			char target[4096];
			ssize_t len = readlink(rpath, target, sizeof(target));
			if (len < 0) {
				fail("readlink", rpath);
			} else {
				fold(fnv(head('l', spath, (unsigned long long)len), target, (size_t)len));
				links++;
			}
		} else if (S_ISDIR(st.st_mode)) {
			fold(head('d', spath, 0));
			dirs++;
			walk(rpath, spath);
		} else {
			int fd = open(rpath, O_RDONLY);
			if (fd < 0) {
				fail("open", rpath);
			} else {
				uint64_t h = head('f', spath, (unsigned long long)st.st_size);
				unsigned long long got = 0;
				ssize_t r;
				while ((r = read(fd, buf, sizeof(buf))) > 0) {
					h = fnv(h, buf, (size_t)r);
					got += (unsigned long long)r;
				}
				if (r < 0)
					fail("read", rpath);
				else if (got != (unsigned long long)st.st_size) {
					printf("fs_tree: %s: read %llu bytes of %lld\n", rpath, got,
					       (long long)st.st_size);
					errors++;
				}
				close(fd);
				fold(h);
				files++;
				bytes += got;
			}
		}
		free(rpath);
		free(spath);
		free(names[i]);
	}
	free(names);
}

int main(int argc, char **argv)
{
	const char *top = argc > 1 ? argv[1] : "/fsdata";
	const char *shown = argc > 2 ? argv[2] : top;
	walk(top, shown);
	printf("fs_tree: %s: %lu files, %lu directories, %lu links, %llu bytes, digest %016llx\n",
	       shown, files, dirs, links, bytes, (unsigned long long)total);
	return errors ? 1 : 0;
}
