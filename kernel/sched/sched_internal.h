/* SPDX-License-Identifier: BSD-2-Clause */
/* Interfaces between the files of kernel/sched. */
#ifndef KERNEL_SCHED_INTERNAL_H
#define KERNEL_SCHED_INTERNAL_H

#include <scion/thread.h>
#include <scion/cpu.h>
#include <scion/list.h>

/* A zeroed thread descriptor with its stack, or NULL. No locks held. */
struct thread *thread_alloc(void);

/* Release a dead thread's stack and descriptor. No locks held. */
void thread_free(struct thread *t);

/* Add t to the list of every thread (threads_lock). */
void thread_register(struct thread *t);

/* Whether a queued thread may run on c. sched_lock held. */
bool sched_runnable_on(const struct cpu *c);

/* Make t runnable and find it a CPU. sched_lock held. */
void sched_make_runnable(struct thread *t);

/* `sched run KEY=VALUE...` (workload.c; argv[1] is "run"). Thread, may sleep. */
int sched_workload_run(int argc, char **argv);

#endif
