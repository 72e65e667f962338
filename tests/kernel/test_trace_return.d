/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The D program tests/kernel/test_trace_return.c runs in a session the
 * kernel starts itself: arg1 at fbt return probes, the value each call
 * returned, traced once per firing (clause 0 and clause 1 tell the two
 * functions apart). The build compiles it with dtc and embeds the object
 * (d_object_test_trace_return).
 */
fbt:kernel:d_return_cond:return
{
	trace(arg1);
}

fbt:kernel:d_return_window:return
{
	trace(arg1);
}
