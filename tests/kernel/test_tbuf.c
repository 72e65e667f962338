// SPDX-License-Identifier: BSD-2-Clause
/*
 * In-kernel tests of the per-CPU trace buffers (kernel/tbuf/tbuf.c):
 * sizes refused, exact fill and drop counts, what a switch hands over
 * and what it leaves behind (the states between the steps), each CPU
 * writing only its own buffer, and writers on every CPU racing a
 * consumer that switches all the time: nothing lost without being
 * counted, no record torn or reordered.
 */
#include <scion/ktest.h>
#include <scion/tbuf.h>
#include <scion/xcall.h>
#include <scion/thread.h>
#include <scion/atomic.h>
#include <scion/sched.h>
#include <arch/cpu.h>

#define SMALL_BUF        256
#define RECORD_BYTES     32
#define RECORDS_FIT      (SMALL_BUF / RECORD_BYTES)
#define RACE_SWITCHES    100	/* the consumer's switches while the writers run */
#define RACE_BUF         512
#define MARK_BASE        1000

struct test_record {
	uint64_t seq;
	uint64_t cpu;
	uint64_t check;		/* seq ^ cpu ^ CHECK: a torn record would not match */
	uint64_t pad;
};
#define CHECK 0x5ca1ab1e0ddba11ull

/* Write one record on this CPU; false when it was dropped. */
static bool write_record(struct tbuf_set *set, uint64_t seq)
{
	irqflags_t f = arch_irq_save();
	struct test_record *r = tbuf_reserve(set, sizeof(*r));
	if (r) {
		r->seq = seq;
		r->cpu = this_cpu_index();
		r->check = seq ^ r->cpu ^ CHECK;
		r->pad = 0;
	}
	arch_irq_restore(f);
	return r != NULL;
}

KTEST(tbuf_sizes_refused, 1)
{
	KT_EXPECT(t, !tbuf_create(TBUF_MIN_SIZE - TBUF_ALIGN), "a buffer below the minimum was made");
	KT_EXPECT(t, !tbuf_create(SMALL_BUF + 4), "a size that is not a multiple of 8 was taken");
	KT_EXPECT(t, !tbuf_create(TBUF_MAX_SIZE + TBUF_ALIGN), "a buffer above the maximum was made");
	struct tbuf_set *set = tbuf_create(TBUF_MIN_SIZE);
	KT_ASSERT(t, set && set->ncpus == cpu_count() && set->size == TBUF_MIN_SIZE,
		  "the smallest buffer set was not made for every CPU");
	tbuf_destroy(set);
}

/*
 * The steps of a switch on one CPU: fill (exact drops), switch (the
 * filled buffer handed over, the active one empty), write again (the
 * handed-over records unchanged), switch again.
 */
KTEST(tbuf_fill_switch_refill, 1)
{
	struct tbuf_set *set = tbuf_create(SMALL_BUF);
	KT_ASSERT(t, set, "no buffer set");
	uint32_t bytes;
	uint64_t records, drops;

	/* Pin to one CPU for the whole check: interrupts masked. */
	irqflags_t f = arch_irq_save();
	unsigned me = this_cpu_index();
	unsigned written = 0, dropped = 0;
	for (uint64_t i = 0; i < RECORDS_FIT + 2; i++) {
		struct test_record *r = tbuf_reserve(set, sizeof(*r));
		if (r)
			*r = (struct test_record){ i, me, i ^ me ^ CHECK, 0 };
		written += r != NULL;
		dropped += r == NULL;
	}
	/* A 5-byte record takes 8 bytes: no room for it either. */
	dropped += tbuf_reserve(set, 5) == NULL;
	struct tbuf_cpu before = set->cpu[me];
	arch_irq_restore(f);
	KT_EXPECT(t, written == RECORDS_FIT && dropped == 3, "%u written, %u dropped; expected %u, 3",
		  written, dropped, RECORDS_FIT);
	KT_EXPECT(t, before.offset == SMALL_BUF && before.drops == 3 && before.records == RECORDS_FIT,
		  "before the switch: offset %u, drops %llu, records %llu", before.offset,
		  (unsigned long long)before.drops, (unsigned long long)before.records);

	tbuf_switch(set);
	const struct test_record *got = (const void *)tbuf_taken(set, me, &bytes, &records, &drops);
	KT_EXPECT(t, bytes == SMALL_BUF && records == RECORDS_FIT && drops == 3,
		  "first switch took %u bytes, %llu records, %llu drops", bytes,
		  (unsigned long long)records, (unsigned long long)drops);
	KT_EXPECT(t, set->cpu[me].offset == 0 && set->cpu[me].drops == 0,
		  "after the switch the active buffer is not empty");
	for (unsigned i = 0; i < RECORDS_FIT; i++)
		KT_EXPECT(t, got[i].seq == i && got[i].check == (i ^ me ^ CHECK),
			  "record %u came back as %llu", i, (unsigned long long)got[i].seq);

	f = arch_irq_save();
	me = this_cpu_index();
	for (uint64_t i = 0; i < 2; i++) {
		struct test_record *r = tbuf_reserve(set, sizeof(*r));
		if (r)
			*r = (struct test_record){ MARK_BASE + i, me, (MARK_BASE + i) ^ me ^ CHECK, 0 };
	}
	arch_irq_restore(f);
	got = (const void *)tbuf_taken(set, me, &bytes, &records, &drops);
	KT_EXPECT(t, bytes == SMALL_BUF && got[0].seq == 0 && got[RECORDS_FIT - 1].seq == RECORDS_FIT - 1,
		  "writing after the switch changed the records handed over");

	tbuf_switch(set);
	got = (const void *)tbuf_taken(set, me, &bytes, &records, &drops);
	KT_EXPECT(t, bytes == 2 * RECORD_BYTES && records == 2 && drops == 0 &&
		  got[0].seq == MARK_BASE && got[1].seq == MARK_BASE + 1,
		  "second switch took %u bytes, %llu records, %llu drops", bytes,
		  (unsigned long long)records, (unsigned long long)drops);
	tbuf_switch(set);
	tbuf_taken(set, me, &bytes, &records, &drops);
	KT_EXPECT(t, bytes == 0 && records == 0 && drops == 0, "an idle period took %u bytes", bytes);
	KT_EXPECT(t, set->switches == 3, "%llu switches counted, 3 made",
		  (unsigned long long)set->switches);
	tbuf_destroy(set);
}

static void write_own_mark(void *arg)
{
	write_record(arg, MARK_BASE + this_cpu_index());
}

/* Each CPU's record lands in its own buffer and nowhere else. */
KTEST(tbuf_each_cpu_its_own, 2)
{
	struct tbuf_set *set = tbuf_create(SMALL_BUF);
	KT_ASSERT(t, set, "no buffer set");
	xcall_all(write_own_mark, set);
	tbuf_switch(set);
	for (unsigned c = 0; c < set->ncpus; c++) {
		uint32_t bytes;
		uint64_t records, drops;
		const struct test_record *r = (const void *)tbuf_taken(set, c, &bytes, &records, &drops);
		KT_EXPECT(t, bytes == RECORD_BYTES && records == 1 && r->seq == MARK_BASE + c &&
			  r->cpu == c, "CPU %u's buffer: %u bytes, first seq %llu", c, bytes,
			  (unsigned long long)r->seq);
	}
	tbuf_destroy(set);
}

struct race {
	struct tbuf_set *set;
	uint64_t written[MAX_CPUS];	/* per writer CPU: records reserved */
	uint64_t dropped[MAX_CPUS];
	bool stop;			/* set by the consumer after RACE_SWITCHES */
};

struct writer {
	struct race *race;
	unsigned cpu;
};

/* Write until told to stop, so every switch of the consumer races the writers. */
static void race_writer(void *arg)
{
	struct writer *w = arg;
	for (uint64_t i = 0; !__atomic_load_n(&w->race->stop, __ATOMIC_ACQUIRE); i++) {
		if (write_record(w->race->set, i))
			w->race->written[w->cpu]++;
		else
			w->race->dropped[w->cpu]++;
	}
}

/* Check one switch's take; counts go to seen/drops, last seq per CPU to last. */
static bool check_take(struct ktest_ctx *t, struct tbuf_set *set, uint64_t *seen,
		       uint64_t *drops_seen, int64_t *last)
{
	for (unsigned c = 0; c < set->ncpus; c++) {
		uint32_t bytes;
		uint64_t records, drops;
		const struct test_record *r = (const void *)tbuf_taken(set, c, &bytes, &records, &drops);
		if (bytes != records * sizeof(*r)) {
			ktest_fail(t, __FILE__, __LINE__, "CPU %u: %u bytes for %llu records", c, bytes,
				   (unsigned long long)records);
			return false;
		}
		for (uint64_t i = 0; i < records; i++) {
			if (r[i].cpu != c || r[i].check != (r[i].seq ^ c ^ CHECK) ||
			    (int64_t)r[i].seq <= last[c]) {
				ktest_fail(t, __FILE__, __LINE__, "CPU %u: record seq %llu cpu %llu after "
					   "seq %lld: torn, misplaced or out of order", c,
					   (unsigned long long)r[i].seq, (unsigned long long)r[i].cpu,
					   (long long)last[c]);
				return false;
			}
			last[c] = (int64_t)r[i].seq;
		}
		seen[c] += records;
		drops_seen[c] += drops;
	}
	return true;
}

/* Writers on every CPU against a consumer switching without pause. */
KTEST(tbuf_writers_race_switches, 2)
{
	static struct race race;
	static struct writer writers[MAX_CPUS];
	struct thread *threads[MAX_CPUS];
	uint64_t seen[MAX_CPUS] = { 0 }, drops_seen[MAX_CPUS] = { 0 };
	int64_t last[MAX_CPUS];
	unsigned n = cpu_count();

	race = (struct race){ .set = tbuf_create(RACE_BUF) };
	KT_ASSERT(t, race.set, "no buffer set");
	for (unsigned c = 0; c < n; c++) {
		last[c] = -1;
		writers[c] = (struct writer){ &race, c };
		threads[c] = thread_create("tbuf-writer", race_writer, &writers[c], (int)c);
		KT_ASSERT(t, threads[c], "cannot start a writer on CPU %u", c);
	}
	bool ok = true;
	for (unsigned s = 0; ok && s < RACE_SWITCHES; s++) {
		tbuf_switch(race.set);
		ok = check_take(t, race.set, seen, drops_seen, last);
		thread_yield();		/* the writer pinned to this CPU runs too */
	}
	__atomic_store_n(&race.stop, true, __ATOMIC_RELEASE);
	for (unsigned c = 0; c < n; c++)
		thread_join(threads[c]);
	if (ok) {
		tbuf_switch(race.set);	/* what was written since the last one */
		ok = check_take(t, race.set, seen, drops_seen, last);
	}
	for (unsigned c = 0; ok && c < n; c++) {
		KT_EXPECT(t, seen[c] == race.written[c] && drops_seen[c] == race.dropped[c] &&
			  seen[c] > 0,
			  "CPU %u: %llu records and %llu drops arrived; the writer made %llu and %llu",
			  c, (unsigned long long)seen[c], (unsigned long long)drops_seen[c],
			  (unsigned long long)race.written[c], (unsigned long long)race.dropped[c]);
	}
	tbuf_destroy(race.set);
}
