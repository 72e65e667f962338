/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The clauses test_trace_plan.c's trace_planned_firing runs from plans
 * (the build embeds them: d_object_test_trace_plan): every kind of step
 * a plan has, with aggregations on session-hit and records alone on
 * session-record (the two planned handlers). test_trace_plan_ref.d is
 * the same clauses behind a predicate that always holds, which keeps
 * them on the lean firing: the reference.
 */
sdt:kernel:trace_session_fixture:session-hit
{
	trace(arg1);
	trace(timestamp);
	@n = count();
	@q = quantize(arg1);
	@s[probefunc] = sum(arg0);
	@m[probename] = max(arg1);
	@t = min(timestamp);
}

sdt:kernel:trace_session_fixture:session-record
{
	trace(arg0);
	trace(timestamp);
	trace(arg1);
}
