/* In a script a description needs a predicate or actions. */
BEGIN
END
{
}
