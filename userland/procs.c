// SPDX-License-Identifier: BSD-2-Clause
/*
 * procs: processes as Linux makes and ends them. fork (the child sees
 * itself as 0 and its parent's pid as getppid), exit statuses through
 * wait4, a tree of three levels (each parent waits for its own child),
 * vfork (the child borrows the parent's memory until it exits or execs),
 * execve of /hello with arguments (its exit status, chosen by an
 * argument, proves they arrived) and its error paths (ENOENT, EACCES for
 * a directory and for a file without x bits, EFAULT), wait4 for one pid
 * among several, WNOHANG, and ECHILD. Takes the archive's folder as
 * argv[1] on Linux.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include "check.h"

extern char **environ;

static void fork_and_wait(void)
{
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid == 0)
		_exit(getppid() == parent ? 7 : 8);
	CHECK(pid > 0 && pid != parent, "fork returned %d", pid);
	int status = -1;
	struct rusage ru;
	CHECK_EQ(wait4(pid, &status, 0, &ru), pid, "wait4 for the child");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 7, "child status 0x%x, expected exit 7 "
	      "(8: getppid was not the parent)", status);
	/* Exit statuses are 8 bits. */
	pid = fork();
	if (pid == 0)
		_exit(0x1ff);
	CHECK_EQ(wait4(pid, &status, 0, NULL), pid, "wait4 again");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0xff, "exit(0x1ff) gave status 0x%x, "
	      "expected exit 255", status);
	/* exit_group through exit() after stdio. */
	pid = fork();
	if (pid == 0)
		exit(3);
	CHECK_EQ(waitpid(pid, &status, 0), pid, "waitpid");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 3, "exit(3): status 0x%x", status);
}

/* Level n forks level n + 1 and exits with its child's status + 1. */
static int level(int n)
{
	if (n == 3)
		return 10;
	pid_t pid = fork();
	if (pid == 0)
		_exit(level(n + 1));
	int status;
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 100;
	return WEXITSTATUS(status) + 1;
}

static void tree(void)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(level(1));
	int status;
	CHECK_EQ(waitpid(pid, &status, 0), pid, "wait for the tree");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 12, "three levels: status 0x%x, expected "
	      "exit 12 (10 at the bottom, +1 per level)", status);
}

static void vforks(void)
{
	static volatile int borrowed = 0;
	pid_t pid = vfork();
	if (pid == 0) {
		borrowed = 5;	/* the parent's memory: it sees this */
		_exit(4);
	}
	int status;
	CHECK_EQ(waitpid(pid, &status, 0), pid, "wait for a vfork child");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 4, "vfork child status 0x%x", status);
	CHECK_EQ(borrowed, 5, "a vfork child's write to its parent's memory");
}

static void execs(void)
{
	char hello[512], etc[512], motd[512];
	check_path(hello, sizeof(hello), "/hello");
	check_path(etc, sizeof(etc), "/etc");
	check_path(motd, sizeof(motd), "/etc/motd");
	char *args[] = { "hello", "--exit=42", "from-procs", NULL };
	pid_t pid = fork();
	if (pid == 0) {
		execve(hello, args, environ);
		_exit(99);
	}
	int status;
	CHECK_EQ(waitpid(pid, &status, 0), pid, "wait for the exec child");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 42, "execve %s --exit=42: status 0x%x "
	      "(exit 99: execve failed)", hello, status);
	/* vfork + execve, as posix_spawn does. */
	char *args2[] = { "hello", "--exit=43", NULL };
	pid = vfork();
	if (pid == 0) {
		execve(hello, args2, environ);
		_exit(99);
	}
	CHECK_EQ(waitpid(pid, &status, 0), pid, "wait for the vfork+exec child");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 43, "vfork + execve: status 0x%x", status);

	char missing[512];
	CHECK_ERR(execve(check_path(missing, sizeof(missing), "/no-such-program"), args, environ),
		  ENOENT, "execve of a missing file");
	CHECK_ERR(execve(etc, args, environ), EACCES, "execve of a directory");
	CHECK_ERR(execve(motd, args, environ), EACCES, "execve of a file without x bits");
	CHECK_ERR(syscall(SYS_execve, (void *)1, args, environ), EFAULT, "execve((void *)1)");
	CHECK_ERR(syscall(SYS_execve, hello, (void *)1, environ), EFAULT,
		  "execve with argv (void *)1");
	char *bad_args[] = { "hello", (char *)0xffff800000000000ul, NULL };
	CHECK_ERR(syscall(SYS_execve, hello, bad_args, environ), EFAULT,
		  "execve with argv[1] a kernel address");
}

static void waits(void)
{
	pid_t a = fork();
	if (a == 0)
		_exit(1);
	pid_t b = fork();
	if (b == 0)
		_exit(2);
	int status;
	CHECK_EQ(wait4(b, &status, 0, NULL), b, "wait4 for the second child first");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 2, "second child status 0x%x", status);
	CHECK_EQ(wait4(-1, &status, 0, NULL), a, "wait4(-1) then gives the first");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1, "first child status 0x%x", status);
	CHECK_ERR(wait4(-1, &status, 0, NULL), ECHILD, "wait4 with no children");
	CHECK_ERR(wait4(1, &status, 0, NULL), ECHILD, "wait4 for pid 1, not a child");
	CHECK_ERR(wait4(a, &status, 0, NULL), ECHILD, "wait4 for a child already reaped");
	CHECK_ERR(wait4(-1, &status, WNOHANG, NULL), ECHILD, "wait4 WNOHANG with no children");

	/* The child waits on a pipe, not a clock: it cannot exit before WNOHANG looked. */
	int gate[2];
	CHECK_EQ(pipe(gate), 0, "pipe for the slow child");
	pid_t slow = fork();
	if (slow == 0) {
		char b;
		close(gate[1]);
		_exit(read(gate[0], &b, 1) == 1 ? 6 : 7);
	}
	close(gate[0]);
	CHECK_EQ(wait4(slow, &status, WNOHANG, NULL), 0, "wait4 WNOHANG before the child exits");
	CHECK_EQ(write(gate[1], "x", 1), 1, "let the slow child go");
	close(gate[1]);
	CHECK_EQ(wait4(slow, &status, 0, NULL), slow, "wait4 then blocks until it exits");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 6, "slow child status 0x%x", status);
	CHECK_ERR(syscall(SYS_wait4, -1, &status, 0x100, NULL), EINVAL,
		  "wait4 with an unknown option");

	pid_t c = fork();
	if (c == 0)
		_exit(0);
	CHECK_ERR(syscall(SYS_wait4, c, (void *)1, 0, NULL), EFAULT, "wait4 status into (void *)1");
	/* Linux reaps the child before failing the copy: it is gone. */
	CHECK_ERR(wait4(c, &status, 0, NULL), ECHILD, "the child after a failed status copy");
}

int main(int argc, char **argv)
{
	check_start("procs", argc, argv);
	fork_and_wait();
	tree();
	vforks();
	execs();
	waits();
	return check_done();
}
