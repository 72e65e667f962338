BEGIN
{
	x = *(double *)arg0;
	trace(*(double *)arg0 * 2);
	trace(*(float *)arg0 < *(float *)arg1);
	trace((int)*(double *)arg0);
	a[*(double *)arg0] = 1;
	printf("%d\n", *(double *)arg0);
	printf("%Lf\n", *(double *)arg0);
}
