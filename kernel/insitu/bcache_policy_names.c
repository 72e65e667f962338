// SPDX-License-Identifier: BSD-2-Clause
/*
 * How a simulation's policies are named (bcache_replay.h): on the command line
 * as "2q", "2q+stride" or "evict=2q readahead=stride", in a recording's
 * header as "evict=lru readahead=sequential"; the optimum's policies
 * (bcache_optimal.h) as "min" and "oracle", or together as "optimal",
 * and "optimal-evict" for MIN with the recording's read-ahead. Portable: `sim run` in
 * the kernel and `scion sim replay` on the host read names the same way.
 */
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>
#include "bcache_replay.h"

const char *const sim_default_names[SIM_KINDS] = {
	[SIM_EVICT] = "lru", [SIM_READAHEAD] = "sequential",
};
const char *const sim_optimal_names[SIM_KINDS] = {
	[SIM_EVICT] = SIM_OPTIMAL_EVICT_NAME, [SIM_READAHEAD] = SIM_OPTIMAL_READAHEAD_NAME,
};
static const char *const kind_keys[SIM_KINDS] = {
	[SIM_EVICT] = "evict", [SIM_READAHEAD] = "readahead",
};

/* The next word of s (separated by ' ' or '+') into word; the rest, or NULL at the end. */
static const char *next_word(const char *s, char *word, size_t n)
{
	while (*s == ' ' || *s == '+')
		s++;
	if (!*s)
		return NULL;
	size_t k = 0;
	for (; *s && *s != ' ' && *s != '+'; s++)
		if (k + 1 < n)
			word[k++] = *s;
	word[k] = '\0';
	return s;
}

/* The kind of an optimum's policy name, or SIM_KINDS. */
static enum sim_kind optimal_kind(const char *name)
{
	for (unsigned k = 0; k < SIM_KINDS; k++)
		if (!strcmp(name, sim_optimal_names[k]))
			return (enum sim_kind)k;
	return SIM_KINDS;
}

bool sim_policy_needs_oracle(const struct sim_policy_names *p)
{
	for (unsigned k = 0; k < SIM_KINDS; k++)
		if (!strcmp(p->name[k], sim_optimal_names[k]))
			return true;
	return false;
}

/* "evict=NAME" or "readahead=NAME": its kind and the name; SIM_KINDS when it is neither. */
static enum sim_kind keyed(const char *word, const char **name)
{
	for (unsigned k = 0; k < SIM_KINDS; k++) {
		size_t len = strlen(kind_keys[k]);
		if (!strncmp(word, kind_keys[k], len) && word[len] == '=') {
			*name = word + len + 1;
			return (enum sim_kind)k;
		}
	}
	return SIM_KINDS;
}

int sim_policy_parse(const char *spec, const char *recorded, enum sim_kind (*kind_of)(const char *),
		     struct sim_policy_names *out, char *why, size_t whylen)
{
	bool given[SIM_KINDS] = { false, false };
	char word[64];

	for (unsigned k = 0; k < SIM_KINDS; k++)
		strlcpy(out->name[k], sim_default_names[k], sizeof(out->name[k]));
	for (const char *s = recorded; s && (s = next_word(s, word, sizeof(word)));) {
		const char *name;
		enum sim_kind k = keyed(word, &name);
		if (k != SIM_KINDS && *name)
			strlcpy(out->name[k], name, sizeof(out->name[k]));
	}
	for (const char *s = spec; (s = next_word(s, word, sizeof(word)));) {
		const char *name = word;
		/* "optimal" is MIN and the oracle: the evict half here, the other below. */
		bool both = !strcmp(word, "optimal");
		if (both || !strcmp(word, "optimal-evict"))
			name = sim_optimal_names[SIM_EVICT];
		if (both) {
			if (given[SIM_READAHEAD]) {
				snprintf(why, whylen, "'%s' names a second %s policy", spec,
					 kind_keys[SIM_READAHEAD]);
				return -EINVAL;
			}
			given[SIM_READAHEAD] = true;
			strlcpy(out->name[SIM_READAHEAD], sim_optimal_names[SIM_READAHEAD],
				sizeof(out->name[SIM_READAHEAD]));
		}
		enum sim_kind k = name == word ? keyed(word, &name) : SIM_KINDS;
		if (k == SIM_KINDS)
			k = optimal_kind(name);
		if (k == SIM_KINDS)
			k = kind_of(name);
		if (k == SIM_KINDS || !*name) {
			snprintf(why, whylen, "'%s' is not a block cache policy (an eviction policy: "
				 "lru, min or a bcache.evict graft; a read-ahead policy: sequential, "
				 "oracle or a bcache.readahead graft; optimal, optimal-evict)", word);
			return -EINVAL;
		}
		if (given[k]) {
			snprintf(why, whylen, "'%s' names a second %s policy", spec, kind_keys[k]);
			return -EINVAL;
		}
		given[k] = true;
		strlcpy(out->name[k], name, sizeof(out->name[k]));
	}
	if (!given[SIM_EVICT] && !given[SIM_READAHEAD]) {
		snprintf(why, whylen, "name a policy, e.g. 2q or clock+stride");
		return -EINVAL;
	}
	return 0;
}

void sim_policy_format(const struct sim_policy_names *p, char *buf, size_t n)
{
	snprintf(buf, n, "%s=%s %s=%s", kind_keys[SIM_EVICT], p->name[SIM_EVICT],
		 kind_keys[SIM_READAHEAD], p->name[SIM_READAHEAD]);
}
