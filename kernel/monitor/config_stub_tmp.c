// SPDX-License-Identifier: BSD-2-Clause
/* Temporary: replaced by config.c and redflag.c when they land. */
#include "monitor_internal.h"
#include <scion/errno.h>
#include <scion/format.h>
#include <scion/printk.h>

int monitor_config_load(const void *file, size_t size, char *msg, size_t msglen)
{
	(void)file;
	(void)size;
	snprintf(msg, msglen, "profile config: not supported yet");
	return -ENOSYS;
}

bool monitor_config_in_force(int64_t *valid_day)
{
	*valid_day = 0;
	return false;
}

int monitor_cmd_config(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printk("no profile configuration loaded\n");
	return 0;
}

void monitor_redflag_observe(unsigned index, uint64_t mono_ns, int64_t wall_ns, uint64_t value)
{
	(void)index;
	(void)mono_ns;
	(void)wall_ns;
	(void)value;
}

uint64_t monitor_redflag_count(void)
{
	return 0;
}
