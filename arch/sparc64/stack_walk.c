// SPDX-License-Identifier: BSD-2-Clause
/*
 * Backtraces through register windows. A caller's return address and
 * frame pointer live in its window's %i7 and %i6, which reach memory
 * only when the window is spilled: `flushw` first spills every window
 * to its frame's save area, then the walk reads each frame's saved %i7
 * (the call instruction) and %i6 (the caller's %sp) at %sp + 2047.
 * Invariants: the walk reads only mapped memory (arch_translate: the
 * image, the direct map, mapped kmap pages), stops at a zero %fp (the
 * top frame of a stack), at an even (32-bit) %sp, and after 64 frames.
 */
#include <arch/stack.h>
#include <scion/symtab.h>

#include <arch/mmu.h>

#include "sparc64_internal.h"

#define MAX_FRAMES 64

static bool frame_ok(uint64_t sp)
{
	uint64_t base = sp + STACK_BIAS;

	return (sp & 1) && (base & 7) == 0 && arch_translate(base, NULL) != UINT64_MAX &&
	       arch_translate(base + MIN_FRAME - 1, NULL) != UINT64_MAX;
}

const char *backtrace_symbolize(uint64_t pc, char *buf, size_t size)
{
	return symtab_format(&kernel_symtab, pc, buf, size);
}

/*
 * sparc64_backtrace_print - the trap report's backtrace: print
 * "#0 pc function+0xoff" for pc, then one line
 * per caller, starting from the frame whose %sp is sp (the interrupted
 * function's own window).
 */
void sparc64_backtrace_print(uint64_t pc, uint64_t sp)
{
	char name[96];

	__asm__ __volatile__("flushw" ::: "memory");
	early_printf("backtrace:\n  #0 0x%016lx %s\n", (unsigned long)pc,
		     backtrace_symbolize(pc, name, sizeof(name)));
	for (int i = 1; i < MAX_FRAMES; i++) {
		if (sp == 0)
			return;
		if (!frame_ok(sp)) {
			early_printf("  (stopped: %%sp 0x%lx is not a 64-bit kernel frame)\n",
				     (unsigned long)sp);
			return;
		}
		const uint64_t *save = (const uint64_t *)(sp + STACK_BIAS);
		uint64_t ret = save[FRAME_I7 / 8];
		if (ret == 0)
			return;
		early_printf("  #%d 0x%016lx %s\n", i, (unsigned long)ret,
			     backtrace_symbolize(ret, name, sizeof(name)));
		sp = save[FRAME_I6 / 8];
	}
	early_printf("  (stopped after %d frames)\n", MAX_FRAMES);
}

/* ---- The core's frame walk (arch/trap.h, arch/stack.h) ---------------------------- */

/*
 * Whether the save area at fp is trap_common's window (trap_entry.S): its
 * struct trap_frame lies right above the minimal frame, and the window's
 * %i6 and %i7 are the interrupted %sp and %o7 the frame recorded.
 */
static const struct trap_frame *trap_window_frame(const uint64_t *save)
{
	const struct trap_frame *tf = (const void *)((uintptr_t)save + MIN_FRAME);

	/* A thread's first frames sit near its stack's top: look only at mapped memory. */
	if (arch_translate((uintptr_t)tf, NULL) == UINT64_MAX ||
	    arch_translate((uintptr_t)(tf + 1) - 1, NULL) == UINT64_MAX)
		return NULL;
	if (save[FRAME_I6 / 8] != tf->sp || save[FRAME_I7 / 8] != tf->o[7])
		return NULL;
	return tf->tl >= 1 && tf->tl <= 5 && tf->tpc && tf->tt < 0x200 ? tf : NULL;
}

/*
 * One step up (arch/trap.h). Across a trap the step goes to the pc the
 * trap interrupted (its trap frame's TPC), not to the interrupted
 * window's %o7, which is only the last call that function made.
 */
uintptr_t arch_frame_unwind(uintptr_t fp, uintptr_t *ret)
{
	sparc64_flush_windows();
	const uint64_t *save = (const uint64_t *)fp;
	uint64_t i7 = save[FRAME_I7 / 8], i6 = save[FRAME_I6 / 8];
	const struct trap_frame *tf = trap_window_frame(save);
	if (tf)
		*ret = tf->tpc;
	else
		*ret = i7 ? i7 + 8 : 0;
	return i6 ? i6 + STACK_BIAS : 0;
}

/*
 * arch_stack_walk - f's pc (unless at a boundary: then the walk starts at
 * the caller, whose return address is the interrupted window's %o7),
 * then the save areas' return addresses while they lie in the image or
 * the direct map (thread stacks are in the kmap window: arch_translate).
 */
unsigned arch_stack_walk(const struct trap_frame *f, bool at_boundary, uint64_t *pcs,
			 unsigned max)
{
	unsigned n = 0;

	if (max == 0)
		return 0;
	if (at_boundary)
		pcs[n++] = f->o[7] + 8;
	else
		pcs[n++] = f->tpc;
	/* At a boundary the function has no window yet: the interrupted one is its caller's. */
	uintptr_t fp = trap_frame_fp(f);
	while (n < max && fp && (fp & 7) == 0 && arch_translate(fp, NULL) != UINT64_MAX &&
	       arch_translate(fp + ARCH_FRAME_RECORD_SIZE - 1, NULL) != UINT64_MAX) {
		uintptr_t ret;
		uintptr_t next = arch_frame_unwind(fp, &ret);
		if (!ret)
			break;
		pcs[n++] = ret;
		if (next <= fp)
			break;
		fp = next;
	}
	return n;
}

/*
 * A return's target (%i7 + 8 or %o7 + 8) takes effect after its delay
 * slot, which may itself be a restore that moves the window: single steps
 * are not offered on this machine (scion/pause.h), so it never answers.
 */
bool arch_return_target(const struct trap_frame *f, uint64_t *to)
{
	(void)f;
	(void)to;
	return false;
}

/* Not worked out: single steps are not offered on this machine (scion/pause.h). */
bool arch_indirect_target(const struct trap_frame *f, uint64_t addr, const uint8_t *code,
			  size_t avail, uint64_t *to)
{
	(void)f;
	(void)addr;
	(void)code;
	(void)avail;
	(void)to;
	return false;
}
