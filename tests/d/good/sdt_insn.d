/* Static probes and insn's function+offset probes. */
sdt:kernel:switch_away:thread-switch
{
	@switches[arg0, arg1] = count();
}

insn::bcache_read+0x10:
{
	@hits = count();
}
