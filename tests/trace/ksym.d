/* flags: -q */
/*
 * Kernel symbols: `name, kernel`name and &`name are the symbol's address,
 * from the kernel's symbol list scion trace gives the compiler (data
 * symbols too); the guest's own symbol table names them back. Without
 * types, a data symbol is read through a cast of its address.
 */
BEGIN
{
	printf("%a %a %a\n", `bcache_read, &kernel`bcache_read, `bcache_read + 1);
	printf("%d %d %d\n", `bcache == &`bcache, &kernel`bcache == `bcache, `bcache != 0);
	/* trace_env_ops, a const struct of function pointers, starts with env_read */
	printf("%d\n", *(uint64_t *)&`trace_env_ops == (uint64_t)&`env_read);
	trace(sym(`bcache_read + 16));
	printf("|\n");
	exit(0);
}
