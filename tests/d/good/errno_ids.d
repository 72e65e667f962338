/* errno, epid and id. */
ERROR
{
	@errors[epid, id, errno] = count();
}
