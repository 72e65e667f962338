// SPDX-License-Identifier: BSD-2-Clause
/*
 * fork_bomb: a hostile program. Forks until fork fails; every child
 * waits on a pipe (it holds no CPU) and exits 0 once the parent closes
 * it. The kernel must refuse a fork at some point with EAGAIN (Linux:
 * RLIMIT_NPROC; run it as a user with `ulimit -u` set, since root is not
 * limited) and stay up; then every child must exit and be reaped.
 * Prints how many forks succeeded and its pass/fail line. Stops at
 * MAX_FORKS without EAGAIN (a failure) rather than bring a host down.
 */
#include <signal.h>
#include <sys/wait.h>
#include "check.h"

#define MAX_FORKS 4096

int main(int argc, char **argv)
{
	int p[2];
	check_start("fork_bomb", argc, argv);
	if (pipe(p)) {
		CHECK(0, "pipe: %s", check_errno_name(errno));
		return check_done();
	}
	int forks = 0, err = 0;
	while (forks < MAX_FORKS) {
		pid_t pid = fork();
		if (pid == 0) {
			char c;
			close(p[1]);
			while (read(p[0], &c, 1) > 0)
				;
			_exit(0);
		}
		if (pid < 0) {
			err = errno;
			break;
		}
		forks++;
	}
	close(p[1]);
	printf("fork_bomb: %d forks before fork failed with %s\n", forks,
	       err ? check_errno_name(err) : "nothing (stopped at the cap)");
	CHECK(err == EAGAIN, "fork failed with %s after %d forks, expected EAGAIN",
	      err ? check_errno_name(err) : "nothing", forks);
	int reaped = 0, clean = 0, status;
	for (pid_t pid; (pid = wait(&status)) > 0; reaped++)
		clean += WIFEXITED(status) && WEXITSTATUS(status) == 0;
	CHECK_EQ(errno, ECHILD, "wait after the last child (errno)");
	CHECK_EQ(reaped, forks, "children reaped");
	CHECK_EQ(clean, forks, "children that exited 0");
	return check_done();
}
