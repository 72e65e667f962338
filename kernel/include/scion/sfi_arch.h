/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The arch contract of the graft sandbox (software fault isolation): what
 * the graft loader and the transaction code (kernel/graft/) ask of a
 * port's sandbox, written once here. x86 implements it (arch/x86/sfi.c,
 * sfi_text.c, sfi_verify.c; arch/x86/include/arch/sfi.h describes the
 * scheme, the layout and the state); a port without a sandbox refuses
 * arch_sfi_create and sfi_verify with FEATURE_SANDBOX's one line, and the
 * graft loader refuses a sandboxed load before it reaches them.
 * arch/sfi.h includes this file after its types (struct sfi_layout,
 * struct arch_sfi, SFI_ERR_MAX).
 */
#ifndef SCION_SFI_ARCH_H
#define SCION_SFI_ARCH_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

/*
 * arch_sfi_text_size - Overview: the size of the text region a graft
 *   whose sections take `bytes` gets: a power of two with room for the
 *   exit stub after the code. Caller's context: any.
 */
uint64_t arch_sfi_text_size(uint64_t bytes);

/*
 * arch_sfi_text_init - Overview: fill a fresh text region with the
 *   machine's trapping filler and write the exit stub (x86: ud2, and jmp
 *   exit_gate in its last bundle), before the loader copies the sections
 *   in.
 * Arguments: text, the region's bytes (writable); text_addr, where it
 *   runs; size, from arch_sfi_text_size; exit_gate, arch_sfi_exit in
 *   the kernel (within rel32 of text_addr).
 * Caller's context: any; touches only text.
 */
void arch_sfi_text_init(uint8_t *text, uint64_t text_addr, uint64_t size, uint64_t exit_gate);

/*
 * arch_sfi_create - Overview: map a window for every CPU online: a
 *   fresh stack and an alias of the graft's data pages.
 * Arguments: s, filled; text/text_size, the text region (for the exit
 *   stub); data/data_size, the data region (size 0: none); err/errlen.
 * Return value: 0, or -ENOMEM with err filled and nothing kept.
 * Caller's context: thread, no spinlocks.
 */
int arch_sfi_create(struct arch_sfi *s, uint64_t text, uint64_t text_size, uint64_t data,
		    uint64_t data_size, char *err, size_t errlen);

/*
 * arch_sfi_destroy - Overview: unmap the windows, make every CPU drop
 *   its translations of them (a cross-call), then free their stacks and
 *   give their address space back.
 * Caller's context: thread, no spinlocks (it waits for every CPU); the
 *   graft runs nowhere.
 */
void arch_sfi_destroy(struct arch_sfi *s);

/* Windows mapped now, of every graft (`graft list`). */
unsigned arch_sfi_windows_in_use(void);

/* Whether [a, a + len) lies in one of s's stacks (a string the graft built there). */
bool arch_sfi_owns_stack(const struct arch_sfi *s, uint64_t a, uint64_t len);

/*
 * arch_sfi_call - Overview: arch_txn_call for a sandboxed graft: save
 *   the caller's registers and stack pointer (an abort resumes as from
 *   arch_txn_call), give the graft its window (x86: in %r15) and the
 *   window's stack, make exit_stub its return address and jump to
 *   fn(args[0] .. args[5]).
 * Return value: fn's return value when it reaches the exit gate, 0 when
 *   abandoned.
 * Caller's context: as arch_txn_call (arch/txn.h).
 */
struct arch_txn_jmp;
uint64_t arch_sfi_call(struct arch_txn_jmp *jmp, uint64_t fn, const uint64_t args[6],
		       uint64_t window, uint64_t exit_stub);

/* The exit gate: back to the kernel stack arch_sfi_call saved (per CPU). */
extern char arch_sfi_exit[];

/*
 * arch_sfi_entry_overflow - Overview: whether the double fault f is an
 *   exception of s's graft that the CPU could not push on the graft's
 *   window stack on this CPU (full to its last bytes): f interrupted
 *   trap entry with the stack pointer in that window or its guards.
 *   Synchronous, so nothing else was under way: the transaction can
 *   abort. Caller's context: the double fault handler.
 */
struct trap_frame;
bool arch_sfi_entry_overflow(const struct arch_sfi *s, const struct trap_frame *f);

/*
 * sfi_verify - Overview: check that code[0 .. layout->text_size) (the
 *   whole text region, as it will run at layout->text) follows the
 *   scheme above.
 * Arguments: code, the region's bytes; layout, its addresses and what
 *   it may reach; marks, layout->text_size bytes, filled with the
 *   SFI_MARK_* of each offset (complete when it returns 0); err, a
 *   buffer of SFI_ERR_MAX bytes.
 * Return value: 0, or -1 with err holding one line that names the
 *   offending instruction and its offset: "offset 0x40: mov %rax,
 *   (%rbx): store through an unmasked register".
 * Caller's context: any; pure function of its arguments (the kernel's
 *   loader, the host tests and the fuzzer build the same file).
 */
int sfi_verify(const uint8_t *code, const struct sfi_layout *layout, uint8_t *marks,
	       char err[SFI_ERR_MAX]);

#endif
