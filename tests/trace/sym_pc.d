/* flags: -q */
/* A PC the profile provider interrupted, printed with %a, %p, func() and sym(): the symbol and
   offset vary, so sym_pc.out.re matches them by pattern */
int done;
uint64_t pc;
profile-100
/arg0 != 0 && !done/
{
	pc = arg0;
	done = 1;
}
tick-100ms
{
	exit(0);
}
END
{
	printf("[%a] [%p] [%a]\n", pc, 0, 0);
	trace(func(pc));
	printf("|\n");
	trace(sym(pc));
	printf("|\n");
	@[func(pc)] = count();
	printa("%a %@d\n", @);
}
