// SPDX-License-Identifier: BSD-2-Clause
/*
 * The program generator's expressions: random well-typed D integer and
 * string expressions over constants of every width and spelling, the
 * firing's built-in variables, variables of the three scopes and
 * associative array elements, every operator, casts to every integer
 * type, nested ?:, and the string subroutines the kernel implements
 * (with strtoll, cleanpath and the byte order conversions).
 *
 * Everything is parenthesized, so precedence never decides what an
 * expression means (the compiler's precedence has its own tests). Keys
 * (GEN_KEY) come from small domains so arrays and aggregations stay
 * small; constructs that may fault (a divisor that may be 0, a string
 * that may be NULL read by something that reads it, a bad lltostr base)
 * are rationed per clause (gen.faults), and string results per clause
 * (gen.scratch), so most clauses run to their end.
 */
#include <string.h>
#include "dref_gen.h"

static const char *const int_types[] = {
	"char", "signed char", "unsigned char", "short", "unsigned short", "int", "unsigned",
	"unsigned int", "long", "unsigned long", "long long", "unsigned long long", "int8_t",
	"uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t", "size_t",
	"ssize_t", "uintptr_t", "hrtime_t", "uchar_t", "ushort_t", "uint_t", "ulong_t", "pid_t",
	"id_t", "processorid_t", "tid_t", "longlong_t", "u_longlong_t",
};

static const char *const int_constants[] = {
	"0", "1", "2", "3", "7", "-1", "-2", "-128", "127", "128", "255", "256", "300", "-129",
	"32767", "32768", "65535", "65536", "2147483647", "2147483648", "-2147483648",
	"4294967295", "4294967296", "9223372036854775807", "0x7f", "0xff", "0x80", "0xffff",
	"0x8000", "0x7fffffff", "0x80000000", "0xffffffff", "0x100000000", "0x7fffffffffffffff",
	"0x8000000000000000", "0xffffffffffffffff", "5u", "10l", "3ul", "7ll", "1ull", "0x10U",
	"0xffffffffu", "077", "0", "'a'", "'/'", "'\\0'", "1000000", "-1000000007",
};

static const char *const string_literals[] = {
	"", "a", "abc", "lock", "a,b,,c", "/usr/lib/libc.so", "usr//lib/", "///", "x/", "/",
	"hello world", "bcache_read", "entry", ",,", "aXbXc", "0123456789abcdefghijklmnopqrstuvwxyz",
	"a string longer than the smallest strsize the generator sets", "tab\\tsep", "q\\\"uote",
	"..", "a/b", "mutex",
};

static const char *const key_strings[] = { "", "a", "lock", "x/y", "bcache_read", "k1", "k2" };

static const char *const int_builtins[] = {
	"arg0", "arg1", "arg2", "arg3", "arg4", "arg5", "arg6", "timestamp", "vtimestamp",
	"walltimestamp", "cpu", "tid", "pid", "epid", "id", "curthread->tid",
	"curthread->affinity", "curthread->ticks_run", "curthread->switches_in",
	"ppid", "uid", "errno", "curpsinfo->pr_pid", "curpsinfo->pr_ppid",
};

static const char *const str_builtins[] = {
	"probefunc", "probename", "probemod", "probeprov", "execname", "curthread->name",
	"curpsinfo->pr_fname", "curpsinfo->pr_psargs",
};

static const char *const delimiters[] = { ",", "/", "X", ", ", "ab", "-_", "" };

const char *gen_int_type(struct gen *g)
{
	return PICK(g, int_types);
}

bool gen_readable(const struct gen_var *v)
{
	/* A self-> or this-> integer read first is made an int64 by the checker: fine. */
	return v->declared || v->appeared || (!v->is_string && v->scope != DT_SCOPE_GLOBAL);
}

/* A dynamic string is copied into scratch when it is read. */
static bool reads_into_scratch(const struct gen_var *v)
{
	return v->is_string && (v->is_array || v->scope == DT_SCOPE_THREAD);
}

/*
 * A readable variable of the kind asked (scalar or array, string or not),
 * or NULL; none that needs scratch once the clause's is spent.
 */
static const struct gen_var *pick_var(struct gen *g, bool is_string)
{
	const struct gen_var *found[GEN_MAX_VARS];
	unsigned n = 0;
	for (unsigned i = 0; i < g->nvars; i++)
		if (g->vars[i].is_string == is_string && gen_readable(&g->vars[i]) &&
		    (!reads_into_scratch(&g->vars[i]) || g->scratch))
			found[n++] = &g->vars[i];
	return n ? found[dref_below(g->r, n)] : NULL;
}

static bool may_fault(struct gen *g)
{
	if (!g->faults || !dref_chance(g->r, 30))
		return false;
	g->faults--;
	return true;
}

static bool take_scratch(struct gen *g, unsigned slots)
{
	if (g->scratch < slots)
		return false;
	g->scratch -= slots;
	return true;
}

void gen_var_ref(struct gen *g, struct dref_buf *b, const struct gen_var *v, int depth)
{
	if (reads_into_scratch(v))
		take_scratch(g, 1);
	dref_printf(b, "%s", v->name);
	if (!v->is_array)
		return;
	dref_printf(b, "[");
	for (int i = 0; i < v->nkeys; i++) {
		dref_printf(b, "%s", i ? ", " : "");
		if (v->key_string[i])
			gen_str(g, b, depth - 1, GEN_KEY);
		else
			gen_int(g, b, depth - 1, GEN_KEY);
	}
	dref_printf(b, "]");
}

/* ---- integers ---- */

static void int_key(struct gen *g, struct dref_buf *b, int depth)
{
	switch (dref_below(g->r, 9)) {
	case 0:
		dref_printf(b, "%s", PICK(g, int_constants));
		return;
	case 1:
		dref_printf(b, "(arg%u %% %u)", dref_below(g->r, 6), 2 + dref_below(g->r, 4));
		return;
	case 2:
		dref_printf(b, "(arg%u & %u)", dref_below(g->r, 6), 1 + dref_below(g->r, 7));
		return;
	case 3: {
		static const char *const few[] = { "cpu", "tid", "id", "epid", "curthread->affinity",
						   "(timestamp & 3)", "pid" };
		dref_printf(b, "%s", PICK(g, few));
		return;
	}
	case 4: {
		const struct gen_var *v = pick_var(g, false);
		if (v && depth > 0) {
			dref_printf(b, "(");
			gen_var_ref(g, b, v, depth - 1);
			dref_printf(b, " & %u)", 1 + dref_below(g->r, 7));
			return;
		}
		dref_printf(b, "%d", (int)dref_below(g->r, 5) - 2);
		return;
	}
	case 5:
		dref_printf(b, "(%s)", gen_int_type(g));
		int_key(g, b, depth - 1);
		return;
	case 6:
		if (depth > 0 && take_scratch(g, 1)) {
			dref_printf(b, "(strlen(");
			gen_str(g, b, depth - 1, GEN_KEY);
			dref_printf(b, ") %% 4)");
			return;
		}
		dref_printf(b, "%u", dref_below(g->r, 4));
		return;
	case 7:
		if (depth > 0) {
			dref_printf(b, "(");
			gen_int(g, b, depth - 1, GEN_ANY);
			dref_printf(b, " ? ");
			int_key(g, b, depth - 1);
			dref_printf(b, " : ");
			int_key(g, b, depth - 1);
			dref_printf(b, ")");
			return;
		}
		dref_printf(b, "%u", dref_below(g->r, 300));
		return;
	default:
		dref_printf(b, "((%s)arg%u & %s)", gen_int_type(g), dref_below(g->r, 6),
			    dref_chance(g->r, 50) ? "0x81" : "0x8003");
		return;
	}
}

/* A constant or literal (2 in 5 for integers, 2 in 4 for strings), a builtin, or a variable. */
static void leaf(struct gen *g, struct dref_buf *b, bool string)
{
	unsigned draw = dref_below(g->r, string ? 4 : 5);
	if (draw < 2) {
		if (string)
			dref_printf(b, "\"%s\"", PICK(g, string_literals));
		else
			dref_printf(b, "%s", PICK(g, int_constants));
		return;
	}
	const struct gen_var *v = draw > 2 ? pick_var(g, string) : NULL;
	if (v)
		gen_var_ref(g, b, v, 1);
	else
		dref_printf(b, "%s", string ? PICK(g, str_builtins) : PICK(g, int_builtins));
}

static void binary_int(struct gen *g, struct dref_buf *b, int depth, enum gen_use use)
{
	static const char *const ops[] = { "+", "-", "*", "&", "|", "^", "/", "%", "<<", ">>" };
	const char *op = PICK(g, ops);
	dref_printf(b, "(");
	gen_int(g, b, depth - 1, use);
	dref_printf(b, " %s ", op);
	if (op[0] == '/' || op[0] == '%') {
		/*
		 * The divisor is made nonzero unless this clause may fault; then
		 * it is kept from being a constant, which the checker would
		 * refuse if it were 0.
		 */
		bool guard = !may_fault(g);
		dref_printf(b, "(");
		gen_int(g, b, depth - 1, use);
		dref_printf(b, "%s", guard ? " | 1)" : " ^ (cpu & 0))");
	} else if (op[0] == '<' || op[0] == '>') {
		if (dref_chance(g->r, 50)) {
			dref_printf(b, "%u", dref_below(g->r, 70));	/* 64..69: taken mod 64 */
		} else {
			dref_printf(b, "(");
			gen_int(g, b, depth - 1, use);
			dref_printf(b, " & 63)");
		}
	} else {
		gen_int(g, b, depth - 1, use);
	}
	dref_printf(b, ")");
}

static void comparison(struct gen *g, struct dref_buf *b, int depth)
{
	static const char *const ops[] = { "==", "!=", "<", "<=", ">", ">=" };
	const char *op = PICK(g, ops);
	dref_printf(b, "(");
	switch (dref_below(g->r, 4)) {
	case 0:
		if (take_scratch(g, 2)) {
			gen_str(g, b, depth - 1, GEN_ANY);	/* NULL compares as "" */
			dref_printf(b, " %s ", op);
			gen_str(g, b, depth - 1, GEN_ANY);
			break;
		}
		/* fall through */
	case 1:
		dref_printf(b, "(%s)", gen_int_type(g));
		gen_int(g, b, depth - 1, GEN_ANY);
		dref_printf(b, " %s (%s)", op, gen_int_type(g));
		gen_int(g, b, depth - 1, GEN_ANY);
		break;
	case 2:
		if (take_scratch(g, 2)) {
			gen_str(g, b, depth - 1, GEN_ANY);
			dref_printf(b, " %s NULL", dref_chance(g->r, 50) ? "==" : "!=");
			break;
		}
		/* fall through */
	default:
		gen_int(g, b, depth - 1, GEN_ANY);
		dref_printf(b, " %s ", op);
		gen_int(g, b, depth - 1, GEN_ANY);
		break;
	}
	dref_printf(b, ")");
}

static void int_call(struct gen *g, struct dref_buf *b, int depth)
{
	if (!take_scratch(g, 2)) {
		dref_printf(b, "%s", PICK(g, int_constants));
		return;
	}
	enum gen_use use = may_fault(g) ? GEN_ANY : GEN_SAFE;
	switch (dref_below(g->r, 5)) {
	case 0:
		dref_printf(b, "strlen(");
		gen_str(g, b, depth - 1, use);
		dref_printf(b, ")");
		return;
	case 1: {
		static const char *const numbers[] = {
			"\"42\"", "\" -0x1f\"", "\"0777\"", "\"zz\"", "\"\\t+9z\"",
			"\"18446744073709551617\"", "\"-9223372036854775808\"", "\"0x\"", "\"\\n5\"",
		};
		static const char *const bases[] = { "0", "2", "8", "10", "16", "36" };
		static const char *const bad[] = { "1", "37", "-1" };
		dref_printf(b, "strtoll(");
		if (dref_chance(g->r, 50))
			dref_printf(b, "%s", PICK(g, numbers));
		else
			gen_str(g, b, depth - 1, use);
		if (dref_chance(g->r, 60))
			dref_printf(b, ", %s", may_fault(g) ? PICK(g, bad) : PICK(g, bases));
		dref_printf(b, ")");
		return;
	}
	case 2: {
		static const char *const order[] = { "htons", "htonl", "htonll", "ntohs", "ntohl",
						     "ntohll" };
		dref_printf(b, "%s(", PICK(g, order));
		gen_int(g, b, depth - 1, GEN_ANY);
		dref_printf(b, ")");
		return;
	}
	default:
		dref_printf(b, "%s(", dref_chance(g->r, 50) ? "index" : "rindex");
		gen_str(g, b, depth - 1, use);
		dref_printf(b, ", ");
		gen_str(g, b, depth - 1, GEN_SAFE);
		if (dref_chance(g->r, 50)) {
			dref_printf(b, ", ");
			int_key(g, b, 1);
		}
		dref_printf(b, ")");
		return;
	}
}

void gen_int(struct gen *g, struct dref_buf *b, int depth, enum gen_use use)
{
	if (use == GEN_KEY) {
		int_key(g, b, depth);
		return;
	}
	if (depth <= 0) {
		leaf(g, b, false);
		return;
	}
	switch (dref_below(g->r, 12)) {
	case 0:
	case 1:
		leaf(g, b, false);
		return;
	case 2:
		dref_printf(b, "((%s)", gen_int_type(g));
		gen_int(g, b, depth - 1, use);
		dref_printf(b, ")");
		return;
	case 3: {
		static const char *const ops[] = { "-", "~", "!", "+" };
		dref_printf(b, "(%s(", PICK(g, ops));	/* -(-1), not --1 */
		gen_int(g, b, depth - 1, use);
		dref_printf(b, "))");
		return;
	}
	case 4:
	case 5:
		binary_int(g, b, depth, use);
		return;
	case 6:
		comparison(g, b, depth);
		return;
	case 7: {
		static const char *const ops[] = { "&&", "||", "^^" };
		dref_printf(b, "(");
		gen_int(g, b, depth - 1, use);
		dref_printf(b, " %s ", PICK(g, ops));
		gen_int(g, b, depth - 1, use);
		dref_printf(b, ")");
		return;
	}
	case 8:
	case 9:
		dref_printf(b, "(");
		gen_int(g, b, depth - 1, GEN_ANY);
		dref_printf(b, " ? ");
		gen_int(g, b, depth - 1, use);
		dref_printf(b, " : ");
		gen_int(g, b, depth - 1, use);
		dref_printf(b, ")");
		return;
	default:
		int_call(g, b, depth);
		return;
	}
}

/* ---- strings ---- */

static void str_key(struct gen *g, struct dref_buf *b, int depth)
{
	switch (dref_below(g->r, 7)) {
	case 0:
	case 1:
		dref_printf(b, "\"%s\"", PICK(g, key_strings));
		return;
	case 2:
		dref_printf(b, "%s", PICK(g, str_builtins));
		return;
	case 3:
		if (take_scratch(g, 2)) {
			dref_printf(b, "substr(%s, 0, %u)", PICK(g, str_builtins), dref_below(g->r, 6));
			return;
		}
		break;
	case 4:
		if (take_scratch(g, 2)) {
			dref_printf(b, "strjoin(%s, \"%s\")", PICK(g, str_builtins), PICK(g, key_strings));
			return;
		}
		break;
	case 5:
		if (take_scratch(g, 1)) {
			dref_printf(b, "lltostr(");
			int_key(g, b, depth > 0 ? depth - 1 : 0);
			dref_printf(b, ")");
			return;
		}
		break;
	default: {
		const struct gen_var *v = pick_var(g, true);
		if (v && depth > 0 && (!v->is_array || dref_chance(g->r, 50))) {
			gen_var_ref(g, b, v, depth - 1);
			return;
		}
		break;
	}
	}
	dref_printf(b, "\"%s\"", PICK(g, key_strings));
}

/*
 * strtok's first argument: NULL to go on, or a string that lives as long
 * as the firing (strtok(NULL, ...) reads on from its address, even in a
 * later clause) and is shorter than the smallest strsize (where a string
 * is cut decides whether a trailing delimiter ends the search: DTrace
 * cannot see past the cut, nor can the evaluator).
 */
static void strtok_call(struct gen *g, struct dref_buf *b)
{
	static const char *const sources[] = {
		"\"a,b,,c\"", "\",,\"", "\"aXbXc\"", "\"/usr/lib/\"", "\"x/\"", "\"hello world\"",
		"\"\"", "\"abc\"", "\"a/b\"", "probefunc", "probename", "probemod", "probeprov",
	};
	dref_printf(b, "strtok(");
	if (dref_chance(g->r, 35))
		dref_printf(b, "NULL");
	else
		dref_printf(b, "%s", PICK(g, sources));
	dref_printf(b, ", \"%s\")", PICK(g, delimiters));
}

/* name(s1, s2) of two strings of depth - 1. */
static void two_strings(struct gen *g, struct dref_buf *b, int depth, const char *name)
{
	dref_printf(b, "%s(", name);
	gen_str(g, b, depth - 1, GEN_SAFE);
	dref_printf(b, ", ");
	gen_str(g, b, depth - 1, GEN_SAFE);
	dref_printf(b, ")");
}

/* A string that may be NULL: a search that can find nothing. */
static void nullable_str(struct gen *g, struct dref_buf *b, int depth)
{
	switch (dref_below(g->r, 4)) {
	case 0:
		two_strings(g, b, depth, "strstr");
		return;
	case 1:
	case 2: {
		static const char *const chars[] = { "'a'", "'/'", "','", "0", "'z'", "300", "'X'",
						     "'e'", "'_'" };
		dref_printf(b, "%s(", dref_chance(g->r, 50) ? "strchr" : "strrchr");
		gen_str(g, b, depth - 1, GEN_SAFE);
		dref_printf(b, ", %s)", PICK(g, chars));
		return;
	}
	default:
		strtok_call(g, b);
		return;
	}
}

static void str_call(struct gen *g, struct dref_buf *b, int depth)
{
	switch (dref_below(g->r, 8)) {
	case 6: {
		static const char *const paths[] = {
			"\"/a/./b//../c/\"", "\"/..\"", "\"a/..\"", "\"/x/y/..\"", "\"/.h/..x/.\"",
		};
		dref_printf(b, "cleanpath(");
		if (dref_chance(g->r, 40))
			dref_printf(b, "%s", PICK(g, paths));
		else
			gen_str(g, b, depth - 1, GEN_SAFE);
		dref_printf(b, ")");
		return;
	}
	case 7:
		dref_printf(b, "%s(", dref_chance(g->r, 50) ? "toupper" : "tolower");
		gen_str(g, b, depth - 1, GEN_SAFE);
		dref_printf(b, ")");
		return;
	case 0:
		two_strings(g, b, depth, "strjoin");
		return;
	case 1:
		dref_printf(b, "substr(");
		gen_str(g, b, depth - 1, GEN_SAFE);
		dref_printf(b, ", %d", (int)dref_below(g->r, 30) - 12);
		if (dref_chance(g->r, 60))
			dref_printf(b, ", %d", (int)dref_below(g->r, 30) - 10);
		dref_printf(b, ")");
		return;
	case 2: {
		static const char *const bases[] = { "2", "8", "10", "16", "36" };
		static const char *const bad[] = { "0", "1", "37" };
		dref_printf(b, "lltostr(");
		gen_int(g, b, depth - 1, GEN_ANY);
		if (dref_chance(g->r, 50))
			dref_printf(b, ", %s", may_fault(g) ? PICK(g, bad) : PICK(g, bases));
		dref_printf(b, ")");
		return;
	}
	case 3:
		dref_printf(b, "%s(", dref_chance(g->r, 50) ? "basename" : "dirname");
		gen_str(g, b, depth - 1, GEN_SAFE);
		dref_printf(b, ")");
		return;
	case 4:
		dref_printf(b, "(");
		gen_int(g, b, depth - 1, GEN_ANY);
		dref_printf(b, " ? ");
		gen_str(g, b, depth - 1, GEN_SAFE);
		dref_printf(b, " : ");
		gen_str(g, b, depth - 1, GEN_SAFE);
		dref_printf(b, ")");
		return;
	default:
		dref_printf(b, "(string)");
		gen_str(g, b, depth - 1, GEN_SAFE);
		return;
	}
}

void gen_str(struct gen *g, struct dref_buf *b, int depth, enum gen_use use)
{
	if (use == GEN_KEY) {
		if (may_fault(g) && take_scratch(g, 2))
			nullable_str(g, b, 1);		/* a NULL key faults */
		else
			str_key(g, b, depth);
		return;
	}
	if (depth <= 0 || !take_scratch(g, 2)) {
		leaf(g, b, true);
		return;
	}
	bool nullable = use == GEN_ANY || may_fault(g);
	if (nullable && dref_chance(g->r, 25)) {
		nullable_str(g, b, depth);
		return;
	}
	if (dref_chance(g->r, 25))
		leaf(g, b, true);
	else
		str_call(g, b, depth);
}
