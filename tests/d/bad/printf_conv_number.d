/* Conversions are numbered as dtrace numbers them: %% counts. */
BEGIN
{
	printf("100%% and %s\n", 1);
}
