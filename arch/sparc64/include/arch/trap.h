/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Trap frames on sparc64: what arch/sparc64/trap_entry.S saves for every
 * trap that reaches C, and how the portable core reads it. Same contract
 * as arch/x86/include/arch/trap.h.
 *
 * "Frame pointer" here means the unbiased address of a function's own
 * register-window save area (its %sp + 2047): the 16 words %l0-%l7,
 * %i0-%i7 a spill writes, where %i6 is the caller's %sp and %i7 the
 * function's call instruction. arch_frame_unwind flushes the register
 * windows first, so the save areas it reads are current.
 * Invariant: the layout matches trap_entry.S's TF_* offsets (checked in
 * arch/sparc64/trap.c).
 */
#ifndef ARCH_TRAP_H
#define ARCH_TRAP_H

#include <stdint.h>
#include <stdbool.h>

#define ARCH_STACK_BIAS 2047

struct trap_frame {
	uint64_t tstate, tpc, tnpc, tt;		/* 0, 8, 16, 24 */
	uint64_t tl;				/* 32: TL at the trap */
	uint64_t fault_addr;			/* 40: SFAR / tag access / 0 */
	uint64_t y;				/* 48 */
	uint64_t g[8];				/* 56: %g0 (unused) .. %g7 */
	uint64_t sp;				/* 120: the interrupted %sp (biased) */
	uint64_t outer_tt, outer_tpc;		/* 128, 136: TL 1's, when tl > 1 */
	uint64_t o[8];				/* 144: the interrupted %o0 .. %o7 */
};

static inline uintptr_t trap_frame_pc(const struct trap_frame *f)
{
	return f->tpc;
}

/* Resume at pc (and pc + 4 after it: no delayed control transfer pending). */
static inline void trap_frame_set_pc(struct trap_frame *f, uintptr_t pc)
{
	f->tpc = pc;
	f->tnpc = pc + 4;
}

/* The interrupted function's save area (its %sp + 2047). */
static inline uintptr_t trap_frame_fp(const struct trap_frame *f)
{
	return f->sp + ARCH_STACK_BIAS;
}

/* The interrupted stack pointer, unbiased (the lowest address of its frame). */
static inline uintptr_t trap_frame_sp(const struct trap_frame *f)
{
	return f->sp + ARCH_STACK_BIAS;
}

/* Arguments 0..5 travel in %o0..%o5 (V9 ABI). */
static inline void trap_frame_set_arg(struct trap_frame *f, unsigned n, uint64_t v)
{
	if (n < 6)
		f->o[n] = v;
}

static inline uint64_t trap_frame_arg(const struct trap_frame *f, unsigned n)
{
	return n < 6 ? f->o[n] : 0;
}

static inline uint64_t trap_frame_retval(const struct trap_frame *f)
{
	return f->o[0];
}

/*
 * A breakpoint trap's handler runs at trap level with the register
 * windows of the trapped code in flight: it never sleeps, so no pause,
 * not even a single step's, is taken at a breakpoint site (scion/pause.h).
 */
#define ARCH_PAUSE_AT_BREAKPOINT 0

static inline bool trap_frame_irqs_were_enabled(const struct trap_frame *f)
{
	return ((f->tstate >> 8) & 0x002) != 0;	/* TSTATE.PSTATE.IE */
}

/*
 * The current pc and stack, as a frame for a backtrace from here. The
 * walk (arch_frame_unwind) flushes the windows before it reads them.
 */
static inline __attribute__((always_inline)) void trap_frame_capture(struct trap_frame *f)
{
	__asm__ volatile("rd %%pc, %0" : "=r"(f->tpc));
	f->tnpc = f->tpc + 4;
	__asm__ volatile("mov %%sp, %0" : "=r"(f->sp));
}

/* Print the registers of a frame (fault reports). */
void arch_trap_print_regs(const struct trap_frame *f);

/*
 * arch_frame_unwind - one step up the stack.
 * Overview: flushes the register windows to their save areas, then reads
 *   the save area at fp: the function's return address (%i7 + 8) and its
 *   caller's save area (%i6 + 2047).
 * Arguments: fp, a save area (trap_frame_fp, arch_current_fp or a
 *   previous step's result); ret, set to the return address (0 at the
 *   top of a stack).
 * Return value: the caller's save area, or 0 at the top.
 * Caller's context: any; fp must be readable (the caller checks it lies
 *   in a stack).
 */
uintptr_t arch_frame_unwind(uintptr_t fp, uintptr_t *ret);

/* Bytes a save area holds: 16 registers of 8 bytes. */
#define ARCH_FRAME_RECORD_SIZE 128

/* The frame of the interrupt being handled on this CPU, or NULL. */
struct trap_frame *arch_interrupted_frame(void);

/* The executing function's save area (its %sp + 2047). */
#define arch_current_fp() ({							\
	uintptr_t sp__;								\
	__asm__ __volatile__("mov %%sp, %0" : "=r"(sp__));			\
	sp__ + ARCH_STACK_BIAS;							\
})

#endif
