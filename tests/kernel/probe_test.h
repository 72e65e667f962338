/* SPDX-License-Identifier: BSD-2-Clause */
/* Helpers shared by the probe tests: fixtures, probes by address, counting consumers. */
#ifndef TESTS_KERNEL_PROBE_TEST_H
#define TESTS_KERNEL_PROBE_TEST_H

#include <scion/probe.h>
#include <scion/symtab.h>
#include <scion/textimage.h>
#include <scion/atomic.h>
#include <scion/string.h>
#include <scion/format.h>

/* tests/kernel/probe_fixture.S */
extern uint64_t pf_sum(uint64_t a, uint64_t b);
extern uint64_t pf_rip(uint64_t x);
extern uint64_t pf_short_jmp(uint64_t x);
extern uint64_t pf_call(uint64_t x);
extern uint64_t pf_jcc(uint64_t x);
extern char pf_sum_mid[], pf_sum_late[];

static inline uint64_t pf_sum_expected(uint64_t a, uint64_t b)
{
	return 3 * a + b + 7;
}

static inline bool take_probe(struct probe *p, void *arg)
{
	*(struct probe **)arg = p;
	return false;
}

/* The probe a spec names first (created on demand for function+off), or NULL. */
static inline struct probe *probe_named(const char *spec)
{
	struct probe *p = NULL;
	const char *why;
	probe_lookup(spec, take_probe, &p, &why);
	return p;
}

/* The insn probe at addr (function+offset), or NULL. */
static inline struct probe *probe_at(const void *addr)
{
	char spec[96];
	return probe_named(ksym_format((uintptr_t)addr, spec, sizeof(spec)));
}

static inline void count_handler(const struct probe_hit *hit, void *arg)
{
	(void)hit;
	atomic_add((uint64_t *)arg, 1);
}

/* A consumer that calls count_handler on *hits. */
static inline struct probe_consumer handler_consumer(uint64_t *hits, enum probe_mechanism mech)
{
	return (struct probe_consumer){ .action = PROBE_HANDLER, .handler = count_handler,
					.arg = hits, .mechanism = mech };
}

/*
 * A handler (probe_fixture.S; the arch's ktest fixtures) that adds one to
 * *(uint64_t *)arg and returns with garbage in every caller-saved
 * register, as C code may; clobbering_consumer is a consumer of it.
 */
void probe_clobbering_handler(const struct probe_hit *hit, void *arg);

static inline struct probe_consumer clobbering_consumer(uint64_t *hits,
							  enum probe_mechanism mech)
{
	return (struct probe_consumer){ .action = PROBE_HANDLER,
					.handler = probe_clobbering_handler, .arg = hits,
					.mechanism = mech };
}

/* A consumer that counts into counter (from probe_counter_alloc), inline where it can. */
static inline struct probe_consumer count_consumer(uint64_t *counter, enum probe_mechanism mech)
{
	return (struct probe_consumer){ .action = PROBE_COUNT, .counter = counter,
					.mechanism = mech };
}

static inline void no_range(uint64_t start, uint64_t end, void *arg)
{
	(void)start;
	(void)end;
	(void)arg;
}

/* Whether live text equals the booted image everywhere. */
static inline bool text_identical(void)
{
	return text_image_compare(no_range, NULL) == 0;
}

#endif
