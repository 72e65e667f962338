// SPDX-License-Identifier: BSD-2-Clause
/*
 * Kernel stacks for tracing (D's stack()): the frame-pointer chain from
 * a probe's registers, every word read through arch_safe_read so a
 * corrupt chain ends the walk instead of faulting. The chain must move
 * up the stack; the walk stops at a zero return address.
 */
#include <arch/stack.h>
#include <arch/safe_read.h>

unsigned arch_stack_walk(const struct trap_frame *f, bool at_boundary, uint64_t *pcs,
			 unsigned max)
{
	unsigned n = 0;
	uint64_t fp = trap_frame_fp(f), word[2];

	if (max == 0)
		return 0;
	if (!at_boundary) {
		pcs[n++] = trap_frame_pc(f);
	} else {
		/* rbp is still (or again) the caller's: its return address is on top of the stack. */
		if (!arch_safe_read(word, trap_frame_sp(f), 8) && word[0])
			pcs[n++] = word[0];
	}
	while (n < max && fp && !(fp & 7)) {
		if (arch_safe_read(word, fp, sizeof(word)) || !word[1])
			break;
		pcs[n++] = word[1];
		if (word[0] <= fp)
			break;
		fp = word[0];
	}
	return n;
}
