/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the test programs share: they check their own results and end by
 * printing exactly one line, `NAME: N passed, M failed`, after one line
 * per failure saying what was expected and what came instead:
 *
 *   check_start("files", argc, argv);
 *   CHECK(n == 5, "read returned %ld, expected 5", n);
 *   CHECK_ERR(open("/nonexistent", O_RDONLY), ENOENT, "open of a missing file");
 *   return check_done();
 *
 * Only libc (musl). Error paths use raw system calls (syscall(SYS_...))
 * where libc could touch a bad pointer itself (or answer from the vDSO).
 * stdout is line-buffered, so that a child of fork does not print what
 * its parent buffered; children leave with _exit.
 */
#ifndef USERLAND_CHECK_H
#define USERLAND_CHECK_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *check_name = "?";
static int check_passed, check_failed;

/*
 * Where the program archive's files are: "" on Scion (they are at "/"),
 * and on Linux the folder it was unpacked into, given as argv[1]
 * ("/tmp/x": the programs then open "/tmp/x/etc/motd").
 */
static const char *check_prefix = "";

static inline void check_start(const char *name, int argc, char **argv)
{
	check_name = name;
	if (argc > 1 && argv[1][0] == '/')
		check_prefix = argv[1];
	setvbuf(stdout, NULL, _IOLBF, 0);
}

static inline const char *check_errno_name(int e)
{
	static char other[16];
	switch (e) {
	case 0: return "0";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case ESRCH: return "ESRCH";
	case EINTR: return "EINTR";
	case EIO: return "EIO";
	case E2BIG: return "E2BIG";
	case ENOEXEC: return "ENOEXEC";
	case EBADF: return "EBADF";
	case ECHILD: return "ECHILD";
	case EAGAIN: return "EAGAIN";
	case ENOMEM: return "ENOMEM";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case EEXIST: return "EEXIST";
	case ENOTDIR: return "ENOTDIR";
	case EISDIR: return "EISDIR";
	case EINVAL: return "EINVAL";
	case EMFILE: return "EMFILE";
	case ENOTTY: return "ENOTTY";
	case ESPIPE: return "ESPIPE";
	case EROFS: return "EROFS";
	case EPIPE: return "EPIPE";
	case ERANGE: return "ERANGE";
	case ENAMETOOLONG: return "ENAMETOOLONG";
	case ENOSYS: return "ENOSYS";
	case ENOTEMPTY: return "ENOTEMPTY";
	case ELOOP: return "ELOOP";
	case EOVERFLOW: return "EOVERFLOW";
	case ENOTSUP: return "ENOTSUP";
	default:
		snprintf(other, sizeof(other), "errno %d", e);
		return other;
	}
}

static inline void __attribute__((format(printf, 3, 4)))
check_report(int ok, int line, const char *fmt, ...)
{
	if (ok) {
		check_passed++;
		return;
	}
	check_failed++;
	va_list ap;
	va_start(ap, fmt);
	printf("%s: FAIL line %d: ", check_name, line);
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
}

/* A condition; the message says what was expected and what came. */
#define CHECK(cond, ...) check_report(!!(cond), __LINE__, __VA_ARGS__)

/* Two integers equal. */
#define CHECK_EQ(got, want, what) do { \
	long long g_ = (long long)(got), w_ = (long long)(want); \
	check_report(g_ == w_, __LINE__, "%s: expected %lld, got %lld", (what), w_, g_); \
} while (0)

/* A call that must fail with -1 and errno err. */
#define CHECK_ERR(call, err, what) do { \
	errno = 0; \
	long r_ = (long)(call); \
	int e_ = errno; \
	check_report(r_ == -1 && e_ == (err), __LINE__, "%s: expected -1 %s, got %ld %s", (what), \
		     check_errno_name(err), r_, r_ == -1 ? check_errno_name(e_) : "(no error)"); \
} while (0)

/* A call that must succeed (not -1); its result is kept in *out when out is given. */
#define CHECK_OK(call, what) ({ \
	errno = 0; \
	long r_ = (long)(call); \
	int e_ = errno; \
	check_report(r_ != -1, __LINE__, "%s: expected success, got -1 %s", (what), \
		     check_errno_name(e_)); \
	r_; \
})

/* The closing line; the exit status: 0 when nothing failed. */
static inline int check_done(void)
{
	printf("%s: %d passed, %d failed\n", check_name, check_passed, check_failed);
	fflush(stdout);
	return check_failed ? 1 : 0;
}

/* prefix + path into buf (size bytes); returns buf. */
static inline const char *check_path(char *buf, size_t size, const char *path)
{
	snprintf(buf, size, "%s%s", check_prefix, path);
	return buf;
}

#endif
