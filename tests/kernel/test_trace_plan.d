/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The clause test_trace_plan.c's trace_planned_firing runs from a plan
 * (the build embeds it: d_object_test_trace_plan): every kind of step a
 * plan has. test_trace_plan_ref.d is the same clause behind a predicate
 * that always holds, which keeps it on the lean firing: the reference.
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
