// SPDX-License-Identifier: BSD-2-Clause
/*
 * The PROFILE_CONFIG channel op: `scion profile config load FILE` sends
 * the file's bytes and prints the one line that comes back. The loader
 * (config.c) checks and copies the body, so any length is safe here: an
 * empty one is refused as shorter than the header, one the channel
 * could not carry never arrives (CHAN_MAX_PAYLOAD), and anything else
 * must match its own total_size. No state of its own; the loader's
 * locks.
 */
#include <scion/channel.h>
#include <scion/monitor.h>
#include <scion/printk.h>
#include <scion/string.h>
#include "monitor_internal.h"

#define LINE_MAX_BYTES 256

int monitor_profile_config_request(uint32_t seq, const uint8_t *body, uint32_t len)
{
	char line[LINE_MAX_BYTES];

	int err = monitor_config_load(body, len, line, sizeof(line) - 1);
	if (err) {
		channel_error(seq, err, "%s", line);
		return err;
	}
	printk("%s\n", line);	/* the console sees what the channel loaded */
	strlcat(line, "\n", sizeof(line));
	channel_respond(seq, 0, line, strlen(line));
	return 0;
}
