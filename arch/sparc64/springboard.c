// SPDX-License-Identifier: BSD-2-Clause
/*
 * Springboard space on sparc64 (scion/probe_arch.h): KernInst's answer to
 * ba,a's +-8 MB. A site whose patch lies in the far arena branches to a
 * slot near it, whose longer jump reaches the patch (patch_springboard).
 * The space is text the kernel no longer runs: the padding after the last
 * function of .text and the boot-only code after it (.init.text, dead once
 * the kernel has booted), [__text_end, __init_text_end), all within ba,a's
 * reach of every probe-able instruction (kernel.ld keeps the image in 4 MB).
 * It is handed out in 32-byte slots; a slot is taken only when no CPU or
 * thread has a pc or a stack word in it (boot-only code still running
 * never is), and on release gets its booted bytes back, so `text verify`
 * finds the text as booted once every probe is gone.
 * Lock order: probe_mutex (the callers hold it); text_poke's own mutex
 * inside.
 */
#include <scion/probe_arch.h>
#include <scion/textimage.h>
#include <scion/textpoke.h>
#include <scion/compiler.h>
#include <scion/printk.h>

extern char __text_end[], __init_text_end[];

#define SLOT ARCH_PROBE_SPRINGBOARD_LEN
#define MAX_SLOTS 1024

static uint64_t slot_used[MAX_SLOTS / 64];	/* probe_mutex */

static uint64_t space_start(void)
{
	return ALIGN_UP((uintptr_t)__text_end, SLOT);
}

static unsigned slot_count(void)
{
	uint64_t end = ALIGN_DOWN((uintptr_t)__init_text_end, SLOT);
	unsigned n = end > space_start() ? (unsigned)((end - space_start()) / SLOT) : 0;
	return n < MAX_SLOTS ? n : MAX_SLOTS;
}

bool arch_probe_springboard_contains(uint64_t addr, size_t len)
{
	uint64_t start = space_start(), end = start + (uint64_t)slot_count() * SLOT;
	return addr >= start && addr + len >= addr && addr + len <= end;
}

bool arch_probe_reaches(uint64_t site, uint64_t patch)
{
	uint32_t w;
	return patch_ba_a(&w, site, patch);
}

uint64_t arch_probe_springboard_alloc(uint64_t site, const char **why)
{
	unsigned n = slot_count();
	bool in_use_seen = false;

	for (unsigned i = 0; i < n; i++) {
		uint64_t slot = space_start() + (uint64_t)i * SLOT;
		uint32_t w;
		if ((slot_used[i / 64] >> (i % 64)) & 1 || !patch_ba_a(&w, site, slot))
			continue;
		if (probe_range_in_use(slot, slot + SLOT)) {
			in_use_seen = true;
			continue;
		}
		slot_used[i / 64] |= 1ull << (i % 64);
		return slot;
	}
	*why = in_use_seen ? "every free springboard slot within ba,a's reach is still in use"
			   : "no springboard slot is left within ba,a's reach";
	return 0;
}

void arch_probe_springboard_free(uint64_t slot)
{
	unsigned i = (unsigned)((slot - space_start()) / SLOT);

	if (!arch_probe_springboard_contains(slot, SLOT) || !((slot_used[i / 64] >> (i % 64)) & 1))
		panic("probe: freeing 0x%llx, which is no springboard slot in use",
		      (unsigned long long)slot);
	int err = text_poke((void *)(uintptr_t)slot, text_image_bytes(slot), SLOT);
	if (err)
		panic("probe: cannot restore the springboard slot at 0x%llx", (unsigned long long)slot);
	slot_used[i / 64] &= ~(1ull << (i % 64));
}
