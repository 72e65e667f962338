// SPDX-License-Identifier: BSD-2-Clause
/*
 * The D functions this subset has, as one table: actions (statements
 * that record data or control tracing), subroutines (values), and
 * aggregating functions (the right side of @name[keys] = ...), each with
 * its arity, the kind of each argument and its result type; and the
 * dtrace functions it refuses, with the reason given to the user.
 *
 * Invariant: dt_funcs[i].id == i, so code generators index by id.
 */
#include <string.h>
#include "dt_impl.h"

#define STR { .kind = DT_TYPE_STRING }
#define VOID { .kind = DT_TYPE_VOID }
#define VOID_PTR { .kind = DT_TYPE_PTR, .size = 8, .levels = 1 }
#define SYM_T(style) { .kind = DT_TYPE_INT, .size = 8, .sym = style }
#define VARIADIC 255

enum { A_INT = DT_ARG_INT, A_STR = DT_ARG_STRING, A_ANY = DT_ARG_SCALAR_OR_STRING,
       A_CONST = DT_ARG_INT_CONST, A_FMT = DT_ARG_FORMAT, A_AGG = DT_ARG_AGG,
       A_ADDR = DT_ARG_ADDRESS };

/* In enum dt_func_id order. params[i] is argument i's kind; the last one given repeats. */
const struct dt_func dt_funcs[DT_FUNC_COUNT] = {
	{ DT_F_TRACE, "trace", DT_FK_ACTION, 1, 1, { A_ANY }, VOID, true },
	{ DT_F_PRINTF, "printf", DT_FK_ACTION, 1, VARIADIC, { A_FMT, A_ANY }, VOID, true },
	{ DT_F_PRINTA, "printa", DT_FK_ACTION, 1, VARIADIC, { A_FMT, A_AGG }, VOID, true },
	{ DT_F_EXIT, "exit", DT_FK_ACTION, 1, 1, { A_INT }, VOID, true },
	{ DT_F_STACK, "stack", DT_FK_ACTION, 0, 1, { A_CONST }, VOID, true },
	{ DT_F_SPECULATE, "speculate", DT_FK_ACTION, 1, 1, { A_INT }, VOID, false },
	{ DT_F_COMMIT, "commit", DT_FK_ACTION, 1, 1, { A_INT }, VOID, false },
	{ DT_F_DISCARD, "discard", DT_FK_ACTION, 1, 1, { A_INT }, VOID, false },
	{ DT_F_CLEAR, "clear", DT_FK_ACTION, 1, 1, { A_AGG }, VOID, true },
	{ DT_F_TRUNC, "trunc", DT_FK_ACTION, 1, 2, { A_AGG, A_INT }, VOID, true },
	{ DT_F_NORMALIZE, "normalize", DT_FK_ACTION, 2, 2, { A_AGG, A_INT }, VOID, true },
	{ DT_F_DENORMALIZE, "denormalize", DT_FK_ACTION, 1, 1, { A_AGG }, VOID, true },
	{ DT_F_TRACEMEM, "tracemem", DT_FK_ACTION, 2, 3, { A_ADDR, A_CONST, A_INT }, VOID, true },
	{ DT_F_PRINT, "print", DT_FK_ACTION, 1, 1, { A_ANY }, VOID, true },
	{ DT_F_SPECULATION, "speculation", DT_FK_SUBR, 0, 0, { 0 }, DT_INT_T(4, true, DT_TD_NONE),
	  false },
	{ DT_F_STRLEN, "strlen", DT_FK_SUBR, 1, 1, { A_STR }, DT_INT_T(8, false, DT_TD_SIZE),
	  false },
	{ DT_F_STRJOIN, "strjoin", DT_FK_SUBR, 2, 2, { A_STR, A_STR }, STR, false },
	{ DT_F_SUBSTR, "substr", DT_FK_SUBR, 2, 3, { A_STR, A_INT, A_INT }, STR, false },
	{ DT_F_INDEX, "index", DT_FK_SUBR, 2, 3, { A_STR, A_STR, A_INT },
	  DT_INT_T(4, true, DT_TD_NONE), false },
	{ DT_F_LLTOSTR, "lltostr", DT_FK_SUBR, 1, 2, { A_INT, A_INT }, STR, false },
	{ DT_F_BASENAME, "basename", DT_FK_SUBR, 1, 1, { A_STR }, STR, false },
	{ DT_F_DIRNAME, "dirname", DT_FK_SUBR, 1, 1, { A_STR }, STR, false },
	{ DT_F_RAND, "rand", DT_FK_SUBR, 0, 0, { 0 }, DT_INT_T(4, true, DT_TD_NONE), false },
	{ DT_F_FUNC, "func", DT_FK_SUBR, 1, 1, { A_INT }, SYM_T(DT_SYM_FUNC),
	  false },
	{ DT_F_SYM, "sym", DT_FK_SUBR, 1, 1, { A_INT }, SYM_T(DT_SYM_SYM),
	  false },
	{ DT_F_STRSTR, "strstr", DT_FK_SUBR, 2, 2, { A_STR, A_STR }, STR, false },
	{ DT_F_STRCHR, "strchr", DT_FK_SUBR, 2, 2, { A_STR, A_INT }, STR, false },
	{ DT_F_STRRCHR, "strrchr", DT_FK_SUBR, 2, 2, { A_STR, A_INT }, STR, false },
	{ DT_F_RINDEX, "rindex", DT_FK_SUBR, 2, 3, { A_STR, A_STR, A_INT },
	  DT_INT_T(4, true, DT_TD_NONE), false },
	{ DT_F_STRTOK, "strtok", DT_FK_SUBR, 2, 2, { A_STR, A_STR }, STR, false },
	{ DT_F_COPYIN, "copyin", DT_FK_SUBR, 2, 2, { A_INT, A_INT }, VOID_PTR, false },
	{ DT_F_COPYINSTR, "copyinstr", DT_FK_SUBR, 1, 2, { A_INT, A_INT }, STR, false },
	{ DT_F_STRINGOF, "stringof", DT_FK_SUBR, 1, 1, { A_ANY }, STR, false },
	{ DT_F_TOUPPER, "toupper", DT_FK_SUBR, 1, 1, { A_STR }, STR, false },
	{ DT_F_TOLOWER, "tolower", DT_FK_SUBR, 1, 1, { A_STR }, STR, false },
	{ DT_F_STRTOLL, "strtoll", DT_FK_SUBR, 1, 2, { A_STR, A_INT },
	  DT_INT_T(8, true, DT_TD_INT64), false },
	{ DT_F_HTONS, "htons", DT_FK_SUBR, 1, 1, { A_INT }, DT_INT_T(2, false, DT_TD_UINT16), false },
	{ DT_F_HTONL, "htonl", DT_FK_SUBR, 1, 1, { A_INT }, DT_INT_T(4, false, DT_TD_UINT32), false },
	{ DT_F_HTONLL, "htonll", DT_FK_SUBR, 1, 1, { A_INT }, DT_INT_T(8, false, DT_TD_UINT64),
	  false },
	{ DT_F_NTOHS, "ntohs", DT_FK_SUBR, 1, 1, { A_INT }, DT_INT_T(2, false, DT_TD_UINT16), false },
	{ DT_F_NTOHL, "ntohl", DT_FK_SUBR, 1, 1, { A_INT }, DT_INT_T(4, false, DT_TD_UINT32), false },
	{ DT_F_NTOHLL, "ntohll", DT_FK_SUBR, 1, 1, { A_INT }, DT_INT_T(8, false, DT_TD_UINT64),
	  false },
	{ DT_F_CLEANPATH, "cleanpath", DT_FK_SUBR, 1, 1, { A_STR }, STR, false },
	{ DT_F_COUNT, "count", DT_FK_AGG, 0, 0, { 0 }, VOID, false },
	{ DT_F_SUM, "sum", DT_FK_AGG, 1, 1, { A_INT }, VOID, false },
	{ DT_F_MIN, "min", DT_FK_AGG, 1, 1, { A_INT }, VOID, false },
	{ DT_F_MAX, "max", DT_FK_AGG, 1, 1, { A_INT }, VOID, false },
	{ DT_F_AVG, "avg", DT_FK_AGG, 1, 1, { A_INT }, VOID, false },
	{ DT_F_STDDEV, "stddev", DT_FK_AGG, 1, 1, { A_INT }, VOID, false },
	{ DT_F_QUANTIZE, "quantize", DT_FK_AGG, 1, 2, { A_INT, A_INT }, VOID, false },
	{ DT_F_LQUANTIZE, "lquantize", DT_FK_AGG, 3, 5, { A_INT, A_CONST, A_CONST, A_CONST },
	  VOID, false },
	{ DT_F_LLQUANTIZE, "llquantize", DT_FK_AGG, 5, 6,
	  { A_INT, A_CONST, A_CONST, A_CONST, A_CONST, A_INT }, VOID, false },
	{ DT_F_CHILL, "chill", DT_FK_ACTION, 1, 1, { A_INT }, VOID, false },
	{ DT_F_RAISE, "raise", DT_FK_ACTION, 1, 1, { A_INT }, VOID, false },
	{ DT_F_PANIC, "panic", DT_FK_ACTION, 0, 0, { 0 }, VOID, false },
	{ DT_F_BREAKPOINT, "breakpoint", DT_FK_ACTION, 0, 0, { 0 }, VOID, false },
	{ DT_F_STOP, "stop", DT_FK_ACTION, 0, 0, { 0 }, VOID, false },
	{ DT_F_PAUSE, "pause", DT_FK_ACTION, 0, 0, { 0 }, VOID, false },
	{ DT_F_ALLOCA, "alloca", DT_FK_SUBR, 1, 1, { A_INT }, VOID_PTR, false },
	{ DT_F_BCOPY, "bcopy", DT_FK_SUBR, 3, 3, { A_ADDR, A_ADDR, A_INT }, VOID, false },
	{ DT_F_COPYINTO, "copyinto", DT_FK_SUBR, 3, 3, { A_INT, A_INT, A_ADDR }, VOID, false },
};

/* dtrace functions this subset refuses, and why. */
static const struct {
	const char *name;
	const char *why;
} refused_funcs[] = {
	{ "copyout", "destructive actions are not supported" },
	{ "copyoutstr", "destructive actions are not supported" },
	{ "ustack", "user stacks are not supported yet" },
	{ "jstack", "user stacks are not supported yet" },
	{ "uaddr", "user symbols are not supported yet" },
	{ "ufunc", "user symbols are not supported yet" },
	{ "usym", "user symbols are not supported yet" },
	{ "umod", "user symbols are not supported yet" },
	{ "mod", "the kernel is Scion's only module" },
	{ "system", "destructive actions are not supported" },
	{ "freopen", "output redirection is not supported" },
	{ "ftruncate", "output redirection is not supported" },
	{ "setopt", "set options with #pragma D option" },
	{ "progenyof", "not supported yet" },
	{ "getmajor", "Scion has no device numbers" },
	{ "getminor", "Scion has no device numbers" },
	{ "mutex_owned", "pointers are not supported" },
	{ "mutex_owner", "pointers are not supported" },
	{ "rw_read_held", "pointers are not supported" },
	{ "inet_ntoa", "not supported" },
	{ "printm", "not supported" },
};

const struct dt_func *dt_func_lookup(const char *name)
{
	for (int i = 0; i < DT_FUNC_COUNT; i++)
		if (!strcmp(dt_funcs[i].name, name))
			return &dt_funcs[i];
	return NULL;
}

bool dt_func_destructive(enum dt_func_id id)
{
	return id == DT_F_CHILL || id == DT_F_RAISE || id == DT_F_PANIC || id == DT_F_BREAKPOINT ||
	       id == DT_F_STOP || id == DT_F_PAUSE;
}

const char *dt_func_refusal(const char *name)
{
	for (size_t i = 0; i < sizeof(refused_funcs) / sizeof(refused_funcs[0]); i++)
		if (!strcmp(refused_funcs[i].name, name))
			return refused_funcs[i].why;
	return NULL;
}

