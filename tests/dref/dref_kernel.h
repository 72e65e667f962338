/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The harness's hold on the host stand-ins of dref_kernel.c: how many
 * CPUs are online, and which CPU, current thread and clock reading the
 * next firing runs with.
 */
#ifndef DREF_KERNEL_H
#define DREF_KERNEL_H

#include <stdint.h>

struct thread;

/* n CPUs online (1..MAX_CPUS), none running anything; this_cpu() is CPU 0. */
void dref_host_cpus(unsigned n);
/* Run on cpu with t current; clock_ns() reads now until the next call. */
void dref_host_on(unsigned cpu, struct thread *t, uint64_t now);

#endif
