// SPDX-License-Identifier: BSD-2-Clause
/*
 * /init of the initramfs tools/bench_linux.py boots Debian's Linux kernel
 * with, for the Linux columns of the system call and file system
 * benchmarks: a static musl program that runs only on Linux (it loads
 * modules, mounts, reads /proc and /sys and powers off), never on Scion. It
 *
 *   - opens /dev/console as fds 0-2 if the kernel could not (no console
 *     node in the initramfs: it makes one);
 *   - describes the kernel in `linux: KEY VALUE` lines: uname, the
 *     command line, the transparent huge page setting, each CPU
 *     vulnerability and its mitigation;
 *   - runs /bench_syscalls /bench_exec_target as its child (not as pid 1,
 *     as Scion runs it: an ordinary process), its output straight on the
 *     console;
 *   - prints `linux: bench_syscalls exit STATUS`;
 *   - for the file system rows: loads the modules /modules/order names
 *     (one file name of /modules/ a line, an order the host computed
 *     from the package's modules.dep: Debian builds virtio-blk and ext4,
 *     which mounts ext2, as modules, and there is no modprobe here) with
 *     finit_module, makes /dev/vda from /sys/block/vda/dev, mounts it on
 *     /mnt as ext2 read-write, says `linux: mount LINE` (its /proc/mounts
 *     line), runs /bench_fs /mnt/bench-fs as a child and prints
 *     `linux: bench_fs exit STATUS` (-1, after a `linux: fs-setup WHAT`
 *     line, if the disk could not be mounted);
 *   - syncs, unmounts and powers the machine off (QEMU exits 0).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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

/* Run argv as a child and wait: its exit status, -1 if it did not exit. */
static int run(char **argv)
{
	int status = -1;
	pid_t pid = fork();
	if (pid == 0) {
		char *envp[] = { NULL };
		execve(argv[0], argv, envp);
		_exit(127);
	}
	if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status))
		return WEXITSTATUS(status);
	return -1;
}

/* Load /modules/order's modules in its order; 0, or -1 after saying which failed. */
static int load_modules(void)
{
	char list[4096];
	int fd = open("/modules/order", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, list, sizeof(list) - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0) {
		dprintf(1, "linux: fs-setup no /modules/order\n");
		return -1;
	}
	list[n] = 0;
	for (char *name = strtok(list, "\n"); name; name = strtok(NULL, "\n")) {
		char path[300];
		snprintf(path, sizeof(path), "/modules/%s", name);
		int mfd = open(path, O_RDONLY | O_CLOEXEC);
		long r = mfd < 0 ? -1 : syscall(SYS_finit_module, mfd, "", 0);
		int err = errno;
		if (mfd >= 0)
			close(mfd);
		if (r && err != EEXIST) {
			dprintf(1, "linux: fs-setup finit_module %s: %s\n", name, strerror(err));
			return -1;
		}
	}
	return 0;
}

/* /dev/vda from sysfs (the probe may finish after finit_module returns:
 * wait up to a few seconds), mounted on /mnt as ext2. */
static int mount_disk(void)
{
	char buf[64];
	unsigned maj, min;
	const char *dev = "?";
	for (int i = 0; i < 500; i++) {
		dev = first_line("/sys/block/vda/dev", buf, sizeof(buf));
		if (strcmp(dev, "?"))
			break;
		usleep(10000);
	}
	if (sscanf(dev, "%u:%u", &maj, &min) != 2) {
		dprintf(1, "linux: fs-setup no /sys/block/vda/dev\n");
		return -1;
	}
	mknod("/dev/vda", S_IFBLK | 0600, makedev(maj, min));
	mkdir("/mnt", 0755);
	if (mount("/dev/vda", "/mnt", "ext2", 0, NULL)) {
		dprintf(1, "linux: fs-setup mount /dev/vda on /mnt as ext2: %s\n", strerror(errno));
		return -1;
	}
	char mounts[4096];
	int fd = open("/proc/mounts", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, mounts, sizeof(mounts) - 1);
	if (fd >= 0)
		close(fd);
	mounts[n > 0 ? n : 0] = 0;
	for (char *line = strtok(mounts, "\n"); line; line = strtok(NULL, "\n"))
		if (!strncmp(line, "/dev/vda ", 9))
			dprintf(1, "linux: mount %s\n", line);
	return 0;
}

int main(void)
{
	console();
	describe();
	char *syscalls[] = { "/bench_syscalls", "/bench_exec_target", NULL };
	dprintf(1, "linux: bench_syscalls exit %d\n", run(syscalls));
	int status = -1;
	if (load_modules() == 0 && mount_disk() == 0) {
		char *fs[] = { "/bench_fs", "/mnt/bench-fs", NULL };
		status = run(fs);
	}
	dprintf(1, "linux: bench_fs exit %d\n", status);
	sync();
	umount("/mnt");
	reboot(RB_POWER_OFF);
	return 0;
}
