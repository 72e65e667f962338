// SPDX-License-Identifier: BSD-2-Clause
/*
 * Per-CPU active/inactive trace buffers (scion/tbuf.h): what channel
 * streams, recording sessions and trace sessions write records into.
 *
 * Invariant: a CPU's active buffer is touched only by that CPU with
 * interrupts masked, and the switch runs on that CPU as a cross-call
 * (also with interrupts masked), so a reservation and the record written
 * into it never straddle a switch. The consumer reads a buffer only
 * after the switch that made it inactive and before the next one.
 */
#include <scion/tbuf.h>
#include <scion/xcall.h>
#include <scion/mm.h>
#include <scion/string.h>
#include <arch/cpu.h>

static uint64_t all_drops;	/* atomic: records refused by every set since boot */

uint64_t tbuf_all_drops(void)
{
	return __atomic_load_n(&all_drops, __ATOMIC_RELAXED);
}

struct tbuf_set *tbuf_create(uint32_t size)
{
	if (size < TBUF_MIN_SIZE || size > TBUF_MAX_SIZE || size % TBUF_ALIGN)
		return NULL;
	struct tbuf_set *set = kmalloc(sizeof(*set));
	if (!set)
		return NULL;
	memset(set, 0, sizeof(*set));
	set->size = size;
	set->ncpus = cpu_count();
	for (unsigned i = 0; i < set->ncpus; i++) {
		set->cpu[i].active = kmalloc(size);
		set->cpu[i].inactive = kmalloc(size);
		if (!set->cpu[i].active || !set->cpu[i].inactive) {
			tbuf_destroy(set);
			return NULL;
		}
	}
	return set;
}

void tbuf_destroy(struct tbuf_set *set)
{
	if (!set)
		return;
	for (unsigned i = 0; i < set->ncpus; i++) {
		kfree(set->cpu[i].active);
		kfree(set->cpu[i].inactive);
	}
	kfree(set);
}

void tbuf_count_drop(struct tbuf_cpu *slot)
{
	slot->drops++;
	__atomic_fetch_add(&all_drops, 1, __ATOMIC_RELAXED);
}

void tbuf_drop(struct tbuf_set *set)
{
	unsigned index = this_cpu_index();
	if (index >= set->ncpus)
		return;
	tbuf_count_drop(&set->cpu[index]);
}

/* On each CPU, between two of its records: hand the filled buffer over. */
static void switch_here(void *arg)
{
	struct tbuf_set *set = arg;
	unsigned index = this_cpu_index();
	if (index >= set->ncpus)
		return;
	struct tbuf_cpu *c = &set->cpu[index];
	uint8_t *filled = c->active;
	c->active = c->inactive;
	c->inactive = filled;
	c->taken_bytes = c->offset;
	c->taken_drops = c->drops;
	c->taken_records = c->records;
	c->offset = 0;
	c->drops = 0;
	c->records = 0;
}

void tbuf_switch(struct tbuf_set *set)
{
	xcall_all(switch_here, set);
	set->switches++;
}

const uint8_t *tbuf_taken(const struct tbuf_set *set, unsigned cpu, uint32_t *bytes,
			  uint64_t *records, uint64_t *drops)
{
	const struct tbuf_cpu *c = &set->cpu[cpu];
	*bytes = c->taken_bytes;
	*records = c->taken_records;
	*drops = c->taken_drops;
	return c->inactive;
}
