/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Per-CPU trace buffers (kernel/tbuf/tbuf.c), DTrace's scheme: each
 * CPU of a buffer set owns an active buffer, written by code running on
 * that CPU with interrupts masked (probe context), and an inactive one
 * that belongs to the consumer. The consumer switches them with a
 * cross-call: each CPU swaps its two buffers between records, so the
 * consumer then reads whole records from the inactive ones while the
 * CPUs go on writing into the other. Nothing takes a lock on the write
 * path; a record that does not fit is dropped and counted, never
 * written in part, and every drop reaches the consumer with the buffer
 * it belongs to.
 *
 * One consumer per set: tbuf_switch and tbuf_taken are called by one
 * thread at a time (the owner's lock serializes them).
 */
#ifndef SCION_TBUF_H
#define SCION_TBUF_H

#include <scion/compiler.h>
#include <scion/cpu.h>

#define TBUF_ALIGN     8		/* records start on 8-byte boundaries */
#define TBUF_MIN_SIZE  64
#define TBUF_MAX_SIZE  (1u << 20)

struct tbuf_cpu {
	uint8_t *active;		/* own CPU, interrupts masked: records go here */
	uint8_t *inactive;		/* consumer, between switches */
	uint32_t offset;		/* own CPU: bytes used in active */
	uint64_t drops;			/* own CPU: records refused since the last switch */
	uint64_t records;		/* own CPU: records written since the last switch */
	uint32_t taken_bytes;		/* consumer: bytes of inactive the last switch took */
	uint64_t taken_drops;		/* consumer: drops counted in that period */
	uint64_t taken_records;		/* consumer */
} __aligned(64);

struct tbuf_set {
	uint32_t size;			/* bytes per buffer; set once */
	unsigned ncpus;			/* CPUs online when it was made; set once */
	uint64_t switches;		/* consumer */
	struct tbuf_cpu cpu[MAX_CPUS];
};

/*
 * tbuf_create - a set with two buffers of size bytes for each online CPU.
 * Arguments: size, TBUF_MIN_SIZE to TBUF_MAX_SIZE, a multiple of TBUF_ALIGN.
 * Return value: the set, or NULL when size is out of range or memory short.
 * Caller's context: thread, may sleep.
 */
struct tbuf_set *tbuf_create(uint32_t size);

/* Free a set no CPU writes any more. Caller's context: thread. */
void tbuf_destroy(struct tbuf_set *set);


/*
 * tbuf_switch - swap every CPU's active and inactive buffers (one round of
 * cross-calls) and note what each CPU had written and dropped since the
 * previous switch; tbuf_taken then returns it.
 * Caller's context: thread, no spinlocks held; the set's only consumer.
 */
void tbuf_switch(struct tbuf_set *set);

/*
 * tbuf_taken - what the last switch took from CPU cpu: its records
 * (bytes long, *records of them) and the drops of that period.
 * Return value: the records, valid until the next tbuf_switch.
 * Caller's context: the consumer, after tbuf_switch.
 */
const uint8_t *tbuf_taken(const struct tbuf_set *set, unsigned cpu, uint32_t *bytes,
			  uint64_t *records, uint64_t *drops);

/*
 * The parts of a claim, for a writer that finds its CPU's slot once:
 * tbuf_slot, CPU index's part of set (NULL for a CPU that came online
 * after the set was made); tbuf_fits, whether a record of bytes bytes
 * fits in slot c now; tbuf_next, where it goes. Same context as
 * tbuf_claim.
 */
static inline struct tbuf_cpu *tbuf_slot(struct tbuf_set *set, unsigned index)
{
	return index < set->ncpus ? &set->cpu[index] : NULL;
}

static inline bool tbuf_fits(const struct tbuf_set *set, const struct tbuf_cpu *c,
			     uint32_t bytes)
{
	uint32_t need = (bytes + TBUF_ALIGN - 1) & ~(uint32_t)(TBUF_ALIGN - 1);
	return need <= set->size - c->offset;
}

static inline uint8_t *tbuf_next(const struct tbuf_cpu *c)
{
	return c->active + c->offset;
}

/*
 * tbuf_claim, tbuf_commit - tbuf_reserve in two steps, for a writer that
 * may abandon the record it builds in place: tbuf_claim returns where a
 * record of bytes bytes would go (NULL when it would not fit; no drop is
 * counted, the caller decides) without taking the room, and in *slot
 * this CPU's part of the set; tbuf_commit takes the room in that slot,
 * so the firing finds its CPU once. Nothing else may reserve on this CPU
 * between the two.
 * Caller's context: as tbuf_reserve, interrupts masked from the claim
 *   through the commit (the slot stays this CPU's).
 */
static inline void *tbuf_claim(struct tbuf_set *set, uint32_t bytes, struct tbuf_cpu **slot)
{
	struct tbuf_cpu *c = tbuf_slot(set, this_cpu_index());
	if (!c)
		return NULL;
	*slot = c;
	return tbuf_fits(set, c, bytes) ? tbuf_next(c) : NULL;
}

static inline void tbuf_commit(struct tbuf_cpu *slot, uint32_t bytes)
{
	slot->offset += (bytes + TBUF_ALIGN - 1) & ~(uint32_t)(TBUF_ALIGN - 1);
	slot->records++;
}

/* Count a record slot (this CPU's part of a set) refused: tbuf_reserve's out-of-line part. */
void tbuf_count_drop(struct tbuf_cpu *slot);

/*
 * tbuf_reserve - room for one record of bytes bytes (rounded up to
 * TBUF_ALIGN) in this CPU's active buffer: tbuf_claim and tbuf_commit
 * in one, inline, for the recorders that write a record whole.
 * Return value: where to write the record, or NULL when it does not fit
 *   (the drop is counted).
 * Caller's context: any, with interrupts masked from the call until the
 *   record is written (a switch may not come between them); never sleeps.
 */
static inline void *tbuf_reserve(struct tbuf_set *set, uint32_t bytes)
{
	struct tbuf_cpu *slot = NULL;
	void *at = tbuf_claim(set, bytes, &slot);
	if (likely(at))
		tbuf_commit(slot, bytes);
	else if (slot)
		tbuf_count_drop(slot);
	return at;
}

/*
 * Count a record this CPU's buffer of set refused (a policy above it said
 * no). Same context as tbuf_reserve.
 */
void tbuf_drop(struct tbuf_set *set);

/*
 * Records refused for want of room by every set (streams, recording,
 * tracing) since boot. Any context.
 */
uint64_t tbuf_all_drops(void);

#endif
