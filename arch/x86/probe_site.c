// SPDX-License-Identifier: BSD-2-Clause
/*
 * Probe sites on x86-64 (the contract is scion/probe_arch.h): which
 * bytes a jump probe detours, whether an instruction can run out of
 * line, what a site's patch holds, and the breakpoint byte.
 *
 * x86 instructions have variable length, so a jump probe's jmp rel32
 * (5 bytes) covers every instruction that starts in those 5 bytes: the
 * region. It is safe to detour only if nothing branches into it after
 * its first byte (the analysis's block leaders), a call in it is its
 * last instruction (a call returns into the next one, which would be
 * gone), it stays inside its function, and each of its instructions
 * relocates (patch_relocate: RIP-relative operands and branches
 * re-encoded, calls become push + jmp). A region that reaches a final
 * ret may go on into the alignment padding after the function, which
 * nothing executes or branches to.
 *
 * A patch is built twice by its caller (to size it, then in place), so
 * everything here is a pure function of the site and the text image.
 * Runs in .text.noprobe (arch.mk), under probe_mutex, except
 * arch_probe_is_breakpoint (the breakpoint handler, lock-free).
 */
#include <scion/probe_arch.h>
#include <scion/cfg.h>
#include <scion/symtab.h>
#include <scion/textimage.h>
#include <scion/errno.h>
#include <arch/insn.h>
#include <arch/mmu.h>
#include "x86_encodings.h"

extern char __text_end[];

bool arch_probe_is_breakpoint(uint64_t addr)
{
	return *(const volatile uint8_t *)(uintptr_t)addr == x86_enc_int3[0];
}

/* No delayed branches: the copy or patch runs from its start. */
void arch_probe_resume(struct trap_frame *frame, uint64_t resume, bool out_of_line)
{
	(void)out_of_line;
	trap_frame_set_pc(frame, resume);
}

/* x86 has no code the portable checks do not already refuse. */
/* A return site's value is already in %rax (a tail call's: what %rax holds, a guess). */
uint64_t arch_probe_return_value(const struct trap_frame *frame, uint64_t site)
{
	(void)site;
	return trap_frame_retval(frame);
}

const char *arch_probe_refusal(uint64_t addr)
{
	(void)addr;
	return NULL;
}

/* jmp rel32 reaches every patch: the heap lies within 2 GB of all the text. */
bool arch_probe_reaches(uint64_t site, uint64_t patch)
{
	(void)site;
	(void)patch;
	return true;
}

uint64_t arch_probe_springboard_alloc(uint64_t site, const char **why)
{
	(void)site;
	*why = "x86 has no springboards (jmp rel32 reaches every patch)";
	return 0;
}

void arch_probe_springboard_free(uint64_t slot)
{
	(void)slot;
}

bool arch_probe_springboard_contains(uint64_t addr, size_t len)
{
	(void)addr;
	(void)len;
	return false;
}

int arch_probe_prepare_breakpoint(uint64_t addr, unsigned *length, const char **why)
{
	struct insn in;
	uint8_t scratch[PATCH_RELOCATE_MAX];
	struct patch_buf b;

	/* A breakpoint probe executes the instruction out of line: it must relocate. */
	insn_decode(&in, text_image_bytes(addr), ARCH_PROBE_REGION_MAX, addr);
	patch_buf_init(&b, scratch, sizeof(scratch), PATCH_CODE_BASE);
	if (patch_relocate(&b, &in, text_image_bytes(addr), why))
		return -EINVAL;
	*length = in.length;
	return 0;
}

/*
 * Bytes after the end of the function holding addr that no function
 * holds (alignment padding up to the next symbol), at most want.
 */
static unsigned padding_after(uint64_t fn_end, unsigned want)
{
	unsigned n = 0;
	while (n < want && fn_end + n < (uintptr_t)__text_end &&
	       !symtab_lookup_addr(&kernel_symtab, fn_end + n, NULL))
		n++;
	return n;
}

int arch_probe_check_region(uint64_t addr, unsigned *length, const char **why)
{
	const struct cfg_function *f = cfg_function_at(addr);
	uint64_t fn_end = f->sym->addr + f->sym->size;
	uint8_t scratch[PATCH_RELOCATE_MAX];
	uint64_t at = addr;

	while (at < addr + PATCH_JUMP_LEN) {
		struct insn in;
		if (at >= fn_end) {
			*why = "the function ends within the 5 bytes a jump needs";
			return -EINVAL;
		}
		insn_decode(&in, text_image_bytes(at), fn_end - at, at);
		if (in.status != INSN_OK) {
			*why = "an instruction in the detoured bytes does not decode";
			return -EINVAL;
		}
		const struct cfg_block *blk = cfg_block_at(f, at);
		if (!blk || (at != addr && blk->start == at)) {
			*why = "a branch target lies inside the 5 bytes a jump would cover";
			return -EINVAL;
		}
		bool last = at + in.length >= addr + PATCH_JUMP_LEN;
		if ((in.cf == INSN_CF_CALL || in.cf == INSN_CF_CALL_INDIRECT) && !last) {
			*why = "a call inside the detoured bytes would return into them";
			return -EINVAL;
		}
		struct patch_buf b;
		patch_buf_init(&b, scratch, sizeof(scratch), PATCH_CODE_BASE);
		if (patch_relocate(&b, &in, text_image_bytes(at), why))
			return -EINVAL;
		at += in.length;
		/* The function's last instruction never falls through: its padding may be covered. */
		if (at == fn_end && at < addr + PATCH_JUMP_LEN && !insn_falls_through(&in)) {
			unsigned need = (unsigned)(addr + PATCH_JUMP_LEN - at);
			if (padding_after(fn_end, need) == need)
				at += need;
		}
	}
	if (at - addr > ARCH_PROBE_REGION_MAX) {
		*why = "the detoured instructions are too long";
		return -EINVAL;
	}
	*length = (unsigned)(at - addr);
	return 0;
}

static void origin(struct probe_patch_origins *o, const struct patch_buf *b, uint64_t orig_offset)
{
	if (o->n < PROBE_PATCH_ORIGINS_MAX)
		o->m[o->n++] = (struct probe_patch_origin){ (uint16_t)b->len, (uint16_t)orig_offset };
}

/*
 * The relocated copy of [from, to), then a jump to `to` unless the copy
 * ends in an instruction that does not fall through (a region may end in
 * padding after a ret).
 */
static void relocate_region(struct patch_buf *b, uint64_t from, uint64_t to,
			    struct probe_patch_origins *o)
{
	bool falls_through = true;
	const char *why;

	for (uint64_t at = from; at < to && falls_through;) {
		struct insn in;
		insn_decode(&in, text_image_bytes(at), to - at, at);
		origin(o, b, at - from);
		if (patch_relocate(b, &in, text_image_bytes(at), &why))
			b->overflow = true;	/* checked when the site was created */
		falls_through = insn_falls_through(&in);
		at += in.length;
	}
	if (falls_through)
		patch_emit_jmp(b, to);
}

void arch_probe_build_patch(struct patch_buf *b, const struct probe_patch_plan *plan,
			    struct probe_patch_origins *o)
{
	o->n = 0;
	if (plan->mechanism == PROBE_SITE_JUMP && (plan->ninline || plan->call_fn)) {
		/* The counter's lock add changes the flags: saved unless no one reads them here. */
		bool flags_free = !(plan->live & INSN_STATUS_FLAGS);
		origin(o, b, 0);
		for (unsigned i = 0; i < plan->ninline; i++) {
			const struct probe_patch_inline *c = &plan->inl[i];
			if (c->kind == PROBE_INLINE_COUNT)
				patch_emit_counter(b, c->counter, flags_free);
			else
				patch_emit_accumulate(b, &c->slots, c->delta);
		}
		if (plan->call_fn)
			patch_emit_frame_call(b, plan->site, plan->call_fn, plan->call_cookie);
	}
	relocate_region(b, plan->site, plan->site + plan->length, o);
}
