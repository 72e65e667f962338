/* SPDX-License-Identifier: BSD-2-Clause */
/* What the outlining tests and benchmark share: the C fixtures (outline_fixtures.c). */
#ifndef TESTS_KERNEL_OUTLINE_TEST_H
#define TESTS_KERNEL_OUTLINE_TEST_H

#include <stdint.h>

extern uint64_t outline_fix_fail_return;
long outline_fix_fail(long code, long why);
long outline_fix_checked(long x, long y);
long outline_fix_recursive(long n);

#endif
