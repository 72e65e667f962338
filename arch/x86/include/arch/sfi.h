/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Software fault isolation for grafts on x86-64: the scheme that the
 * graft build's sandboxing step (arch/x86/tools/sfi_x86.py) writes, that the
 * loader's verifier (arch/x86/sfi_verify.c) checks, and that the
 * dispatcher (arch/x86/txn_call.S) and trap entry (trap_entry.S) run.
 * VINO's MiSFIT in the shape of NaCl and LFI: a rewriting step at build
 * time and a small verifier at load time; the verifier alone makes the
 * guarantee.
 *
 * Threat model. A graft object is hostile: its bytes may come from
 * anywhere. Confined: every store, and every control transfer. A
 * sandboxed graft can write only its own data and its own stack, and
 * can transfer control only to verified instruction boundaries of its
 * own text, to a call of an exported graft API function, or to the exit
 * gate. No kernel code runs on its stack, and nothing it does can take
 * the kernel down: its faults and its overrunning abort its transaction.
 * Not confined: reads. A graft may read any mapped kernel memory (what
 * it reads only reaches the kernel through its return value and API
 * arguments, which the points and the API check); a read of unmapped or
 * non-canonical memory faults, and the fault aborts its transaction.
 * Residual risks, not addressed: a read of device memory with a side
 * effect (Scion maps the local APIC, the I/O APIC and virtio's BARs;
 * virtio's ISR status clears on read, and Scion takes virtio's
 * interrupts by MSI-X, which does not use it); what a graft learns by
 * reading (confidentiality is not a goal); speculative execution. Time
 * is confined by the transaction's budget, not by this scheme. The
 * graft API is trusted: each exported function checks its arguments
 * (none takes a pointer it writes through).
 *
 * Memory. Each (graft, CPU) pair has a window W: 4 GiB of virtual
 * space, aligned to 4 GiB, with 4 GiB unmapped below and above it
 * (SFI_WINDOW_STRIDE; the last window's upper guard lies past the
 * window area, where nothing is mapped either: sfi.c's asserts). Mapped
 * in the window, and nothing else:
 *   - at offset 0, this CPU's stack for the graft (SFI_STACK_SIZE),
 *     private: no other CPU's code can store into it;
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
 *   1. Every instruction decodes, is legacy-encoded, lies inside one
 *      bundle, and its form is admitted by arch/x86/opcodes.map, which
 *      states for each admitted form all the memory it may write, relative
 *      to its operands (sfi=none, op: the operand's size at its effective
 *      address, pair: cmpxchg8b/16b's 8 or 16 bytes there, stack: push
 *      and call, below %rsp), and for each other form the one line that
 *      says why it is refused. Refused because the bytes they write are
 *      not [EA, EA + size) of their operand: bts/btr/btc with a register
 *      bit offset (up to 2^60 bytes away), string instructions, implicit
 *      memory destinations (movdir64b, clzero), state saves (fxsave,
 *      xsave: hundreds of bytes), enter (pushes and moves %rsp by an
 *      immediate), 64-bit absolute addresses (moffs). Refused because they
 *      move control other than to an encoded direct target or the next
 *      instruction: ret (any form), far transfers, int, syscall, iret,
 *      xbegin (an abort jumps to its fallback). The generator refuses an
 *      sfi= that disagrees with the form's operands, and a host test
 *      checks the decoder's reading of every form against its extent.
 *   2. Prefixes: no address-size prefix; no segment override (but on a
 *      nop); no 66, f2 or f3 on a branch (a 66 makes a rel16 branch, or
 *      a 16-bit indirect target, on AMD and is ignored by Intel: their
 *      lengths and targets differ); no f2 or f3 on a form that takes no
 *      mandatory prefix (CPUs give such pairs new meanings, as f3 0f b8
 *      became popcnt). A REX counts only right before the opcode, as on
 *      the CPU.
 *   3. No instruction writes %r15, in whole or in part (a byte or word
 *      write, an exchange, an implicit operand: the decoder counts each
 *      as a write of the register). No instruction writes %rsp except
 *      push, pop and call (by 8: their 16-bit forms are refused; pop
 *      %rsp is refused) and the stack guard:
 *                         and $SFI_STACK_MASK, %r14
 *                         or %r15, %r14
 *                         mov %r14, %rsp
 *      (the rewriter computes the new %rsp into %r14 with lea first).
 *      Hence, at every instruction boundary, W <= %rsp <= W +
 *      SFI_STACK_SIZE: a push below W faults in the guard below, a pop
 *      above the top reads unmapped memory and faults.
 *   4. Every store (a form with an op or pair extent whose operand is
 *      memory) is one of: [%rsp + disp] (the stack); [%r15 + %r14 + disp]
 *      with scale 1 where the instruction just before it, in its bundle,
 *      writes %r14 as a 32-bit register (lea or mov into %r14d, which
 *      zero-extends; a 16-bit write keeps the upper bits and is no
 *      guard); a rip-relative or absolute address whose whole extent lies
 *      inside the graft's data region; or push/call.
 *      The guard's arithmetic: a guarded store's bytes lie in
 *      [W - 2^31, W + 2^32 - 1 + 2^31 - 1 + 16), a stack store's in
 *      [W - 2^31, W + SFI_STACK_SIZE + 2^31 + 16): inside the window and
 *      its guards, where nothing but the stack and the data alias is
 *      mapped.
 *   5. Indirect branches are only   and $SFI_TEXT_MASK(P), %r14
 *                                   or $TEXT_BASE, %r14
 *                                   jmp *%r14  (or call *%r14)
 *      with the immediates of this graft's text region. A return is
 *      pop %r14 and then the same three instructions.
 *   6. Each guarded sequence (the instruction before a masked store,
 *      the and/or before an indirect branch or a stack guard) lies in
 *      one bundle, and no direct branch targets its interior; the
 *      verifier forgets the instruction before at each bundle start, so
 *      a guard that ends one bundle guards nothing in the next.
 *   7. Direct branches: jmp and jcc to an instruction start in the
 *      text, or jmp to the exit gate; call to an instruction start in
 *      the text, or to an exported graft API entry right after the API
 *      stack probe (below), in its bundle. A jump to an API function (a
 *      tail call) is refused: the API function would return through a
 *      return address the graft wrote.
 * A call inside the graft is written   push $next ; jmp target   with
 * next the following bundle start (the rewriter pads to it), because a
 * guarded return can only reach bundle starts; a call to the API is a
 * real call (the API returns with its own ret).
 * tests/sfi/ executes every form the verifier accepts, single-stepped in
 * a process laid out as a window, and checks with the page tables that
 * nothing outside the window and the data is written and that control
 * stays in the text.
 *
 * Entry and exit (txn_call.S). The dispatcher saves the kernel's
 * callee-saved registers and stack pointer (sandbox_sp), loads %r15 with
 * the window base, switches %rsp to the top of the window's stack,
 * pushes the address of the exit stub (the loader's last bundle of the
 * text: jmp to the exit gate) and jumps to the graft's entry. The exit
 * gate takes the kernel stack pointer from per-CPU memory, never from
 * the graft, and restores every callee-saved register, so a graft that
 * jumps to it early only returns early.
 *
 * Kernel code on the window's stack only with room: the graft may fill
 * it to its last byte, and a fault for lack of room could not be
 * delivered there (a double fault in the kernel, not in the graft):
 *   - interrupts arrive on a per-CPU entry stack (IST) and trap entry
 *     moves them to the kernel stack below sandbox_sp; an exception the
 *     graft takes is moved there too; one the CPU cannot even push (the
 *     stack full to its last bytes) is a double fault, which aborts the
 *     transaction (arch_sfi_entry_overflow);
 *   - an API function runs on the window's stack with SFI_API_STACK
 *     bytes of it free, which the probe before every call checked.
 * A graft is not entered again on a CPU where it is already running:
 * its stack holds the outer invocation's frames, which the inner one
 * would overwrite. That invocation runs the point's default.
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
 * The stack an API function may need: as much as a kernel thread has
 * (THREAD_STACK_SIZE, checked in sfi.c); kernel code must fit that
 * anyway. A graft's call of the API is preceded, in its bundle, by the
 * API stack probe   test %al, -SFI_API_STACK(%rsp)   (any register): with
 * less room than that left on the window's stack, the read faults in the
 * guard below it and the graft aborts, before any kernel code runs where
 * a fault for lack of room could not be delivered.
 */
#define SFI_API_STACK      0x4000	/* 16 KiB: the probe's displacement */

#define SFI_ERR_MAX 224

/* What sfi_verify leaves in marks[] for each offset of the text region. */
#define SFI_MARK_START    0x01	/* an instruction starts here */
#define SFI_MARK_GUARDED  0x02	/* inside a guarded sequence: no branch may land here */
#define SFI_MARK_BRANCH   0x04	/* a direct branch starts here: its target is checked last */

#include <scion/sfi_arch.h>

#endif
