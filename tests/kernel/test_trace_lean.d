/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The D program test_trace_session.c's trace_lean_clauses starts and
 * never fires (the build embeds it: d_object_test_trace_lean): one
 * clause of each kind the lean firing takes, and one of each it leaves
 * to the general firing, in the order the test expects them.
 */
sdt:kernel:trace_session_fixture:session-hit
{
}

sdt:kernel:trace_session_fixture:session-hit
/arg0 == 1/
{
	trace(arg1);
	@n = count();
	@q[probefunc] = quantize(arg1);
	stack();
	self->seen = 1;
}

sdt:kernel:trace_session_fixture:session-hit
{
	trace(execname);
}

sdt:kernel:trace_session_fixture:session-hit
{
	exit(0);
}

sdt:kernel:trace_session_fixture:session-hit
{
	speculate(arg0);
	trace(arg1);
}

sdt:kernel:trace_session_fixture:session-hit
{
	commit(arg0);
}
