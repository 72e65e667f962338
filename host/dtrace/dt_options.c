// SPDX-License-Identifier: BSD-2-Clause
/*
 * Consumer options and the `#pragma` control lines that set them. One
 * table serves `#pragma D option name[=value]` and the host command's
 * `-x name[=value]`: sizes take k/m/g/t suffixes (powers of 1024), rates
 * take ns/us/ms/s/m/h/d (a bare number is nanoseconds, as in dtrace) or
 * hz (per second), flags take no value.
 *
 * Invariant: dt_option_set changes nothing unless the whole value is
 * valid; values are kept in the units the table names (bytes,
 * nanoseconds, counts, choice indexes).
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "dt_impl.h"

#define KB 1024ull
#define MB (1024ull * KB)
#define GB (1024ull * MB)
#define NS_PER_S 1000000000ull

static const char *const bufpolicies[] = { "switch", "fill", "ring", NULL };
static const char *const bufresizes[] = { "auto", "manual", NULL };
static const char *const oformats[] = { "text", "json", NULL };

/* In enum dt_option_id order. */
const struct dt_option_desc dt_options_table[DT_OPTION_COUNT] = {
	{ DT_OPT_AGGRATE, "aggrate", DT_OK_RATE, NS_PER_S, 1, UINT64_MAX, NULL },
	{ DT_OPT_AGGSIZE, "aggsize", DT_OK_SIZE, 4 * MB, 1, 64 * GB, NULL },
	{ DT_OPT_AGGSORTKEY, "aggsortkey", DT_OK_FLAG, 0, 0, 1, NULL },
	{ DT_OPT_AGGSORTKEYPOS, "aggsortkeypos", DT_OK_COUNT, 0, 0, DT_MAX_KEYS - 1, NULL },
	{ DT_OPT_AGGSORTPOS, "aggsortpos", DT_OK_COUNT, 0, 0, 255, NULL },
	{ DT_OPT_AGGSORTREV, "aggsortrev", DT_OK_FLAG, 0, 0, 1, NULL },
	{ DT_OPT_BUFPOLICY, "bufpolicy", DT_OK_CHOICE, DT_BUFPOLICY_SWITCH, 0, 2, bufpolicies },
	{ DT_OPT_BUFRESIZE, "bufresize", DT_OK_CHOICE, DT_BUFRESIZE_AUTO, 0, 1, bufresizes },
	{ DT_OPT_BUFSIZE, "bufsize", DT_OK_SIZE, 4 * MB, 1, 64 * GB, NULL },
	{ DT_OPT_CLEANRATE, "cleanrate", DT_OK_RATE, NS_PER_S / 101, 1, UINT64_MAX, NULL },
	{ DT_OPT_CPU, "cpu", DT_OK_COUNT, 0, 0, 4095, NULL },
	{ DT_OPT_DEFAULTARGS, "defaultargs", DT_OK_FLAG, 0, 0, 1, NULL },
	{ DT_OPT_DESTRUCTIVE, "destructive", DT_OK_FLAG, 0, 0, 1, NULL },
	{ DT_OPT_DYNVARSIZE, "dynvarsize", DT_OK_SIZE, 1 * MB, 1, 64 * GB, NULL },
	{ DT_OPT_FLOWINDENT, "flowindent", DT_OK_FLAG, 0, 0, 1, NULL },
	{ DT_OPT_NOJIT, "nojit", DT_OK_FLAG, 0, 0, 1, NULL },
	{ DT_OPT_NSPEC, "nspec", DT_OK_COUNT, 1, 1, 65536, NULL },
	{ DT_OPT_OFORMAT, "oformat", DT_OK_CHOICE, DT_OFORMAT_TEXT, 0, 1, oformats },
	{ DT_OPT_QUIET, "quiet", DT_OK_FLAG, 0, 0, 1, NULL },
	{ DT_OPT_RAWBYTES, "rawbytes", DT_OK_FLAG, 0, 0, 1, NULL },
	{ DT_OPT_SPECSIZE, "specsize", DT_OK_SIZE, 32 * KB, 1, 64 * GB, NULL },
	{ DT_OPT_STACKFRAMES, "stackframes", DT_OK_COUNT, 20, 1, 1024, NULL },
	{ DT_OPT_STACKINDENT, "stackindent", DT_OK_COUNT, 14, 0, 1024, NULL },
	{ DT_OPT_STATUSRATE, "statusrate", DT_OK_RATE, NS_PER_S, 1, UINT64_MAX, NULL },
	{ DT_OPT_STRSIZE, "strsize", DT_OK_SIZE, 256, 2, 1 * MB, NULL },
	{ DT_OPT_SWITCHRATE, "switchrate", DT_OK_RATE, NS_PER_S, 1, UINT64_MAX, NULL },
	{ DT_OPT_ZDEFS, "zdefs", DT_OK_FLAG, 0, 0, 1, NULL },
};

static const struct {
	const char *suffix;
	uint64_t ns;		/* 0: a frequency */
} rate_suffixes[] = {
	{ "ns", 1 }, { "nsec", 1 }, { "us", 1000 }, { "usec", 1000 },
	{ "ms", 1000000 }, { "msec", 1000000 }, { "s", NS_PER_S }, { "sec", NS_PER_S },
	{ "m", 60 * NS_PER_S }, { "min", 60 * NS_PER_S }, { "h", 3600 * NS_PER_S },
	{ "hour", 3600 * NS_PER_S }, { "d", 86400 * NS_PER_S }, { "day", 86400 * NS_PER_S },
	{ "hz", 0 },
};

void dt_options_init(struct dt_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	for (int i = 0; i < DT_OPTION_COUNT; i++)
		opts->value[i] = dt_options_table[i].default_value;
}

const struct dt_option_desc *dt_option_lookup(const char *name)
{
	for (int i = 0; i < DT_OPTION_COUNT; i++)
		if (!strcmp(dt_options_table[i].name, name))
			return &dt_options_table[i];
	return NULL;
}

uint64_t dt_option_get(const struct dt_options *opts, enum dt_option_id id)
{
	if ((unsigned)id >= DT_OPTION_COUNT)
		return 0;
	return opts->set[id] ? opts->value[id] : dt_options_table[id].default_value;
}

/* Decimal, 0x hex or 0 octal digits at *s; false on no digits or overflow. */
static bool parse_number(const char **s, uint64_t *out)
{
	const char *p = *s;
	unsigned base = 10;
	uint64_t v = 0;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
	    p[2] && strchr("0123456789abcdefABCDEF", p[2])) {
		base = 16;
		p += 2;
	} else if (p[0] == '0') {
		base = 8;
	}
	const char *first = p;
	for (;; p++) {
		unsigned d;
		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (base == 16 && *p && strchr("abcdefABCDEF", *p))
			d = (unsigned)((*p | 0x20) - 'a' + 10);
		else
			break;
		if (d >= base || v > (UINT64_MAX - d) / base)
			return false;
		v = v * base + d;
	}
	if (p == first)
		return false;
	*s = p;
	*out = v;
	return true;
}

static bool mul_overflows(uint64_t a, uint64_t b, uint64_t *out)
{
	if (b && a > UINT64_MAX / b)
		return true;
	*out = a * b;
	return false;
}

static bool parse_size(const char *s, uint64_t *out)
{
	uint64_t v, mul = 1;
	if (!parse_number(&s, &v))
		return false;
	if (*s) {
		const char *units = "kmgt";
		const char *u = *s && s[1] == '\0' ? strchr(units, *s | 0x20) : NULL;
		if (!u)
			return false;
		for (const char *k = units; k <= u; k++)
			mul *= 1024;
	}
	return !mul_overflows(v, mul, out);
}

static bool parse_rate(const char *s, uint64_t *out)
{
	uint64_t v;
	if (!parse_number(&s, &v))
		return false;
	if (!*s) {
		*out = v;
		return true;
	}
	for (size_t i = 0; i < sizeof(rate_suffixes) / sizeof(rate_suffixes[0]); i++) {
		if (strcasecmp(rate_suffixes[i].suffix, s))
			continue;
		if (rate_suffixes[i].ns)
			return !mul_overflows(v, rate_suffixes[i].ns, out);
		if (v == 0)
			return false;		/* 0hz: no period */
		*out = NS_PER_S / v;
		return *out != 0;
	}
	return false;
}

int dt_option_set(struct dt_options *opts, const char *name, const char *value, char *err,
		  size_t errsize)
{
	const struct dt_option_desc *d = dt_option_lookup(name);
	const char *given = value;	/* parse_number advances value */
	uint64_t v = 1;
	bool ok = true;
	const char *expect = "";

	if (!d) {
		snprintf(err, errsize, "unknown option '%s'", name);
		return -1;
	}
	switch (d->kind) {
	case DT_OK_FLAG:
		expect = "no value, 0 or 1";
		if (value)
			ok = parse_number(&value, &v) && !*value;
		v = v != 0;
		break;
	case DT_OK_SIZE:
		expect = "a size such as 4m (suffixes k, m, g, t)";
		ok = value && parse_size(value, &v);
		break;
	case DT_OK_RATE:
		expect = "a rate such as 10hz or 100ms (ns, us, ms, s, m, h, d, hz)";
		ok = value && parse_rate(value, &v);
		break;
	case DT_OK_COUNT:
		expect = "a number";
		ok = value && parse_number(&value, &v) && !*value;
		break;
	case DT_OK_CHOICE:
		expect = d->id == DT_OPT_BUFPOLICY ? "switch, fill or ring" :
			 d->id == DT_OPT_OFORMAT ? "text or json" : "auto or manual";
		ok = false;
		for (uint64_t i = 0; value && d->choices[i]; i++)
			if (!strcmp(d->choices[i], value)) {
				v = i;
				ok = true;
			}
		break;
	}
	if (ok && (v < d->min || v > d->max)) {
		snprintf(err, errsize, "option %s: value %.40s is out of range (%llu..%llu)", name,
			 given ? given : "1", (unsigned long long)d->min, (unsigned long long)d->max);
		return -1;
	}
	if (!ok) {
		if (given)
			snprintf(err, errsize, "option %s: bad value '%.40s': expected %s", name,
				 given, expect);
		else
			snprintf(err, errsize, "option %s needs a value: %s", name, expect);
		return -1;
	}
	opts->set[d->id] = true;
	opts->value[d->id] = v;
	return 0;
}

/* The next whitespace-separated word of [*p, end), or NULL. */
static char *next_word(struct dt_ctx *ctx, const char **p, const char *end)
{
	const char *s = *p;
	while (s < end && (*s == ' ' || *s == '\t' || *s == '\r'))
		s++;
	const char *w = s;
	while (s < end && *s != ' ' && *s != '\t' && *s != '\r')
		s++;
	*p = s;
	return s > w ? dt_strndup(ctx, w, (size_t)(s - w)) : NULL;
}

static void pragma_option(struct dt_ctx *ctx, struct dt_loc loc, const char *p, const char *end)
{
	char *word = next_word(ctx, &p, end);
	if (!word) {
		dt_error(ctx, loc, D_PRAGMA_MALFORM, "#pragma D option needs an option name");
		return;
	}
	for (; word; word = next_word(ctx, &p, end)) {
		char *eq = strchr(word, '=');
		if (eq)
			*eq = '\0';
		char err[160];
		if (dt_option_set(&ctx->prog->options, word, eq ? eq + 1 : NULL, err,
				  sizeof(err)) < 0)
			dt_error(ctx, loc, D_PRAGMA_OPTSET, "failed to set option: %s", err);
	}
}

static const char *const unsupported_d_pragmas[] = { "attributes", "binding", "depends_on" };

/* `#pragma ...` (text after the word pragma, up to the end of its line). */
void dt_pragma(struct dt_ctx *ctx, struct dt_loc loc, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	char *scope = next_word(ctx, &p, end);

	if (!scope || strcmp(scope, "D"))
		return;			/* #pragma ident and other compilers' pragmas */
	char *what = next_word(ctx, &p, end);
	if (!what) {
		dt_error(ctx, loc, D_PRAGMA_MALFORM, "#pragma D needs a directive (option, ...)");
		return;
	}
	if (!strcmp(what, "option")) {
		pragma_option(ctx, loc, p, end);
		return;
	}
	if (!strcmp(what, "error")) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		dt_error(ctx, loc, D_PRAGERR, "#pragma D error: %s",
			 dt_strndup(ctx, p, (size_t)(end - p) > 200 ? 200 : (size_t)(end - p)));
		return;
	}
	for (size_t i = 0; i < sizeof(unsupported_d_pragmas) / sizeof(*unsupported_d_pragmas); i++)
		if (!strcmp(what, unsupported_d_pragmas[i])) {
			dt_error(ctx, loc, D_UNSUPPORTED, "#pragma D %s is not supported", what);
			return;
		}
	dt_error(ctx, loc, D_PRAGMA_INVAL, "invalid #pragma D directive: %s",
		 dt_quote(ctx, what, strlen(what), 32));
}
