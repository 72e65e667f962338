// SPDX-License-Identifier: BSD-2-Clause
/*
 * Outlining on x86-64 (scion/outline_arch.h): a copy of an analysed
 * function with its blocks in a given order. Every branch is written in
 * its rel32 form and every inserted jump is a jmp rel32, so a block's
 * size is the same wherever the copy runs and wherever its targets are:
 * one sizing pass gives each block's offset, the second writes the code
 * with the targets known.
 *
 *   - jmp/jcc/loop to a block of the function: to the block's copy;
 *     to outside (a tail call): to the same address;
 *   - call rel32: a call rel32 to the same callee, which returns into
 *     the copy (a probe patch pushes the original return address
 *     instead; a copy must not leave its own code on return); a
 *     recursive call stays a call of the original's entry; a call into
 *     the function elsewhere (a pc read as data) is refused;
 *   - call through an operand: the same instruction, its RIP-relative
 *     displacement re-aimed;
 *   - a block's last jmp to the block laid out next: dropped; its last
 *     jcc to the block laid out next (its fall-through moved): inverted,
 *     so the path laid out first falls through;
 *   - ret and everything else: what patch_relocate does (copied,
 *     RIP-relative displacements re-aimed), and refused where it refuses;
 *   - refused: indirect jumps (a jump table's entries hold addresses in
 *     the original), and a function holding an address-keyed fault
 *     fixup (arch_safe_read's; the trap handler would not know the copy).
 *
 * The instructions are read from the booted text image, so a probe's
 * jump in the function's live text is not copied. The finished copy is
 * decoded again and its branches checked (check_copy) before it is
 * handed back.
 */
#include <scion/outline_arch.h>
#include <scion/textimage.h>
#include <scion/errno.h>
#include <scion/mm.h>
#include <arch/insn.h>
#include <arch/patch.h>

/* The faulting instruction arch_safe_read's fixup is keyed on (safe_read.S). */
extern const char safe_read_may_fault[];

struct builder {
	const struct cfg_function *f;
	struct outline_emit *e;
	struct patch_buf b;
	bool sizing;			/* first pass: block offsets not known yet */
};

static bool in_function(const struct cfg_function *f, uint64_t addr)
{
	return addr >= f->sym->addr && addr < f->sym->addr + f->sym->size;
}

/*
 * Where a branch to target goes from the copy: the copy of the block
 * starting there, or target itself outside the function. -EINVAL when
 * target is inside the function but starts no block.
 */
static int retarget(struct builder *k, uint64_t target, uint64_t *to)
{
	const struct cfg_function *f = k->f;

	if (!in_function(f, target)) {
		*to = target;
		return 0;
	}
	const struct cfg_block *blk = cfg_block_at(f, target);
	if (!blk || blk->start != target)
		return -EINVAL;
	/* While sizing, any in-reach address will do: the form is rel32 either way. */
	*to = k->e->runs_at + (k->sizing ? 0 : k->e->block_at[blk - f->blocks]);
	return 0;
}

static int copy_insn(struct builder *k, const struct insn *in, const uint8_t *bytes,
		     const char **why)
{
	struct insn moved = *in;

	switch (in->cf) {
	case INSN_CF_JMP_INDIRECT:
		*why = "an indirect jump (a jump table's entries point into the original)";
		return -EINVAL;
	case INSN_CF_JMP: case INSN_CF_JCC: case INSN_CF_LOOP:
		if (retarget(k, in->target, &moved.target)) {
			*why = "a branch into the middle of a block";
			return -EINVAL;
		}
		return patch_relocate(&k->b, &moved, bytes, why);
	case INSN_CF_CALL:
		if (in->vendor_specific || in->imm_size == 2) {
			*why = "a 16-bit call (its meaning depends on the CPU vendor)";
			return -EINVAL;
		}
		/*
		 * call 1f; 1: pop: the pushed pc would be the copy's, read as
		 * data. A recursive call (to the entry) stays a call of the
		 * original, which the redirect, once in, sends to the copy.
		 */
		if (in_function(k->f, in->target) && in->target != k->f->sym->addr) {
			*why = "a call into the function itself (its return address is data)";
			return -EINVAL;
		}
		patch_emit_call(&k->b, in->target);
		return 0;
	case INSN_CF_CALL_INDIRECT:
		if (in->status != INSN_OK || in->vendor_specific) {
			*why = "an indirect call that does not decode plainly";
			return -EINVAL;
		}
		patch_copy_insn(&k->b, in, bytes);
		return 0;
	default:
		return patch_relocate(&k->b, in, bytes, why);
	}
}

/*
 * How the block's last instruction changes with the layout:
 *   - a jmp to the block laid out next is dropped (the code falls there);
 *   - a jcc whose target is laid out next while its fall-through is not
 *     is inverted (KernInst's outlining: the hot path falls through), so
 *     it needs no jump after it.
 */
enum block_end { END_AS_IS, END_DROP, END_INVERT };

static enum block_end block_end(const struct builder *k, const struct insn *in,
				uint64_t block_end_addr, uint64_t next_start)
{
	if (!next_start || !in_function(k->f, in->target))
		return END_AS_IS;
	if (in->cf == INSN_CF_JMP && in->target == next_start)
		return END_DROP;
	/* Only rel8/rel32 jcc (0f 8x or 7x): the condition is the opcode's low nibble. */
	if (in->cf == INSN_CF_JCC && in->target == next_start && block_end_addr != next_start)
		return END_INVERT;
	return END_AS_IS;
}

/* Copy block index bi; next_start is the start of the block laid out after it (0: none). */
static int copy_block(struct builder *k, uint32_t bi, uint64_t next_start, const char **why)
{
	const struct cfg_function *f = k->f;
	const struct cfg_block *blk = &f->blocks[bi];
	struct outline_emit *e = k->e;
	struct insn in = { 0 };
	bool falls = true;

	e->block_at[bi] = (uint32_t)k->b.len;
	for (uint64_t at = blk->start; at < blk->end; at += in.length) {
		const uint8_t *bytes = text_image_bytes(at);
		if (insn_decode(&in, bytes, blk->end - at, at) != INSN_OK) {
			*why = "an instruction that does not decode";
			return -EINVAL;
		}
		if (e->nmap >= e->map_cap) {
			*why = "more instructions than the analysis counted";
			return -EINVAL;
		}
		e->map[e->nmap++] = (struct probe_patch_origin){ (uint16_t)k->b.len,
								 (uint16_t)(at - f->sym->addr) };
		falls = insn_falls_through(&in);
		enum block_end how = at + in.length == blk->end ?
				     block_end(k, &in, blk->end, next_start) : END_AS_IS;
		if (how == END_DROP) {
			e->jumps_dropped++;
			break;
		}
		int err;
		if (how == END_INVERT) {
			struct insn inverted = in;
			inverted.opcode ^= 1;	/* jcc's conditions come in pairs: cc and not cc */
			inverted.target = blk->end;
			err = copy_insn(k, &inverted, bytes, why);
			e->branches_inverted++;
			falls = false;	/* its fall-through is the block laid out next */
		} else {
			err = copy_insn(k, &in, bytes, why);
		}
		if (err)
			return err;
	}
	/* The block fell through to the one after it in the original: jump there if it moved. */
	if (falls && blk->end != next_start) {
		uint64_t to;
		/*
		 * No block starts there (code after a call that does not
		 * return, which the analysis left out): the original's
		 * bytes do the same as a copy would.
		 */
		if (retarget(k, blk->end, &to))
			to = blk->end;
		patch_emit_jmp(&k->b, to);
		e->jumps_added++;
	}
	return 0;
}

static int build_pass(struct builder *k, const uint32_t *order, const char **why)
{
	const struct cfg_function *f = k->f;
	struct outline_emit *e = k->e;

	patch_buf_init(&k->b, e->code, e->cap, e->runs_at);
	e->nmap = 0;
	e->jumps_added = e->jumps_dropped = e->branches_inverted = 0;
	for (uint32_t i = 0; i < f->nblocks; i++) {
		uint64_t next = i + 1 < f->nblocks ? f->blocks[order[i + 1]].start : 0;
		int err = copy_block(k, order[i], next, why);
		if (err)
			return err;
		if (k->b.overflow) {
			*why = "the copy would be larger than its room";
			return -ENOSPC;
		}
	}
	if (k->b.out_of_reach) {
		*why = "a branch or operand out of rel32 reach of the copy";
		return -EINVAL;
	}
	e->len = k->b.len;
	return 0;
}

/*
 * The built copy, checked on its own before anything runs it: it decodes
 * from its first byte to its last, and every direct branch in it lands
 * on one of its own instruction starts or outside the function (a tail
 * call, the original's entry for recursion, code after a call that does
 * not return); none still aims at a block of the original.
 */
static int check_copy(const struct cfg_function *f, const struct outline_emit *e,
		      const char **why)
{
	uint8_t *starts = kzalloc(e->len + 1);
	struct insn in;
	int rc = 0;

	if (!starts) {
		*why = "no memory to check the copy";
		return -ENOMEM;
	}
	for (size_t at = 0; at < e->len && !rc; at += in.length) {
		if (insn_decode(&in, e->code + at, e->len - at, e->runs_at + at) != INSN_OK)
			rc = -EINVAL;
		starts[at] = 1;
	}
	for (size_t at = 0; at < e->len && !rc; at += in.length) {
		insn_decode(&in, e->code + at, e->len - at, e->runs_at + at);
		if (!insn_has_branch_target(&in))
			continue;
		const struct cfg_block *b = cfg_block_at(f, in.target);
		bool inside = in.target >= e->runs_at && in.target < e->runs_at + e->len;
		if ((inside && !starts[in.target - e->runs_at]) ||
		    (b && b->start == in.target && in.target != f->sym->addr))
			rc = -EINVAL;
	}
	if (rc)
		*why = "the copy failed its own check (a branch off its instructions)";
	kfree(starts);
	return rc;
}

int arch_outline_build(const struct cfg_function *f, const uint32_t *order,
		       struct outline_emit *e, const char **why)
{
	struct builder k = { .f = f, .e = e, .sizing = true };

	if (f->status != CFG_OK || !f->nblocks || order[0] != 0 ||
	    f->blocks[0].start != f->sym->addr) {
		*why = "the function's analysis is not usable (or its entry is not laid out first)";
		return -EINVAL;
	}
	if (f->njump_tables || f->nunresolved) {
		*why = "an indirect jump (jump table or unresolved): it would leave the copy";
		return -EINVAL;
	}
	if (in_function(f, (uintptr_t)safe_read_may_fault)) {
		*why = "a fault fixup keyed on an address inside the function";
		return -EINVAL;
	}
	int err = build_pass(&k, order, why);
	if (err)
		return err;
	size_t sized = e->len;
	k.sizing = false;
	err = build_pass(&k, order, why);
	if (!err && e->len != sized) {
		*why = "the copy's size changed between passes";
		err = -EINVAL;
	}
	return err ? err : check_copy(f, e, why);
}
