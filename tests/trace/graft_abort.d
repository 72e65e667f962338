/* flags: -q */
/* graft: bad_victim bad-victim */
/* run: bcache run random n=300 seed=7 */
int aborts;
graft:bcache:evict:abort { aborts++; }
END { printf("aborted: %d\n", aborts > 0); }
