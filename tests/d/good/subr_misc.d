/* rand, func and sym; func() and sym() alone record the symbol. */
fbt::bcache_read:entry
{
	trace(rand());
	x = rand() % 10;
	func(arg0);
	sym(arg1);
	printf("%a %A\n", arg0, arg1);
	@where[func(arg0)] = count();
	@what[sym(arg1)] = count();
}
