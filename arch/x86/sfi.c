// SPDX-License-Identifier: BSD-2-Clause
/*
 * The run-time side of sandboxed grafts (the scheme: arch/sfi.h): the
 * per-CPU windows (a private stack, and an alias of the graft's data)
 * in the window area. (Text regions are laid out by sfi_text.c.)
 *
 * The area holds SFI_AREA_SLOTS windows (16 TiB of address space),
 * taken from a bitmap. A graft's windows are given back when it is
 * unloaded (a simulation's private copy), in steps:
 *   1. unmap every page of its windows (this CPU's TLB forgets them);
 *   2. make every CPU reload its page-table base, dropping whatever it
 *      cached of them (their mappings are not global);
 *   3. only then free the stacks' pages and return the slots, so no CPU
 *      can reach a freed page, or another graft's new window, through a
 *      stale translation.
 * When the area is used up, a load fails with one line.
 *
 * Lock order: window_lock is a leaf, held only to take or return slots.
 */
#include <arch/sfi.h>
#include <arch/mmu.h>
#include <scion/cpu.h>
#include <scion/mm.h>
#include <scion/errno.h>
#include <scion/format.h>
#include <scion/string.h>
#include <scion/spinlock.h>
#include <scion/compiler.h>
#include <scion/xcall.h>
#include <scion/thread.h>
#include <arch/trap.h>
#include "vectors.h"

#define SFI_AREA_BASE   0xffffd00000000000ull	/* above VMAP_LIMIT, below VBUF_BASE */
#define SFI_AREA_SLOTS  2048u			/* windows of SFI_WINDOW_STRIDE: 16 TiB */
#define STACK_PAGES     (SFI_STACK_SIZE / PAGE_SIZE)

_Static_assert(SFI_AREA_BASE + (uint64_t)SFI_AREA_SLOTS * SFI_WINDOW_STRIDE <= VBUF_BASE,
	       "the window area overlaps the large buffers");
_Static_assert(SFI_AREA_BASE >= VMAP_LIMIT, "the window area overlaps the stacks");
/* The last window's upper guard lies past the area: nothing may be mapped there either. */
_Static_assert(SFI_AREA_BASE + (uint64_t)SFI_AREA_SLOTS * SFI_WINDOW_STRIDE + SFI_WINDOW_SIZE <=
	       VBUF_BASE, "the last window's upper guard overlaps the large buffers");
/* txn_call.S spells these out. */
_Static_assert(offsetof(struct cpu, sandbox_sp) == 8,
	       "arch/txn.h's asm reaches sandbox_sp at %gs:8");
_Static_assert(SFI_API_STACK >= THREAD_STACK_SIZE && SFI_API_STACK < SFI_STACK_SIZE,
	       "an API function runs on the window's stack with a kernel thread's room");
_Static_assert(SFI_AREA_BASE >> 32 == 0xffffd000 &&
	       (SFI_AREA_BASE + (uint64_t)SFI_AREA_SLOTS * SFI_WINDOW_STRIDE - 1) >> 32 == 0xffffdfff,
	       "trap_entry.S's SFI_AREA_HIGH_FIRST/LAST");
_Static_assert(SFI_STACK_SIZE == 0x8000, "txn_call.S's SFI_STACK_SIZE");

static struct spinlock window_lock = SPINLOCK_INIT("sfi-windows");
static uint64_t slot_used[SFI_AREA_SLOTS / 64];	/* window_lock: a bit per window */

/* The window is the upper half of its slot: 4 GiB unmapped below and above. */
static uint64_t slot_base(unsigned slot)
{
	return SFI_AREA_BASE + (uint64_t)slot * SFI_WINDOW_STRIDE + SFI_WINDOW_SIZE;
}

/* The base of a free window, or 0 when the area is used up. */
static uint64_t take_window(void)
{
	irqflags_t f = spin_lock_irqsave(&window_lock);
	unsigned slot = 0;
	while (slot < SFI_AREA_SLOTS && (slot_used[slot / 64] & (1ull << (slot % 64))))
		slot++;
	if (slot < SFI_AREA_SLOTS)
		slot_used[slot / 64] |= 1ull << (slot % 64);
	spin_unlock_irqrestore(&window_lock, f);
	return slot < SFI_AREA_SLOTS ? slot_base(slot) : 0;
}

static void return_window(uint64_t base)
{
	unsigned slot = (unsigned)((base - SFI_WINDOW_SIZE - SFI_AREA_BASE) / SFI_WINDOW_STRIDE);
	irqflags_t f = spin_lock_irqsave(&window_lock);
	slot_used[slot / 64] &= ~(1ull << (slot % 64));
	spin_unlock_irqrestore(&window_lock, f);
}

/* Step 1: unmap base's pages; the stack's physical pages go to stack[] for step 3. */
static void unmap_window(uint64_t base, const struct arch_sfi *s, uint64_t stack[STACK_PAGES])
{
	for (unsigned i = 0; i < STACK_PAGES; i++)
		stack[i] = arch_unmap_page(base + i * PAGE_SIZE);
	uint64_t alias = base + (s->data & (SFI_WINDOW_SIZE - 1));
	for (uint64_t off = 0; off < s->data_size; off += PAGE_SIZE)
		arch_unmap_page(alias + off);	/* the data's own pages: the graft region frees them */
}

static void reload_page_tables(void *arg)
{
	(void)arg;
	arch_flush_tlb_local();
}

static int map_window(uint64_t base, const struct arch_sfi *s)
{
	for (unsigned i = 0; i < STACK_PAGES; i++) {
		uint64_t pa = pmm_alloc(0);
		if (pa == PHYS_NONE)
			return -ENOMEM;
		if (arch_map_page(base + i * PAGE_SIZE, pa, MAP_WRITE)) {
			pmm_free(pa, 0);
			return -ENOMEM;
		}
		memset((void *)(uintptr_t)(base + i * PAGE_SIZE), 0, PAGE_SIZE);
	}
	uint64_t alias = base + (s->data & (SFI_WINDOW_SIZE - 1));
	for (uint64_t off = 0; off < s->data_size; off += PAGE_SIZE) {
		uint64_t pa = arch_translate(s->data + off, NULL);
		if (pa == UINT64_MAX || arch_map_page(alias + off, pa, MAP_WRITE))
			return -ENOMEM;
	}
	return 0;
}

int arch_sfi_create(struct arch_sfi *s, uint64_t text, uint64_t text_size, uint64_t data,
		    uint64_t data_size, char *err, size_t errlen)
{
	unsigned n = cpu_count();

	memset(s, 0, sizeof(*s));
	s->exit_stub = text + text_size - SFI_BUNDLE;
	s->data = data;
	s->data_size = ALIGN_UP(data_size, PAGE_SIZE);
	s->window = kzalloc(n * sizeof(*s->window));
	if (!s->window) {
		snprintf(err, errlen, "out of memory for the sandbox's windows");
		return -ENOMEM;
	}
	for (unsigned i = 0; i < n; i++) {
		uint64_t base = take_window();
		if (!base) {
			snprintf(err, errlen, "the sandbox window area is used up (%u windows)",
				 SFI_AREA_SLOTS);
			arch_sfi_destroy(s);
			return -ENOMEM;
		}
		s->window[s->nwindows++] = base;
		if (map_window(base, s)) {
			snprintf(err, errlen, "out of memory mapping the sandbox's window for CPU %u", i);
			arch_sfi_destroy(s);
			return -ENOMEM;
		}
	}
	return 0;
}

void arch_sfi_destroy(struct arch_sfi *s)
{
	uint64_t (*stacks)[STACK_PAGES] = s->nwindows ? kmalloc(s->nwindows * sizeof(*stacks)) : NULL;

	for (unsigned i = 0; i < s->nwindows; i++)
		unmap_window(s->window[i], s, stacks ? stacks[i] : (uint64_t[STACK_PAGES]){ 0 });
	if (s->nwindows)
		xcall_all(reload_page_tables, NULL);
	for (unsigned i = 0; i < s->nwindows; i++) {
		for (unsigned k = 0; stacks && k < STACK_PAGES; k++)
			if (stacks[i][k] != UINT64_MAX)
				pmm_free(stacks[i][k], 0);
		return_window(s->window[i]);
	}
	kfree(stacks);
	kfree(s->window);
	s->window = NULL;
	s->nwindows = 0;
}

unsigned arch_sfi_windows_in_use(void)
{
	unsigned n = 0;
	irqflags_t f = spin_lock_irqsave(&window_lock);
	for (unsigned i = 0; i < SFI_AREA_SLOTS / 64; i++)
		for (uint64_t bits = slot_used[i]; bits; bits &= bits - 1)
			n++;
	spin_unlock_irqrestore(&window_lock, f);
	return n;
}

/* Whether addr lies in the window at base or its guards (4 GiB below, 4 GiB above). */
static bool in_window_reserve(uint64_t base, uint64_t addr)
{
	return addr - (base - SFI_WINDOW_SIZE) < SFI_WINDOW_SIZE + SFI_WINDOW_STRIDE;
}

bool arch_sfi_entry_overflow(const struct arch_sfi *s, const struct trap_frame *f)
{
	extern const char trap_stubs[], trap_entry_end[];
	unsigned cpu = this_cpu_index();

	return f->vector == VEC_DOUBLE_FAULT && cpu < s->nwindows &&
	       in_window_reserve(s->window[cpu], f->rsp) &&
	       f->rip >= (uintptr_t)trap_stubs && f->rip < (uintptr_t)trap_entry_end;
}

bool arch_sfi_owns_stack(const struct arch_sfi *s, uint64_t a, uint64_t len)
{
	for (unsigned i = 0; i < s->nwindows; i++)
		if (a >= s->window[i] && len <= SFI_STACK_SIZE && a - s->window[i] <= SFI_STACK_SIZE - len)
			return true;
	return false;
}
