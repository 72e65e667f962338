/* The macro arguments come from macro_args_file.args, one per line. */
fbt::$$1:entry
/arg1 == $2/
{
	trace($$1);
	trace($$2);
	@calls[$$3] = count();
}
