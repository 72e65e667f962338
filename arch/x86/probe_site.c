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
 * The image never changes, so the instructions of the regions checked
 * lately are kept decoded (region_decode): a site's region is checked
 * once and its patch built twice, and enabling thousands of sites paid
 * for every decode three times (issue 28).
 * Runs in .text.noprobe (arch.mk), under probe_mutex, except
 * arch_probe_is_breakpoint (the breakpoint handler, lock-free).
 */
#include <scion/probe_arch.h>
#include <scion/probe.h>
#include <scion/cpu.h>
#include <scion/thread.h>
#include <scion/cfg.h>
#include <scion/symtab.h>
#include <scion/textimage.h>
#include <scion/errno.h>
#include <scion/string.h>
#include <arch/insn.h>
#include <arch/mmu.h>
#include "x86_encodings.h"

extern char __text_end[];

/*
 * Decoded instructions by address, direct-mapped: room for a few
 * enabling batches' regions (PROBE_BATCH sites of one to five
 * instructions). probe_mutex, which every caller holds (tests too:
 * probe_run_locked); no lock of its own, which cost as much as the
 * decodes it saved.
 */
#define DECODED_SLOTS 1024

static struct insn decoded[DECODED_SLOTS];

void arch_probe_forget_decoded(void)
{
	memset(decoded, 0, sizeof(decoded));
}

/*
 * The instruction at at, of which avail bytes may be read: as
 * insn_decode gives it, from the text image. A kept decode serves only
 * when it read no further than avail allows (then the bytes it read are
 * all the decoder looks at, and the image never changes).
 */
static void region_decode(struct insn *in, uint64_t at, size_t avail)
{
	struct insn *slot = &decoded[(at * 0x9e3779b97f4a7c15ull) >> 54 & (DECODED_SLOTS - 1)];

	if (slot->addr == at && slot->status == INSN_OK && slot->length <= avail) {
		*in = *slot;
		return;
	}
	insn_decode(in, text_image_bytes(at), avail, at);
	if (in->status != INSN_OK)
		return;
	*slot = *in;
}

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
	region_decode(&in, addr, ARCH_PROBE_REGION_MAX);
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
		/* Before decoding: most return sites are refused here (a block follows the ret). */
		const struct cfg_block *blk = cfg_block_at(f, at);
		if (!blk || (at != addr && blk->start == at)) {
			*why = "a branch target lies inside the 5 bytes a jump would cover";
			return -EINVAL;
		}
		region_decode(&in, at, fn_end - at);
		if (in.status != INSN_OK) {
			*why = "an instruction in the detoured bytes does not decode";
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
		region_decode(&in, at, to - at);
		origin(o, b, at - from);
		if (patch_relocate(b, &in, text_image_bytes(at), &why))
			b->overflow = true;	/* checked when the site was created */
		falls_through = insn_falls_through(&in);
		at += in.length;
	}
	if (falls_through)
		patch_emit_jmp(b, to);
}

/* The System V argument registers, in order (a redirect's argument test). */
static const uint8_t argument_regs[] = { INSN_RDI, INSN_RSI, INSN_RDX, INSN_RCX, INSN_R8, INSN_R9 };

static void redirect(struct patch_buf *b, const struct probe_patch_plan *plan)
{
	const struct probe_redirect *r = plan->redirect;
	struct patch_redirect pr = {
		.target_slot = (uintptr_t)r->target,
		.tid_slot = (uintptr_t)r->tid,
		.current_offset = (uint32_t)offsetof(struct cpu, current),
		.tid_offset = (uint32_t)offsetof(struct thread, tid),
		.taken = (uintptr_t)r->taken,
		.flags_live = (plan->live & INSN_STATUS_FLAGS) != 0,
	};
	if (r->value) {
		if (r->arg >= sizeof(argument_regs)) {
			b->overflow = true;	/* codeadapt_install checked it */
			return;
		}
		pr.value_slot = (uintptr_t)r->value;
		pr.arg_reg = argument_regs[r->arg];
		pr.arg_low_half = r->arg_bytes == 4;
	}
	patch_emit_redirect(b, &pr);
}

void arch_probe_build_patch(struct patch_buf *b, const struct probe_patch_plan *plan,
			    struct probe_patch_origins *o)
{
	struct patch_handler_cold cold;
	bool handled = false;

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
		handled = plan->handler != NULL;
		if (handled)
			patch_emit_handler_call(b, plan->site, plan->handler, plan->call_cookie,
						plan->live, true, &cold);
		else if (plan->call_fn)
			patch_emit_frame_call(b, plan->site, plan->call_fn, plan->call_cookie,
					      plan->live, true);
	}
	if (plan->redirect) {
		if (!o->n)
			origin(o, b, 0);
		redirect(b, plan);
	}
	relocate_region(b, plan->site, plan->site + plan->length, o);
	if (handled) {
		origin(o, b, 0);	/* the cold code stands for the site, as the call does */
		patch_emit_handler_cold(b, &cold);
	}
}
