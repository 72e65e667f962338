/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The register state saved on entry to an exception or interrupt
 * (arch/x86/trap_entry.S), and what portable code may ask of it.
 */
#ifndef ARCH_TRAP_H
#define ARCH_TRAP_H

#include <stdint.h>
#include <stdbool.h>

struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error;
	/* pushed by the CPU */
	uint64_t rip, cs, rflags, rsp, ss;
};

static inline uintptr_t trap_frame_pc(const struct trap_frame *f)
{
	return f->rip;
}

static inline void trap_frame_set_pc(struct trap_frame *f, uintptr_t pc)
{
	f->rip = pc;
}

/* The frame pointer of the interrupted code, where its backtrace starts. */
static inline uintptr_t trap_frame_fp(const struct trap_frame *f)
{
	return f->rbp;
}

static inline uintptr_t trap_frame_sp(const struct trap_frame *f)
{
	return f->rsp;
}

/* Set argument n (0..5) as trap_frame_arg reads it (software-fired probes). */
static inline void trap_frame_set_arg(struct trap_frame *f, unsigned n, uint64_t v)
{
	switch (n) {
	case 0: f->rdi = v; break;
	case 1: f->rsi = v; break;
	case 2: f->rdx = v; break;
	case 3: f->rcx = v; break;
	case 4: f->r8 = v; break;
	case 5: f->r9 = v; break;
	default: break;
	}
}

/*
 * Fill f's pc, frame and stack pointer with the caller's own, so a
 * backtrace from f starts where trap_frame_capture was written.
 */
static inline __attribute__((always_inline)) void trap_frame_capture(struct trap_frame *f)
{
	__asm__ volatile("lea 0(%%rip), %0" : "=r"(f->rip));
	f->rbp = (uint64_t)(uintptr_t)__builtin_frame_address(0);
	__asm__ volatile("mov %%rsp, %0" : "=r"(f->rsp));
}

/* Argument n (0..5) of a call, as it stands at a function's entry or an sdt site. */
static inline uint64_t trap_frame_arg(const struct trap_frame *f, unsigned n)
{
	switch (n) {
	case 0: return f->rdi;
	case 1: return f->rsi;
	case 2: return f->rdx;
	case 3: return f->rcx;
	case 4: return f->r8;
	case 5: return f->r9;
	default: return 0;
	}
}

/* The value a function returns, as it stands at its ret. */
static inline uint64_t trap_frame_retval(const struct trap_frame *f)
{
	return f->rax;
}

static inline bool trap_frame_irqs_were_enabled(const struct trap_frame *f)
{
	return (f->rflags & (1u << 9)) != 0;
}

/*
 * A kernel-mode breakpoint trap (#BP, no IST) leaves its frame on the
 * thread's own stack and its handler may sleep there with interrupts
 * unmasked: a single step may pause a thread at a breakpoint site
 * (scion/pause.h).
 */
#define ARCH_PAUSE_AT_BREAKPOINT 1

/* Print the registers of f, a few per line, each line starting with prefix. */
void arch_trap_print_regs(const struct trap_frame *f);

/*
 * arch_frame_unwind - step one frame up a frame-pointer chain.
 * Arguments: fp, a frame pointer the caller has checked lies within a
 *   known stack; *ret receives the return address stored in that frame.
 * Return value: the caller's frame pointer.
 */
static inline uintptr_t arch_frame_unwind(uintptr_t fp, uintptr_t *ret)
{
	const uintptr_t *frame = (const uintptr_t *)fp;
	*ret = frame[1];
	return frame[0];
}

/* Size of a frame record (saved fp + return address) on the stack. */
#define ARCH_FRAME_RECORD_SIZE 16

/*
 * The frame of the interrupt this CPU is handling (the one a cross-call
 * function runs in), or NULL. Caller's context: interrupt handler.
 */
struct trap_frame *arch_interrupted_frame(void);

/* Frame pointer of the calling function. */
#define arch_current_fp() ((uintptr_t)__builtin_frame_address(0))

#endif
