// SPDX-License-Identifier: BSD-2-Clause
/*
 * libFuzzer target: a scheduler trace replayed by the simulation code
 * the kernel and the host share (kernel/sim/sched_replay.c over the run
 * queue of kernel/sched/runq.c). The first byte picks the CPUs (1 to 8);
 * the second the policy (its low bits: the default round robin, the
 * graft grafts/sched_lifo.c, or a fewest-ticks-first policy here, both
 * through the graft API, kernel/sched/api.c, and replay_env.c's
 * transaction services) and, in its top bit, how the rest is read:
 * as raw trace records (every one walked within bounds or refused), or
 * compactly, four bytes an event (thread, kind, tick step, affinity)
 * with increasing sequence numbers, so that most inputs are traces the
 * replay takes. Whatever it takes runs to the end within a bound on
 * its ticks: every thread done, every burst run, the waits and picks
 * added up, every pick naming a known thread on a real CPU.
 */
#include <string.h>
#include <graft/manifest.h>
#include "fuzz.h"
#include "replay_env.h"
#include "sim/sched_replay.h"

/* grafts/sched_lifo.c, built in: newest first, through the graft API. */
extern const struct graft_manifest graft_manifest;

/* Fewest ticks run first, as grafts/sched_fair.c; it also tries the slice setter. */
static struct thread *fewest_pick_next(struct cpu *c)
{
	unsigned n = sched_runq_length(), best = n;
	uint64_t least = UINT64_MAX;

	(void)c;
	sched_set_slice(sched_running_slice());
	for (unsigned i = 0; i < n; i++)
		if (sched_runq_may_run_here(i) && sched_runq_ticks_run(i) < least) {
			least = sched_runq_ticks_run(i);
			best = i;
		}
	FUZZ_ASSERT(sched_cpu() < SCHED_SIM_MAX_CPUS, "decision for CPU %u", sched_cpu());
	return best < n ? sched_runq_thread(best) : NULL;
}

/* Every answer must pass the graft point's check, as a graft's would have to. */
static graft_fn_sched_pick_next *chosen;
static struct thread *checked_pick_next(struct cpu *c)
{
	struct thread *t = chosen(c);
	const char *why = sched_check_pick((uint64_t)(uintptr_t)t);
	FUZZ_ASSERT(!why, "a policy's answer was refused: %s", why);
	return t;
}

static struct sched_sim *sim_under_test;
static uint64_t emitted;

static int emit(void *ctx, const struct rec_head *rec)
{
	const struct rec_sched_pick *p = (const void *)rec;
	const struct sched_sim *sim = sim_under_test;
	bool known = p->tid == 0;

	(void)ctx;
	for (unsigned i = 0; i < sim->nthreads && !known; i++)
		known = sim->thread[i].se.tid == p->tid;
	FUZZ_ASSERT(rec->type == REC_SCHED_PICK && rec->size == sizeof(*p) && p->seq == ++emitted &&
		    p->cpu < sim->ncpus && known, "bad pick %llu: cpu %u tid %llu",
		    (unsigned long long)p->seq, p->cpu, (unsigned long long)p->tid);
	return 0;
}

/* The compact form: four bytes an event, as raw records into out (48 bytes each). */
static size_t expand(const uint8_t *in, size_t n, unsigned ncpus, struct rec_sched_event *out)
{
	uint64_t tick = 1000;
	size_t k = 0;
	for (; k < n / 4; k++, in += 4) {
		tick += in[2] % 4;
		out[k] = (struct rec_sched_event){
			.head = { .size = sizeof(*out), .type = REC_SCHED_EVENT },
			.seq = k + 1, .tick = tick, .tid = 1 + in[0] % 8, .kind = 1 + in[1] % 5,
			.affinity = (int32_t)(in[3] % (ncpus + 1)) - 1,
		};
	}
	return k * sizeof(*out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sched_sim sim;
	static graft_fn_sched_pick_next *slot = checked_pick_next;
	struct rec_file_header h = { .magic = REC_MAGIC, .version = REC_VERSION,
				     .stream = REC_STREAM_TRACE, .header_bytes = sizeof(h),
				     .module = "sched" };
	char why[200];

	if (size < 2)
		return 0;
	unsigned ncpus = 1 + data[0] % 8;
	graft_fn_sched_pick_next *const policies[] = {
		sched_default_pick_next,
		(graft_fn_sched_pick_next *)(uintptr_t)graft_manifest.entry, fewest_pick_next,
	};
	chosen = policies[(data[1] & 0x7f) % 3];
	h.config[REC_SCHED_CONFIG_CPUS] = ncpus;
	FUZZ_ASSERT(!sched_sim_check_header(&h, REC_STREAM_TRACE, why, sizeof(why)), "%s", why);
	/* Records are read in place: copy the body to 8-byte alignment, as a file read is. */
	uint64_t *body = malloc((size / 4 + 1) * sizeof(struct rec_sched_event) + size + 8);
	size_t n = data[1] & 0x80 ? expand(data + 2, size - 2, ncpus, (void *)body) : size - 2;
	if (!(data[1] & 0x80))
		memcpy(body, data + 2, n);
	struct fuzz_walk w = { (const uint8_t *)body, n, 0, NULL };
	int err = sched_sim_build(&sim, &h, (struct sim_reader){ fuzz_walk_next, &w }, why, sizeof(why));
	FUZZ_ASSERT(w.offset <= w.size, "walked past the end");
	FUZZ_ASSERT(err == 0 || err == -22 || err == -7, "unexpected error %d: %s", err, why);
	if (!err) {
		sim.rq.pick_next = &slot;
		sim_under_test = &sim;
		emitted = 0;
		uint64_t steps = 0, bound = 2 * sim.nphases + 2;
		for (unsigned i = 0; i < sim.nthreads; i++)
			bound += sim.thread[i].run;
		int r;
		while ((r = sched_sim_step(&sim, emit, NULL)) > 0)
			FUZZ_ASSERT(++steps <= bound, "more than %llu steps", (unsigned long long)bound);
		FUZZ_ASSERT(r == 0 && sim.rq.length == 0 && sim.active == 0 && sim.blocked == 0,
			    "ended with %d, %u queued, %u active, %u blocked", r, sim.rq.length,
			    sim.active, sim.blocked);
		uint64_t busy = 0, wait = 0;
		for (unsigned i = 0; i < sim.nthreads; i++) {
			const struct sched_sim_thread *t = &sim.thread[i];
			FUZZ_ASSERT(t->state == SCHED_SIM_DONE && t->se.ticks_run == t->run &&
				    t->done >= t->run && t->done <= sim.sum.end &&
				    t->wait <= sim.sum.wait_max,
				    "thread %llu: state %u, ran %llu of %llu, done %llu",
				    (unsigned long long)t->se.tid, t->state,
				    (unsigned long long)t->se.ticks_run, (unsigned long long)t->run,
				    (unsigned long long)t->done);
			busy += t->run;
			wait += t->wait;
		}
		FUZZ_ASSERT(sim.sum.busy == busy && sim.sum.wait == wait && emitted == sim.sum.picks &&
			    sim.sum.switches <= sim.sum.picks, "summary: busy %llu of %llu, wait %llu "
			    "of %llu, %llu picks emitted of %llu", (unsigned long long)sim.sum.busy,
			    (unsigned long long)busy, (unsigned long long)sim.sum.wait,
			    (unsigned long long)wait, (unsigned long long)emitted,
			    (unsigned long long)sim.sum.picks);
	}
	sched_sim_free(&sim);
	free(body);
	return 0;
}
