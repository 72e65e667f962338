/* Globals: declared, and implicit from their first assignment. */
int declared_int;
string declared_string;
uint64_t declared_u64;

BEGIN
{
	declared_int = 5;
	declared_string = "hello";
	declared_u64 = timestamp;
	implicit_int = declared_int + 1;
	implicit_string = execname;
	implicit_copy = implicit_int;
}

END
{
	trace(declared_int + implicit_int);
	trace(implicit_string);
}
