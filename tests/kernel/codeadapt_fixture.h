/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The code adaptation tests' fixtures (tests/kernel/test_codeadapt.c),
 * shared with their benchmark (bench_codeadapt.c): a checksum over n
 * bytes and its clone for n == CODEADAPT_SPECIAL_N, compiled from the
 * same body.
 */
#ifndef TESTS_KERNEL_CODEADAPT_FIXTURE_H
#define TESTS_KERNEL_CODEADAPT_FIXTURE_H

#include <stdint.h>

#define CODEADAPT_SPECIAL_N 16

uint64_t codeadapt_fix_sum(const uint8_t *p, unsigned long n, uint64_t seed);
uint64_t codeadapt_fix_sum_n16(const uint8_t *p, unsigned long n, uint64_t seed);

#endif
