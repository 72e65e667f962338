/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_trace_lean_drops.d's clause behind a predicate that always holds,
 * which keeps it from a plan: test_trace_session.c's trace_lean_firing
 * runs it on the lean firing itself (the build embeds it:
 * d_object_test_trace_lean_drops_ref).
 */
sdt:kernel:trace_session_fixture:session-hit
/arg1 == arg1/
{
	@n = count();
	trace(arg1);
}
