// SPDX-License-Identifier: BSD-2-Clause
/*
 * CHAN_OP_SYMBOLIZE (scion/chan_proto.h): code addresses named for the
 * host, in structured records, so that a consumer prints stack() frames,
 * func() and caller as dtrace does without reading the shell's text.
 *
 * An address is named by what holds it: a kernel function (the runtime
 * symbol table, trap entry included: assembly carries .type and .size);
 * a probe patch (code a probe put in, or a relocated instruction: named
 * by the kernel instruction it stands for); a loaded graft's text. A
 * return address is looked up by the byte before it: a call to a
 * noreturn function may be the last instruction of its caller, so the
 * return address is the first byte after it.
 */
#include <scion/channel.h>
#include <scion/chan_proto.h>
#include <scion/chan_wire.h>
#include <scion/symtab.h>
#include <scion/probe.h>
#include <scion/graft.h>
#include <scion/mm.h>
#include <scion/string.h>
#include <scion/errno.h>

struct named {
	uint64_t start, offset;		/* start of what holds it; the offset to print */
	uint16_t kind;			/* enum chan_sym_kind */
	char name[CHAN_SYM_NAME_MAX];
};

struct graft_search {
	uint64_t addr;
	struct named *out;
};

static void find_graft(struct graft *g, void *arg)
{
	struct graft_search *s = arg;
	if (s->out->kind != CHAN_SYM_UNKNOWN || s->addr < g->code_start || s->addr >= g->code_end)
		return;
	s->out->kind = CHAN_SYM_GRAFT;
	s->out->start = g->code_start;
	strlcpy(s->out->name, g->name, sizeof(s->out->name));
}

/* Name addr; a return address (flags) is looked up by the byte before it. */
static void name_address(uint64_t addr, uint64_t flags, struct named *out)
{
	uint64_t look = (flags & CHAN_SYM_RETURN_ADDRESS) && addr ? addr - 1 : addr;
	uint64_t origin, off;
	const struct ksym *s;

	*out = (struct named){ .kind = CHAN_SYM_UNKNOWN };
	if (probe_patch_origin(look, &origin) && (s = symtab_lookup_addr(&kernel_symtab, origin,
									  &off))) {
		out->kind = CHAN_SYM_PATCH;
		out->start = s->addr;
		out->offset = off;
		strlcpy(out->name, ksym_name(&kernel_symtab, s), sizeof(out->name));
		return;
	}
	if ((s = symtab_lookup_addr(&kernel_symtab, look, &off))) {
		out->kind = CHAN_SYM_KERNEL;
		out->start = s->addr;
		out->offset = addr - s->addr;
		strlcpy(out->name, ksym_name(&kernel_symtab, s), sizeof(out->name));
		return;
	}
	struct graft_search gs = { look, out };
	graft_foreach(find_graft, &gs);
	if (out->kind == CHAN_SYM_GRAFT)
		out->offset = addr - out->start;
}

int symbolize_request(uint32_t seq, const uint8_t *body, uint32_t len)
{
	const size_t item = sizeof(struct chan_sym_request), record = sizeof(struct chan_sym_record);
	if (len % item || len / item > CHAN_SYM_MAX_ADDRESSES) {
		channel_error(seq, -EINVAL, "symbolize: give up to %u struct chan_sym_request "
			      "(u64 address, u64 flags)", CHAN_SYM_MAX_ADDRESSES);
		return -EINVAL;
	}
	size_t n = len / item;
	uint8_t *reply = kmalloc(n ? n * record : 1);
	if (!reply) {
		channel_error(seq, -ENOMEM, "symbolize: no memory for %zu answers", n);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct chan_sym_request req;
		struct named nm;
		memcpy(&req, body + i * item, item);
		chan_wire_from_le(CHAN_WIRE(chan_sym_request), &req, 1);
		name_address(req.address, req.flags, &nm);
		struct chan_sym_record r = { .start = nm.start, .offset = nm.offset,
					     .kind = nm.kind, .name_len = (uint16_t)strlen(nm.name) };
		memcpy(r.name, nm.name, r.name_len);
		memcpy(reply + i * record, &r, record);
	}
	chan_wire_to_le(CHAN_WIRE(chan_sym_record), reply, n);
	channel_respond(seq, 0, reply, n * record);
	kfree(reply);
	return 0;
}
