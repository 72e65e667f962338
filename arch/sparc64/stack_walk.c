// SPDX-License-Identifier: BSD-2-Clause
/*
 * Backtraces through register windows. A caller's return address and
 * frame pointer live in its window's %i7 and %i6, which reach memory
 * only when the window is spilled: `flushw` first spills every window
 * to its frame's save area, then the walk reads each frame's saved %i7
 * (the call instruction) and %i6 (the caller's %sp) at %sp + 2047.
 * Invariants: the walk reads only inside the kernel image (the stacks
 * are in it), stops at a zero %fp (the boot stack's top frame), at an
 * even (32-bit) %sp, and after 64 frames.
 */
#include <scion/symtab.h>

#include "sparc64_internal.h"

extern char __image_start[], __image_end[];

#define MAX_FRAMES 64

static bool frame_ok(uint64_t sp)
{
	uint64_t base = sp + STACK_BIAS;

	return (sp & 1) && (base & 7) == 0 && base >= (uint64_t)__image_start &&
	       base + MIN_FRAME <= (uint64_t)__image_end;
}

const char *backtrace_symbolize(uint64_t pc, char *buf, size_t size)
{
	return symtab_format(&kernel_symtab, pc, buf, size);
}

/*
 * backtrace_print - print "#0 pc function+0xoff" for pc, then one line
 * per caller, starting from the frame whose %sp is sp (the interrupted
 * function's own window).
 */
void backtrace_print(uint64_t pc, uint64_t sp)
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
