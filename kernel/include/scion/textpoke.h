/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * text_poke: change the kernel's read-only text while it runs.
 */
#ifndef SCION_TEXTPOKE_H
#define SCION_TEXTPOKE_H

#include <scion/compiler.h>

#define TEXT_POKE_MAX 64

/*
 * text_poke - write len bytes at addr in kernel text.
 * The bytes are written through a temporary writable alias of the page(s)
 * (the text mapping itself stays read-only), then every CPU executes a
 * serializing instruction before text_poke returns, so no CPU goes on
 * running instructions fetched before the write. A change confined to
 * one naturally aligned 8-byte word is made with a single store, so
 * other CPUs see the old or the new bytes, never a mix; anything larger
 * must be made safe by its caller (the breakpoint protocol of jump
 * probes, scion/probe_arch.h).
 * Arguments: addr in kernel text; 1 <= len <= TEXT_POKE_MAX.
 * Return value: 0, -EINVAL for a range outside kernel text or a bad
 *   length, -ENOMEM if the alias cannot be mapped.
 * Caller's context: thread, no spinlocks held (it cross-calls every CPU);
 *   serialised with other pokes by a mutex; may sleep.
 */
int text_poke(void *addr, const void *bytes, size_t len);

struct text_poke_op {
	void *addr;
	const void *bytes;
	size_t len;
};

/*
 * text_poke_batch - make several text changes with one round of CPU
 * serialization: every op is written as text_poke writes it, then every
 * CPU serializes once. Nothing is written unless every op is valid.
 * Return value: 0, or text_poke's errors. Caller's context: as text_poke.
 */
int text_poke_batch(const struct text_poke_op *ops, size_t n);

/* Make every CPU execute a serializing instruction (one cross-call round). */
void text_sync_all_cpus(void);

/* Number of text_poke calls that changed text (statistics). */
uint64_t text_poke_count(void);

/* True when [addr, addr+len) lies inside the kernel's (non-boot) text. */
bool kernel_text_contains(uintptr_t addr, size_t len);

#endif
