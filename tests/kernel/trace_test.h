/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Helpers shared by the in-kernel tests of trace sessions the kernel
 * starts itself (test_trace_session.c, test_trace_return.c,
 * test_trace_plan.c): which clause a record came from, the value of a
 * record holding one trace(), and the probe they enable.
 */
#ifndef TESTS_KERNEL_TRACE_TEST_H
#define TESTS_KERNEL_TRACE_TEST_H

#include <scion/dof.h>
#include <scion/trace.h>

/* The clause index of record r of session s, or ~0u (an error record, an unknown EPID). */
static inline uint32_t record_clause(const struct trace_session *s, const struct dof_rechdr *r)
{
	uint32_t clause = ~0u, probe_id;

	if (r->epid != DOF_EPID_ERROR && r->epid >= 1 && r->epid <= trace_session_necbs(s))
		trace_session_ecb(s, r->epid, &clause, &probe_id);
	return clause;
}

/*
 * A record of one trace() of 8 bytes (the header, then the value at the
 * next multiple of 8): true with *value, false for any other size.
 */
static inline bool record_one_value(const struct dof_rechdr *r, uint32_t size, uint64_t *value)
{
	if (size != sizeof(*r) + sizeof(uint64_t))
		return false;
	*value = *(const uint64_t *)(r + 1);
	return true;
}

/*
 * Fire sdt:kernel:trace_session_fixture:session-hit, then session-record
 * (test_trace_session.c), once for each i in from..to-1, with
 * arg0 = i % 3 and arg1 = i.
 */
void trace_test_fire(unsigned from, unsigned to);

#endif
