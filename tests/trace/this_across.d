/* flags: -q */
BEGIN
{
	this->v = 1;
}
BEGIN
{
	printf("this-> is shared by the clauses of one firing: %d\n", this->v);
	exit(0);
}
