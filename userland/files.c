// SPDX-License-Identifier: BSD-2-Clause
/*
 * files: the program archive's files through the file system calls, as
 * Linux answers them. open and openat (from AT_FDCWD and from a directory
 * fd) of /etc/motd, read to the end, lseek (SEEK_SET, SEEK_CUR, SEEK_END,
 * past the end, negative), fstat and newfstatat (sizes, types),
 * getdents64 of / and /etc (".", "..", the names and their d_type), dup
 * and dup3 (a shared offset), close; the error paths ENOENT, ENOTDIR,
 * EISDIR, EBADF, EFAULT, EINVAL; and EROFS for writing or creating in the
 * read-only archive. Takes the archive's folder as argv[1] on Linux (cpio
 * -idm into a temporary folder); the EROFS checks run only where that
 * folder is on a read-only file system (statvfs says so), as the archive
 * always is on Scion.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include "check.h"

#define BAD_LOW ((void *)1)
#define BAD_KERNEL ((void *)0xffff800000000000ul)
#define MOTD_FIRST_LINE "Welcome to Scion.\n"

static char motd[512], etc[512], root[512], missing[512];

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

static void open_and_read(void)
{
	char buf[1024];
	int fd = CHECK_OK(open(motd, O_RDONLY), "open /etc/motd");
	ssize_t n = read(fd, buf, sizeof(buf)), total = n > 0 ? n : 0;
	for (ssize_t m; n > 0 && (m = read(fd, buf + total, sizeof(buf) - total)) > 0;)
		total += m;
	CHECK(total > (ssize_t)strlen(MOTD_FIRST_LINE) && !memcmp(buf, MOTD_FIRST_LINE,
	      strlen(MOTD_FIRST_LINE)), "/etc/motd read %zd bytes starting '%.18s', expected '%s'",
	      total, buf, MOTD_FIRST_LINE);
	CHECK_EQ(read(fd, buf, sizeof(buf)), 0, "read at the end of the file");
	CHECK_EQ(read(fd, buf, 0), 0, "read of 0 bytes");

	struct stat st;
	CHECK_EQ(fstat(fd, &st), 0, "fstat /etc/motd");
	CHECK_EQ(st.st_size, total, "fstat st_size against the bytes read");
	CHECK(S_ISREG(st.st_mode) && (st.st_mode & 0400), "st_mode 0%o, expected a readable "
	      "regular file", st.st_mode);
	CHECK(st.st_nlink >= 1 && st.st_ino != 0, "st_nlink %lu st_ino %lu",
	      (unsigned long)st.st_nlink, (unsigned long)st.st_ino);
	CHECK(st.st_blksize > 0, "st_blksize %ld", (long)st.st_blksize);

	/* lseek */
	CHECK_EQ(lseek(fd, 11, SEEK_SET), 11, "lseek SEEK_SET 11");
	CHECK_EQ(read(fd, buf, 5), 5, "read 5 at 11");
	CHECK(!memcmp(buf, "Scion", 5), "bytes 11..16 '%.5s', expected 'Scion'", buf);
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 16, "lseek SEEK_CUR 0 after reading to 16");
	CHECK_EQ(lseek(fd, -3, SEEK_CUR), 13, "lseek SEEK_CUR -3");
	CHECK_EQ(lseek(fd, 0, SEEK_END), total, "lseek SEEK_END 0");
	CHECK_EQ(lseek(fd, 100, SEEK_END), total + 100, "lseek past the end");
	CHECK_EQ(read(fd, buf, sizeof(buf)), 0, "read past the end");
	CHECK_ERR(lseek(fd, -1, SEEK_SET), EINVAL, "lseek to -1");
	CHECK_ERR(lseek(fd, -total - 1, SEEK_END), EINVAL, "lseek before the start from the end");
	CHECK_ERR(lseek(fd, 0, 99), EINVAL, "lseek whence 99");
	close(fd);
}

static void opens_at(void)
{
	struct stat st, st2;
	int dfd = CHECK_OK(open(etc, O_RDONLY | O_DIRECTORY), "open /etc O_DIRECTORY");
	int fd = CHECK_OK(openat(dfd, "motd", O_RDONLY), "openat(/etc fd, motd)");
	int fd2 = CHECK_OK(openat(AT_FDCWD, motd, O_RDONLY), "openat(AT_FDCWD, /etc/motd)");
	CHECK_EQ(fstat(fd, &st), 0, "fstat of the openat fd");
	CHECK_EQ(fstatat(AT_FDCWD, motd, &st2, 0), 0, "newfstatat(AT_FDCWD, /etc/motd)");
	CHECK(st.st_ino == st2.st_ino && st.st_size == st2.st_size, "fstat and newfstatat differ");
	CHECK_EQ(fstatat(dfd, "motd", &st2, 0), 0, "newfstatat(/etc fd, motd)");
	CHECK_EQ(st2.st_size, st.st_size, "newfstatat relative size");
	CHECK_EQ(fstatat(AT_FDCWD, etc, &st2, 0), 0, "newfstatat /etc");
	CHECK(S_ISDIR(st2.st_mode), "/etc st_mode 0%o, expected a directory", st2.st_mode);
	CHECK_EQ(fstat(dfd, &st2), 0, "fstat of a directory fd");
	CHECK(S_ISDIR(st2.st_mode), "fstat of /etc: mode 0%o", st2.st_mode);
	CHECK_ERR(openat(fd, "motd", O_RDONLY), ENOTDIR, "openat relative to a file fd");
	CHECK_ERR(openat(999, "motd", O_RDONLY), EBADF, "openat relative to fd 999");
	CHECK_ERR(fstatat(dfd, "nothing", &st2, 0), ENOENT, "newfstatat of a missing name");
	CHECK_ERR(syscall(SYS_newfstatat, AT_FDCWD, motd, BAD_LOW, 0), EFAULT,
		  "newfstatat into (void *)1");
	CHECK_ERR(syscall(SYS_newfstatat, AT_FDCWD, BAD_KERNEL, &st2, 0), EFAULT,
		  "newfstatat of a kernel-address path");
	CHECK_ERR(syscall(SYS_fstat, fd, BAD_KERNEL), EFAULT, "fstat into a kernel address");
	CHECK_ERR(syscall(SYS_fstat, 999, &st2), EBADF, "fstat of fd 999");
	close(fd);
	close(fd2);
	close(dfd);
}

/* The names in a directory (getdents64 with a small buffer, so it takes several calls). */
static int list(const char *dir, char names[][32], unsigned char *types, int max)
{
	char buf[96] __attribute__((aligned(8)));
	int fd = open(dir, O_RDONLY | O_DIRECTORY), n = 0;
	if (fd < 0)
		return -1;
	for (;;) {
		long got = syscall(SYS_getdents64, fd, buf, sizeof(buf));
		if (got <= 0)
			break;
		for (long off = 0; off < got;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + off);
			if (n < max) {
				snprintf(names[n], 32, "%s", d->d_name);
				types[n++] = d->d_type;
			}
			off += d->d_reclen;
		}
	}
	close(fd);
	return n;
}

static int find(char names[][32], int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

static void directories(void)
{
	char names[64][32];
	unsigned char types[64];
	int n = list(root, names, types, 64);
	CHECK(n >= 4, "getdents64 of / gave %d names", n);
	int i;
	CHECK((i = find(names, n, ".")) >= 0 && types[i] == DT_DIR, "/: '.' missing or not DT_DIR");
	CHECK((i = find(names, n, "..")) >= 0 && types[i] == DT_DIR, "/: '..' missing");
	CHECK((i = find(names, n, "etc")) >= 0 && types[i] == DT_DIR, "/: 'etc' missing or not "
	      "DT_DIR");
	CHECK((i = find(names, n, "files")) >= 0 && types[i] == DT_REG, "/: 'files' missing or not "
	      "DT_REG");
	CHECK((i = find(names, n, "hello")) >= 0 && types[i] == DT_REG, "/: 'hello' missing");
	n = list(etc, names, types, 64);
	CHECK(n == 3 && find(names, n, ".") >= 0 && find(names, n, "..") >= 0 &&
	      (i = find(names, n, "motd")) >= 0 && types[i] == DT_REG,
	      "/etc: %d names, expected '.', '..' and 'motd' (a DT_REG)", n);

	char buf[256] __attribute__((aligned(8)));
	int dfd = open(etc, O_RDONLY | O_DIRECTORY);
	int fd = open(motd, O_RDONLY);
	CHECK_ERR(syscall(SYS_getdents64, fd, buf, sizeof(buf)), ENOTDIR, "getdents64 of a file");
	CHECK_ERR(syscall(SYS_getdents64, 999, buf, sizeof(buf)), EBADF, "getdents64 of fd 999");
	CHECK_ERR(syscall(SYS_getdents64, dfd, buf, 1), EINVAL, "getdents64 into 1 byte");
	CHECK_ERR(syscall(SYS_getdents64, dfd, BAD_LOW, sizeof(buf)), EFAULT,
		  "getdents64 into (void *)1");
	CHECK_ERR(syscall(SYS_getdents64, dfd, BAD_KERNEL, sizeof(buf)), EFAULT,
		  "getdents64 into a kernel address");
	/* After the end: 0. After lseek back to 0: the names again. */
	while (syscall(SYS_getdents64, dfd, buf, sizeof(buf)) > 0)
		;
	CHECK_EQ(syscall(SYS_getdents64, dfd, buf, sizeof(buf)), 0, "getdents64 at the end");
	CHECK_EQ(lseek(dfd, 0, SEEK_SET), 0, "lseek a directory back to 0");
	CHECK(syscall(SYS_getdents64, dfd, buf, sizeof(buf)) > 0, "getdents64 after rewinding");
	close(fd);
	close(dfd);
}

static void dups(void)
{
	char a[4], b[4];
	int fd = open(motd, O_RDONLY);
	int d = CHECK_OK(dup(fd), "dup");
	CHECK(d >= 0 && d != fd, "dup gave %d for %d", d, fd);
	CHECK_EQ(read(fd, a, 4), 4, "read 4 through the original");
	CHECK_EQ(read(d, b, 4), 4, "read 4 through the dup");
	CHECK(!memcmp(b, "ome ", 4), "the dup shares the offset: read '%.4s', expected 'ome '", b);
	CHECK_EQ(dup3(fd, 100, O_CLOEXEC), 100, "dup3 to fd 100");
	CHECK_EQ(fcntl(100, F_GETFD), FD_CLOEXEC, "dup3 O_CLOEXEC sets FD_CLOEXEC");
	CHECK_EQ(lseek(100, 0, SEEK_CUR), 8, "fd 100 shares the offset too");
	/* Raw calls: musl's dup3 answers some itself and uses dup2 when flags are 0. */
	CHECK_ERR(syscall(SYS_dup3, fd, fd, 0), EINVAL, "dup3 onto itself");
	CHECK_ERR(syscall(SYS_dup3, fd, 101, 0x1234), EINVAL, "dup3 with flags 0x1234");
	CHECK_ERR(syscall(SYS_dup3, 999, 101, 0), EBADF, "dup3 of fd 999");
	CHECK_ERR(syscall(SYS_dup3, fd, -1, 0), EBADF, "dup3 to fd -1");
	CHECK_EQ(syscall(SYS_dup2, fd, fd), fd, "dup2 onto itself returns the fd");
	CHECK_EQ(syscall(SYS_dup2, fd, 101), 101, "dup2 to fd 101");
	CHECK_EQ(fcntl(101, F_GETFD), 0, "dup2 clears FD_CLOEXEC");
	CHECK_EQ(close(101), 0, "close fd 101");
	CHECK_ERR(dup(-1), EBADF, "dup of fd -1");
	CHECK_EQ(close(d), 0, "close the dup");
	CHECK_ERR(close(d), EBADF, "close it again");
	CHECK_EQ(read(fd, a, 1), 1, "the original still reads after its dup is closed");
	CHECK_EQ(close(100), 0, "close fd 100");
	CHECK_EQ(close(fd), 0, "close the original");
	CHECK_ERR(read(fd, a, 1), EBADF, "read a closed fd");
}

static void error_paths(void)
{
	char path[512], buf[16];
	CHECK_ERR(open(missing, O_RDONLY), ENOENT, "open a missing file");
	CHECK_ERR(open(check_path(path, sizeof(path), "/etc/motd/x"), O_RDONLY), ENOTDIR,
		  "open a name under a file");
	CHECK_ERR(open(check_path(path, sizeof(path), "/nothing/motd"), O_RDONLY), ENOENT,
		  "open under a missing directory");
	CHECK_ERR(open(motd, O_RDONLY | O_DIRECTORY), ENOTDIR, "open a file O_DIRECTORY");
	CHECK_ERR(open(etc, O_WRONLY), EISDIR, "open a directory for writing");
	CHECK_ERR(open("", O_RDONLY), ENOENT, "open of the empty path");
	int dfd = open(etc, O_RDONLY);
	CHECK(dfd >= 0, "open a directory read-only: %s", check_errno_name(errno));
	CHECK_ERR(read(dfd, buf, sizeof(buf)), EISDIR, "read a directory");
	close(dfd);
	CHECK_ERR(syscall(SYS_open, BAD_LOW, O_RDONLY), EFAULT, "open((void *)1)");
	CHECK_ERR(syscall(SYS_openat, AT_FDCWD, BAD_KERNEL, O_RDONLY), EFAULT,
		  "openat(kernel address)");
	int fd = open(motd, O_RDONLY);
	CHECK_ERR(syscall(SYS_read, fd, BAD_LOW, 10), EFAULT, "read into (void *)1");
	CHECK_ERR(syscall(SYS_read, fd, BAD_KERNEL, 10), EFAULT, "read into a kernel address");
	CHECK_ERR(write(fd, "x", 1), EBADF, "write to a read-only fd");
	close(fd);

	/* Writing to the read-only archive (on Linux only if the folder is read-only). */
	struct statvfs vfs;
	if (check_prefix[0] && (statvfs(check_prefix, &vfs) || !(vfs.f_flag & ST_RDONLY)))
		return;
	CHECK_ERR(open(motd, O_WRONLY), EROFS, "open /etc/motd O_WRONLY");
	CHECK_ERR(open(motd, O_RDWR), EROFS, "open /etc/motd O_RDWR");
	CHECK_ERR(open(motd, O_WRONLY | O_TRUNC), EROFS, "open /etc/motd O_TRUNC");
	CHECK_ERR(open(check_path(path, sizeof(path), "/etc/new"), O_WRONLY | O_CREAT, 0644), EROFS,
		  "create /etc/new");
	CHECK_ERR(open(check_path(path, sizeof(path), "/new"), O_RDONLY | O_CREAT, 0644), EROFS,
		  "create /new read-only");
}

int main(int argc, char **argv)
{
	check_start("files", argc, argv);
	check_path(motd, sizeof(motd), "/etc/motd");
	check_path(etc, sizeof(etc), "/etc");
	check_path(root, sizeof(root), check_prefix[0] ? "" : "/");
	check_path(missing, sizeof(missing), "/no-such-file");
	open_and_read();
	opens_at();
	directories();
	dups();
	error_paths();
	return check_done();
}
