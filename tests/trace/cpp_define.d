/* flags: -q -C */
/* -C runs the C preprocessor: object- and function-like macros, #if, #ifdef, #else */
#define LOW 100
#define HIGH (LOW + 3)
#define IN_RANGE(x) ((x) >= LOW && (x) < HIGH)
#define LABEL "block"
#if HIGH > 102
#define WIDE 1
#endif
BEGIN
{
	printf("%d %d %d %d\n", LOW, HIGH, IN_RANGE(101), IN_RANGE(103));
#ifdef WIDE
	printf("%s wide\n", LABEL);
#else
	printf("%s narrow\n", LABEL);
#endif
#ifndef UNDEFINED_NAME
	printf("%s\n", strjoin(LABEL, "s"));
#endif
	exit(0);
}
