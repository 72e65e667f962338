/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The D program test_trace_state.c's trace_aggregation_probe_name_keys
 * loads (the build compiles it with dtc and embeds the object,
 * d_object_test_trace_keys): aggregations keyed by each of the probe's
 * names, and by keys that are not one of them.
 */
sdt:kernel:trace_session_fixture:session-hit
{
	@func[probefunc] = count();
	@name[probename] = count();
	@mod[probemod] = count();
	@prov[probeprov] = count();
	@joined[strjoin(probename, "")] = count();
	@pair[probename, arg0] = count();
	@none = count();
}
