// SPDX-License-Identifier: BSD-2-Clause
/*
 * pipes: pipes as Linux runs them. pipe2 between a parent and a child,
 * end of file once every write end is closed, EPIPE on writing with no
 * reader (SIGPIPE ignored) and death by SIGPIPE when it is not, 256 KiB
 * across a fork (more than the 64 KiB a pipe holds, so both sides
 * block and wake in turn), O_NONBLOCK (EAGAIN on an empty pipe), the
 * wrong end (EBADF), lseek (ESPIPE), and pipe2's EINVAL and EFAULT.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "check.h"

#define BIG (256 * 1024)

static void parent_and_child(void)
{
	int p[2];
	char buf[64];
	CHECK_EQ(pipe2(p, 0), 0, "pipe2");
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		ssize_t n = write(p[1], "hello pipe", 10);
		_exit(n == 10 ? 0 : 1);
	}
	close(p[1]);
	ssize_t n = read(p[0], buf, sizeof(buf));
	CHECK(n == 10 && !memcmp(buf, "hello pipe", 10), "read %zd bytes '%.*s' from the child", n,
	      (int)(n > 0 ? n : 0), buf);
	CHECK_EQ(read(p[0], buf, sizeof(buf)), 0, "end of file once the child's end is closed");
	int status;
	CHECK_EQ(waitpid(pid, &status, 0), pid, "wait for the writer");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "writer status 0x%x", status);
	struct stat st;
	CHECK_EQ(fstat(p[0], &st), 0, "fstat of a pipe");
	CHECK(S_ISFIFO(st.st_mode), "a pipe's st_mode 0%o, expected S_IFIFO", st.st_mode);
	close(p[0]);
}

static void no_reader(void)
{
	int p[2];
	CHECK_EQ(pipe2(p, 0), 0, "pipe2");
	close(p[0]);
	signal(SIGPIPE, SIG_IGN);
	CHECK_ERR(write(p[1], "x", 1), EPIPE, "write with no reader, SIGPIPE ignored");
	signal(SIGPIPE, SIG_DFL);
	pid_t pid = fork();
	if (pid == 0) {
		write(p[1], "x", 1);
		_exit(0);
	}
	int status;
	CHECK_EQ(waitpid(pid, &status, 0), pid, "wait for the writer");
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE, "a child writing with no reader: "
	      "status 0x%x, expected killed by SIGPIPE", status);
	close(p[1]);
}

static void big_transfer(void)
{
	int p[2];
	CHECK_EQ(pipe2(p, O_CLOEXEC), 0, "pipe2 O_CLOEXEC");
	CHECK_EQ(fcntl(p[0], F_GETFD), FD_CLOEXEC, "O_CLOEXEC on the read end");
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		static unsigned char out[BIG];
		for (int i = 0; i < BIG; i++)
			out[i] = (unsigned char)(i * 13 + i / 251);
		size_t done = 0;
		while (done < BIG) {
			ssize_t n = write(p[1], out + done, BIG - done);
			if (n <= 0)
				_exit(1);
			done += (size_t)n;
		}
		_exit(0);
	}
	close(p[1]);
	static unsigned char in[BIG + 1];
	size_t got = 0;
	for (ssize_t n; (n = read(p[0], in + got, sizeof(in) - got)) > 0;)
		got += (size_t)n;
	CHECK_EQ(got, BIG, "bytes through the pipe");
	int same = 1;
	for (int i = 0; i < BIG; i++)
		same &= in[i] == (unsigned char)(i * 13 + i / 251);
	CHECK(same, "256 KiB arrived in order and intact");
	int status;
	CHECK_EQ(waitpid(pid, &status, 0), pid, "wait for the big writer");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "big writer status 0x%x", status);
	close(p[0]);
}

static void errors(void)
{
	int p[2];
	char c;
	CHECK_EQ(pipe2(p, O_NONBLOCK), 0, "pipe2 O_NONBLOCK");
	CHECK_ERR(read(p[0], &c, 1), EAGAIN, "read an empty non-blocking pipe");
	CHECK_ERR(read(p[1], &c, 1), EBADF, "read the write end");
	CHECK_ERR(write(p[0], "x", 1), EBADF, "write the read end");
	CHECK_ERR(lseek(p[0], 0, SEEK_SET), ESPIPE, "lseek a pipe");
	CHECK_EQ(write(p[1], "xy", 2), 2, "write 2 bytes");
	CHECK_EQ(read(p[0], &c, 1), 1, "read 1 of them");
	CHECK_EQ(c, 'x', "the first byte");
	close(p[0]);
	close(p[1]);
	CHECK_ERR(syscall(SYS_pipe2, p, 0x1234), EINVAL, "pipe2 with flags 0x1234");
	CHECK_ERR(syscall(SYS_pipe2, (void *)1, 0), EFAULT, "pipe2 into (void *)1");
	CHECK_ERR(syscall(SYS_pipe2, (void *)0xffff800000000000ul, 0), EFAULT,
		  "pipe2 into a kernel address");
	CHECK_EQ(syscall(SYS_pipe, p), 0, "pipe (the old call)");
	close(p[0]);
	close(p[1]);
}

int main(int argc, char **argv)
{
	check_start("pipes", argc, argv);
	parent_and_child();
	no_reader();
	big_transfer();
	errors();
	return check_done();
}
