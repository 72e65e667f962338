/* `name needs the kernel's symbol list, which scion trace gives dtc (-K) and this test does not */
BEGIN
{
	trace(`bcache);
}
