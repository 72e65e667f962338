// SPDX-License-Identifier: BSD-2-Clause
/*
 * The bytes each step of the probe protocol writes on x86-64 (the
 * protocol and the contract are scion/probe_arch.h; the portable commit
 * is kernel/probe/site_commit.c). djprobe's sequence: a jmp rel32 is 5
 * bytes and no store of 5 bytes at any alignment is atomic to a CPU
 * fetching them, so the first byte becomes int3 before anything else
 * changes, and becomes the jmp's opcode only once the tail is in place
 * everywhere:
 *
 *   1. Write int3 over the first byte of every site that is installed, of
 *      every jump site that is rebuilt or removed; restore the first byte
 *      of every breakpoint site that is removed. (A rebuilt breakpoint
 *      site writes nothing: its int3 stays, the handler finds the new
 *      patch.) Sync. From here a CPU that reaches a jump site traps, and
 *      the breakpoint handler sends it to the site's current patch.
 *   2. (Portable: installs that a CPU or thread is still inside become
 *      breakpoint probes.)
 *   3. Write the tail of every jump (its rel32 to the new patch), or
 *      restore the tail of every removed jump. Sync. Nothing executes
 *      the tail meanwhile: the int3 before it traps.
 *   4. Write the jmp opcode over the int3 of every jump, or restore the
 *      first byte of every removed jump. Sync.
 *
 * Runs in .text.noprobe (arch.mk), under probe_mutex.
 */
#include <scion/probe_arch.h>
#include <scion/string.h>
#include <scion/printk.h>
#include "x86_encodings.h"

/* Step 1: the first byte. */
static bool breakpoint_step(struct probe_step_site *s, struct text_poke_op *op)
{
	bool jump = s->mechanism == PROBE_SITE_JUMP;

	if (s->change == PROBE_CHANGE_REMOVE && !jump)
		s->room.b[0] = s->orig[0];
	else if (s->change == PROBE_CHANGE_INSTALL || jump)
		s->room.b[0] = x86_enc_int3[0];
	else
		return false;	/* rebuilt breakpoint site: no text change */
	*op = (struct text_poke_op){ (void *)(uintptr_t)s->addr, s->room.b, 1 };
	return true;
}

/* Steps 3 and 4: a jump's tail, then its head. */
static bool jump_step(unsigned step, struct probe_step_site *s, struct text_poke_op *op)
{
	uint8_t jmp[PATCH_JUMP_LEN];
	void *at = (void *)(uintptr_t)s->addr;
	bool remove = s->change == PROBE_CHANGE_REMOVE;

	if (s->mechanism != PROBE_SITE_JUMP)
		return false;
	/* The site's patch was allocated within reach when it was built. */
	if (!remove && !patch_jump_bytes(jmp, s->addr, s->patch))
		panic("probe: the patch at 0x%llx is out of reach of its site 0x%llx",
		      (unsigned long long)s->patch, (unsigned long long)s->addr);
	if (step == PROBE_STEP_BODY) {
		unsigned len = remove ? s->length - 1u : PATCH_JUMP_LEN - 1u;
		memcpy(s->room.b, remove ? s->orig + 1 : jmp + 1, len);
		*op = (struct text_poke_op){ (uint8_t *)at + 1, s->room.b, len };
	} else {
		s->room.b[0] = remove ? s->orig[0] : jmp[0];
		*op = (struct text_poke_op){ at, s->room.b, 1 };
	}
	return true;
}

size_t arch_probe_write_step(unsigned step, struct probe_step_site *sites, size_t n,
			     struct text_poke_op *ops)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		struct probe_step_site *s = &sites[i];
		if (s->change == PROBE_CHANGE_NONE)
			continue;
		if (step == PROBE_STEP_BREAKPOINT ? breakpoint_step(s, &ops[k])
						  : jump_step(step, s, &ops[k]))
			k++;
	}
	return k;
}
