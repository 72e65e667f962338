/* Variables held by reference: fixed-size arrays and structs, global and
   clause-local, read and written through [], ., & and bcopy; an index
   that is not a constant is checked against the bounds at run time. */
struct sample {
	int count;
	long values[4];
};

int hist[16];
long matrix[2][3];
struct sample last;
this int scratch[4];
this struct sample s;

BEGIN
{
	hist[arg0 & 15]++;
	hist[3] += 2;
	matrix[1][2] = hist[3];
	last.count++;
	last.values[last.count] = timestamp;
	this->scratch[arg1] = 7;
	this->s.values[0] = this->scratch[0];
	bcopy(&last, &this->s, sizeof (struct sample));
	trace(hist[3]);
	trace(matrix[1][2]);
	trace(sizeof (matrix));
	trace(&matrix[1][0] - &matrix[0][0]);
	trace(this->s.count);
}
