/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Kernel error numbers. Functions that can fail return 0 or a positive
 * value on success and the negative of one of these on failure. The
 * numbers are Linux's, so that system calls return them to user
 * programs unchanged.
 */
#ifndef SCION_ERRNO_H
#define SCION_ERRNO_H

#define EPERM     1
#define ENOENT    2
#define ESRCH     3
#define EINTR     4
#define EIO       5
#define E2BIG     7
#define ENOEXEC   8
#define EBADF     9
#define ECHILD    10
#define EAGAIN    11
#define ENOMEM    12
#define EACCES    13
#define EFAULT    14
#define EBUSY     16
#define EEXIST    17
#define EXDEV     18
#define ENODEV    19
#define ENOTDIR   20
#define EISDIR    21
#define EINVAL    22
#define ENFILE    23
#define EMFILE    24
#define ENOTTY    25
#define EFBIG     27
#define ENOSPC    28
#define ESPIPE    29
#define EROFS     30
#define EMLINK    31
#define EPIPE     32
#define ERANGE    34
#define ENAMETOOLONG 36
#define ENOSYS    38
#define ENOTEMPTY 39
#define ELOOP     40
#define EPROTO    71
#define EBADMSG   74
#define EOVERFLOW 75
#define ENOTSUP   95
#define ETIMEDOUT 110

/* A short name for an error code ("ENOMEM"), or "E?" when unknown. */
const char *errno_name(int err);

#endif
