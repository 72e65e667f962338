/* flags: -q */
/*
 * Device memory never reads from D, whatever the address: the local
 * APIC (mapped first in the MMIO window, at 0xffffc00000000000), the
 * I/O APIC (the next page) and VGA text memory in the direct map are
 * invalid addresses, refused before anything is read, and tracing goes on.
 */
BEGIN
{
	trace(*(uint32_t *)0xffffc00000000020);
}
BEGIN
{
	trace(*(uint32_t *)0xffffc00000001000);
}
BEGIN
{
	trace(*(uint16_t *)0xffff8000000b8000);
}
BEGIN
{
	printf("tracing goes on\n");
	exit(0);
}
