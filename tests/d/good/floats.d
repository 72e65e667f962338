/* Floats and doubles reach D from memory and are only traced and printed. */
struct sample { int id; float ratio; double mean; };

BEGIN
{
	this->s = (struct sample *)arg0;
	trace(this->s->ratio);
	printf("%d %.3f %e %g\n", this->s->id, this->s->mean, this->s->ratio, *(double *)arg1);
	trace(sizeof(double));
}
