// SPDX-License-Identifier: BSD-2-Clause
/*
 * hot_and_scan: reads one file's 4 KiB blocks in the pattern that LRU
 * serves badly and 2Q well (tests/integration/test_adapt_scope.py: the
 * adaptation loop scopes its graft to the process that caused the flag):
 * ROUNDS times, 64 reads of a hot set (blocks 0 .. 15 in a random order)
 * then 64 reads spread over blocks 16 .. 1099 (seldom read again).
 *     hot_and_scan FILE ROUNDS [SEED]
 * Prints its pid first and its read count at the end.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define BLOCK     4096
#define HOT       16
#define SCAN_END  1100
#define PER_SIDE  64

static uint64_t xorshift64(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

int main(int argc, char **argv)
{
	static char buf[BLOCK];

	if (argc < 3) {
		fprintf(stderr, "usage: hot_and_scan FILE ROUNDS [SEED]\n");
		return 2;
	}
	int fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	long rounds = atol(argv[2]);
	uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 10) : 1, reads = 0;
	if (!seed)
		seed = 1;
	printf("hot_and_scan: pid %d\n", (int)getpid());
	fflush(stdout);
	for (long r = 0; r < rounds; r++) {
		for (int k = 0; k < 2 * PER_SIDE; k++) {
			uint64_t block = k < PER_SIDE ? xorshift64(&seed) % HOT :
				HOT + xorshift64(&seed) % (SCAN_END - HOT);
			if (pread(fd, buf, BLOCK, (off_t)(block * BLOCK)) != BLOCK) {
				perror("pread");
				return 1;
			}
			reads++;
		}
	}
	printf("hot_and_scan: %llu reads\n", (unsigned long long)reads);
	return 0;
}
