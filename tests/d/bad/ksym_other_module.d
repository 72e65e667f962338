/* the kernel is Scion's only module */
BEGIN
{
	trace(&genunix`bcache);
}
