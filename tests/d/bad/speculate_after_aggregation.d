/* An aggregation counts as recording data: speculate() must come first. */
BEGIN
{
	@a = count();
	speculate(1);
}
