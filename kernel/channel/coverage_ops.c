// SPDX-License-Identifier: BSD-2-Clause
/*
 * The control channel's coverage ops (scion/chan_proto.h): COVERAGE_START
 * takes the function globs as text, COVERAGE_STOP ends the run, both
 * answer with the run's counts; COVERAGE_BLOCKS lists the last run's
 * blocks for `scion coverage`, which turns them into an lcov tracefile.
 * Run by the channel thread; they may sleep.
 */
#include <scion/coverage.h>
#include <scion/channel.h>
#include <scion/chan_reply.h>
#include <scion/clock.h>
#include <scion/string.h>
#include <scion/errno.h>
#include "channel_internal.h"

#define SPECS_TEXT_MAX 1024
#define SPECS_MAX      32

static void summary(struct chan_coverage_summary *r)
{
	struct coverage_stats s;
	coverage_get_stats(&s);
	*r = (struct chan_coverage_summary){
		.running = s.running, .functions = s.functions, .blocks = s.blocks,
		.armed = s.armed, .hit = s.hit, .missed = s.missed, .unprobed = s.unprobed,
		.refused = s.refused, .reaps = s.reaps,
		.elapsed_ns = s.started_ns ? clock_ns() - s.started_ns : 0,
	};
	chan_wire_to_le(CHAN_WIRE(chan_coverage_summary), r, 1);
}

int coverage_start_request(uint32_t seq, const uint8_t *body, uint32_t len)
{
	char text[SPECS_TEXT_MAX + 1];
	const char *specs[SPECS_MAX];
	unsigned n = 0;
	const char *why = "";

	if (!len || len > SPECS_TEXT_MAX) {
		channel_error(seq, -EINVAL, "coverage start: give 1 to %u bytes of function globs, "
			      "not %u", SPECS_TEXT_MAX, len);
		return -EINVAL;
	}
	memcpy(text, body, len);
	text[len] = '\0';
	if (strlen(text) != len) {
		channel_error(seq, -EINVAL, "coverage start: a NUL inside the function globs");
		return -EINVAL;
	}
	for (char *p = text; *p;) {
		while (*p == ' ')
			*p++ = '\0';
		if (!*p)
			break;
		if (n == SPECS_MAX) {
			channel_error(seq, -EINVAL, "coverage start: more than %u globs",
				      SPECS_MAX);
			return -EINVAL;
		}
		specs[n++] = p;
		while (*p && *p != ' ')
			p++;
	}
	if (!n) {
		channel_error(seq, -EINVAL, "coverage start: no function glob given");
		return -EINVAL;
	}
	int err = coverage_start(specs, n, COVERAGE_REAP_MS, &why);
	if (err < 0) {
		channel_error(seq, err, "coverage start: %s", why);
		return err;
	}
	struct chan_coverage_summary r;
	summary(&r);
	channel_respond(seq, 0, &r, sizeof(r));
	return 0;
}

int coverage_stop_request(uint32_t seq, const uint8_t *body, uint32_t len)
{
	(void)body;
	if (len) {
		channel_error(seq, -EINVAL, "coverage stop: a request of %u bytes; it takes none",
			      len);
		return -EINVAL;
	}
	if (coverage_stop()) {
		channel_error(seq, -ENOENT, "coverage stop: no coverage run is on");
		return -ENOENT;
	}
	struct chan_coverage_summary r;
	summary(&r);
	channel_respond(seq, 0, &r, sizeof(r));
	return 0;
}

struct block_listing {
	struct chan_list *list;
	uint64_t index;
};

static bool list_block(const struct coverage_block *b, void *arg)
{
	struct block_listing *l = arg;
	struct chan_coverage_block *r = chan_list_add(l->list, ++l->index);
	if (r) {
		*r = (struct chan_coverage_block){ .start = b->start, .end = b->end,
						   .hits = b->hits, .state = b->state };
		strlcpy(r->function, b->function, sizeof(r->function));
	}
	return true;
}

int coverage_blocks_request(uint32_t seq, const uint8_t *body, uint32_t len)
{
	struct chan_list l;
	int err = chan_list_begin(&l, seq, body, len, CHAN_WIRE(chan_coverage_block),
				  "coverage blocks", false);
	if (err)
		return err;
	struct block_listing listing = { &l, 0 };
	coverage_foreach_block(list_block, &listing);
	return chan_list_finish(&l);
}
