// SPDX-License-Identifier: BSD-2-Clause
/*
 * The control channel's code adaptation ops (scion/chan_proto.h):
 * CODEADAPT_LOAD links a clone the host compiled and installs it behind
 * its guard, answering with the id as status and one line for people;
 * CODEADAPT_LIST lists every adaptation; CODEADAPT_REMOVE takes one (or
 * all) out; CODEADAPT_OUTLINE counts, outlines and installs a function.
 * Run by the channel thread; they may sleep.
 */
#include <scion/codeadapt.h>
#include <scion/outline.h>
#include <scion/symtab.h>
#include <scion/channel.h>
#include <scion/chan_reply.h>
#include <scion/printk.h>
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>
#include "channel_internal.h"

static int load_refused(uint32_t seq, int rc, const char *line)
{
	channel_respond(seq, rc, line, strlen(line));
	return rc;
}

int codeadapt_load_request(uint32_t seq, const uint8_t *body, uint32_t len)
{
	struct chan_codeadapt_load_request req;
	char err[200], line[240];

	if (len <= sizeof(req)) {
		channel_error(seq, -EINVAL, "codeadapt load: give a struct "
			      "chan_codeadapt_load_request (%zu bytes), then the ELF object",
			      sizeof(req));
		return -EINVAL;
	}
	memcpy(&req, body, sizeof(req));
	chan_wire_from_le(CHAN_WIRE(chan_codeadapt_load_request), &req, 1);
	if (req.kind != CODEADAPT_SPECIALIZE && req.kind != CODEADAPT_VERSION) {
		channel_error(seq, -EINVAL, "codeadapt load: kind %u is neither specialize nor "
			      "version", req.kind);
		return -EINVAL;
	}
	if (req.pid < 0) {
		channel_error(seq, -EINVAL, "codeadapt load: pid %d", req.pid);
		return -EINVAL;
	}
	req.function[sizeof(req.function) - 1] = '\0';
	int id = codeadapt_install_object(body + sizeof(req), len - sizeof(req), req.function,
					  req.kind, req.arg, req.arg_bytes, req.value, req.pid,
					  err, sizeof(err));
	if (id < 0) {
		snprintf(line, sizeof(line), "%s\n", err);
		return load_refused(seq, id, line);
	}
	struct codeadapt_info a = { 0 };
	codeadapt_get((uint32_t)id, &a);
	snprintf(line, sizeof(line), "codeadapt: %d: %s -> %s (%llu bytes) installed\n", id,
		 a.function, a.source, (unsigned long long)a.version_size);
	printk("%s", line);	/* the console sees what the channel installed */
	channel_respond(seq, id, line, strlen(line));
	return 0;
}

struct listing {
	struct chan_list *list;
};

static bool list_one(const struct codeadapt_info *a, void *arg)
{
	struct listing *l = arg;
	struct chan_codeadapt_info *r = chan_list_add(l->list, a->id);
	if (r) {
		*r = (struct chan_codeadapt_info){
			.id = a->id, .kind = a->kind, .state = a->state, .arg = a->arg,
			.arg_bytes = a->arg_bytes, .pid = a->pid,
			.function_addr = a->function_addr, .version = a->version,
			.version_size = a->version_size, .value = a->value, .tid = a->tid,
			.taken = a->taken,
		};
		strlcpy(r->function, a->function, sizeof(r->function));
		strlcpy(r->source, a->source, sizeof(r->source));
	}
	return true;
}

int codeadapt_list_request(uint32_t seq, const uint8_t *body, uint32_t len)
{
	struct chan_list l;
	int err = chan_list_begin(&l, seq, body, len, CHAN_WIRE(chan_codeadapt_info),
				  "codeadapt list", false);
	if (err)
		return err;
	struct listing listing = { &l };
	codeadapt_foreach(list_one, &listing);
	return chan_list_finish(&l);
}

int codeadapt_outline_request(uint32_t seq, const uint8_t *body, uint32_t len)
{
	struct chan_codeadapt_outline_request req;
	struct chan_codeadapt_outline_reply r = { 0 };
	char err[200];

	if (len != sizeof(req)) {
		channel_error(seq, -EINVAL, "codeadapt outline: give a struct "
			      "chan_codeadapt_outline_request (%zu bytes), not %u", sizeof(req),
			      len);
		return -EINVAL;
	}
	memcpy(&req, body, sizeof(req));
	chan_wire_from_le(CHAN_WIRE(chan_codeadapt_outline_request), &req, 1);
	req.function[sizeof(req.function) - 1] = '\0';
	if (!req.ms || req.ms > OUTLINE_MAX_MS) {
		channel_error(seq, -EINVAL, "codeadapt outline: count for 1 to %u ms, not %u",
			      OUTLINE_MAX_MS, req.ms);
		return -EINVAL;
	}
	const struct ksym *s = symtab_lookup_name(&kernel_symtab, req.function);
	if (!s || !s->size) {
		channel_error(seq, -ENOENT, "codeadapt outline: no kernel function %s",
			      req.function);
		return -ENOENT;
	}
	int id = outline_function(s->addr, req.ms, req.cold, &r.hot, &r.cold, &r.bytes, err,
				  sizeof(err));
	if (id < 0) {
		channel_error(seq, id, "%s%s", strncmp(err, "codeadapt:", 10) ?
			      "codeadapt outline: " : "", err);
		return id;
	}
	r.id = (uint32_t)id;
	chan_wire_to_le(CHAN_WIRE(chan_codeadapt_outline_reply), &r, 1);
	channel_respond(seq, 0, &r, sizeof(r));
	return 0;
}

int codeadapt_remove_request(uint32_t seq, const uint8_t *body, uint32_t len)
{
	struct chan_codeadapt_remove_request req;

	if (len != sizeof(req)) {
		channel_error(seq, -EINVAL, "codeadapt remove: give a struct "
			      "chan_codeadapt_remove_request (%zu bytes), not %u", sizeof(req),
			      len);
		return -EINVAL;
	}
	memcpy(&req, body, sizeof(req));
	chan_wire_from_le(CHAN_WIRE(chan_codeadapt_remove_request), &req, 1);
	if (!req.id) {
		codeadapt_remove_all();
	} else if (codeadapt_remove(req.id)) {
		channel_error(seq, -ENOENT, "codeadapt remove: no adaptation %u is installed",
			      req.id);
		return -ENOENT;
	}
	channel_respond(seq, 0, NULL, 0);
	return 0;
}
