/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dt_options.h - D's options (dt_options.c): `#pragma D option
 * name[=value]` and `-x name[=value]`, their kinds, ranges and
 * defaults, and the set a program carries. dtrace.h includes it; the
 * option table is the one source the compiler, the JSON it writes and
 * the consumer's -x checks read.
 */
#ifndef SCION_DT_OPTIONS_H
#define SCION_DT_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Options: `#pragma D option name[=value]` and `-x name[=value]`. */
enum dt_option_id {
	DT_OPT_AGGRATE, DT_OPT_AGGSIZE, DT_OPT_AGGSORTKEY, DT_OPT_AGGSORTKEYPOS,
	DT_OPT_AGGSORTPOS, DT_OPT_AGGSORTREV, DT_OPT_BUFPOLICY, DT_OPT_BUFRESIZE,
	DT_OPT_BUFSIZE, DT_OPT_CLEANRATE, DT_OPT_CPU, DT_OPT_DEFAULTARGS, DT_OPT_DESTRUCTIVE,
	DT_OPT_DYNVARSIZE, DT_OPT_FLOWINDENT, DT_OPT_NOJIT, DT_OPT_NSPEC, DT_OPT_OFORMAT,
	DT_OPT_QUIET, DT_OPT_RAWBYTES, DT_OPT_SPECSIZE, DT_OPT_STACKFRAMES, DT_OPT_STACKINDENT,
	DT_OPT_STATUSRATE, DT_OPT_STRSIZE, DT_OPT_SWITCHRATE, DT_OPT_ZDEFS,
	DT_OPTION_COUNT
};

enum dt_option_kind {
	DT_OK_SIZE,		/* bytes; suffixes k m g t (powers of 1024) */
	DT_OK_RATE,		/* nanoseconds; suffixes ns us ms s m h d, or hz (1e9/n);
				   a bare number is nanoseconds */
	DT_OK_FLAG,		/* no value (on), or an integer: 0 off, else on */
	DT_OK_COUNT,		/* non-negative integer */
	DT_OK_CHOICE,		/* one of choices[]; the value is its index */
};

enum dt_bufpolicy { DT_BUFPOLICY_SWITCH, DT_BUFPOLICY_FILL, DT_BUFPOLICY_RING };
enum dt_bufresize { DT_BUFRESIZE_AUTO, DT_BUFRESIZE_MANUAL };
enum dt_oformat { DT_OFORMAT_TEXT, DT_OFORMAT_JSON };

struct dt_option_desc {
	enum dt_option_id id;
	const char *name;
	enum dt_option_kind kind;
	uint64_t default_value;
	uint64_t min, max;		/* accepted values, inclusive */
	const char *const *choices;	/* DT_OK_CHOICE, NULL-terminated */
};

extern const struct dt_option_desc dt_options_table[DT_OPTION_COUNT];

struct dt_options {
	bool set[DT_OPTION_COUNT];
	uint64_t value[DT_OPTION_COUNT];
};

void dt_options_init(struct dt_options *opts);
const struct dt_option_desc *dt_option_lookup(const char *name);
/*
 * Set name to value (NULL: given without "="). Returns 0, or -1 with a
 * one-line reason in err ("unknown option", "bad value ...").
 */
int dt_option_set(struct dt_options *opts, const char *name, const char *value, char *err,
		  size_t errsize);
/* The value if set, else the option's default. */
uint64_t dt_option_get(const struct dt_options *opts, enum dt_option_id id);

#endif
