/* ++ and --, prefix and postfix, on every kind of variable. */
BEGIN
{
	i = 0;
	i++;
	++i;
	i--;
	--i;
	j = i++ + ++i;
	self->k++;
	this->m = 1;
	this->m--;
	a["x"] = 1;
	a["x"]++;
}
