// SPDX-License-Identifier: BSD-2-Clause
/*
 * The syscall provider (illumos's systrace): syscall::NAME:entry and
 * syscall::NAME:return for every name of Linux's table
 * (linux_syscall_names), implemented or not: a call Scion does not
 * implement returns ENOSYS and fires its probes like any other.
 *
 *   entry:  arg0..arg5 the call's six argument registers, as the
 *           program passed them (user addresses stay user addresses:
 *           read them with copyin / copyinstr)
 *   return: arg0 and arg1 the return value (Linux's: -errno on error);
 *           D's errno is set to the error (0 on success) before the
 *           consumers run, and stays the thread's until its next
 *           traced return
 *
 * Zero cost while disabled: the probes are software probes (struct
 * probe_soft) whose consumers also count in systrace_live[nr], so
 * syscall_handle makes one load and one branch per call (beside the
 * number's range check it makes anyway) and goes through systrace_call
 * only for a number with a consumer; the probes exist whether or not
 * anything enables them.
 *
 * Invariant: systrace_live[nr] is the number of consumers enabled on
 * the entry and return probes of number nr (the probe registry keeps it,
 * under probe_mutex, with each probe's own count: soft_attach and
 * soft_detach); syscall_handle reads it without a lock, once per call,
 * so a call fires both of its probes or neither.
 */
#include <scion/probe.h>
#include <scion/printk.h>
#include <scion/thread.h>
#include <arch/trap.h>
#include <arch/user.h>
#include "proc_internal.h"

unsigned systrace_live[SYSCALL_COUNT];			/* see above */
static struct probe *probes[SYSCALL_COUNT][2];		/* set once, by provide */

#define ENTRY 0
#define RETURN 1
#define ERRNO_MAX 4095		/* Linux's: a return in [-4095, -1] is an error */

/*
 * systrace_provide - Overview: create syscall::NAME:entry and :return
 *   for every name of linux_syscall_names, each counting in
 *   systrace_live.
 * Arguments: none.
 * Return value: none; a probe that cannot be made (out of memory) is
 *   reported and left out.
 * Caller's context: thread, the registry mutex held, may sleep; once
 *   (the registry's first use).
 */
static void systrace_provide(void)
{
	static const char *const names[2] = { "entry", "return" };
	for (unsigned nr = 0; nr < SYSCALL_COUNT; nr++) {
		if (!linux_syscall_names[nr])
			continue;
		for (unsigned k = 0; k < 2; k++) {
			struct probe *p = probe_create_soft("syscall", "", linux_syscall_names[nr],
							    names[k], false);
			if (!p) {
				printk("syscall: out of memory for syscall::%s:%s\n",
				       linux_syscall_names[nr], names[k]);
				continue;
			}
			p->soft->also_live = &systrace_live[nr];
			probes[nr][k] = p;
		}
	}
}
PROBE_PROVIDER(syscall_provider, "syscall", systrace_provide, NULL);

/* Fire probe p (which may not exist) with args[0..n) as its arguments. */
static void fire(struct probe *p, const uint64_t *args, unsigned n)
{
	if (!p || !__atomic_load_n(&p->soft->live, __ATOMIC_RELAXED))
		return;
	struct trap_frame frame = { 0 };
	trap_frame_capture(&frame);
	for (unsigned i = 0; i < n; i++)
		trap_frame_set_arg(&frame, i, args[i]);
	probe_fire_consumers(p, &frame);
}

int64_t systrace_call(unsigned nr, struct trap_frame *f)
{
	uint64_t args[6];
	for (unsigned i = 0; i < 6; i++)
		args[i] = arch_syscall_arg(f, i);
	fire(probes[nr][ENTRY], args, 6);
	int64_t r = syscall_dispatch(nr, f);
	uint64_t rets[2] = { (uint64_t)r, (uint64_t)r };
	thread_current()->trace_errno = r < 0 && r >= -ERRNO_MAX ? (int)-r : 0;
	fire(probes[nr][RETURN], rets, 2);
	return r;
}
