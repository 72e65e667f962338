/* flags: -q */
/* printf's integer conversions with flags, widths and precisions */
BEGIN
{
	printf("[%i] [%u] [%o] [%X] [%x]\n", -7, 7, 64, 48879, 48879);
	printf("[%6i] [%-6u] [%06o] [%#6X] [%#-8x] [%#08x]\n", -7, 7, 64, 48879, 48879, 48879);
	printf("[%.3d] [%8.3d] [%-8.3d] [%.3d] [%08.3d]\n", 7, -7, 7, 12345, 7);
	printf("[%-05d] [%0-5d] [%+5d] [%+-5d] [% d] [% 05d] [%+d]\n", 3, 3, 3, 3, 3, 3, -3);
	printf("[%#o] [%#x] [%#X] [%#o] [%.0d] [%5.0d]\n", 0, 0, 0, 8, 0, 0);
	printf("[%c] [%3c] [%-3c] [%c%c%c]\n", 65, 66, 67, 0x44, 0x45, 0x46);
	printf("[%%] [100%%]\n");
	printf("[%*d] [%-*d] [%*d] [%.*d]\n", 5, 1, 5, 1, -5, 1, 4, 1);
	exit(0);
}
