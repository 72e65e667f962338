/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Random bytes for programs (getrandom, AT_RANDOM): xoshiro256** seeded
 * from the cycle counter at first use and stirred with it at each call.
 * Unpredictable enough for a research kernel's ASLR-free processes; not
 * a cryptographic generator.
 */
#ifndef SCION_RANDOM_H
#define SCION_RANDOM_H

#include <stddef.h>

/* Fill buf with n random bytes. Caller's context: any; takes a spinlock. */
void random_bytes(void *buf, size_t n);

#endif
