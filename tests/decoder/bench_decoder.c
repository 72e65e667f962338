// SPDX-License-Identifier: BSD-2-Clause
/*
 * Host benchmark: decode throughput of Scion's decoder and of the second
 * opinion (Zydis) over the same corpus, in the same run. Each decoder
 * walks the .text of the given ELF files front to back (skipping one byte
 * where it finds no instruction) for about a second, several rounds; the
 * best round counts. Prints `decode NAME INSNS_PER_SECOND` lines and the
 * ratio.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <arch/insn.h>
#include "elf_text.h"
#include "second_opinion.h"

#define ROUNDS 5
#define MAX_FILES 64

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t walk_ours(const struct section *s)
{
	struct insn in;
	uint64_t n = 0;
	for (uint64_t off = 0; off < s->size; n++) {
		insn_decode(&in, s->bytes + off, s->size - off, s->addr + off);
		off += in.status == INSN_OK ? in.length : 1;
	}
	return n;
}

static uint64_t walk_second(const struct section *s)
{
	uint64_t n = 0;
	for (uint64_t off = 0; off < s->size; n++) {
		int len = second_opinion_length(s->bytes + off, s->size - off);
		off += len > 0 ? (uint64_t)len : 1;
	}
	return n;
}

static double rate(uint64_t (*walk)(const struct section *), const struct section *secs,
		   unsigned n, uint64_t *insns)
{
	double best = 0;
	for (int r = 0; r < ROUNDS; r++) {
		uint64_t count = 0;
		double t0 = now();
		for (unsigned i = 0; i < n; i++)
			count += walk(&secs[i]);
		double dt = now() - t0;
		if (dt > 0 && count / dt > best)
			best = count / dt;
		*insns = count;
	}
	return best;
}

int main(int argc, char **argv)
{
	struct section secs[MAX_FILES];
	unsigned n = 0;
	uint64_t bytes = 0, insns;

	for (int i = 1; i < argc && n < MAX_FILES; i++) {
		uint8_t *image;
		if (elf_text(argv[i], &image, &secs[n]) == 0) {
			bytes += secs[n].size;
			n++;
		}
	}
	if (!n) {
		fprintf(stderr, "bench-decoder: no x86-64 ELF .text among the arguments\n");
		return 1;
	}
	double ours = rate(walk_ours, secs, n, &insns);
	printf("corpus %u files %llu bytes %llu instructions\n", n, (unsigned long long)bytes,
	       (unsigned long long)insns);
	printf("decode scion %.0f\n", ours);
	if (second_opinion_name()) {
		double second = rate(walk_second, secs, n, &insns);
		printf("decode zydis %.0f\n", second);
		printf("ratio scion/zydis %.3f\n", second > 0 ? ours / second : 0.0);
	}
	return 0;
}
