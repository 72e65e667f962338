/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Register states for code run in the window child (window_states.c),
 * shared by the SFI proof and the verifier's fuzzer: values aimed so
 * that an unconfined store or branch lands on the target page (outside
 * the window's reserve, read-only: the CPU reports it), boundary values,
 * random canonical user addresses (every address the CPU forms from
 * them is canonical and user, so the CPU alone classifies the fault),
 * and random 64-bit values.
 */
#ifndef SFI_WINDOW_STATES_H
#define SFI_WINDOW_STATES_H

#include <stdint.h>

/* How many states window_state knows; index modulo this. */
unsigned window_state_count(void);

/*
 * window_state - fill gpr[16] (enum insn_reg order) and *rflags with
 *   state `index`: every register but %r15 (the window base) and %rsp
 *   (the entry's; the caller may pick another window_stack_pointer)
 *   gets the state's value; %r14 a random one unless the state aims it
 *   too; the status flags are random. rng feeds the random parts.
 * Return value: the state's name, for reports ("aim (T-W)*8").
 */
const char *window_state(unsigned index, uint64_t *rng, uint64_t gpr[16], uint64_t *rflags);

/* How many stack pointers window_stack_pointer knows. */
unsigned window_stack_pointer_count(void);

/* Stack pointer `index`: the entry's, the stack's bottom and top, unaligned ones between. */
uint64_t window_stack_pointer(unsigned index);

#endif
