// SPDX-License-Identifier: BSD-2-Clause
/*
 * zombie MS: fork a child that spins for MS milliseconds (default 300)
 * and exits with status 3, then leave it unreaped, a zombie, until
 * SIGUSR1; then reap it and exit. The monitor's per-process figures
 * (`monitor processes`) show the child meanwhile with no live thread and
 * the CPU time it used: a process keeps its exited threads' share until
 * it is reaped. Prints the child's pid when it has exited, and its exit
 * status once reaped.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t go, child_exited;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		go = 1;
	else
		child_exited = 1;
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ll + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 300;
	sigset_t usr1, old;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigaddset(&usr1, SIGCHLD);
	sigprocmask(SIG_BLOCK, &usr1, &old);
	signal(SIGUSR1, on_signal);
	signal(SIGCHLD, on_signal);

	pid_t pid = fork();
	if (pid < 0) {
		perror("zombie: fork");
		return 1;
	}
	if (pid == 0) {
		long long until = now_ms() + ms;
		while (now_ms() < until)
			;
		_exit(3);
	}
	while (!child_exited)	/* SIGCHLD: it exited; it stays unreaped */
		sigsuspend(&old);
	printf("zombie: child %d exited, parent %d waits for SIGUSR1\n", (int)pid, (int)getpid());
	fflush(stdout);
	while (!go)
		sigsuspend(&old);
	int status = 0;
	pid_t got = waitpid(pid, &status, 0);
	printf("zombie: reaped %d, exit status %d\n", (int)got,
	       got == pid && WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return got == pid ? 0 : 1;
}
