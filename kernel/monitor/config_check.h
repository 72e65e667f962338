/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Checking a profile configuration file (config_check.c): portable, for
 * the kernel's loader (config.c) and the host's fuzz target.
 */
#ifndef MONITOR_CONFIG_CHECK_H
#define MONITOR_CONFIG_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <scion/profile_config.h>

/*
 * profile_config_check - every check of scion/profile_config.h, in order.
 * Arguments: file/size, the file's bytes (any alignment); msg/msglen,
 *   room for the line that names the first failing check.
 * Return value: 0, or -EINVAL with msg "profile config: ...".
 * Caller's context: any; reads only file[0..size), allocates nothing.
 */
int profile_config_check(const uint8_t *file, size_t size, char *msg, size_t msglen);

#endif
