// SPDX-License-Identifier: BSD-2-Clause
/*
 * The optimum on the host (kernel/insitu/bcache_optimal.h): the trace's
 * next-request table, built once per `scion sim replay` at the first
 * policy that needs it (min, oracle, optimal, optimal-evict) and rewound
 * for each, and the gap-to-optimal summary printed after the table, as
 * the kernel's `sim run` prints it (the same formatting code).
 */
#include <stdio.h>
#include <string.h>
#include "sim_host.h"

#define TABLE_ROWS 32

static struct sim_oracle oracle;
static const struct stream_file *oracle_trace;	/* the trace oracle was built from */

static struct {
	unsigned rows;
	char label[TABLE_ROWS][REC_POLICY_MAX + 8];
	struct sim_summary sum[TABLE_ROWS];
} table;

struct sim_oracle *sim_host_oracle(struct stream_file *trace, char *why, size_t whylen)
{
	if (oracle_trace == trace) {
		sim_oracle_rewind(&oracle);
		return &oracle;
	}
	sim_oracle_free(&oracle);
	oracle_trace = NULL;
	if (sim_oracle_build(&oracle, &trace->header, reader(trace), trace->header.records, why,
			     whylen))
		return NULL;
	oracle_trace = trace;
	return &oracle;
}

void sim_host_table_add(const char *label, const struct sim_summary *s)
{
	if (table.rows == TABLE_ROWS)
		return;
	snprintf(table.label[table.rows], sizeof(table.label[0]), "%s", label);
	table.sum[table.rows++] = *s;
}

void sim_host_print_gap(void)
{
	const char *labels[TABLE_ROWS];
	int ref[2];
	char line[600];

	for (unsigned k = 0; k < table.rows; k++)
		labels[k] = table.label[k];
	if (!sim_gap_refs(labels, table.rows, ref))
		return;
	sim_format_gap_header(line, sizeof(line), labels, ref);
	printf("%s\n", line);
	for (unsigned k = 0; k < table.rows; k++) {
		sim_format_gap_row(line, sizeof(line), labels[k], &table.sum[k], table.sum, ref);
		printf("%s\n", line);
	}
}
