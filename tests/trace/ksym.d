/* flags: -q */
/*
 * Kernel symbols: a function's `name, kernel`name and &`name are its
 * address, from the kernel's symbol list scion trace gives the compiler;
 * the guest's own symbol table names them back. A variable's `name is
 * the variable, of the type the kernel's CTF gives it (here struct
 * bcache), and &`name its address; a cast of that address reads it too.
 */
BEGIN
{
	printf("%a %a %a\n", `bcache_read, &kernel`bcache_read, `bcache_read + 1);
	printf("%d %d %d\n", (uint64_t)&`bcache == (uint64_t)&kernel`bcache, &`bcache != NULL,
	       sizeof(`bcache) == sizeof(struct bcache));
	/* trace_env_ops, a const struct of function pointers, starts with env_read */
	printf("%d\n", *(uint64_t *)&`trace_env_ops == (uint64_t)&`env_read);
	trace(sym(`bcache_read + 16));
	printf("|\n");
	exit(0);
}
