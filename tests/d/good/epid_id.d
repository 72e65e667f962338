/* epid and id: which enabling and which probe fired (errno is refused: no system calls). */
ERROR
{
	@errors[epid, id] = count();
}
