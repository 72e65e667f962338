// SPDX-License-Identifier: BSD-2-Clause
/*
 * text_poke (see scion/textpoke.h).
 *
 * The kernel's text is mapped read-only everywhere, the direct map
 * included, and CR0.WP makes that binding on the kernel itself. A poke
 * maps the physical page(s) at TEXT_ALIAS_BASE for the moment of the
 * write, with interrupts masked so the thread cannot move to another CPU
 * between mapping and unmapping (the unmap's TLB flush is local; no
 * other CPU ever touches the alias).
 *
 * Steps (text_poke_batch runs 3 for each op, 2 and 4 for each run of
 * ops on the same page(s), 5 once):
 *   1. check every range lies in kernel text; take poke_mutex; mask
 *      interrupts;
 *   2. map the alias page(s) writable;
 *   3. write: one 8-byte store when the change fits one aligned word,
 *      otherwise byte by byte;
 *   4. unmap the alias (flushing it from this CPU's TLB);
 *   5. unmask; cross-call every CPU to execute a serializing
 *      instruction, so none keeps running instructions it fetched before
 *      the write;
 *   6. release poke_mutex.
 * A batch's ops mostly come in address order (a probe enabling's sites),
 * so keeping the alias while the next op is on the same page saves most
 * maps and TLB flushes.
 */
#include <scion/textpoke.h>
#include <scion/probe_arch.h>
#include <scion/mutex.h>
#include <scion/xcall.h>
#include <scion/string.h>
#include <scion/printk.h>
#include <scion/errno.h>
#include <arch/mmu.h>
#include <arch/cpu.h>

extern char __text_start[], __text_end[];

static struct mutex poke_mutex = MUTEX_INIT(poke_mutex, "text-poke");
static uint64_t pokes;	/* poke_mutex */

bool kernel_text_contains(uintptr_t addr, size_t len)
{
	return addr >= (uintptr_t)__text_start && addr + len >= addr &&
	       addr + len <= (uintptr_t)__text_end;
}

uint64_t text_poke_count(void)
{
	return READ_ONCE(pokes);
}

static void serialize(void *arg)
{
	(void)arg;
	arch_sync_core();
}

static int map_alias(uintptr_t page, unsigned npages)
{
	for (unsigned i = 0; i < npages; i++) {
		uint64_t pa = arch_translate(page + i * PAGE_SIZE, NULL);
		if (pa == UINT64_MAX)
			return -EINVAL;
		int err = arch_map_page(TEXT_ALIAS_BASE + i * PAGE_SIZE, pa, MAP_WRITE);
		if (err) {
			while (i--)
				arch_unmap_page(TEXT_ALIAS_BASE + i * PAGE_SIZE);
			return err;
		}
	}
	return 0;
}

/* Kernel text, or the springboard space a port's probes write (scion/probe_arch.h). */
static bool poke_valid(const struct text_poke_op *op)
{
	return op->len > 0 && op->len <= TEXT_POKE_MAX &&
	       (kernel_text_contains((uintptr_t)op->addr, op->len) ||
		arch_probe_springboard_contains((uintptr_t)op->addr, op->len));
}

static void unmap_alias(unsigned npages)
{
	for (unsigned i = 0; i < npages; i++)
		arch_unmap_page(TEXT_ALIAS_BASE + i * PAGE_SIZE);
}

/* The alias of the page(s) an op writes, kept from op to op while they stay on them. */
struct alias {
	uintptr_t page;		/* the first page mapped */
	unsigned npages;	/* 0: nothing mapped */
};

/* Steps 2 and 3 for one op; caller holds poke_mutex, interrupts masked. */
static int poke_one(const struct text_poke_op *op, struct alias *al)
{
	uintptr_t a = (uintptr_t)op->addr;
	uintptr_t page = ALIGN_DOWN(a, PAGE_SIZE);
	unsigned npages = ALIGN_DOWN(a + op->len - 1, PAGE_SIZE) == page ? 1 : 2;
	char *alias = (char *)(TEXT_ALIAS_BASE + (a - page));

	if (page != al->page || npages > al->npages) {
		unmap_alias(al->npages);
		al->npages = 0;
		int err = map_alias(page, npages);
		if (err)
			return err;
		al->page = page;
		al->npages = npages;
	}
	/* Byte loops, not memcpy: a batch must not hit probes on memcpy (issue 28). */
	const uint8_t *bytes = op->bytes;
	uintptr_t word = ALIGN_DOWN(a, 8);
	if (a + op->len <= word + 8) {
		uint64_t v = *(const volatile uint64_t *)word;
		for (size_t i = 0; i < op->len; i++)
			((uint8_t *)&v)[a - word + i] = bytes[i];
		*(volatile uint64_t *)(alias - (a - word)) = v;
	} else {
		for (size_t i = 0; i < op->len; i++)
			((volatile uint8_t *)alias)[i] = bytes[i];
	}
	pokes++;
	return 0;
}

void text_sync_all_cpus(void)
{
	xcall_all(serialize, NULL);
}

int text_poke_batch(const struct text_poke_op *ops, size_t n)
{
	int err = 0;

	for (size_t i = 0; i < n; i++)
		if (!poke_valid(&ops[i]))
			return -EINVAL;
	mutex_lock(&poke_mutex);
	struct alias al = { 0, 0 };
	irqflags_t f = arch_irq_save();
	for (size_t i = 0; i < n && !err; i++)
		err = poke_one(&ops[i], &al);
	unmap_alias(al.npages);
	arch_irq_restore(f);
	text_sync_all_cpus();
	mutex_unlock(&poke_mutex);
	return err;
}

int text_poke(void *addr, const void *bytes, size_t len)
{
	struct text_poke_op op = { addr, bytes, len };
	return text_poke_batch(&op, 1);
}
