// SPDX-License-Identifier: BSD-2-Clause
/*
 * Basic blocks, edges, call sites and jump tables of one function.
 *
 * The function's bytes are summarised once, front to back (compiler
 * output keeps no data in text), by the arch (arch_insn_summarise) into
 * a compact instruction list with a mark per byte: instruction start,
 * block leader. Leaders are the entry, every branch target inside the
 * function, every jump-table target and every instruction after one that
 * ends a block (after its delay slots, on a machine that has them);
 * calls do not end blocks (their sites are recorded apart). A branch
 * into the middle of an instruction, or bytes that do not decode, fail
 * the function with the address.
 *
 * Delay slots (SPARC) stay in their transfer's block when they run on
 * every path out of it. They are split off, the transfer ending its
 * block and the slots making a block of their own, when they run only on
 * the taken path (INSN_SLOTS_TAKEN_ONLY) or when a slot is itself a
 * branch target: the transfer's block then goes to the slot block (on
 * the paths that run the slots) and past it (on those that skip them),
 * and the slot block to the transfer's destinations, and on to the next
 * instruction when it is a target (a jump into it runs it as an ordinary
 * instruction). That path through the slot block and on to the
 * transfer's destination exists only for the transfer: the only
 * approximation, and a safe one (more paths, more registers live).
 */
#include <scion/cfg.h>
#include <scion/insn_summary.h>
#include <scion/mm.h>
#include <scion/string.h>
#include <scion/errno.h>
#include <scion/sdt.h>
#include "analysis_internal.h"

#define MARK_START  0x1
#define MARK_LEADER 0x2
#define MARK_TARGET 0x4	/* a branch or jump-table target */
#define SLICE       16	/* instructions a jump-table slice looks back over */
#define MAX_TABLES  64	/* jump tables per function; more stay unresolved */

struct pending_table {
	uint32_t insn;		/* index of the indirect jump */
	struct insn_jump_table_summary jt;
	const uint8_t *entries;	/* its bytes, once accepted */
};

struct work {
	struct cfg_function *f;
	const uint8_t *code;
	uint64_t base, size;
	uint8_t *marks;			/* per byte */
	struct cfg_insn *insns;
	uint32_t ninsns;
	struct pending_table tables[MAX_TABLES];
	uint32_t ntables;
};

static bool inside(const struct work *w, uint64_t addr)
{
	return addr >= w->base && addr - w->base < w->size;
}

static int fail(struct work *w, enum cfg_status status, uint64_t addr)
{
	w->f->status = (uint8_t)status;
	w->f->problem_addr = addr;
	return -EINVAL;
}

/* Check a jump table's entries; on success they become leaders and targets. */
static bool accept_table(struct work *w, struct pending_table *pt)
{
	const struct insn_jump_table_summary *jt = &pt->jt;
	uint64_t bytes = (uint64_t)jt->entries * jt->entry_size;

	if (jt->relative || (jt->entry_size != 8 && jt->entry_size != 4) || jt->entries > 4096)
		return false;
	const uint8_t *table = analysis_table(jt->table, bytes);
	if (!table)
		return false;
	for (unsigned i = 0; i < jt->entries; i++) {
		uint64_t entry = cfg_table_entry(table, jt->entry_size, i);
		if (!inside(w, entry) || !(w->marks[entry - w->base] & MARK_START))
			return false;
	}
	for (unsigned i = 0; i < jt->entries; i++)
		w->marks[cfg_table_entry(table, jt->entry_size, i) - w->base] |= MARK_LEADER | MARK_TARGET;
	pt->entries = table;
	return true;
}

/* The offsets of the SLICE instructions before insns[n], for a jump-table slice. */
static unsigned recent_instructions(const struct work *w, uint32_t n, uint32_t *before)
{
	unsigned k = n < SLICE ? n : SLICE;
	for (unsigned i = 0; i < k; i++)
		before[i] = w->insns[n - k + i].offset;
	return k;
}

int cfg_summarise(struct insn_summary *s, const uint8_t *code, size_t len, uint64_t addr)
{
	int err = arch_insn_summarise(s, code, len, addr);
	/* Only an instruction like a site's no-op (writing nothing) can be one. */
	if (!err && s->cls == INSN_CLASS_SEQ && s->length == ARCH_SDT_SITE_LEN && !s->writes &&
	    sdt_site_at(addr))
		s->reads |= ARCH_SDT_SITE_READS;
	return err;
}

static int decode_all(struct work *w)
{
	uint32_t n = 0;

	for (uint64_t off = 0; off < w->size; off += w->insns[n++].s.length) {
		struct cfg_insn *ci = &w->insns[n];
		if (cfg_summarise(&ci->s, w->code + off, w->size - off, w->base + off))
			return fail(w, CFG_UNDECODABLE, w->base + off);
		w->marks[off] |= MARK_START;
		ci->offset = (uint32_t)off;
		if (ci->s.cls == INSN_CLASS_JUMP_INDIRECT && w->ntables < MAX_TABLES) {
			uint32_t before[SLICE];
			unsigned k = recent_instructions(w, n, before);
			struct pending_table *pt = &w->tables[w->ntables];
			if (arch_insn_jump_table(w->code, w->base, w->size, before, k, (uint32_t)off,
						 &pt->jt)) {
				pt->insn = n;
				w->ntables++;
			}
		}
	}
	w->ninsns = n;
	return 0;
}

/* Whether the delay slots of the block-ending transfer insns[t] are a block of their own. */
static bool slots_split(const struct work *w, uint32_t t)
{
	const struct insn_summary *s = &w->insns[t].s;
	if (!ARCH_DELAY_SLOTS_MAX || !s->delay_slots || !insn_class_ends_block(s->cls))
		return false;
	if (s->flags & INSN_SLOTS_TAKEN_ONLY)
		return true;
	uint32_t end = cfg_transfer_end(w->insns, t, w->ninsns);
	for (uint32_t j = t + 1; j <= end; j++)
		if (w->marks[w->insns[j].offset] & MARK_TARGET)
			return true;
	return false;
}

/* The offset just past the delay slots of insns[t] (past insns[t] without them). */
static uint64_t past_slots(const struct work *w, uint32_t t)
{
	const struct cfg_insn *end = &w->insns[cfg_transfer_end(w->insns, t, w->ninsns)];
	return end->offset + end->s.length;
}

static void mark(struct work *w, uint64_t off, uint8_t m)
{
	if (off < w->size)
		w->marks[off] |= m;
}

static int mark_leaders(struct work *w)
{
	w->marks[0] |= MARK_LEADER;
	/* Targets first: whether a transfer's slots are split depends on them. */
	for (uint32_t i = 0; i < w->ninsns; i++) {
		const struct cfg_insn *ci = &w->insns[i];
		if (ci->s.cls == INSN_CLASS_SEQ)
			continue;	/* most instructions: nothing to mark, at the least cost */
		bool direct = ci->s.cls == INSN_CLASS_JUMP || ci->s.cls == INSN_CLASS_BRANCH;
		if (direct && inside(w, ci->s.target)) {
			if (!(w->marks[ci->s.target - w->base] & MARK_START))
				return fail(w, CFG_BAD_TARGET, w->base + ci->offset);
			w->marks[ci->s.target - w->base] |= MARK_LEADER | MARK_TARGET;
		}
	}
	uint32_t kept = 0;
	for (uint32_t t = 0; t < w->ntables; t++)
		if (accept_table(w, &w->tables[t]))
			w->tables[kept++] = w->tables[t];
	w->ntables = kept;
	for (uint32_t i = 0; i < w->ninsns; i++) {
		const struct cfg_insn *ci = &w->insns[i];
		if (!insn_class_ends_block(ci->s.cls))
			continue;
		if (slots_split(w, i))
			mark(w, ci->offset + ci->s.length, MARK_LEADER);
		mark(w, past_slots(w, i), MARK_LEADER);
	}
	return 0;
}

static uint32_t block_of(const struct cfg_function *f, uint64_t addr)
{
	return (uint32_t)(cfg_block_at(f, addr) - f->blocks);
}

static const struct pending_table *table_for(const struct work *w, uint32_t insn)
{
	for (uint32_t t = 0; t < w->ntables; t++)
		if (w->tables[t].insn == insn)
			return &w->tables[t];
	return NULL;
}

static void add_succ(struct cfg_function *f, struct cfg_block *b, uint32_t target)
{
	for (uint32_t i = 0; i < b->nsucc; i++)
		if (f->succ[b->first_succ + i] == target)
			return;
	f->succ[f->nsucc++] = target;
	b->nsucc++;
}

/* The edges and end kind of the destinations of transfer cs (not its fall-through). */
static void connect_destinations(struct work *w, struct cfg_block *b, const struct insn_summary *cs,
				 uint32_t control)
{
	struct cfg_function *f = w->f;

	switch (cs->cls) {
	case INSN_CLASS_JUMP: case INSN_CLASS_BRANCH:
		if (inside(w, cs->target))
			add_succ(f, b, block_of(f, cs->target));
		else
			b->end_kind |= CFG_END_TAIL_CALL;
		break;
	case INSN_CLASS_JUMP_INDIRECT: {
		const struct pending_table *pt = table_for(w, control);
		if (!pt) {
			b->end_kind |= CFG_END_UNRESOLVED;
			f->nunresolved++;
			break;
		}
		b->end_kind |= CFG_END_JUMP_TABLE;
		f->njump_tables++;
		for (unsigned i = 0; i < pt->jt.entries; i++)
			add_succ(f, b, block_of(f, cfg_table_entry(pt->entries, pt->jt.entry_size, i)));
		break;
	}
	case INSN_CLASS_RETURN:
		b->end_kind |= CFG_END_RETURN;
		break;
	case INSN_CLASS_LEAVE:
		b->end_kind |= CFG_END_UNRESOLVED;
		break;
	case INSN_CLASS_STOP:
		b->end_kind |= CFG_END_STOP;
		break;
	default:
		break;
	}
}

/* An edge to the instruction at offset next, or a fall out of the function. */
static void connect_next(struct work *w, struct cfg_block *b, uint64_t next)
{
	if (inside(w, next))
		add_succ(w->f, b, block_of(w->f, next));
	else
		b->end_kind |= CFG_END_FALLS_OUT;
}

/*
 * The edges and end kind of block b, whose instructions are
 * insns[first .. last]: it ends at a transfer whose slots are split off
 * (to the slot block, and past it when they are annulled), or it is such
 * a slot block (to the transfer's destinations, and on when it is also a
 * jump target), or control(first, last) decides how it ends.
 */
static void connect(struct work *w, struct cfg_block *b, uint32_t first, uint32_t last)
{
	struct cfg_function *f = w->f;
	uint32_t control = cfg_control_of(w->insns, first, last);
	const struct insn_summary *cs = &w->insns[control].s;

	b->first_succ = f->nsucc;
	b->nsucc = 0;
	if (control == last && slots_split(w, last)) {
		connect_next(w, b, b->end);		/* into the slots */
		if ((cs->flags & INSN_SLOTS_TAKEN_ONLY) && insn_class_falls_through(cs->cls))
			connect_next(w, b, w->base + past_slots(w, last));
		return;
	}
	uint32_t t = first ? cfg_slots_end_at(w->insns, first - 1, last) : UINT32_MAX;
	if (t != UINT32_MAX && t == first - 1 && slots_split(w, t)) {
		const struct insn_summary *ts = &w->insns[t].s;
		bool runs_untaken = !(ts->flags & INSN_SLOTS_TAKEN_ONLY) &&
				    insn_class_falls_through(ts->cls);
		if (runs_untaken || (w->marks[w->insns[first].offset] & MARK_TARGET))
			connect_next(w, b, b->end);
		connect_destinations(w, b, ts, t);
		return;
	}
	if (insn_class_falls_through(cs->cls))
		connect_next(w, b, b->end);
	connect_destinations(w, b, cs, control);
}

/* Blocks from the leader marks, then edges, call sites and per-block use/def. */
static int build_blocks(struct work *w, struct cfg_block_effects *effects)
{
	struct cfg_function *f = w->f;
	uint32_t nblocks = 0, ncalls = 0, max_succ = 0;

	for (uint32_t i = 0; i < w->ninsns; i++) {
		if (w->marks[w->insns[i].offset] & MARK_LEADER)
			nblocks++;
		if (insn_class_is_call(w->insns[i].s.cls))
			ncalls++;
	}
	for (uint32_t t = 0; t < w->ntables; t++)
		max_succ += w->tables[t].jt.entries;
	max_succ += 2 * nblocks;
	f->blocks = kzalloc(nblocks * sizeof(*f->blocks));
	f->succ = kzalloc(max_succ * sizeof(*f->succ));
	f->calls = ncalls ? kzalloc(ncalls * sizeof(*f->calls)) : NULL;
	if (!f->blocks || !f->succ || (ncalls && !f->calls))
		return fail(w, CFG_NO_MEMORY, w->base);

	uint32_t b = UINT32_MAX;
	for (uint32_t i = 0; i < w->ninsns; i++) {
		const struct cfg_insn *ci = &w->insns[i];
		if (w->marks[ci->offset] & MARK_LEADER) {
			b++;
			f->blocks[b].start = w->base + ci->offset;
			f->blocks[b].first_insn = i;
			effects[b].first = i;
		}
		f->blocks[b].end = w->base + ci->offset + ci->s.length;
		f->blocks[b].ninsns++;
		if (insn_class_is_call(ci->s.cls))
			f->calls[f->ncalls++] = (struct cfg_call){
				w->base + ci->offset, ci->s.cls == INSN_CLASS_CALL ? ci->s.target : 0 };
		effects_add(&effects[b], ci);
		uint32_t t = cfg_slots_end_at(w->insns, 0, i);
		if (t != UINT32_MAX)	/* a delayed call's convention, after its slots */
			effects_add_regs(&effects[b], w->insns[t].s.late_reads,
					 t < effects[b].first ? 0 : w->insns[t].s.late_writes);
	}
	f->nblocks = nblocks;
	f->ninsns = w->ninsns;
	uint32_t first = 0;
	for (b = 0; b < nblocks; b++) {
		uint32_t last = first + f->blocks[b].ninsns - 1;
		connect(w, &f->blocks[b], first, last);
		first = last + 1;
	}
	return 0;
}

int cfg_build_function(struct cfg_function *f, const uint8_t *code)
{
	struct work *w = kzalloc(sizeof(*w));
	struct cfg_block_effects *effects = NULL;
	int err = -ENOMEM;

	if (!w)
		return fail_nomem(f);
	w->f = f;
	w->code = code;
	w->base = f->sym->addr;
	w->size = f->sym->size;
	/* An instruction is at least one byte: size bounds every count. */
	w->marks = kzalloc(w->size);
	w->insns = kmalloc(w->size * sizeof(*w->insns));
	if (!w->marks || !w->insns)
		goto out;
	err = decode_all(w);
	if (!err)
		err = mark_leaders(w);
	if (err)
		goto out;
	uint32_t nleaders = 0;
	for (uint32_t i = 0; i < w->ninsns; i++)
		nleaders += (w->marks[w->insns[i].offset] & MARK_LEADER) != 0;
	effects = kzalloc(nleaders * sizeof(*effects));
	err = effects ? build_blocks(w, effects) : -ENOMEM;
	if (!err) {
		cfg_solve_liveness(f, effects, w->insns);
		cfg_keep_insns(f, effects, w->insns);
	}
out:
	if (err == -ENOMEM && f->status == CFG_OK)
		fail_nomem(f);
	kfree(effects);
	kfree(w->insns);
	kfree(w->marks);
	kfree(w);
	return err;
}

const char *cfg_status_name(enum cfg_status s)
{
	switch (s) {
	case CFG_OK: return "ok";
	case CFG_UNDECODABLE: return "bytes that do not decode";
	case CFG_BAD_TARGET: return "a branch into the middle of an instruction";
	case CFG_NO_MEMORY: return "out of memory";
	}
	return "?";
}
