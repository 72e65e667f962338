// SPDX-License-Identifier: BSD-2-Clause
/*
 * tty_lines: a parent and its child each write LINES lines to stdout at
 * the same time, every line a writev of one entry per byte (the most
 * scattered form a C library can give). A terminal must pass each
 * line on whole, as Linux's does: the test that runs this on Scion
 * looks for every "tty_lines: parent|child N ..." line intact among
 * the other's. The program checks the lengths writev returned and that
 * its child ended well.
 */
#include <sys/uio.h>
#include <sys/wait.h>
#include "check.h"

#define LINES 60
#define ALPHABET "abcdefghijklmnopqrstuvwxyz0123456789"

/* Writes every line; returns how many writev calls fell short. */
static int write_lines(const char *who)
{
	int short_writes = 0;
	for (int n = 0; n < LINES; n++) {
		char line[128];
		int len = snprintf(line, sizeof(line), "tty_lines: %s %d %s\n", who, n, ALPHABET);
		struct iovec iov[128];
		for (int i = 0; i < len; i++)
			iov[i] = (struct iovec){ .iov_base = &line[i], .iov_len = 1 };
		if (writev(STDOUT_FILENO, iov, len) != len)
			short_writes++;
	}
	return short_writes;
}

int main(int argc, char **argv)
{
	check_start("tty_lines", argc, argv);
	pid_t child = fork();
	if (child == 0)
		_exit(write_lines("child") ? 1 : 0);
	CHECK(child > 0, "fork returned %d", (int)child);
	CHECK_EQ(write_lines("parent"), 0, "short writev calls in the parent");
	int status = 0;
	if (child > 0) {
		CHECK_EQ(waitpid(child, &status, 0), child, "waitpid");
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "the child's writev calls fell short (status %#x)", status);
	}
	return check_done();
}
