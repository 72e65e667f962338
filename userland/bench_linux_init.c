// SPDX-License-Identifier: BSD-2-Clause
/*
 * /init of the initramfs tools/bench_linux.py boots Debian's Linux kernel
 * with, for the Linux column of the system call benchmark: a static musl
 * program that runs only on Linux (it mounts, reads /proc and /sys and
 * powers off), never on Scion. It
 *
 *   - opens /dev/console as fds 0-2 if the kernel could not (no console
 *     node in the initramfs: it makes one);
 *   - describes the kernel in `linux: KEY VALUE` lines: uname, the
 *     command line, the transparent huge page setting, each CPU
 *     vulnerability and its mitigation;
 *   - runs /bench_syscalls /bench_exec_target as its child (not as pid 1,
 *     as Scion runs it: an ordinary process), its output straight on the
 *     console;
 *   - prints `linux: bench_syscalls exit STATUS` and powers the machine
 *     off (QEMU exits 0).
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>

static void console(void)
{
	if (fcntl(1, F_GETFD) >= 0)
		return;
	mkdir("/dev", 0755);
	mknod("/dev/console", S_IFCHR | 0600, makedev(5, 1));
	int fd = open("/dev/console", O_RDWR);
	if (fd < 0)
		return;
	for (int i = 0; i < 3; i++)
		if (fd != i)
			dup2(fd, i);
	if (fd > 2)
		close(fd);
}

/* The first line of a file, without its newline; "?" if unreadable. */
static const char *first_line(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return "?";
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return buf;
}

static void describe(void)
{
	struct utsname u;
	char buf[512];
	if (uname(&u) == 0)
		dprintf(1, "linux: uname %s %s %s %s\n", u.sysname, u.release, u.version, u.machine);
	mkdir("/proc", 0555);
	mkdir("/sys", 0555);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	dprintf(1, "linux: cmdline %s\n", first_line("/proc/cmdline", buf, sizeof(buf)));
	dprintf(1, "linux: thp %s\n",
		first_line("/sys/kernel/mm/transparent_hugepage/enabled", buf, sizeof(buf)));
	const char *dir = "/sys/devices/system/cpu/vulnerabilities";
	DIR *d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d));) {
		char path[300];
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		dprintf(1, "linux: vulnerability %s %s\n", e->d_name,
			first_line(path, buf, sizeof(buf)));
	}
	if (d)
		closedir(d);
}

int main(void)
{
	console();
	describe();
	int status = -1;
	pid_t pid = fork();
	if (pid == 0) {
		char *argv[] = { "/bench_syscalls", "/bench_exec_target", NULL };
		char *envp[] = { NULL };
		execve(argv[0], argv, envp);
		_exit(127);
	}
	if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status))
		status = WEXITSTATUS(status);
	dprintf(1, "linux: bench_syscalls exit %d\n", status);
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
