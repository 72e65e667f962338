/* stack( ) records at most 64 frames (DOF_MAX_FRAMES): refused by code generation. */
BEGIN
{
	stack(100);
}
