/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_trace_plan.d's clauses behind a predicate that always holds: a
 * predicate keeps them from plans, so they run on the lean firing, the
 * reference test_trace_plan.c's trace_planned_firing compares with (the
 * build embeds it: d_object_test_trace_plan_ref).
 */
sdt:kernel:trace_session_fixture:session-hit
/arg1 == arg1/
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
/arg1 == arg1/
{
	trace(arg0);
	trace(timestamp);
	trace(arg1);
}
