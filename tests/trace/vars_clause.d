/* flags: -q */
BEGIN
{
	this->x = 6;
	this->y = this->x * 7;
	this->s = strjoin("clause", "-local");
	printf("%d %s\n", this->y, this->s);
	exit(0);
}
