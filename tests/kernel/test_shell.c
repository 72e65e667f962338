// SPDX-License-Identifier: BSD-2-Clause
/* In-kernel tests of shell command dispatch and argument checking. */
#include <scion/ktest.h>
#include <scion/shell.h>
#include <scion/string.h>
#include <scion/errno.h>

static int run(const char *command)
{
	char line[256];
	strlcpy(line, command, sizeof(line));
	return shell_execute(line);
}

KTEST(shell_dispatch_and_errors, 1)
{
	KT_EXPECT(t, run("") == 0 && run("   \t ") == 0, "empty lines are not no-ops");
	KT_EXPECT(t, run("no-such-command") == -ENOENT, "unknown command not refused");
	KT_EXPECT(t, run("a b c d e f g h i j k l m n o p q r") == -E2BIG, "too many words accepted");
	KT_EXPECT(t, run("syms 'unterminated") == -EINVAL, "unterminated quote accepted");
	KT_EXPECT(t, run("uptime") == 0, "uptime failed");
	KT_EXPECT(t, run("uptime now") == -EINVAL, "uptime accepted an argument");
	KT_EXPECT(t, run("syms") == -EINVAL, "syms without a pattern accepted");
	KT_EXPECT(t, run("syms thread_create") == 0, "syms thread_create failed");
	KT_EXPECT(t, run("syms 'no such *'") == -ENOENT, "syms with no match succeeded");
	KT_EXPECT(t, run("syms 0xnothex") == -EINVAL, "bad address accepted");
	KT_EXPECT(t, run("help cpus") == 0 && run("help nonsense") == -ENOENT, "help lookups");
	KT_EXPECT(t, run("threads") == 0 && run("mem") == 0 && run("cpus") == 0, "status commands");
}
