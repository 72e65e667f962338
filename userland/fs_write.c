// SPDX-License-Identifier: BSD-2-Clause
/*
 * fs_write: a writable file system's answers, as Linux gives them, in a
 * fresh directory fs_write-dir under argv[1] (Linux: a temporary folder;
 * Scion: "/", the ext2 root). Files: O_CREAT, O_EXCL (EEXIST), write and
 * read back, lseek past the end (a hole), pread/pwrite, O_APPEND,
 * O_TRUNC, ftruncate and truncate down and up (zeros), fsync, fdatasync,
 * sync, a 3 MiB file in odd pieces. Names: mkdir (EEXIST), 400 files in
 * one directory listed back, unlink (ENOENT after, EISDIR for a
 * directory), rmdir (ENOTEMPTY, ENOTDIR), link (two links, one inode),
 * symlink and readlink, rename in a directory, across directories, over
 * a file, of a directory (its ".." follows), into itself (EINVAL),
 * renameat2 RENAME_NOREPLACE (EEXIST). Indirect blocks written 4 KiB at
 * a time, read, overwritten, truncated and grown before the close, and
 * a file unlinked while open. Leaves fs_write-dir/keep (the
 * bytes "kept\n" 1000 times) for the test to read on the host.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "check.h"

#define MANY 400
#define BIG (3u << 20)

static char base[512];

static const char *at(const char *rel)
{
	static char buf[4][1024];
	static int next;
	char *b = buf[next++ % 4];
	snprintf(b, sizeof(buf[0]), "%s/%s", base, rel);
	return b;
}

static void fill(char *buf, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = (char)('a' + (i * 7 + seed) % 26);
}

static void files(void)
{
	char buf[8192], want[8192];
	int fd = CHECK_OK(open(at("f"), O_RDWR | O_CREAT | O_EXCL, 0644), "create f");
	CHECK_ERR(open(at("f"), O_RDWR | O_CREAT | O_EXCL, 0644), EEXIST, "O_EXCL of f");
	fill(want, 5000, 1);
	CHECK_EQ(write(fd, want, 5000), 5000, "write 5000");
	CHECK_EQ(lseek(fd, 0, SEEK_SET), 0, "rewind");
	CHECK(read(fd, buf, sizeof(buf)) == 5000 && !memcmp(buf, want, 5000), "read back 5000");
	CHECK_EQ(lseek(fd, 10000, SEEK_SET), 10000, "lseek past the end");
	CHECK_EQ(write(fd, "end", 3), 3, "write after a hole");
	CHECK_EQ(pread(fd, buf, 100, 7000), 100, "pread in the hole");
	int zeros = 1;
	for (int i = 0; i < 100; i++)
		zeros &= buf[i] == 0;
	CHECK(zeros, "the hole reads zeros");
	CHECK_EQ(pwrite(fd, "XY", 2, 1), 2, "pwrite");
	CHECK(pread(fd, buf, 4, 0) == 4 && buf[1] == 'X' && buf[2] == 'Y', "pread after pwrite");
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 10003, "pwrite and pread leave the offset");
	struct stat st;
	CHECK(fstat(fd, &st) == 0 && st.st_size == 10003, "size 10003: %ld", (long)st.st_size);
	CHECK_EQ(ftruncate(fd, 3000), 0, "ftruncate down");
	CHECK(fstat(fd, &st) == 0 && st.st_size == 3000, "size 3000: %ld", (long)st.st_size);
	CHECK_EQ(ftruncate(fd, 6000), 0, "ftruncate up");
	CHECK(pread(fd, buf, 3000, 3000) == 3000, "read the grown part");
	zeros = 1;
	for (int i = 0; i < 3000; i++)
		zeros &= buf[i] == 0;
	CHECK(zeros, "what truncate cut and growth brought back reads zeros");
	CHECK_EQ(fsync(fd), 0, "fsync");
	CHECK_EQ(fdatasync(fd), 0, "fdatasync");
	close(fd);
	CHECK_EQ(truncate(at("f"), 10), 0, "truncate by path");
	CHECK(stat(at("f"), &st) == 0 && st.st_size == 10, "size 10: %ld", (long)st.st_size);
	fd = CHECK_OK(open(at("f"), O_WRONLY | O_APPEND), "open O_APPEND");
	CHECK_EQ(write(fd, "++", 2), 2, "append");
	close(fd);
	CHECK(stat(at("f"), &st) == 0 && st.st_size == 12, "size 12 after append: %ld",
	      (long)st.st_size);
	fd = CHECK_OK(open(at("f"), O_WRONLY | O_TRUNC), "open O_TRUNC");
	CHECK(fstat(fd, &st) == 0 && st.st_size == 0, "O_TRUNC empties");
	close(fd);
	CHECK_ERR(ftruncate(0 + open(at("f"), O_RDONLY), 1), EINVAL, "ftruncate of a read-only fd");
	sync();

	/* A big file in odd pieces, read back whole. */
	static char big[BIG], back[BIG];
	fill(big, BIG, 3);
	fd = CHECK_OK(open(at("big"), O_RDWR | O_CREAT, 0600), "create big");
	size_t done = 0;
	for (size_t piece = 12345; done < BIG; done += piece)
		if (write(fd, big + done, done + piece > BIG ? BIG - done : piece) < 0)
			break;
	CHECK_EQ(lseek(fd, 0, SEEK_SET), 0, "rewind big");
	size_t got = 0;
	for (ssize_t n; got < BIG && (n = read(fd, back + got, BIG - got)) > 0;)
		got += (size_t)n;
	CHECK(got == BIG && !memcmp(big, back, BIG), "big read back: %zu bytes, equal %d", got,
	      got == BIG && !memcmp(big, back, BIG));
	close(fd);
}

static void names(void)
{
	struct stat st, st2;
	CHECK_EQ(mkdir(at("d"), 0755), 0, "mkdir d");
	CHECK_ERR(mkdir(at("d"), 0755), EEXIST, "mkdir d again");
	char name[64];
	for (int i = 0; i < MANY; i++) {
		snprintf(name, sizeof(name), "d/entry-%04d", i);
		int fd = open(at(name), O_WRONLY | O_CREAT, 0644);
		if (fd >= 0) {
			dprintf(fd, "%d\n", i);
			close(fd);
		}
	}
	DIR *dir = opendir(at("d"));
	int n = 0;
	for (struct dirent *e; dir && (e = readdir(dir));)
		n += !strncmp(e->d_name, "entry-", 6);
	if (dir)
		closedir(dir);
	CHECK_EQ(n, MANY, "entries listed in d");
	for (int i = 0; i < MANY; i += 2) {
		snprintf(name, sizeof(name), "d/entry-%04d", i);
		if (unlink(at(name)))
			CHECK(0, "unlink %s: %s", name, strerror(errno));
	}
	CHECK_ERR(unlink(at("d/entry-0000")), ENOENT, "unlink twice");
	CHECK_ERR(open(at("d/entry-0000"), O_RDONLY), ENOENT, "open of an unlinked name");
	CHECK_EQ(open(at("d/entry-0001"), O_RDONLY) >= 0, 1, "its neighbour is still there");
	CHECK_ERR(unlink(at("d")), EISDIR, "unlink of a directory");
	CHECK_ERR(rmdir(at("d")), ENOTEMPTY, "rmdir of a full directory");
	CHECK_ERR(rmdir(at("f")), ENOTDIR, "rmdir of a file");
	CHECK_EQ(mkdir(at("empty"), 0755), 0, "mkdir empty");
	CHECK_EQ(rmdir(at("empty")), 0, "rmdir empty");
	CHECK_ERR(stat(at("empty"), &st), ENOENT, "stat after rmdir");

	CHECK_EQ(link(at("f"), at("f-link")), 0, "link");
	CHECK(stat(at("f"), &st) == 0 && stat(at("f-link"), &st2) == 0 && st.st_ino == st2.st_ino &&
	      st.st_nlink == 2, "two names, one inode, two links");
	CHECK_ERR(link(at("d"), at("d-link")), EPERM, "link of a directory");
	CHECK_EQ(unlink(at("f-link")), 0, "unlink one of two names");
	CHECK(stat(at("f"), &st) == 0 && st.st_nlink == 1, "one link left");
	CHECK_EQ(symlink("d/entry-0001", at("sym")), 0, "symlink");
	char target[64] = "";
	CHECK(readlink(at("sym"), target, sizeof(target)) == 12 && !memcmp(target, "d/entry-0001", 12),
	      "readlink '%s'", target);
	CHECK(stat(at("sym"), &st) == 0 && S_ISREG(st.st_mode), "a link followed");
	char longer[300];
	memset(longer, 'q', 250);
	longer[250] = '\0';
	CHECK_EQ(symlink(longer, at("long-sym")), 0, "a 250-byte link");
	CHECK_EQ(readlink(at("long-sym"), target, 10), 10, "readlink truncates");

	CHECK_EQ(rename(at("d/entry-0001"), at("d/renamed")), 0, "rename in a directory");
	CHECK_ERR(stat(at("d/entry-0001"), &st), ENOENT, "the old name is gone");
	CHECK_EQ(mkdir(at("e"), 0755), 0, "mkdir e");
	CHECK_EQ(rename(at("d/renamed"), at("e/moved")), 0, "rename across directories");
	CHECK_EQ(rename(at("d/entry-0003"), at("e/moved")), 0, "rename over a file");
	int fd = open(at("e/moved"), O_RDONLY);
	char buf[16] = "";
	CHECK(fd >= 0 && read(fd, buf, sizeof(buf)) > 0 && !strcmp(buf, "3\n"),
	      "the file renamed over holds '%s'", buf);
	close(fd);
	CHECK_EQ(mkdir(at("e/sub"), 0755), 0, "mkdir e/sub");
	CHECK_EQ(rename(at("e/sub"), at("d/sub")), 0, "rename a directory");
	CHECK(stat(at("d/sub/.."), &st) == 0 && stat(at("d"), &st2) == 0, "stat the moved ..");
	CHECK_ERR(rename(at("d"), at("d/sub/inside")), EINVAL, "rename into itself");
	CHECK_ERR(syscall(SYS_renameat2, AT_FDCWD, at("f"), AT_FDCWD, at("big"), 1), EEXIST,
		  "RENAME_NOREPLACE over a file");
	CHECK_ERR(rename(at("nosuch"), at("x")), ENOENT, "rename of a missing name");
	static char deep[5000];
	size_t o = (size_t)snprintf(deep, sizeof(deep), "%s", base);
	while (o + 3 < sizeof(deep) - 1) {
		memcpy(deep + o, "/xx", 3);
		o += 3;
	}
	deep[o] = '\0';
	CHECK_ERR(open(deep, O_WRONLY | O_CREAT, 0644), ENAMETOOLONG, "a path past PATH_MAX");
	CHECK_ERR(mkdir(deep, 0755), ENAMETOOLONG, "mkdir of a path past PATH_MAX");

	fd = CHECK_OK(open(at("keep"), O_WRONLY | O_CREAT | O_TRUNC, 0644), "create keep");
	for (int i = 0; i < 1000; i++)
		if (write(fd, "kept\n", 5) != 5)
			break;
	CHECK_EQ(fsync(fd), 0, "fsync keep");
	close(fd);
}

/*
 * Blocks past the inode's twelve direct ones, written 4 KiB at a time
 * and, before any close, read, overwritten, truncated and grown again:
 * the file system may hold back the pointers in its indirect blocks
 * between writes (Scion's ext2 does), and every answer must be what
 * they say.
 */
static void block_of(char *b, unsigned i)
{
	memset(b, 'A' + i % 26, 4096);
	snprintf(b, 16, "block %u", i);
}

static void held_pointers(void)
{
	enum { BLOCKS = 100 };
	char b[4096], got[4096];
	int fd = CHECK_OK(open(at("held"), O_RDWR | O_CREAT | O_TRUNC, 0644), "create held");
	int wrote = 0;
	for (unsigned i = 0; i < BLOCKS; i++) {
		block_of(b, i);
		wrote += write(fd, b, sizeof(b)) == (ssize_t)sizeof(b);
	}
	CHECK_EQ(wrote, BLOCKS, "4 KiB appends");
	block_of(b, 50);
	CHECK(pread(fd, got, 4096, 50 * 4096) == 4096 && !memcmp(got, b, 4096),
	      "block 50 read before the close");
	block_of(b, 1000);
	CHECK_EQ(pwrite(fd, b, 4096, 60 * 4096), 4096, "block 60 overwritten");
	block_of(b, 1001);
	CHECK_EQ(pwrite(fd, b, 4096, 130 * 4096), 4096, "block 130 written past a hole");
	CHECK_EQ(ftruncate(fd, 70 * 4096 + 100), 0, "ftruncate to 70 blocks and a bit");
	block_of(b, 1002);
	CHECK_EQ(pwrite(fd, b, 4096, 90 * 4096), 4096, "block 90 written past the new end");
	close(fd);
	fd = CHECK_OK(open(at("held"), O_RDONLY), "open held again");
	int right = 0;
	for (unsigned i = 0; i < 91; i++) {
		memset(b, 0, sizeof(b));
		if (i <= 70)
			block_of(b, i == 60 ? 1000 : i);
		if (i == 70)		/* the truncation kept its first 100 bytes */
			memset(b + 100, 0, 4096 - 100);
		if (i == 90)
			block_of(b, 1002);
		right += pread(fd, got, 4096, (off_t)i * 4096) == 4096 && !memcmp(got, b, 4096);
	}
	CHECK_EQ(right, 91, "blocks as the writes, the truncation and the holes left them");
	struct stat st;
	CHECK(fstat(fd, &st) == 0 && st.st_size == 91 * 4096, "size 91 blocks: %ld",
	      (long)st.st_size);
	close(fd);
	/* A file unlinked while open with held pointers: its blocks all come back. */
	fd = CHECK_OK(open(at("held2"), O_RDWR | O_CREAT | O_TRUNC, 0644), "create held2");
	wrote = 0;
	for (unsigned i = 0; i < 40; i++) {
		block_of(b, i);
		wrote += write(fd, b, sizeof(b)) == (ssize_t)sizeof(b);
	}
	CHECK_EQ(wrote, 40, "held2's appends");
	CHECK_EQ(unlink(at("held2")), 0, "unlink held2 while open");
	close(fd);
}

int main(int argc, char **argv)
{
	check_start("fs_write", argc, argv);
	snprintf(base, sizeof(base), "%s/fs_write-dir", check_prefix);
	CHECK_EQ(mkdir(base, 0755), 0, "mkdir fs_write-dir (it must not exist yet)");
	files();
	held_pointers();
	names();
	return check_done();
}
