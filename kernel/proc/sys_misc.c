// SPDX-License-Identifier: BSD-2-Clause
/*
 * The small system calls: time and sleeping, uname, sched_yield,
 * getrandom, and resource limits as a program reads them.
 *
 * CLOCK_REALTIME is the RTC's time at the first call plus the
 * monotonic clock since then (there is no NTP); the other clocks are
 * the monotonic clock. Sleeps end early, with EINTR, when a signal
 * kills the sleeper.
 */
#include <scion/clock.h>
#include <scion/errno.h>
#include <scion/random.h>
#include <scion/sched.h>
#include <scion/string.h>
#include <scion/version.h>
#include <arch/rtc.h>
#include <arch/user.h>
#include "proc_internal.h"

#define NSEC 1000000000ull
#define LINUX_CLOCK_REALTIME 0
#define LINUX_CLOCK_MONOTONIC 1
#define LINUX_CLOCK_PROCESS_CPUTIME_ID 2
#define LINUX_CLOCK_THREAD_CPUTIME_ID 3
#define LINUX_CLOCK_MONOTONIC_RAW 4
#define LINUX_CLOCK_REALTIME_COARSE 5
#define LINUX_CLOCK_MONOTONIC_COARSE 6
#define LINUX_CLOCK_BOOTTIME 7
#define LINUX_TIMER_ABSTIME 1

struct linux_timespec {
	int64_t sec, nsec;
};

static int64_t realtime_offset_ns;	/* set once: RTC time minus the monotonic clock */

static int64_t clock_read(int id, uint64_t *ns)
{
	switch (id) {
	case LINUX_CLOCK_REALTIME:
	case LINUX_CLOCK_REALTIME_COARSE: {
		int64_t off = __atomic_load_n(&realtime_offset_ns, __ATOMIC_RELAXED);
		if (!off) {
			off = (int64_t)(arch_rtc_seconds() * NSEC) - (int64_t)clock_ns();
			__atomic_store_n(&realtime_offset_ns, off, __ATOMIC_RELAXED);
		}
		*ns = (uint64_t)((int64_t)clock_ns() + off);
		return 0;
	}
	case LINUX_CLOCK_MONOTONIC:
	case LINUX_CLOCK_MONOTONIC_RAW:
	case LINUX_CLOCK_MONOTONIC_COARSE:
	case LINUX_CLOCK_BOOTTIME:
		*ns = clock_ns();
		return 0;
	case LINUX_CLOCK_PROCESS_CPUTIME_ID:
	case LINUX_CLOCK_THREAD_CPUTIME_ID: {
		*ns = thread_cpu_ns_self();
		return 0;
	}
	default:
		return -EINVAL;
	}
}

SYSCALL(clock_gettime)
{
	uint64_t ns;
	int64_t r = clock_read((int)a0, &ns);
	if (r)
		return r;
	struct linux_timespec ts = { (int64_t)(ns / NSEC), (int64_t)(ns % NSEC) };
	return copyout(a1, &ts, sizeof(ts)) ? -EFAULT : 0;
}

SYSCALL(clock_getres)
{
	uint64_t ns;
	int64_t r = clock_read((int)a0, &ns);
	if (r)
		return r;
	struct linux_timespec ts = { 0, 1 };
	return a1 && copyout(a1, &ts, sizeof(ts)) ? -EFAULT : 0;
}

SYSCALL(gettimeofday)
{
	uint64_t ns;
	clock_read(LINUX_CLOCK_REALTIME, &ns);
	int64_t tv[2] = { (int64_t)(ns / NSEC), (int64_t)(ns % NSEC / 1000) };
	return a0 && copyout(a0, tv, sizeof(tv)) ? -EFAULT : 0;
}

/* Sleep until the monotonic clock reaches deadline_ns, or a fatal signal. */
static int64_t sleep_until(uint64_t deadline_ns)
{
	struct process *p = proc_current();
	while (clock_ns() < deadline_ns) {
		if (proc_signal_pending())
			return -EINTR;
		uint64_t left = deadline_ns - clock_ns();
		uint64_t ticks = (left + (NSEC / HZ) - 1) / (NSEC / HZ);
		irqflags_t f = spin_lock_irqsave(&p->child_wq.lock);
		/* child_wq: a wake from signal_send reaches the thread wherever it sleeps */
		waitq_sleep(&p->child_wq, ticks ? ticks : 1);
		spin_unlock_irqrestore(&p->child_wq.lock, f);
	}
	return 0;
}

static int64_t read_timespec(uintptr_t uts, uint64_t *ns)
{
	struct linux_timespec ts;
	if (copyin(&ts, uts, sizeof(ts)))
		return -EFAULT;
	if (ts.sec < 0 || ts.nsec < 0 || (uint64_t)ts.nsec >= NSEC)
		return -EINVAL;
	*ns = (uint64_t)ts.sec > UINT64_MAX / NSEC / 2 ? UINT64_MAX / 2 : (uint64_t)ts.sec * NSEC + (uint64_t)ts.nsec;
	return 0;
}

SYSCALL(nanosleep)
{
	uint64_t ns;
	int64_t r = read_timespec(a0, &ns);
	if (r)
		return r;
	return sleep_until(clock_ns() + ns);
}

SYSCALL(clock_nanosleep)
{
	uint64_t ns, now;
	int id = (int)a0;
	if (a1 & ~(uint64_t)LINUX_TIMER_ABSTIME)
		return -EINVAL;
	if (id == LINUX_CLOCK_THREAD_CPUTIME_ID || clock_read(id, &now))
		return -EINVAL;
	int64_t r = read_timespec(a2, &ns);
	if (r)
		return r;
	if (a1 & LINUX_TIMER_ABSTIME)
		ns = ns > now ? ns - now : 0;
	return sleep_until(clock_ns() + ns);
}

SYSCALL(sched_yield)
{
	thread_yield();
	return 0;
}

struct linux_utsname {
	char sysname[65], nodename[65], release[65], version[65], machine[65], domainname[65];
};

SYSCALL(uname)
{
	struct linux_utsname u;
	memset(&u, 0, sizeof(u));
	strlcpy(u.sysname, "Scion", sizeof(u.sysname));
	strlcpy(u.nodename, "scion", sizeof(u.nodename));
	strlcpy(u.release, scion_version, sizeof(u.release));
	strlcpy(u.version, scion_build_info, sizeof(u.version));
	strlcpy(u.machine, ARCH_UNAME_MACHINE, sizeof(u.machine));
	strlcpy(u.domainname, "(none)", sizeof(u.domainname));
	return copyout(a0, &u, sizeof(u)) ? -EFAULT : 0;
}

#define LINUX_GRND_NONBLOCK 1
#define LINUX_GRND_RANDOM 2
#define GETRANDOM_MAX (32 * 1024 * 1024)

SYSCALL(getrandom)
{
	if (a2 & ~(uint64_t)(LINUX_GRND_NONBLOCK | LINUX_GRND_RANDOM))
		return -EINVAL;
	size_t len = a1 > GETRANDOM_MAX ? GETRANDOM_MAX : a1, done = 0;
	uint8_t chunk[256];
	while (done < len) {
		size_t n = len - done < sizeof(chunk) ? len - done : sizeof(chunk);
		random_bytes(chunk, n);
		if (copyout(a0 + done, chunk, n))
			return done ? (int64_t)done : -EFAULT;
		done += n;
	}
	return (int64_t)done;
}

struct linux_rlimit {
	uint64_t cur, max;
};
#define LINUX_RLIMIT_STACK 3
#define LINUX_RLIMIT_NPROC 6
#define LINUX_RLIMIT_NOFILE 7
#define LINUX_RLIMIT_AS 9
#define LINUX_RLIM_INFINITY UINT64_MAX

SYSCALL(prlimit64)
{
	if (a0 && (int)a0 != proc_pid(proc_current()))
		return -EPERM;
	if (a2)
		return -EPERM;	/* the limits are the kernel's (proc_internal.h), not settable */
	struct linux_rlimit r = { LINUX_RLIM_INFINITY, LINUX_RLIM_INFINITY };
	switch (a1) {
	case LINUX_RLIMIT_STACK: r.cur = r.max = STACK_SIZE_MAX; break;
	case LINUX_RLIMIT_NPROC: r.cur = r.max = PROC_MAX; break;
	case LINUX_RLIMIT_NOFILE: r.cur = r.max = FD_MAX; break;
	case LINUX_RLIMIT_AS: r.cur = r.max = (uint64_t)PROC_PAGE_LIMIT * PAGE_SIZE; break;
	default: if (a1 >= 16) return -EINVAL;
	}
	return a3 && copyout(a3, &r, sizeof(r)) ? -EFAULT : 0;
}

struct linux_rusage {
	int64_t utime_sec, utime_usec, stime_sec, stime_usec;
	int64_t maxrss, ixrss, idrss, isrss, minflt, majflt, nswap, inblock, oublock;
	int64_t msgsnd, msgrcv, nsignals, nvcsw, nivcsw;
};
#define LINUX_RUSAGE_SELF 0
#define LINUX_RUSAGE_CHILDREN (-1)

/*
 * getrusage: for RUSAGE_SELF the thread's CPU time (all of it counted as
 * user time: the kernel does not split it yet), the pages it holds and
 * its minor faults (first touches); for RUSAGE_CHILDREN the faults of
 * the children it has reaped. Other fields are 0.
 */
SYSCALL(getrusage)
{
	struct process *p = proc_current();
	struct linux_rusage ru;
	memset(&ru, 0, sizeof(ru));
	if ((int)a0 == LINUX_RUSAGE_SELF) {
		uint64_t ns;
		clock_read(LINUX_CLOCK_THREAD_CPUTIME_ID, &ns);
		ru.utime_sec = (int64_t)(ns / NSEC);
		ru.utime_usec = (int64_t)(ns % NSEC / 1000);
		ru.maxrss = (int64_t)(READ_ONCE(p->vm.pages) * PAGE_SIZE / 1024);
		ru.minflt = (int64_t)READ_ONCE(p->vm.faults);
	} else if ((int)a0 == LINUX_RUSAGE_CHILDREN) {
		irqflags_t f = spin_lock_irqsave(&proc_lock);
		ru.minflt = (int64_t)p->child_faults;
		spin_unlock_irqrestore(&proc_lock, f);
	} else {
		return -EINVAL;
	}
	return copyout(a1, &ru, sizeof(ru)) ? -EFAULT : 0;
}
