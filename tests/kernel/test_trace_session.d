/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The D program tests/kernel/test_trace_session.c runs in a session the
 * kernel starts itself: the build compiles it with dtc and embeds the
 * object (d_object_test_trace_session).
 */
sdt:kernel:trace_session_fixture:session-hit
{
	@hits[arg0] = count();
	@total = sum(arg1);
	@largest = max(arg1);
}

sdt:kernel:trace_session_fixture:session-hit
/arg0 == 1/
{
	trace(arg1);
}
