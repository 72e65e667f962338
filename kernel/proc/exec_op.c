// SPDX-License-Identifier: BSD-2-Clause
/*
 * The control channel's EXEC, EXEC_RESUME and SIGNAL ops (`scion exec`; the
 * wire format is scion/chan_proto.h's): a program of the boot archive
 * started from the host with the host's argv, its stdin at end of file
 * and its stdout and stderr going back over an "exec" stream
 * (chanout.c), or, detached, to nowhere.
 *
 * Every process starts suspended (proc_spawn_files): the stream is in
 * place before the program runs its first instruction, and a process
 * whose stream could not be opened is killed before it ran. Unless the
 * host asked for it suspended (CHAN_EXEC_SUSPENDED, for `scion trace
 * -c`), it is resumed before the answer goes out, so the answer may
 * come after the first DATA of its stream (the host keeps those).
 *
 * A bad request (no program, a malformed argv frame, too many or too
 * long arguments, unknown flags) and a program that cannot be started
 * (not in the archive, not executable, not an ELF the loader takes, the
 * process limit) are answered with an ERROR of one line.
 */
#include <scion/channel.h>
#include <scion/chan_proto.h>
#include <scion/errno.h>
#include <scion/format.h>
#include <scion/string.h>
#include "proc_internal.h"

#define EXEC_DEFAULT_SWITCH_MS 20
#define EXEC_KNOWN_FLAGS (CHAN_EXEC_SUSPENDED | CHAN_EXEC_DETACH)

/*
 * Take argc NUL-terminated strings from args (len bytes, nothing after
 * the last NUL) into argv (NULL-terminated). Return value: 0, or -EINVAL
 * with the request answered.
 */
static int parse_argv(uint32_t seq, const uint8_t *args, size_t len, uint32_t argc,
		      const char *argv[])
{
	size_t at = 0;
	for (uint32_t i = 0; i < argc; i++) {
		size_t end = at;
		while (end < len && args[end])
			end++;
		if (end == len) {
			channel_error(seq, -EINVAL, "exec: bad argv frame: argument %u of %u has no "
				      "NUL (give argc NUL-terminated strings after the request)",
				      i + 1, argc);
			return -EINVAL;
		}
		argv[i] = (const char *)args + at;
		at = end + 1;
	}
	argv[argc] = NULL;
	if (at != len) {
		channel_error(seq, -EINVAL, "exec: bad argv frame: %zu bytes after the %u "
			      "arguments (argc says how many strings follow)", len - at, argc);
		return -EINVAL;
	}
	if (!argv[0][0]) {
		channel_error(seq, -EINVAL, "exec: give a program name (argv[0] is empty)");
		return -EINVAL;
	}
	return 0;
}

/* Why a program could not be started, in words. */
static const char *spawn_failure(int err)
{
	switch (err) {
	case -ENOENT: return "no such program in the boot archive (`scion shell ls /` lists them)";
	case -EACCES: return "not an executable file";
	case -ENOEXEC: return "not an ELF executable the loader takes (the console says why)";
	case -EAGAIN: return "too many processes";
	case -ENOMEM: return "out of memory";
	default: return errno_name(err);
	}
}

/* fds 0, 1 and 2 of the new process: the stream's files, or null files when c is NULL. */
static int make_stdio(struct chanout *c, struct file *stdio[3])
{
	stdio[0] = null_file(LINUX_O_RDONLY);
	for (int fd = 1; fd < 3; fd++)
		stdio[fd] = c ? chanout_file(c, fd) : null_file(LINUX_O_WRONLY);
	if (stdio[0] && stdio[1] && stdio[2])
		return 0;
	for (int fd = 0; fd < 3; fd++)
		if (stdio[fd])
			file_put(stdio[fd]);
	return -ENOMEM;
}

int proc_exec_request(uint32_t seq, const uint8_t *body, uint32_t len)
{
	struct chan_exec_request req;
	const char *argv[CHAN_EXEC_MAX_ARGS + 1];
	char path[CWD_MAX], why[160];

	if (len < sizeof(req)) {
		channel_error(seq, -EINVAL, "exec: give a struct chan_exec_request (%zu bytes) and "
			      "the arguments, not %u bytes", sizeof(req), len);
		return -EINVAL;
	}
	memcpy(&req, body, sizeof(req));
	size_t args_len = len - sizeof(req);
	if (req.reserved || (req.flags & ~(uint32_t)EXEC_KNOWN_FLAGS) ||
	    (req.flags & EXEC_KNOWN_FLAGS) == EXEC_KNOWN_FLAGS) {
		channel_error(seq, -EINVAL, "exec: flags %#x: give CHAN_EXEC_SUSPENDED or "
			      "CHAN_EXEC_DETACH (not both), reserved 0", req.flags);
		return -EINVAL;
	}
	if (req.argc == 0 || req.argc > CHAN_EXEC_MAX_ARGS) {
		channel_error(seq, -E2BIG, "exec: %u arguments: give 1 to %d, the program's name "
			      "first", req.argc, CHAN_EXEC_MAX_ARGS);
		return -E2BIG;
	}
	if (args_len > CHAN_EXEC_ARGS_BYTES) {
		channel_error(seq, -E2BIG, "exec: %zu bytes of arguments: at most %d, NULs "
			      "included", args_len, CHAN_EXEC_ARGS_BYTES);
		return -E2BIG;
	}
	uint32_t switch_ms = req.switch_ms ? req.switch_ms : EXEC_DEFAULT_SWITCH_MS;
	if (switch_ms < CHAN_STREAM_SWITCH_MIN_MS || switch_ms > CHAN_STREAM_SWITCH_MAX_MS) {
		channel_error(seq, -EINVAL, "exec: switch interval %u ms: give %u to %u ms (or 0)",
			      switch_ms, CHAN_STREAM_SWITCH_MIN_MS, CHAN_STREAM_SWITCH_MAX_MS);
		return -EINVAL;
	}
	int err = parse_argv(seq, body + sizeof(req), args_len, req.argc, argv);
	if (err)
		return err;
	if ((size_t)snprintf(path, sizeof(path), "%s%s", argv[0][0] == '/' ? "" : "/",
			     argv[0]) >= sizeof(path)) {
		channel_error(seq, -ENAMETOOLONG, "exec: a program name of at most %zu bytes",
			      sizeof(path) - 2);
		return -ENAMETOOLONG;
	}

	bool detach = req.flags & CHAN_EXEC_DETACH;
	struct chanout *c = detach ? NULL : chanout_create();
	struct file *stdio[3];
	err = !detach && !c ? -ENOMEM : make_stdio(c, stdio);
	int pid = err ? err : proc_spawn_files(path, argv, stdio, true);
	if (pid < 0) {
		chanout_put(c);
		channel_error(seq, pid, "exec: %s: %s", path, spawn_failure(pid));
		return pid;
	}
	uint32_t stream = 0;
	if (c) {
		chanout_set_pid(c, pid);
		err = chanout_stream_start(c, switch_ms, &stream, why, sizeof(why));
		if (err) {
			chanout_put(c);
			proc_disown(pid);
			if (proc_kill(pid, SIGKILL) == 0)
				proc_resume(pid);	/* it ends before its first instruction */
			channel_error(seq, err, "exec: %s: no stream for its output: %s", path, why);
			return err;
		}
	} else {
		proc_disown(pid);
	}
	if (!(req.flags & CHAN_EXEC_SUSPENDED) && (err = proc_resume(pid))) {
		/* It stays suspended: killed when its stream closes. */
		channel_error(seq, err, "exec: %s: pid %d could not start: %s", path, pid,
			      errno_name(err));
		return err;
	}
	struct chan_exec_reply reply = { .pid = pid, .stream = stream };
	channel_respond(seq, 0, &reply, sizeof(reply));
	return 0;
}

int proc_exec_resume_request(uint32_t seq, const uint8_t *body, uint32_t len)
{
	struct chan_exec_resume_request req;

	if (len != sizeof(req)) {
		channel_error(seq, -EINVAL, "exec resume: give a struct chan_exec_resume_request "
			      "(%zu bytes), not %u bytes", sizeof(req), len);
		return -EINVAL;
	}
	memcpy(&req, body, sizeof(req));
	int err = req.reserved ? -EINVAL : proc_resume(req.pid);
	if (err) {
		channel_error(seq, err, "exec resume: pid %d: %s", req.pid,
			      req.reserved ? "reserved is not 0" :
			      err == -ESRCH ? "no such process" :
			      err == -EINVAL ? "not suspended (it runs already)" : errno_name(err));
		return err;
	}
	channel_respond(seq, 0, NULL, 0);
	return 0;
}

int proc_signal_request(uint32_t seq, const uint8_t *body, uint32_t len)
{
	struct chan_signal_request req;

	if (len != sizeof(req)) {
		channel_error(seq, -EINVAL, "signal: give a struct chan_signal_request (%zu bytes), "
			      "not %u bytes", sizeof(req), len);
		return -EINVAL;
	}
	memcpy(&req, body, sizeof(req));
	int err = proc_kill(req.pid, req.sig);
	if (err) {
		channel_error(seq, err, "signal: pid %d, signal %d: %s", req.pid, req.sig,
			      err == -ESRCH ? "no such process" : "not a signal (0 .. 64)");
		return err;
	}
	channel_respond(seq, 0, NULL, 0);
	return 0;
}
