// A comment to the end of the line.
/* A block comment
 * over several lines. */
BEGIN /* before the body */ {
	/* in the body */ trace(1); // after a statement
	x = 4 /* in an expression */ / 2;
	trace(x);
}

/* between clauses */

END // comment after a description
/* and another */
/x > 1/
{
	trace(x);
}
