BEGIN
{
	curthread->tid = 1;
}
