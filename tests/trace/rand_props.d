/* flags: -q -x aggsortkey */
/* run: bcache run seq n=200 start=100 */
/* rand(): only properties hold from run to run; 200 draws reduced to 0..9 all land in range,
   both low bits appear, and not every draw is the same */
int inrange, total, same;
int64_t prev;
fbt::bcache_read:entry
{
	this->r = (rand() & 0x7fffffff) % 10;
	inrange += this->r >= 0 && this->r <= 9;
	total++;
	@bit[rand() & 1] = count();
	this->v = rand();
	same += total > 1 && this->v == prev;
	prev = this->v;
}
END
{
	printf("in range: %d of %d\n", inrange, total);
	printa("low bit %d seen\n", @bit);
	printf("all draws equal: %d\n", same == total - 1);
}
