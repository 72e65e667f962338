/* %lld takes a long long; int64_t is a long (use %lld with long long, %ld or %d here). */
BEGIN
{
	printf("%lld\n", arg0);
}
