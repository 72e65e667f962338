/* Fewer fields fill from the right: name, function:name, module:function:name. */
bcache_read:entry
{
	trace(1);
}

kernel:bcache_read:entry
{
	trace(2);
}

::entry
{
	trace(3);
}

:::
{
	trace(4);
}

entry
{
	trace(5);
}
