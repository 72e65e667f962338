/* flags: -q */
/* run: bcache run seq n=6 start=100 */
/* this-> variables set in one clause are seen by the later clauses (and their predicates)
   of the same firing of the probe */
fbt::bcache_read:entry
{
	this->block = arg0;
	this->even = arg0 % 2 == 0;
	this->label = this->even ? "even" : "odd";
}
fbt::bcache_read:entry
/this->even/
{
	this->label = strjoin(this->label, "!");
	this->block *= 10;
}
fbt::bcache_read:entry
/this->block > 1000/
{
	@big[this->label] = count();
}
fbt::bcache_read:entry
{
	printf("%d %s %d\n", arg0, this->label, this->block);
}
END
{
	printa("%s %@d\n", @big);
}
