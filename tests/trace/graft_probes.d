/* flags: -q */
/* graft: evict_clock clock */
/* run: bcache run random n=300 seed=7 */
int invokes, commits, aborts;
graft:bcache:evict:invoke { invokes++; }
graft:bcache:evict:commit { commits++; }
graft:bcache:evict:abort { aborts++; }
END
{
	printf("invoked: %d, every invocation committed: %d, aborts: %d\n", invokes > 0,
	    invokes == commits, aborts);
}
