// SPDX-License-Identifier: BSD-2-Clause
/*
 * The kernel services kernel/trace/ needs, stood in for on the host so
 * ecb.c, env.c, dynvar.c, aggbuf.c, spec.c, dof.c, session_*.c and
 * kernel/tbuf/tbuf.c run
 * unchanged (tests/host/kernel_fakes.c gives printk, panic and the
 * spinlocks):
 * - CPUs: a table of struct cpu; this_cpu() (tests/host/include/
 *   arch/percpu.h) is whichever the harness put the firing on, with the
 *   current thread it chose; cross-calls run on each CPU in turn;
 * - the clock: frozen during a firing at the scenario's reading; the
 *   cycle counter counts nanoseconds from the kernel's entry at 0, so a
 *   thread's on-CPU cycles are the scenario's nanoseconds;
 * - memory: kmalloc and vbuf_alloc are malloc, so AddressSanitizer sees
 *   every buffer at its exact size (a per-CPU buffer too small for what
 *   goes in it is an error report, not silent corruption);
 * - trace reads: addresses below 4096 fault, as NULL does in the kernel;
 *   any other address is host memory (the programs make no pointers of
 *   their own) read no further than a string's NUL, so a read that would
 *   run to the end of its 64-byte chunk stays inside the object;
 * - stack walks: the firing's pc (the oracle generates no stack());
 * - return values at return probes: the frame's %rax, as on x86 (the
 *   host's trap frame is x86's).
 */
#include <stdlib.h>
#include <string.h>
#include <scion/cpu.h>
#include <scion/thread.h>
#include <scion/mm.h>
#include <scion/xcall.h>
#include <scion/clock.h>
#include <scion/errno.h>
#include <arch/safe_read.h>
#include <arch/stack.h>
#include <scion/probe_arch.h>
#include "dref_kernel.h"

#define NULL_PAGE 4096

struct cpu *host_this_cpu;
static struct cpu cpus[MAX_CPUS];
static unsigned ncpus = 1;
static uint64_t frozen_now;

void dref_host_cpus(unsigned n)
{
	ncpus = n < 1 ? 1 : n > MAX_CPUS ? MAX_CPUS : n;
	for (unsigned i = 0; i < MAX_CPUS; i++) {
		cpus[i].self = &cpus[i];
		cpus[i].index = i;
		cpus[i].online = i < ncpus;
		cpus[i].current = NULL;
		cpus[i].probe_run = 0;
	}
	host_this_cpu = &cpus[0];
}

void dref_host_on(unsigned cpu, struct thread *t, uint64_t now)
{
	host_this_cpu = &cpus[cpu < ncpus ? cpu : 0];
	host_this_cpu->current = t;
	frozen_now = now;
}

unsigned cpu_count(void)
{
	return ncpus;
}

uint64_t clock_ns(void)
{
	return frozen_now;
}

uint64_t clock_cycles_to_ns(uint64_t cycles)
{
	return cycles;
}

uint64_t clock_ns_at(uint64_t cycles)
{
	return cycles;
}

void xcall_all(xcall_fn fn, void *arg)
{
	struct cpu *was = host_this_cpu;
	for (unsigned i = 0; i < ncpus; i++) {
		host_this_cpu = &cpus[i];
		fn(arg);
	}
	host_this_cpu = was;
}

void *kmalloc(size_t size)
{
	return malloc(size ? size : 1);	/* AddressSanitizer fills it with garbage */
}

void *kzalloc(size_t size)
{
	return calloc(1, size ? size : 1);
}

void kfree(void *p)
{
	free(p);
}

/* Large buffers (vbuf.c maps pages): exactly size bytes, so an overrun is reported. */
int vbuf_alloc(struct vbuf *b, size_t size)
{
	memset(b, 0, sizeof(*b));
	if (!size)
		return -EINVAL;
	b->data = malloc(size);
	if (!b->data)
		return -ENOMEM;
	b->size = size;
	return 0;
}

void vbuf_free(struct vbuf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

bool arch_trace_readable(uint64_t addr, size_t n)
{
	return addr + n >= addr;
}

int arch_safe_read(void *dst, uint64_t src, size_t n)
{
	if (src < NULL_PAGE)
		return -EFAULT;
	const char *from = (const char *)(uintptr_t)src;
	char *to = dst;
	size_t i = 0;
	for (; i < n && (i == 0 || from[i - 1]); i++)
		to[i] = from[i];
	memset(to + i, 0, n - i);
	return 0;
}

unsigned arch_stack_walk(const struct trap_frame *f, bool at_boundary, uint64_t *pcs,
			 unsigned max)
{
	(void)at_boundary;
	if (!max)
		return 0;
	pcs[0] = f ? f->rip : 0;
	return 1;
}

uint64_t arch_probe_return_value(const struct trap_frame *frame, uint64_t site)
{
	(void)site;
	return trap_frame_retval(frame);
}
