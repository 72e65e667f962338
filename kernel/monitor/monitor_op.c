// SPDX-License-Identifier: BSD-2-Clause
/*
 * The MONITOR op (scion/monitor_rec.h): the host's control of the
 * sampler in structured data, `scion monitor ...`. One struct
 * monitor_ctl_request in; the state after the command out, as struct
 * monitor_ctl_status, or an error frame with one line. The shell's
 * `monitor` commands (cmd_monitor.c) call the same functions.
 */
#include "monitor_internal.h"
#include <scion/channel.h>
#include <scion/chan_wire.h>
#include <scion/errno.h>
#include <scion/string.h>
#include <scion/format.h>

/* The request's name, NUL-terminated within its field, or NULL. */
static const char *request_name(const struct monitor_ctl_request *req)
{
	return strnlen(req->name, sizeof(req->name)) < sizeof(req->name) && req->name[0] ? req->name : NULL;
}

int monitor_ctl_request(uint32_t seq, const uint8_t *body, uint32_t len)
{
	struct monitor_ctl_request req;
	char why[160] = "";
	int err = 0;

	if (len != sizeof(req)) {
		channel_error(seq, -EINVAL, "monitor: a request of %u bytes; give one struct "
			      "monitor_ctl_request (%u bytes)", len, (unsigned)sizeof(req));
		return -EINVAL;
	}
	memcpy(&req, body, sizeof(req));
	chan_wire_from_le(CHAN_WIRE(monitor_ctl_request), &req, 1);
	switch (req.cmd) {
	case MONITOR_CTL_STATUS:
		break;
	case MONITOR_CTL_INTERVAL: {
		const char *name = request_name(&req);
		if (!name) {
			snprintf(why, sizeof(why), "name a source or resource (a NUL-terminated name)");
			err = -EINVAL;
		} else if ((err = monitor_set_interval(name, req.ms, why, sizeof(why))) > 0) {
			err = 0;
		}
		break;
	}
	case MONITOR_CTL_BURST:
		err = monitor_set_burst(req.ms, req.every_s, why, sizeof(why));
		break;
	case MONITOR_CTL_CLOCK:
		err = monitor_set_clock(req.scale, req.start_s, why, sizeof(why));
		break;
	case MONITOR_CTL_START:
		err = monitor_start(why, sizeof(why));
		break;
	case MONITOR_CTL_STOP:
		monitor_stop();
		break;
	case MONITOR_CTL_BURST_NOW:
		err = monitor_burst_now(why, sizeof(why));
		break;
	default:
		snprintf(why, sizeof(why), "no command %u (scion/monitor_rec.h lists them)", req.cmd);
		err = -EINVAL;
	}
	if (err) {
		channel_error(seq, err, "monitor: %s", why);
		return err;
	}
	struct monitor_ctl_status st;
	monitor_get_status(&st);
	chan_wire_to_le(CHAN_WIRE(monitor_ctl_status), &st, 1);
	channel_respond(seq, 0, &st, sizeof(st));
	return 0;
}
