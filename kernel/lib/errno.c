// SPDX-License-Identifier: BSD-2-Clause
/* Names for kernel error numbers, for messages a person reads. */
#include <scion/errno.h>
#include <scion/compiler.h>

static const struct {
	int err;
	const char *name;
} errno_names[] = {
	{ EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { ESRCH, "ESRCH" },
	{ EINTR, "EINTR" }, { EIO, "EIO" }, { E2BIG, "E2BIG" },
	{ ENOEXEC, "ENOEXEC" }, { EAGAIN, "EAGAIN" }, { ENOMEM, "ENOMEM" },
	{ EFAULT, "EFAULT" }, { EBUSY, "EBUSY" }, { EEXIST, "EEXIST" },
	{ ENODEV, "ENODEV" }, { EINVAL, "EINVAL" }, { EFBIG, "EFBIG" },
	{ ENOSPC, "ENOSPC" }, { ERANGE, "ERANGE" }, { ENOSYS, "ENOSYS" },
	{ EPROTO, "EPROTO" }, { EBADMSG, "EBADMSG" },
	{ ENOTSUP, "ENOTSUP" }, { ETIMEDOUT, "ETIMEDOUT" }, { EBADF, "EBADF" },
	{ ECHILD, "ECHILD" }, { EACCES, "EACCES" }, { ENOTDIR, "ENOTDIR" },
	{ EISDIR, "EISDIR" }, { ENFILE, "ENFILE" }, { EMFILE, "EMFILE" },
	{ ENOTTY, "ENOTTY" }, { ESPIPE, "ESPIPE" }, { EROFS, "EROFS" }, { EPIPE, "EPIPE" },
	{ ENAMETOOLONG, "ENAMETOOLONG" }, { EOVERFLOW, "EOVERFLOW" },
	{ ENOTEMPTY, "ENOTEMPTY" }, { ELOOP, "ELOOP" }, { EXDEV, "EXDEV" }, { EMLINK, "EMLINK" },
};

const char *errno_name(int err)
{
	if (err < 0)
		err = -err;
	for (size_t i = 0; i < ARRAY_SIZE(errno_names); i++)
		if (errno_names[i].err == err)
			return errno_names[i].name;
	return "E?";
}
