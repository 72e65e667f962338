/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Software fault isolation for grafts on x86-64: the scheme that the
 * graft build's sandboxing step (tools/sfi_x86.py) writes, that the
 * loader's verifier (arch/x86/sfi_verify.c) checks, and that the
 * dispatcher (arch/x86/sfi_call.S) runs. VINO's MiSFIT in the shape of
 * NaCl and LFI: a rewriting step at build time and a small verifier at
 * load time; the verifier alone makes the guarantee.
 *
 * Threat model. A graft object is hostile: its bytes may come from
 * anywhere. Confined: every store, and every control transfer. A
 * sandboxed graft can write only its own data and its own stack, and
 * can transfer control only to verified instruction boundaries of its
 * own text, to a call of an exported graft API function, or to the exit
 * gate. Not confined: reads. A graft may read any mapped kernel memory
 * (what it reads only reaches the kernel through its return value and
 * API arguments, which the points and the API check); a read of
 * unmapped memory faults, and the fault aborts its transaction. Time is
 * confined by the transaction's budget, not by this scheme. The graft
 * API is trusted: each exported function checks its arguments (none
 * takes a pointer it writes through).
 *
 * Memory. Each (graft, CPU) pair has a window: 4 GiB of virtual space,
 * aligned to 4 GiB, with 4 GiB unmapped below and above it
 * (SFI_WINDOW_STRIDE), so that a register inside the window plus any
 * 32-bit displacement stays inside the window or its unmapped gaps.
 * Mapped in the window, and nothing else:
 *   - at offset 0, this CPU's stack for the graft (SFI_STACK_SIZE),
 *     private: no other CPU's code can store into it, so the frames the
 *     kernel pushes there (API calls, interrupts) are safe while the
 *     graft is not running on this CPU;
 *   - at offset (D & 0xffffffff), where D is the graft's data region
 *     (GRAFT_AREA, the top 2 GiB), an alias of the data's pages: a
 *     pointer to the graft's data, cut to its low 32 bits and added to
 *     the window base, reaches the same bytes.
 * %r15 holds the window's base while the graft runs and no graft
 * instruction writes it; %r14 is the sandbox's scratch register. GCC is
 * told so with -ffixed-r14 -ffixed-r15.
 *
 * Code. The text is laid out in bundles of SFI_BUNDLE bytes: no
 * instruction crosses a bundle boundary, so every bundle start is an
 * instruction start. The text region is aligned to its size, a power of
 * two P, and filled to P with ud2 after the code; indirect targets are
 * masked into it at bundle starts. Its base must be what a sign-extended
 * 32-bit immediate can say (the kernel's graft area is in the top 2 GiB;
 * the host fuzzer's text is in the bottom 2 GiB).
 *
 * What the verifier accepts (and the rewriter emits), instruction by
 * instruction, in one linear decode of the text region:
 *   1. Every instruction decodes, is legacy-encoded, is marked `sfi` in
 *      arch/x86/opcodes.map (general-purpose computation, moves,
 *      branches, push/pop, nop, ud2, fences; no privileged, I/O,
 *      segment, string, system or vector instruction), has no segment
 *      override (except on a multi-byte nop) and no address-size
 *      prefix, and lies inside one bundle.
 *   2. No instruction writes %r15. No instruction writes %rsp except
 *      push, pop and call (by 8, never with %rsp as their operand), and
 *      the stack guard:   and $SFI_STACK_MASK, %r14
 *                         or %r15, %r14
 *                         mov %r14, %rsp
 *      (the rewriter computes the new %rsp into %r14 with lea first).
 *   3. Every store (an instruction whose memory operand is written) is
 *      one of: [%rsp + disp] (the stack); [%r15 + %r14 + disp] where the
 *      instruction just before it, in its bundle, writes %r14 as a
 *      32-bit register (lea or mov into %r14d, which zero-extends); a
 *      rip-relative or absolute address whose bytes lie inside the
 *      graft's data region; or push/call.
 *   4. Indirect branches are only   and $SFI_TEXT_MASK(P), %r14
 *                                   or $TEXT_BASE, %r14
 *                                   jmp *%r14  (or call *%r14)
 *      with the immediates of this graft's text region. ret is refused:
 *      a return is   pop %r14   and then the same three instructions.
 *   5. Each guarded sequence (the instruction before a masked store,
 *      the and/or before an indirect branch or a stack guard) lies in
 *      one bundle, and no direct branch targets its interior.
 *   6. Direct branches: jmp and jcc to an instruction start in the
 *      text, or jmp to the exit gate; call to an instruction start in
 *      the text or to an exported graft API entry. A jump to an API
 *      function (a tail call) is refused: the API function would
 *      return through a return address the graft wrote.
 * A call inside the graft is written   push $next ; jmp target   with
 * next the following bundle start (the rewriter pads to it), because a
 * guarded return can only reach bundle starts; a call to the API is a
 * real call (the API returns with its own ret).
 *
 * Entry and exit (sfi_call.S). The dispatcher saves the kernel's
 * callee-saved registers and stack pointer, loads %r15 with the window
 * base, switches %rsp to the top of the window's stack, pushes the
 * address of the exit stub (the loader's last bundle of the text:
 * jmp to the exit gate) and jumps to the graft's entry. The exit gate
 * takes the kernel stack pointer from per-CPU memory, never from the
 * graft, and restores every callee-saved register, so a graft that
 * jumps to it early only returns early. A graft is not entered again on
 * a CPU where it is already running (its stack is in use): that
 * invocation runs the point's default.
 */
#ifndef ARCH_SFI_H
#define ARCH_SFI_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

#define SFI_BUNDLE_SHIFT   5
#define SFI_BUNDLE         (1u << SFI_BUNDLE_SHIFT)
#define SFI_STACK_SIZE     (32u * 1024)
#define SFI_STACK_MASK     (SFI_STACK_SIZE - 1)
#define SFI_WINDOW_SIZE    (1ull << 32)
#define SFI_WINDOW_STRIDE  (1ull << 33)	/* window + 4 GiB unmapped */
#define SFI_TEXT_MIN       4096u		/* smallest text region (P) */

/* The and-mask of an indirect branch into a text region of size p. */
static inline uint32_t sfi_text_mask(uint32_t p)
{
	return (p - 1) & ~(SFI_BUNDLE - 1);
}

/* What the verifier is told about one loaded graft. */
struct sfi_layout {
	uint64_t text, text_size;	/* the text region: text_size a power of two, text aligned to it */
	uint64_t data, data_size;	/* the data region (static stores land here); size 0: none */
	uint64_t entry;			/* where the dispatcher enters: a bundle start */
	uint64_t exit_gate;		/* the only kernel address a jmp may reach */
	/* Whether a direct call may reach addr (an exported graft API entry). */
	bool (*is_api_entry)(void *ctx, uint64_t addr);
	void *ctx;
};

/*
 * The sandbox of one loaded graft (arch/x86/sfi.c): a window per CPU
 * and the exit stub the dispatcher returns through.
 */
struct arch_sfi {
	uint64_t *window;		/* set once: window[i] is CPU i's base */
	unsigned nwindows;		/* set once: cpu_count() at load */
	uint64_t exit_stub;		/* set once: the text region's last bundle */
	uint64_t data;			/* set once: the data region it aliases */
	uint64_t data_size;
};

/*
 * arch_sfi_text_size - Overview: the size of the text region a graft
 *   whose sections take `bytes` gets: a power of two with room for the
 *   exit stub after the code. Caller's context: any.
 */
uint64_t arch_sfi_text_size(uint64_t bytes);

/*
 * arch_sfi_text_init - Overview: fill a fresh text region with ud2 and
 *   write the exit stub (jmp exit_gate) in its last bundle, before the
 *   loader copies the sections in.
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
 *   arch_txn_call), load %r15 with window, switch to the window's stack,
 *   push exit_stub and jump to fn(args[0] .. args[5]).
 * Return value: fn's %rax when it reaches the exit gate, 0 when abandoned.
 * Caller's context: as arch_txn_call (arch/txn.h).
 */
struct arch_txn_jmp;
uint64_t arch_sfi_call(struct arch_txn_jmp *jmp, uint64_t fn, const uint64_t args[6],
		       uint64_t window, uint64_t exit_stub);

/* The exit gate: back to the kernel stack arch_sfi_call saved (per CPU). */
extern char arch_sfi_exit[];

#define SFI_ERR_MAX 224

/*
 * sfi_verify - Overview: check that code[0 .. layout->text_size) (the
 *   whole text region, as it will run at layout->text) follows the
 *   scheme above.
 * Arguments: code, the region's bytes; layout, its addresses and what
 *   it may reach; marks, scratch of layout->text_size bytes; err, a
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
