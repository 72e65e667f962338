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
 * probe, whose copy runs with TNPC where the trap left it; a call, an
 * indirect call or rd %pc under a ta is done by the handler (what it
 * writes must name the site, not the copy).
 * The near patch arena lies within ba,a's +-8 MB of all the text
 * (arch/mmu.h); a patch in the far arena is reached through a springboard
 * (springboard.c), and its own jumps back are long (patch_emit_jump).
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

#include "sparc64.h"
#include "probe_regs.h"

extern char __tl1_start[], __tl1_end[];

#define SCRATCH_BYTES 64	/* a relocated instruction: at most 2 + 2 * PATCH_JUMP_WORDS words */

bool arch_probe_is_breakpoint(uint64_t addr)
{
	return patch_is_breakpoint_word(sparc_word_at((const void *)(uintptr_t)addr));
}

/* A call or an indirect call at the site, done here: link, then its delay slot in place. */
static void emulate_call(struct trap_frame *frame, uint32_t w)
{
	const uint32_t op = SPARC_PUT(OP, ~0u);
	uint64_t site = frame->tpc, target;

	if ((w & op) == (SPARC_ENC_CALL & op)) {
		int64_t disp = (int64_t)((uint64_t)SPARC_PUT(DISP30, w) << 34) >> 32;
		target = site + (uint64_t)disp;
		frame->o[INSN_O7 - INSN_O0] = site;
	} else {
		unsigned rd = (w >> SPARC_F_RD_SHIFT) & SPARC_F_RD_MASK;
		unsigned rs1 = (w >> SPARC_F_RS1_SHIFT) & SPARC_F_RS1_MASK;
		target = rs1 ? *sparc64_interrupted_reg(frame, rs1) : 0;
		if ((w >> SPARC_F_I_SHIFT) & SPARC_F_I_MASK) {
			target += (uint64_t)((int64_t)((uint64_t)SPARC_PUT(SIMM13, w) << 51) >> 51);
		} else {
			unsigned rs2 = (w >> SPARC_F_RS2_SHIFT) & SPARC_F_RS2_MASK;
			target += rs2 ? *sparc64_interrupted_reg(frame, rs2) : 0;
		}
		*sparc64_interrupted_reg(frame, rd) = site;
	}
	frame->tpc = frame->tnpc;
	frame->tnpc = target;
}

/*
 * A copy resumes with TNPC as the trap left it (the next word, or a taken
 * branch's target in a delay slot). A call, an indirect call and rd %pc
 * are not run but done here (patch_out_of_line copies them only to name
 * them): each would otherwise see the copy's address.
 * (No insn_decode: this runs in probe context, which the decoder is not.)
 */
void arch_probe_resume(struct trap_frame *frame, uint64_t resume, bool out_of_line)
{
	const uint32_t jmpl = SPARC_PUT(OP, ~0u) | SPARC_PUT(OP3, ~0u);
	const uint32_t op = SPARC_PUT(OP, ~0u);
	uint32_t w = sparc_word_at((const void *)(uintptr_t)resume);
	bool call = (w & op) == (SPARC_ENC_CALL & op);
	bool linked_jump = (w & jmpl) == (SPARC_ENC_JMPL & jmpl) &&
			   ((w >> SPARC_F_RD_SHIFT) & SPARC_F_RD_MASK) != INSN_G0;

	if (!out_of_line) {
		trap_frame_set_pc(frame, resume);
		return;
	}
	if (call || linked_jump) {
		emulate_call(frame, w);
		return;
	}
	if (sparc_reads_pc(w)) {
		/* rd %pc, rd: the site's address, then on as the trap left it. */
		unsigned rd = (w >> SPARC_F_RD_SHIFT) & SPARC_F_RD_MASK;
		if (rd != INSN_G0)
			*sparc64_interrupted_reg(frame, rd) = frame->tpc;
		frame->tpc = frame->tnpc;
		frame->tnpc += 4;
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

/*
 * Whether addr's instruction can be moved: into a splice's patch
 * (relocate) or out of line under a ta. Its jumps are as long wherever a
 * patch lies (patch_emit_jump), so one trial at PATCH_CODE_BASE tells.
 */
static const char *try_moving(uint64_t addr, bool for_splice)
{
	const struct cfg_function *f = cfg_function_at(addr);
	const void *fn = text_image_bytes(f->sym->addr);
	uint8_t scratch[SCRATCH_BYTES];
	struct patch_buf b;

	patch_buf_init(&b, scratch, sizeof(scratch), PATCH_CODE_BASE);
	return for_splice ? patch_relocate(&b, fn, f->sym->addr, f->sym->size / 4, addr)
			  : patch_out_of_line(&b, fn, f->sym->addr, f->sym->size / 4, addr);
}

int arch_probe_prepare_breakpoint(uint64_t addr, unsigned *length, const char **why)
{
	if ((*why = try_moving(addr, false)))
		return -EINVAL;
	*length = ARCH_PROBE_BREAKPOINT_LEN;
	return 0;
}

int arch_probe_check_region(uint64_t addr, unsigned *length, const char **why)
{
	struct insn in;

	if ((*why = try_moving(addr, true)))
		return -EINVAL;
	insn_decode(&in, sparc_word_at(text_image_bytes(addr)), addr);
	*length = in.delayed ? 8 : 4;
	return 0;
}
