// SPDX-License-Identifier: BSD-2-Clause
/*
 * The kernel services the pure kernel sources expect, faked for a
 * single-threaded host process (unit tests and fuzz targets alike):
 * panic longjmps to an armed EXPECT_PANIC or aborts (which libFuzzer
 * records as a crash), printk collects text for host_printk_take,
 * spinlocks only note their holder, and "physical memory" is the arena
 * host_phys_base points at.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "host_test.h"
#include <scion/spinlock.h>
#include <scion/proc.h>
#include <scion/pause.h>
#include <scion/errno.h>

uintptr_t host_phys_base;
size_t host_phys_size;
jmp_buf *host_panic_target;
char host_last_panic[512];
static char printk_buf[16384];
static size_t printk_len;
volatile bool panic_in_progress;

/* Processes (scion/proc.h): the host tests' threads are kernel threads, of no process. */
/* No process runs on the host: raise() from a probe finds none. */
int proc_signal_defer(int sig)
{
	return sig <= 0 || sig > 64 ? -EINVAL : -ESRCH;
}

int proc_stop_defer(void)
{
	return -ESRCH;
}

/* Pausing threads (scion/pause.h): the host's firings never pause; a request is dropped. */
void pause_request(const struct probe_hit *hit)
{
	(void)hit;
}

void pause_request_step(const struct probe_hit *hit)
{
	(void)hit;
}

static void no_pause(struct trap_frame *frame, enum pause_site site, unsigned region)
{
	(void)frame;
	(void)site;
	(void)region;
}

void (*pause_at_hit_end)(struct trap_frame *frame, enum pause_site site,
			 unsigned region) = no_pause;

int proc_pid(const struct process *p)
{
	(void)p;
	return 0;
}

int proc_ppid(const struct process *p)
{
	(void)p;
	return 0;
}

const char *proc_name(const struct process *p)
{
	(void)p;
	return "";
}

const char *proc_psargs(const struct process *p)
{
	(void)p;
	return "";
}

void vprintk(const char *fmt, va_list ap)
{
	if (printk_len < sizeof(printk_buf)) {
		int n = vsnprintf(printk_buf + printk_len, sizeof(printk_buf) - printk_len, fmt, ap);
		if (n > 0)
			printk_len += (size_t)n;
		if (printk_len >= sizeof(printk_buf))
			printk_len = sizeof(printk_buf) - 1;
	}
}

void printk(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vprintk(fmt, ap);
	va_end(ap);
}

const char *host_printk_take(void)
{
	static char copy[sizeof(printk_buf)];
	memcpy(copy, printk_buf, printk_len);
	copy[printk_len] = '\0';
	printk_len = 0;
	return copy;
}

void panic(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(host_last_panic, sizeof(host_last_panic), fmt, ap);
	va_end(ap);
	if (host_panic_target)
		longjmp(*host_panic_target, 1);
	fprintf(stderr, "unexpected kernel panic in a host test: %s\n", host_last_panic);
	abort();
}

irqflags_t spin_lock_irqsave(struct spinlock *l)
{
	l->holder_cpu = 0;
	return 0;
}

void spin_unlock_irqrestore(struct spinlock *l, irqflags_t flags)
{
	(void)flags;
	l->holder_cpu = -1;
}

void spin_lock_noirq(struct spinlock *l)
{
	l->holder_cpu = 0;
}

void spin_unlock_noirq(struct spinlock *l)
{
	l->holder_cpu = -1;
}

/* glibc 2.36 has no strlcpy; the kernel's contract. */
size_t strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);
	if (size) {
		size_t n = len < size - 1 ? len : size - 1;
		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}


/*
 * The kernel's types id (build/ctf_id.c in a kernel build): trace objects
 * compiled without types carry none, those compiled by the oracle's own
 * tests with types carry this one.
 */
const uint64_t kernel_ctf_id = 0x5c10c7f0000000ddull;
