/* Timer probes: the name carries the rate. */
tick-1s
{
	trace(timestamp);
}

tick-10ms { trace(cpu) }

profile-97
{
	@samples[cpu] = count();
}

profile:::profile-1001hz
{
	@samples[cpu] = count();
}
