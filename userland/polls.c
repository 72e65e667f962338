// SPDX-License-Identifier: BSD-2-Clause
/*
 * polls: poll, ppoll, select and pselect6 as Linux answers them, over
 * pipes and a file. A pipe's read end is not ready empty, is POLLIN with
 * data, POLLIN | POLLHUP once the writer is gone; its write end is
 * POLLOUT, POLLERR once the reader is gone; a closed fd is POLLNVAL
 * (select: EBADF), a negative one is skipped; a file is always ready.
 * Timeouts: 0 returns at once, 50 ms waits about that long; a wait ends
 * when a child writes; a child's three messages on a non-blocking pipe
 * are read with a poll loop to end of file (a proxy's pattern).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <time.h>
#include "check.h"

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ll + ts.tv_nsec / 1000000;
}

static void pipe_states(void)
{
	int p[2];
	CHECK_OK(pipe(p), "pipe");
	struct pollfd fds[2] = { { .fd = p[0], .events = POLLIN }, { .fd = p[1], .events = POLLOUT } };
	CHECK_EQ(poll(fds, 2, 0), 1, "an empty pipe: only the write end is ready");
	CHECK(fds[0].revents == 0 && fds[1].revents == POLLOUT, "revents %#x %#x", fds[0].revents,
	      fds[1].revents);
	CHECK_EQ(write(p[1], "x", 1), 1, "write");
	CHECK_EQ(poll(fds, 1, 0), 1, "data: the read end is ready");
	CHECK_EQ(fds[0].revents, POLLIN, "POLLIN");
	close(p[1]);
	CHECK_EQ(poll(fds, 1, 0), 1, "the writer gone");
	CHECK_EQ(fds[0].revents, POLLIN | POLLHUP, "POLLIN | POLLHUP");
	close(p[0]);
	CHECK_EQ(poll(fds, 1, 0), 1, "a closed fd");
	CHECK_EQ(fds[0].revents, POLLNVAL, "POLLNVAL");
	CHECK_OK(pipe(p), "pipe");
	close(p[0]);
	fds[1].fd = p[1];
	CHECK_EQ(poll(&fds[1], 1, 0), 1, "the reader gone");
	CHECK(fds[1].revents & POLLERR, "POLLERR: %#x", fds[1].revents);
	close(p[1]);
	struct pollfd skipped = { .fd = -1, .events = POLLIN, .revents = 77 };
	CHECK_EQ(poll(&skipped, 1, 0), 0, "a negative fd is skipped");
	CHECK_EQ(skipped.revents, 0, "and its revents cleared");
	char motd[512];
	int fd = CHECK_OK(open(check_path(motd, sizeof(motd), "/etc/motd"), O_RDONLY), "open motd");
	struct pollfd file = { .fd = fd, .events = POLLIN | POLLOUT };
	CHECK_EQ(poll(&file, 1, -1), 1, "a file is ready");
	CHECK_EQ(file.revents, POLLIN | POLLOUT, "a file: POLLIN | POLLOUT");
	close(fd);
}

static void timeouts(void)
{
	int p[2];
	CHECK_OK(pipe(p), "pipe");
	struct pollfd in = { .fd = p[0], .events = POLLIN };
	long long t = now_ms();
	CHECK_EQ(poll(&in, 1, 50), 0, "poll times out");
	long long waited = now_ms() - t;
	CHECK(waited >= 45 && waited < 5000, "poll waited %lld ms for 50", waited);
	struct timespec ts = { 0, 30 * 1000000 };
	t = now_ms();
	CHECK_EQ(ppoll(&in, 1, &ts, NULL), 0, "ppoll times out");
	waited = now_ms() - t;
	CHECK(waited >= 25 && waited < 5000, "ppoll waited %lld ms for 30", waited);
	/* A child writes after 30 ms: the wait ends then. */
	pid_t child = fork();
	if (child == 0) {
		usleep(30000);
		_exit(write(p[1], "y", 1) == 1 ? 0 : 1);
	}
	CHECK_EQ(poll(&in, 1, 10000), 1, "a child's write ends the wait");
	CHECK_EQ(in.revents, POLLIN, "POLLIN after the child's write");
	waitpid(child, NULL, 0);
	fd_set r;
	FD_ZERO(&r);
	FD_SET(p[0], &r);
	struct timeval tv = { 0, 0 };
	CHECK_EQ(select(p[0] + 1, &r, NULL, NULL, &tv), 1, "select: the read end is ready");
	CHECK(FD_ISSET(p[0], &r), "select sets its bit");
	char c;
	CHECK_EQ(read(p[0], &c, 1), 1, "read the byte");
	FD_ZERO(&r);
	FD_SET(p[0], &r);
	tv = (struct timeval){ 0, 20000 };
	CHECK_EQ(select(p[0] + 1, &r, NULL, NULL, &tv), 0, "select times out");
	CHECK(!FD_ISSET(p[0], &r), "and clears the bit");
	fd_set w;
	FD_ZERO(&w);
	FD_SET(p[1], &w);
	ts = (struct timespec){ 0, 0 };
	CHECK_EQ(pselect(p[1] + 1, NULL, &w, NULL, &ts, NULL), 1, "pselect: the write end");
	close(p[0]);
	close(p[1]);
	FD_ZERO(&r);
	FD_SET(p[0], &r);
	CHECK_ERR(select(p[0] + 1, &r, NULL, NULL, &tv), EBADF, "select of a closed fd");
}

/* A non-blocking pipe read with a poll loop: three messages, then end of file. */
static void proxy_loop(void)
{
	int p[2];
	CHECK_OK(pipe(p), "pipe");
	pid_t child = fork();
	if (child == 0) {
		close(p[0]);
		for (int i = 0; i < 3; i++) {
			usleep(10000);
			if (write(p[1], "message\n", 8) != 8)
				_exit(1);
		}
		_exit(0);
	}
	close(p[1]);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	char buf[64];
	size_t got = 0;
	int polls = 0, again = 0;
	for (;;) {
		struct pollfd in = { .fd = p[0], .events = POLLIN };
		if (poll(&in, 1, 5000) != 1)
			break;
		polls++;
		ssize_t n = read(p[0], buf + got, sizeof(buf) - got);
		if (n == 0)
			break;
		if (n < 0) {
			again += errno == EAGAIN;
			continue;
		}
		got += (size_t)n;
	}
	CHECK(got == 24 && !memcmp(buf, "message\nmessage\nmessage\n", 24),
	      "a poll loop read %zu bytes in %d polls", got, polls);
	CHECK_EQ(again, 0, "reads after POLLIN that found nothing");
	close(p[0]);
	waitpid(child, NULL, 0);
}

int main(int argc, char **argv)
{
	check_start("polls", argc, argv);
	pipe_states();
	timeouts();
	proxy_loop();
	return check_done();
}
