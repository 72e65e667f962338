/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The child's side of the window child (window_setup.c), for
 * window_child.c only: lay the address space out, seal it, stop.
 */
#ifndef SFI_WINDOW_SETUP_H
#define SFI_WINDOW_SETUP_H

#include <stdint.h>

struct window_seal_range {
	uint64_t addr, len, prot;
};

/* window_seal.S: mprotect each range, then int3 (never returns to C). */
void window_seal(const struct window_seal_range *r, uint64_t n) __attribute__((noreturn));
extern const char window_seal_done[], window_seal_failed[];

/*
 * window_setup_child - in the forked child: PTRACE_TRACEME, map the
 *   window (text, stack, data and its alias from the memfds fds[0..2]),
 *   map every hole of the user half read-only, seal, stop. A failure
 *   before the seal writes one line to err_fd and exits with status 1.
 */
void window_setup_child(const int fds[3], uint64_t text_size, int err_fd) __attribute__((noreturn));

#endif
