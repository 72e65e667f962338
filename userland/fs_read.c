// SPDX-License-Identifier: BSD-2-Clause
/*
 * fs_read: what the root file system's generated tree (/fsdata, made by
 * tools/mkrootfs.py) must answer, as Linux answers it over the same
 * tree: symbolic links (relative, absolute, chained, to a directory,
 * dangling: ENOENT, looping: ELOOP, readlink, lstat against stat,
 * O_NOFOLLOW), a hard link (one inode, two links), a 30-level path, a
 * 255-byte name and a 256-byte one (ENAMETOOLONG), a sparse file (zeros
 * in its holes), a file past the double indirect block read at odd
 * offsets, a directory of a thousand entries read by getdents64 with a
 * small buffer, ENOTDIR through a file, and, where the tree is on a
 * read-only file system (statvfs says so), EROFS for writing and
 * creating; statx (the raw system call: musl has no wrapper) against
 * stat for a file, a directory, a link and an fd, and its refusals.
 * argv[1] on Linux: the folder holding fsdata.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include "check.h"

#define BIG_DIR_ENTRIES 1000
#define DEEP 30

static char top[512];

static const char *at(const char *rel)
{
	static char buf[4][4096];
	static int next;
	char *b = buf[next++ % 4];
	snprintf(b, sizeof(buf[0]), "%s/%s", top, rel);
	return b;
}

static void links(void)
{
	struct stat st, lst, target;
	char buf[512];
	CHECK_EQ(stat(at("d01/f0002"), &target), 0, "stat d01/f0002");
	CHECK_EQ(stat(at("rel-link"), &st), 0, "stat rel-link");
	CHECK(st.st_ino == target.st_ino && S_ISREG(st.st_mode), "rel-link: inode %lu, expected %lu",
	      (unsigned long)st.st_ino, (unsigned long)target.st_ino);
	CHECK_EQ(lstat(at("rel-link"), &lst), 0, "lstat rel-link");
	CHECK(S_ISLNK(lst.st_mode) && lst.st_size == 9, "lstat rel-link: mode 0%o size %ld",
	      lst.st_mode, (long)lst.st_size);
	CHECK_EQ(stat(at("chain-link"), &st), 0, "stat chain-link");
	CHECK_EQ(st.st_ino, target.st_ino, "chain-link's inode");
	ssize_t n = readlink(at("rel-link"), buf, sizeof(buf));
	CHECK(n == 9 && !memcmp(buf, "d01/f0002", 9), "readlink rel-link: %zd '%.*s'", n,
	      n > 0 ? (int)n : 0, buf);
	CHECK_EQ(readlink(at("rel-link"), buf, 3), 3, "readlink into 3 bytes truncates");
	CHECK_ERR(readlink(at("d01/f0002"), buf, sizeof(buf)), EINVAL, "readlink of a file");
	n = readlink(at("long-link"), buf, sizeof(buf));
	CHECK_EQ(n, 301, "readlink of a 301-byte target (not a fast link)");
	CHECK_ERR(open(at("dangling-link"), O_RDONLY), ENOENT, "open of a dangling link");
	CHECK_ERR(open(at("loop-a"), O_RDONLY), ELOOP, "open of a link loop");
	CHECK_ERR(stat(at("loop-a"), &st), ELOOP, "stat of a link loop");
	CHECK_EQ(lstat(at("loop-a"), &st), 0, "lstat of a link loop");
	CHECK_ERR(open(at("rel-link"), O_RDONLY | O_NOFOLLOW), ELOOP, "O_NOFOLLOW of a link");
	CHECK_EQ(stat(at("dir-link/f0004"), &st), 0, "a path through a link to a directory");
	CHECK_EQ(stat(at("dir-link/../d04/f0005"), &st), 0, "dir-link/.. (lexical)");
	if (!check_prefix[0]) {	/* an absolute target names Scion's /fsdata */
		CHECK_EQ(stat(at("abs-link"), &st), 0, "stat abs-link");
		CHECK(S_ISREG(st.st_mode), "abs-link: mode 0%o", st.st_mode);
	}
	CHECK_EQ(stat(at("hardlink"), &st), 0, "stat hardlink");
	CHECK_EQ(stat(at("d00/f0001"), &lst), 0, "stat d00/f0001");
	CHECK(st.st_ino == lst.st_ino && st.st_nlink == 2, "hard link: inodes %lu %lu, nlink %lu",
	      (unsigned long)st.st_ino, (unsigned long)lst.st_ino, (unsigned long)st.st_nlink);
}

/* struct statx (Linux's uapi, the same on every machine): the fields checked. */
struct statx_ts {
	int64_t sec;
	uint32_t nsec;
	int32_t reserved;
};

struct statx_buf {
	uint32_t mask, blksize;
	uint64_t attributes;
	uint32_t nlink, uid, gid;
	uint16_t mode, spare0;
	uint64_t ino, size, blocks, attributes_mask;
	struct statx_ts atime, btime, ctime, mtime;
	uint32_t rdev_major, rdev_minor, dev_major, dev_minor;
	uint64_t spare[14];
};

#define STATX_BASIC 0x7ffu

static long do_statx(int dirfd, const char *path, int flags, unsigned mask, void *buf)
{
	return syscall(SYS_statx, dirfd, path, flags, mask, buf);
}

/* statx's basic fields say what stat says. */
static int same(const struct statx_buf *x, const struct stat *st)
{
	return (x->mask & STATX_BASIC) == STATX_BASIC && x->ino == st->st_ino &&
	       x->mode == (st->st_mode & 0xffff) && x->nlink == st->st_nlink &&
	       x->size == (uint64_t)st->st_size && x->blocks == (uint64_t)st->st_blocks &&
	       x->mtime.sec == st->st_mtim.tv_sec && x->mtime.nsec == st->st_mtim.tv_nsec &&
	       x->uid == st->st_uid && x->gid == st->st_gid &&
	       x->dev_major == major(st->st_dev) && x->dev_minor == minor(st->st_dev);
}

static void statx_checks(void)
{
	struct statx_buf x;
	struct stat st;
	CHECK(stat(at("d01/f0002"), &st) == 0 &&
	      do_statx(AT_FDCWD, at("d01/f0002"), 0, STATX_BASIC, &x) == 0 && same(&x, &st),
	      "statx of a file says what stat says");
	CHECK(stat(at("d01"), &st) == 0 && do_statx(AT_FDCWD, at("d01"), 0, STATX_BASIC, &x) == 0 &&
	      same(&x, &st) && S_ISDIR(x.mode), "statx of a directory");
	CHECK(lstat(at("rel-link"), &st) == 0 &&
	      do_statx(AT_FDCWD, at("rel-link"), AT_SYMLINK_NOFOLLOW, STATX_BASIC, &x) == 0 &&
	      same(&x, &st) && S_ISLNK(x.mode), "statx of a link with AT_SYMLINK_NOFOLLOW");
	CHECK(do_statx(AT_FDCWD, at("rel-link"), 0, STATX_BASIC, &x) == 0 && S_ISREG(x.mode),
	      "statx follows a link");
	int fd = CHECK_OK(open(at("d01/f0002"), O_RDONLY), "open d01/f0002");
	CHECK(fstat(fd, &st) == 0 && do_statx(fd, "", AT_EMPTY_PATH, STATX_BASIC, &x) == 0 &&
	      same(&x, &st), "statx of an fd (AT_EMPTY_PATH)");
	CHECK(do_statx(AT_FDCWD, at("d01/f0002"), 0, 0, &x) == 0, "statx asking for nothing");
	CHECK_ERR(do_statx(AT_FDCWD, at("d01/f0002"), 0, 0x80000000u, &x), EINVAL,
		  "statx with the reserved mask bit");
	CHECK_ERR(do_statx(AT_FDCWD, at("d01/f0002"), 0x6000, STATX_BASIC, &x), EINVAL,
		  "statx forcing and not syncing at once");
	CHECK_ERR(do_statx(AT_FDCWD, at("d01/f0002"), 0x40000000, STATX_BASIC, &x), EINVAL,
		  "statx with an unknown flag");
	CHECK_ERR(do_statx(AT_FDCWD, at("no-such-file"), 0, STATX_BASIC, &x), ENOENT,
		  "statx of a missing file");
	CHECK_ERR(do_statx(AT_FDCWD, at("d01/f0002"), 0, STATX_BASIC, (void *)16), EFAULT,
		  "statx into a bad buffer");
	close(fd);
}

static void names(void)
{
	char path[4096];
	int o = snprintf(path, sizeof(path), "%s", top);
	for (int i = 0; i < DEEP; i++)
		o += snprintf(path + o, sizeof(path) - o, "/level%02d", i);
	snprintf(path + o, sizeof(path) - o, "/bottom");
	int fd = CHECK_OK(open(path, O_RDONLY), "open of a 30-level path");
	char buf[64] = "";
	CHECK(read(fd, buf, sizeof(buf)) == 29 && !memcmp(buf, "the bottom", 10),
	      "the deep file reads '%.20s'", buf);
	close(fd);
	char name[300];
	memset(name, 'n', 255);
	name[255] = '\0';
	struct stat st;
	CHECK_EQ(stat(at(name), &st), 0, "stat of a 255-byte name");
	memset(name, 'n', 256);
	name[256] = '\0';
	CHECK_ERR(stat(at(name), &st), ENAMETOOLONG, "stat of a 256-byte name");
	CHECK_ERR(open(at("d00/f0000/x"), O_RDONLY), ENOTDIR, "a path through a file");
	CHECK_ERR(open(at("d00/nosuch"), O_RDONLY), ENOENT, "a missing name");
	CHECK_ERR(open(at("d00/nosuch"), O_RDONLY), ENOENT, "a missing name again (cached)");
}

static void data(void)
{
	char buf[8192];
	int fd = CHECK_OK(open(at("sparse"), O_RDONLY), "open sparse");
	struct stat st;
	CHECK_EQ(fstat(fd, &st), 0, "fstat sparse");
	CHECK_EQ(st.st_size, 5 << 20, "sparse's size");
	CHECK(st.st_blocks * 512 < 64 * 1024, "sparse holds %ld blocks of 512: its holes take none",
	      (long)st.st_blocks);
	CHECK(read(fd, buf, 4) == 4 && !memcmp(buf, "head", 4), "sparse starts with 'head'");
	CHECK_EQ(lseek(fd, (1 << 20) + 5, SEEK_SET), (1 << 20) + 5, "lseek into a hole");
	ssize_t n = read(fd, buf, sizeof(buf));
	int zeros = n == sizeof(buf);
	for (ssize_t i = 0; i < n; i++)
		zeros &= buf[i] == 0;
	CHECK(zeros, "a hole reads %zd bytes, all zeros: %d", n, zeros);
	CHECK_EQ(lseek(fd, 3 << 20, SEEK_SET), 3 << 20, "lseek to the middle");
	CHECK(read(fd, buf, 6) == 6 && !memcmp(buf, "middle", 6), "'middle' at 3 MiB");
	CHECK_EQ(lseek(fd, 0, SEEK_END), 5 << 20, "SEEK_END");
	CHECK_EQ(read(fd, buf, 1), 0, "read at the end");
	close(fd);

	/* large: the same bytes whether read in one piece or across block edges. */
	fd = CHECK_OK(open(at("large"), O_RDONLY), "open large");
	static char whole[8192 + 8], piece[8192 + 8];
	off_t offs[] = { 0, 4095, 12 * 4096 - 3, (12 + 1024) * 4096 - 1, (4 << 20) + 77 };
	for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		CHECK_EQ(lseek(fd, offs[i], SEEK_SET), offs[i], "lseek large");
		ssize_t a = read(fd, whole, 8192);
		size_t b = 0;
		lseek(fd, offs[i], SEEK_SET);
		for (ssize_t m; b < (size_t)a && (m = read(fd, piece + b, 7)) > 0;)
			b += (size_t)m;
		CHECK(a == 8192 && b >= (size_t)a && !memcmp(whole, piece, (size_t)a),
		      "large at %ld: %zd bytes at once, %zu in pieces, equal: %d", (long)offs[i], a, b,
		      a > 0 && !memcmp(whole, piece, (size_t)a));
	}
	close(fd);
}

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

static void big_directory(void)
{
	int fd = CHECK_OK(open(at("bigdir"), O_RDONLY | O_DIRECTORY), "open bigdir");
	static char seen[BIG_DIR_ENTRIES];
	int entries = 0, dots = 0, bad = 0;
	char buf[300];
	long n;
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (long o = 0; o < n;) {
			struct linux_dirent64 *d = (void *)(buf + o);
			int i;
			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
				dots++;
			else if (sscanf(d->d_name, "entry-with-a-longer-name-%d", &i) == 1 && i >= 0 &&
				 i < BIG_DIR_ENTRIES && !seen[i] && d->d_type == DT_REG)
				seen[i] = 1, entries++;
			else
				bad++;
			o += d->d_reclen;
		}
	}
	CHECK_EQ(n, 0, "getdents64 ends with 0");
	CHECK(entries == BIG_DIR_ENTRIES && dots == 2 && !bad,
	      "bigdir: %d entries, %d dots, %d unexpected", entries, dots, bad);
	CHECK_EQ(lseek(fd, 0, SEEK_SET), 0, "rewind bigdir");
	CHECK_ERR(syscall(SYS_getdents64, fd, buf, 10), EINVAL, "getdents64 into 10 bytes");
	close(fd);
}

static void read_only(void)
{
	struct statvfs vfs;
	if (statvfs(top, &vfs) || !(vfs.f_flag & ST_RDONLY))
		return;	/* a writable file system (Linux's folder, Scion's ext2 root) */
	CHECK_ERR(open(at("d00/f0000"), O_WRONLY), EROFS, "open for writing");
	CHECK_ERR(open(at("d00/new"), O_WRONLY | O_CREAT, 0644), EROFS, "create");
	CHECK_ERR(open(at("d00/f0000"), O_RDONLY | O_TRUNC), EROFS, "O_TRUNC");
	CHECK_ERR(open(at("d00"), O_RDWR), EISDIR, "a directory for writing");
}

int main(int argc, char **argv)
{
	check_start("fs_read", argc, argv);
	snprintf(top, sizeof(top), "%s/fsdata", check_prefix);
	links();
	statx_checks();
	names();
	data();
	big_directory();
	read_only();
	return check_done();
}
