// SPDX-License-Identifier: BSD-2-Clause
/*
 * Naming scheduling policies for a simulation and printing the
 * comparison of a sched replay, open-loop (sched_replay.h) or followed
 * (sched_follow.h): `sim run` in the kernel
 * and `scion sim replay` on the host print the same table with these,
 * so a test can compare them line by line. Portable.
 */
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>
#include "sched_follow.h"

#define POLICY_KEY "pick_next="

int sched_sim_policy_parse(const char *spec, bool (*known)(const char *name), char *name,
			   size_t n, char *why, size_t whylen)
{
	const char *p = !strncmp(spec, POLICY_KEY, strlen(POLICY_KEY)) ? spec + strlen(POLICY_KEY)
									 : spec;
	if (!*p || strchr(p, ' ') || strchr(p, '+') || strchr(p, '=') || strlen(p) >= n ||
	    !known(p)) {
		snprintf(why, whylen, "'%s' is not a scheduling policy (a pick-next policy: %s or a "
			 "sched.pick_next graft)", spec, SCHED_SIM_DEFAULT_POLICY);
		return -EINVAL;
	}
	strlcpy(name, p, n);
	return 0;
}

void sched_sim_policy_format(const char *name, char *buf, size_t n)
{
	snprintf(buf, n, POLICY_KEY "%s tick=%s", name, SCHED_SIM_DEFAULT_POLICY);
}

void sched_sim_policy_name(const char *policy, char *name, size_t n)
{
	const char *p = strstr(policy, POLICY_KEY);
	size_t k = 0;
	if (p)
		for (p += strlen(POLICY_KEY); *p && *p != ' ' && k + 1 < n; p++)
			name[k++] = *p;
	name[k] = '\0';
	if (!k)
		strlcpy(name, SCHED_SIM_DEFAULT_POLICY, n);
}

void sched_sim_format_header(char *buf, size_t n)
{
	snprintf(buf, n, "%-30s %7s %8s %9s %8s %8s %8s  %s", "policy", "picks", "switches",
		 "wait-mean", "wait-max", "done", "busy", "log");
}

void sched_sim_format_row(char *buf, size_t n, const char *label,
			  const struct sched_sim_summary *s, const char *log)
{
	char mean[32] = "-", max[24] = "-";
	if (s->waits_known) {
		uint64_t tenths = s->threads ? s->wait * 10 / s->threads : 0;
		snprintf(mean, sizeof(mean), "%llu.%llu", (unsigned long long)(tenths / 10),
			 (unsigned long long)(tenths % 10));
		snprintf(max, sizeof(max), "%llu", (unsigned long long)s->wait_max);
	}
	snprintf(buf, n, "%-30s %7llu %8llu %9s %8s %8llu %8llu  %s", label,
		 (unsigned long long)s->picks, (unsigned long long)s->switches, mean, max,
		 (unsigned long long)s->end, (unsigned long long)s->busy, log);
}

void sched_sim_format_threads_header(char *buf, size_t n, const char *const *labels,
				     unsigned npolicies)
{
	size_t k = (size_t)snprintf(buf, n, "  %-8s %6s %6s", "tid", "phases", "run");
	for (unsigned p = 0; p < npolicies && k < n; p++)
		k += (size_t)snprintf(buf + k, n - k, " %15.15s", labels[p]);
	if (k < n)
		snprintf(buf + k, n - k, "   (wait/done ticks)");
}

void sched_sim_format_thread_row(char *buf, size_t n, const struct sched_sim_thread *t,
				 const uint64_t *waits, const uint64_t *dones, unsigned npolicies)
{
	size_t k = (size_t)snprintf(buf, n, "  %-8llu %6u %6llu", (unsigned long long)t->se.tid,
				    t->nphases, (unsigned long long)t->run);
	for (unsigned p = 0; p < npolicies && k < n; p++) {
		char cell[48];
		snprintf(cell, sizeof(cell), "%llu/%llu", (unsigned long long)waits[p],
			 (unsigned long long)dones[p]);
		k += (size_t)snprintf(buf + k, n - k, " %15s", cell);
	}
}

void sched_sim_format_follow_header(char *buf, size_t n)
{
	snprintf(buf, n, "%-30s %7s %8s %15s  %s", "policy", "picks", "switches", "agree", "log");
}

void sched_sim_format_follow_row(char *buf, size_t n, const char *label,
				 const struct sched_follow_summary *s, bool agree_known,
				 const char *log)
{
	char agree[48] = "-";
	if (agree_known)
		snprintf(agree, sizeof(agree), "%llu/%llu", (unsigned long long)s->agree,
			 (unsigned long long)s->picks);
	snprintf(buf, n, "%-30s %7llu %8llu %15s  %s", label, (unsigned long long)s->picks,
		 (unsigned long long)s->switches, agree, log);
}
