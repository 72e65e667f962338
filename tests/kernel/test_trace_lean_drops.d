/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The D program test_trace_session.c's trace_lean_firing
 * fires into a buffer with room for two records, from a plan where
 * there is native code (the build embeds it:
 * d_object_test_trace_lean_drops): a lean clause whose records are
 * dropped once the buffer is full while its aggregation still counts
 * every firing.
 */
sdt:kernel:trace_session_fixture:session-hit
{
	@n = count();
	trace(arg1);
}
