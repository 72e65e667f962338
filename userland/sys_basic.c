// SPDX-License-Identifier: BSD-2-Clause
/*
 * sys_basic: the simple system calls and their error paths, as Linux
 * answers them. Identity (getpid, getppid, gettid), uname, the working
 * directory (getcwd, chdir), clocks (CLOCK_MONOTONIC never goes back,
 * CLOCK_REALTIME is after 2020), sleeping (nanosleep and clock_nanosleep,
 * relative and absolute, sleep at least what was asked), sched_yield,
 * getrandom, ioctl(TIOCGWINSZ) on a plain file (ENOTTY), system call
 * numbers no kernel has (ENOSYS), and EBADF, EFAULT (pointers 1, a
 * kernel address, a non-canonical one) and EINVAL for each. Error paths
 * go through syscall(2) so that libc (or the vDSO) never touches the bad
 * pointer itself. Takes the archive's folder as argv[1] on Linux.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include "check.h"

#define BAD_LOW ((void *)1)
#define BAD_KERNEL ((void *)0xffff800000000000ul)
#define BAD_NONCANONICAL ((void *)0x0000800000000000ul)

static int64_t ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void identity(void)
{
	pid_t pid = getpid();
	CHECK(pid > 0, "getpid %d, expected > 0", pid);
	CHECK(getppid() >= 0, "getppid %d", getppid());
	CHECK_EQ(syscall(SYS_gettid), pid, "gettid of a single-threaded process (its pid)");
	CHECK_EQ(syscall(SYS_getpid), pid, "getpid twice");
}

static void names(void)
{
	struct utsname u;
	CHECK_EQ(uname(&u), 0, "uname");
	CHECK(u.sysname[0] && !strcmp(u.machine, "x86_64"), "uname: sysname '%s' machine '%s', "
	      "expected a name and x86_64", u.sysname, u.machine);
	CHECK_ERR(syscall(SYS_uname, BAD_LOW), EFAULT, "uname((void *)1)");
	CHECK_ERR(syscall(SYS_uname, BAD_KERNEL), EFAULT, "uname(kernel address)");
}

static void cwd(void)
{
	char buf[512], want[512], path[512];
	CHECK_EQ(chdir("/"), 0, "chdir /");
	CHECK(getcwd(buf, sizeof(buf)) && !strcmp(buf, "/"), "getcwd after chdir /: '%s'", buf);
	/* The raw call returns the length with its NUL. */
	CHECK_EQ(syscall(SYS_getcwd, buf, sizeof(buf)), 2, "raw getcwd of / (length with the NUL)");
	snprintf(want, sizeof(want), "%s/etc", check_prefix);
	CHECK_EQ(chdir(want), 0, "chdir to the archive's etc");
	CHECK(getcwd(buf, sizeof(buf)) && !strcmp(buf, want), "getcwd '%s', expected '%s'", buf,
	      want);
	CHECK_EQ(open("motd", O_RDONLY) >= 0, 1, "open motd relative to the new working directory");
	CHECK_EQ(chdir(".."), 0, "chdir ..");
	CHECK(getcwd(buf, sizeof(buf)) && !strcmp(buf, check_prefix[0] ? check_prefix : "/"),
	      "getcwd after chdir .. '%s'", buf);
	CHECK_ERR(syscall(SYS_getcwd, buf, 1), ERANGE, "getcwd into 1 byte");
	CHECK_ERR(syscall(SYS_getcwd, BAD_LOW, 100), EFAULT, "getcwd((void *)1, 100)");
	CHECK_ERR(chdir(check_path(path, sizeof(path), "/no-such-dir")), ENOENT, "chdir to nothing");
	CHECK_ERR(chdir(check_path(path, sizeof(path), "/etc/motd")), ENOTDIR, "chdir to a file");
	CHECK_ERR(syscall(SYS_chdir, BAD_LOW), EFAULT, "chdir((void *)1)");
	CHECK_ERR(syscall(SYS_chdir, BAD_KERNEL), EFAULT, "chdir(kernel address)");
	CHECK_EQ(chdir("/"), 0, "chdir / again");
}

static void clocks(void)
{
	struct timespec ts;
	int64_t last = ns(CLOCK_MONOTONIC), back = 0;
	for (int i = 0; i < 1000; i++) {
		int64_t now = ns(CLOCK_MONOTONIC);
		if (now < last)
			back++;
		last = now;
	}
	CHECK_EQ(back, 0, "CLOCK_MONOTONIC going back in 1000 reads");
	CHECK_EQ(syscall(SYS_clock_gettime, CLOCK_REALTIME, &ts), 0, "clock_gettime realtime");
	CHECK(ts.tv_sec > 1577836800 && ts.tv_nsec >= 0 && ts.tv_nsec < 1000000000,
	      "CLOCK_REALTIME %lld.%09ld, expected after 2020 with 0 <= ns < 1e9",
	      (long long)ts.tv_sec, ts.tv_nsec);
	CHECK_EQ(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts), 0, "raw clock_gettime monotonic");
	CHECK(ts.tv_nsec >= 0 && ts.tv_nsec < 1000000000, "monotonic tv_nsec %ld", ts.tv_nsec);
	CHECK_ERR(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, BAD_LOW), EFAULT,
		  "clock_gettime into (void *)1");
	CHECK_ERR(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, BAD_KERNEL), EFAULT,
		  "clock_gettime into a kernel address");
	CHECK_ERR(syscall(SYS_clock_gettime, 1234, &ts), EINVAL, "clock_gettime of clock 1234");
}

static void sleeping(void)
{
	struct timespec req = { 0, 10 * 1000000 }, bad = { 0, 1000000000 }, neg = { -1, 0 };
	int64_t t0 = ns(CLOCK_MONOTONIC);
	CHECK_EQ(nanosleep(&req, NULL), 0, "nanosleep 10 ms");
	int64_t slept = ns(CLOCK_MONOTONIC) - t0;
	CHECK(slept >= 10 * 1000000, "nanosleep 10 ms slept %lld ns", (long long)slept);

	req.tv_nsec = 5 * 1000000;
	t0 = ns(CLOCK_MONOTONIC);
	CHECK_EQ(syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &req, NULL), 0,
		 "clock_nanosleep 5 ms");
	slept = ns(CLOCK_MONOTONIC) - t0;
	CHECK(slept >= 5 * 1000000, "clock_nanosleep 5 ms slept %lld ns", (long long)slept);

	struct timespec until;
	clock_gettime(CLOCK_MONOTONIC, &until);
	int64_t deadline = (int64_t)until.tv_sec * 1000000000 + until.tv_nsec + 5 * 1000000;
	until.tv_sec = deadline / 1000000000;
	until.tv_nsec = deadline % 1000000000;
	CHECK_EQ(syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL), 0,
		 "clock_nanosleep until now + 5 ms");
	CHECK(ns(CLOCK_MONOTONIC) >= deadline, "absolute clock_nanosleep woke before its deadline");

	CHECK_ERR(syscall(SYS_nanosleep, &bad, NULL), EINVAL, "nanosleep tv_nsec 1e9");
	CHECK_ERR(syscall(SYS_nanosleep, &neg, NULL), EINVAL, "nanosleep tv_sec -1");
	CHECK_ERR(syscall(SYS_nanosleep, BAD_LOW, NULL), EFAULT, "nanosleep((void *)1)");
	CHECK_ERR(syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &bad, NULL), EINVAL,
		  "clock_nanosleep tv_nsec 1e9");
	CHECK_ERR(syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, BAD_KERNEL, NULL), EFAULT,
		  "clock_nanosleep(kernel address)");
	CHECK_ERR(syscall(SYS_clock_nanosleep, 1234, 0, &req, NULL), EINVAL,
		  "clock_nanosleep on clock 1234");
	CHECK_EQ(sched_yield(), 0, "sched_yield");
}

static void randomness(void)
{
	unsigned char a[32], b[32];
	CHECK_EQ(getrandom(a, sizeof(a), 0), 32, "getrandom 32 bytes");
	CHECK_EQ(getrandom(b, sizeof(b), 0), 32, "getrandom 32 more");
	CHECK(memcmp(a, b, sizeof(a)), "two getrandom calls gave the same 32 bytes");
	CHECK_EQ(getrandom(a, 0, 0), 0, "getrandom 0 bytes");
	CHECK_ERR(syscall(SYS_getrandom, a, sizeof(a), 0x100), EINVAL, "getrandom flags 0x100");
	CHECK_ERR(syscall(SYS_getrandom, BAD_LOW, 16, 0), EFAULT, "getrandom into (void *)1");
	CHECK_ERR(syscall(SYS_getrandom, BAD_KERNEL, 16, 0), EFAULT,
		  "getrandom into a kernel address");
}

static void ioctls_and_numbers(void)
{
	char path[512];
	struct winsize ws;
	int fd = open(check_path(path, sizeof(path), "/etc/motd"), O_RDONLY);
	CHECK(fd >= 0, "open %s: %s", path, check_errno_name(errno));
	CHECK_ERR(ioctl(fd, TIOCGWINSZ, &ws), ENOTTY, "ioctl TIOCGWINSZ on a plain file");
	CHECK_ERR(ioctl(999, TIOCGWINSZ, &ws), EBADF, "ioctl on fd 999");
	close(fd);
	/* Numbers no kernel has: in the gap below pidfd_send_signal (424; 335 is uretprobe
	 * since Linux 6.11), past the end, negative. */
	CHECK_ERR(syscall(400), ENOSYS, "system call 400");
	CHECK_ERR(syscall(1000), ENOSYS, "system call 1000");
	CHECK_ERR(syscall(0x7fffffff), ENOSYS, "system call 0x7fffffff");
	CHECK_ERR(syscall(-1), ENOSYS, "system call -1");
}

static void bad_fds_and_pointers(void)
{
	char buf[16];
	CHECK_ERR(syscall(SYS_read, -1, buf, sizeof(buf)), EBADF, "read fd -1");
	CHECK_ERR(syscall(SYS_write, 999, buf, sizeof(buf)), EBADF, "write fd 999");
	CHECK_ERR(syscall(SYS_close, -1), EBADF, "close fd -1");
	CHECK_ERR(syscall(SYS_close, 12345), EBADF, "close fd 12345");
	CHECK_ERR(syscall(SYS_write, 1, BAD_LOW, 10), EFAULT, "write from (void *)1");
	CHECK_ERR(syscall(SYS_write, 1, BAD_KERNEL, 10), EFAULT, "write from a kernel address");
	CHECK_ERR(syscall(SYS_write, 1, BAD_NONCANONICAL, 10), EFAULT,
		  "write from a non-canonical address");
	CHECK_EQ(syscall(SYS_write, 1, BAD_LOW, 0), 0, "write of 0 bytes from (void *)1");
}

int main(int argc, char **argv)
{
	check_start("sys_basic", argc, argv);
	identity();
	names();
	cwd();
	clocks();
	sleeping();
	randomness();
	ioctls_and_numbers();
	bad_fds_and_pointers();
	return check_done();
}
