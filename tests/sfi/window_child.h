/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The window child (window_child.c): a traced process laid out like a
 * sandboxed graft's window (window_layout.h), in which the parent runs
 * candidate graft code one instruction at a time and the CPU and the
 * page tables, not the arch decoder, say whether it stayed confined.
 *
 * Once started the child never runs its own code again: every write
 * outside the window's stack and the graft's data faults, every read
 * outside the window's reserve succeeds, and every system call stops
 * before it runs. The parent writes code into the text region and reads
 * the stack and the data through its own mappings of the same memory.
 */
#ifndef SFI_WINDOW_CHILD_H
#define SFI_WINDOW_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>
#include "window_layout.h"

enum window_outcome {
	WINDOW_EXIT,		/* reached the exit gate, or the run's end address */
	WINDOW_GUARD_FAULT,	/* page fault inside the window's reserve */
	WINDOW_READ_FAULT,	/* #GP or a fault outside the user half, by an instruction that stores nothing */
	WINDOW_UD,		/* SIGILL: ud2, ud0/1, an instruction this CPU lacks */
	WINDOW_DIVIDE,		/* SIGFPE: #DE */
	WINDOW_TRAP,		/* SIGTRAP other than the step's: int3, int1 */
	WINDOW_STEP_LIMIT,
	WINDOW_ESCAPE,		/* a store, a branch or a register left the sandbox */
	WINDOW_BROKEN,		/* the harness failed (the child died, ptrace refused) */
	WINDOW_OUTCOMES
};

struct window_child {
	pid_t pid;
	uint64_t text_size;
	uint8_t *text;		/* the parent's view of the text region */
	uint8_t *stack;		/* ... of the window's stack */
	uint8_t *data;		/* ... of the graft's data (and its alias) */
	struct user_regs_struct initial;	/* segment registers and bases every run starts from */
	uint64_t rng;		/* for what the emulated API returns */
	uint64_t steps;		/* every step of every run */
	uint64_t runs, restarts;
	int fds[3];		/* text, stack, data memfds */
};

/* One run: where it starts, what it may reach, its registers. */
struct window_run {
	const uint8_t *marks;	/* sfi_verify's marks of the text, or NULL: any text offset */
	uint64_t entry;		/* first rip: an instruction start in the text */
	uint64_t end;		/* a rip that ends the run as an exit (0: none) */
	unsigned step_limit;
	uint64_t gpr[16];	/* rax .. r15 in enum insn_reg order; r15 is set to WINDOW_BASE */
	uint64_t rflags;	/* status flags; IF and the reserved bit are added */
};

struct window_result {
	enum window_outcome outcome;
	unsigned steps;
	uint64_t rip;		/* of the last instruction run or tried */
	uint64_t fault_addr;	/* SIGSEGV/SIGBUS: the CPU's address (0 for #GP) */
	char why[320];		/* one line: what happened, where, the registers that matter */
};

/*
 * window_child_start - fork and trace a child laid out for a text region
 *   of text_size bytes (a power of two, 4096 .. WINDOW_TEXT_MAX).
 * Return value: 0, or -1 with err holding what failed.
 */
int window_child_start(struct window_child *c, uint64_t text_size, char *err, size_t errlen);

/* window_child_run - run from run->entry until an outcome; fills *res. */
void window_child_run(struct window_child *c, const struct window_run *run, struct window_result *res);

/* window_child_stop - kill and reap the child, unmap the parent's views. */
void window_child_stop(struct window_child *c);

const char *window_outcome_name(enum window_outcome o);

/*
 * window_pin_to_this_cpu - keep the calling thread (and a child started
 *   after it) on the CPU it runs on: each step then wakes the peer on
 *   the same CPU, several times faster than across CPUs on this kind of
 *   virtual machine. SFI_WINDOW_NO_PIN=1 in the environment turns it off.
 */
void window_pin_to_this_cpu(void);

/* A 64-bit generator for states and the emulated API (xorshift64*). */
static inline uint64_t window_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

#endif
