// SPDX-License-Identifier: BSD-2-Clause
/*
 * Probe sites on SPARC V9 (the contract is scion/probe_arch.h): what a
 * splice detours, whether an instruction can run out of line under a
 * breakpoint, how a trapped CPU resumes, and the code nothing may probe.
 *
 * A splice is one `ba,a` over one instruction (KernInst): a plain
 * instruction is relocated into the patch and followed by a branch back;
 * a CTI moves with its delay slot, so its region is both words, and a
 * probe in that slot cannot share it (the portable code makes such a CTI
 * a breakpoint probe instead). A delay-slot instruction is never
 * spliced: `ba,a` there would form a CTI couple. It gets a breakpoint
 * probe, whose copy runs with TNPC where the trap left it.
 * The patch heap lies within ba,a's +-8 MB of all the text (arch/mmu.h),
 * so every site reaches every patch directly; a site beyond that would
 * need a springboard, which this port refuses for now with the distance.
 *
 * A patch is built twice by its caller (to size it, then in place), so
 * everything here is a pure function of the site and the text image.
 * Runs in .text.noprobe (arch.mk), under probe_mutex, except
 * arch_probe_is_breakpoint, arch_probe_resume and arch_probe_refusal
 * (the breakpoint handler and any context, lock-free).
 */
#include <scion/probe_arch.h>
#include <scion/cfg.h>
#include <scion/symtab.h>
#include <scion/textimage.h>
#include <scion/errno.h>
#include <arch/insn.h>
#include <arch/mmu.h>

extern char __tl1_start[], __tl1_end[];

#define SCRATCH_BYTES 64	/* a relocated instruction: at most 5 words */

bool arch_probe_is_breakpoint(uint64_t addr)
{
	return patch_is_breakpoint_word(sparc_word_at((const void *)(uintptr_t)addr));
}

/*
 * A copy resumes with TNPC as the trap left it (the next word, or a taken
 * branch's target in a delay slot). A call is not run but done here:
 * %o7 = the site, then its delay slot in place, then the callee.
 */
void arch_probe_resume(struct trap_frame *frame, uint64_t resume, bool out_of_line)
{
	const uint32_t op = SPARC_PUT(OP, ~0u);
	uint32_t w = sparc_word_at((const void *)(uintptr_t)resume);

	if (!out_of_line) {
		trap_frame_set_pc(frame, resume);
		return;
	}
	/* (Not insn_decode: this runs in probe context, which the decoder is not.) */
	if ((w & op) == (SPARC_ENC_CALL & op)) {
		int64_t disp = (int64_t)((uint64_t)SPARC_PUT(DISP30, w) << 34) >> 32;
		frame->o[INSN_O7 - INSN_O0] = frame->tpc;
		frame->tpc = frame->tnpc;
		frame->tnpc = frame->o[INSN_O7 - INSN_O0] + (uint64_t)disp;
		return;
	}
	frame->tpc = resume;
}

const char *arch_probe_refusal(uint64_t addr)
{
	if (addr >= (uintptr_t)__tl1_start && addr < (uintptr_t)__tl1_end)
		return "runs at trap level above zero (trap table, window spill/fill, MMU miss "
		       "handling): a probe there would trap inside a trap";
	return NULL;
}

/* The function holding addr, as words of the booted text. */
static const void *function_words(uint64_t addr, uint64_t *start, size_t *words)
{
	const struct cfg_function *f = cfg_function_at(addr);

	*start = f->sym->addr;
	*words = f->sym->size / 4;
	return text_image_bytes(f->sym->addr);
}

int arch_probe_prepare_breakpoint(uint64_t addr, unsigned *length, const char **why)
{
	uint8_t scratch[SCRATCH_BYTES];
	struct patch_buf b;
	uint64_t start;
	size_t words;
	const void *fn = function_words(addr, &start, &words);

	patch_buf_init(&b, scratch, sizeof(scratch), PATCH_CODE_BASE);
	if ((*why = patch_out_of_line(&b, fn, start, words, addr)))
		return -EINVAL;
	*length = ARCH_PROBE_BREAKPOINT_LEN;
	return 0;
}

int arch_probe_check_region(uint64_t addr, unsigned *length, const char **why)
{
	uint8_t scratch[SCRATCH_BYTES];
	struct patch_buf b;
	uint64_t start;
	size_t words;
	const void *fn = function_words(addr, &start, &words);
	uint32_t w;
	struct insn in;

	/* Every patch must be reachable, wherever the heap puts it. */
	if (!patch_ba_a(&w, addr, PATCH_CODE_BASE) ||
	    !patch_ba_a(&w, addr, PATCH_CODE_BASE + PATCH_CODE_SIZE - 4)) {
		*why = "the patch heap is beyond ba,a's +-8 MB: a springboard would be needed "
		       "(not on this port yet)";
		return -EINVAL;
	}
	/* Relocated at both ends of the heap: its branches must reach from anywhere in it. */
	for (int end = 0; end < 2; end++) {
		patch_buf_init(&b, scratch, sizeof(scratch),
			       end ? PATCH_CODE_BASE + PATCH_CODE_SIZE - sizeof(scratch) : PATCH_CODE_BASE);
		if ((*why = patch_relocate(&b, fn, start, words, addr)))
			return -EINVAL;
	}
	insn_decode(&in, sparc_word_at(text_image_bytes(addr)), addr);
	*length = in.delayed ? 8 : 4;
	return 0;
}
