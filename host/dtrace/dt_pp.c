// SPDX-License-Identifier: BSD-2-Clause
/*
 * The optional C preprocessor pass (dtrace -C): the source goes to a
 * temporary file, the system's cpp runs over it with its line markers
 * kept, and the lexer follows those markers, naming the original file
 * wherever cpp names the temporary one. `#pragma D option` lines pass
 * through cpp untouched. cpp's own errors become D_PREPROC errors at
 * the line cpp names; a missing cpp is one error saying so.
 *
 * Invariant: the temporary files are removed before returning, whatever
 * happened; no file descriptor is left open.
 */
#define _GNU_SOURCE	/* memmem */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "dt_impl.h"

extern char **environ;

#define MAX_OUTPUT (64u << 20)

static bool write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}

/* The whole file behind fd (from its start), malloc'd, or NULL. */
static char *read_all(int fd, size_t *len)
{
	struct stat st;
	if (fstat(fd, &st) < 0 || st.st_size < 0 || (size_t)st.st_size > MAX_OUTPUT ||
	    lseek(fd, 0, SEEK_SET) < 0)
		return NULL;
	size_t size = (size_t)st.st_size, got = 0;
	char *buf = malloc(size + 1);
	if (!buf)
		return NULL;
	while (got < size) {
		ssize_t n = read(fd, buf + got, size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	*len = got;
	return buf;
}

static int temp_file(char *path, size_t size, const char *what)
{
	const char *dir = getenv("TMPDIR");
	snprintf(path, size, "%s/scion-d-%s-XXXXXX", dir && *dir ? dir : "/tmp", what);
	return mkstemp(path);
}

/*
 * cpp's diagnostics: "FILE:LINE:COL: error: text" lines, FILE being our
 * input (named like the program); the source excerpts gcc prints under
 * them start with blanks and are left out.
 */
static void report_cpp_errors(struct dt_ctx *ctx, const char *input, const char *text,
			      size_t len)
{
	size_t ilen = strlen(input);
	int reported = 0;

	for (const char *line = text; line < text + len && !ctx->stopped;) {
		const char *eol = memchr(line, '\n', (size_t)(text + len - line));
		if (!eol)
			eol = text + len;
		size_t n = (size_t)(eol - line);
		if (n > 0 && line[0] != ' ' && memmem(line, n, "error", 5)) {
			struct dt_loc loc = { ctx->filename, 0, 0 };
			const char *msg = line;
			if (n > ilen + 1 && !memcmp(line, input, ilen) && line[ilen] == ':') {
				char *end;
				loc.line = (int)strtol(line + ilen + 1, &end, 10);
				if (*end == ':') {
					loc.column = (int)strtol(end + 1, &end, 10);
					msg = *end == ':' ? end + 1 : end;
				}
				while (msg < eol && *msg == ' ')
					msg++;
			}
			dt_error(ctx, loc, D_PREPROC, "cpp: %s",
				 dt_strndup(ctx, msg, (size_t)(eol - msg)));
			reported++;
		}
		line = eol + 1;
	}
	if (!reported)
		dt_error(ctx, (struct dt_loc){ ctx->filename, 0, 0 }, D_PREPROC,
			 "the C preprocessor failed to process the program");
}

/* Run cpp over in_path; outputs malloc'd. Returns NULL or a failure message in why. */
static bool run_cpp(const char *cpp, const char *in_path, int out_fd, int err_fd, int *status,
		    char *why, size_t whysize)
{
	char *const argv[] = { (char *)cpp, "-x", "c", "-undef", "-D__SCION_D=1",
			       "-D__SCION_D_64=1", (char *)in_path, NULL };
	posix_spawn_file_actions_t fa;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
	posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
	int rc = posix_spawnp(&pid, cpp, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0) {
		snprintf(why, whysize, "cannot run the C preprocessor %s: %s (install cpp, or "
			 "compile without -C)", cpp, strerror(rc));
		return false;
	}
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR) {
			*status = -1;
			break;
		}
	if (*status == -1 || !WIFEXITED(*status) || WEXITSTATUS(*status) == 127) {
		snprintf(why, whysize, "the C preprocessor %s did not run (install cpp, or compile "
			 "without -C)", cpp);
		return false;
	}
	return true;
}

char *dt_preprocess(struct dt_ctx *ctx, const char *cpp, const char *source, size_t length,
		    size_t *outlen)
{
	char in_path[512], out_path[512], err_path[512], why[600] = "";
	int in_fd = temp_file(in_path, sizeof(in_path), "in");
	int out_fd = in_fd >= 0 ? temp_file(out_path, sizeof(out_path), "out") : -1;
	int err_fd = out_fd >= 0 ? temp_file(err_path, sizeof(err_path), "err") : -1;
	char *output = NULL, *errors = NULL;
	size_t output_len = 0, errors_len = 0;
	int status = 0;

	/* No arena allocation (which may longjmp) until the files are gone. */
	if (err_fd < 0)
		snprintf(why, sizeof(why), "cannot create a temporary file for the C "
			 "preprocessor: %s", strerror(errno));
	/* An interpreter line (#!/usr/sbin/dtrace -Cs) is no directive: cpp sees a comment. */
	else if (length >= 2 && source[0] == '#' && source[1] == '!' &&
		 (!write_all(in_fd, "//", 2) || !write_all(in_fd, source + 2, length - 2)))
		snprintf(why, sizeof(why), "cannot write the C preprocessor's input: %s",
			 strerror(errno));
	else if ((length < 2 || source[0] != '#' || source[1] != '!') &&
		 !write_all(in_fd, source, length))
		snprintf(why, sizeof(why), "cannot write the C preprocessor's input: %s",
			 strerror(errno));
	else if (run_cpp(cpp, in_path, out_fd, err_fd, &status, why, sizeof(why))) {
		if (WEXITSTATUS(status) != 0)
			errors = read_all(err_fd, &errors_len);
		else if (!(output = read_all(out_fd, &output_len)))
			snprintf(why, sizeof(why), "cannot read the C preprocessor's output");
	}
	if (in_fd >= 0) {
		close(in_fd);
		unlink(in_path);
	}
	if (out_fd >= 0) {
		close(out_fd);
		unlink(out_path);
	}
	if (err_fd >= 0) {
		close(err_fd);
		unlink(err_path);
	}

	char *result = NULL;
	if (output) {
		result = dt_alloc(ctx, output_len + 1);
		memcpy(result, output, output_len + 1);
		*outlen = output_len;
		ctx->cpp_input = dt_strndup(ctx, in_path, strlen(in_path));
	} else {
		ctx->nsyntax++;
		if (why[0])
			dt_error(ctx, (struct dt_loc){ ctx->filename, 0, 0 }, D_PREPROC, "%s", why);
		else
			report_cpp_errors(ctx, in_path, errors ? errors : "", errors_len);
	}
	free(output);
	free(errors);
	return result;
}
