// SPDX-License-Identifier: BSD-2-Clause
/*
 * printk and panic.
 *
 * panic is the one path that must work whatever state the kernel is in:
 * it masks interrupts, claims the panic (a second CPU panicking at the
 * same time just stops), stops the other CPUs with an NMI, writes without
 * the console lock, and ends as the `panic` boot option says.
 */
#include <scion/exit_status.h>
#include <scion/printk.h>
#include <scion/format.h>
#include <scion/console.h>
#include <scion/cpu.h>
#include <scion/thread.h>
#include <scion/fault.h>
#include <scion/bootopt.h>
#include <scion/string.h>
#include <scion/errno.h>
#include <arch/cpu.h>
#include <arch/smp.h>
#include <arch/power.h>
#include <arch/trap.h>

#define PRINTK_MAX 512

volatile bool panic_in_progress;
static int panic_owner = -1;
static bool panic_exits;	/* boot option panic=exit */

void vprintk(const char *fmt, va_list ap)
{
	char buf[PRINTK_MAX];
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);

	if (n >= (int)sizeof(buf))
		n = sizeof(buf) - 1;
	struct thread *t = this_cpu()->current;
	if (t && t->output && !in_interrupt() && !panic_in_progress)
		t->output->write(t->output, buf, (size_t)n);
	else
		console_write(buf, (size_t)n);
}

void thread_set_output(struct output_sink *sink)
{
	thread_current()->output = sink;
}

void printk(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vprintk(fmt, ap);
	va_end(ap);
}

void panic(const char *fmt, ...)
{
	arch_irq_disable();
	int me = (int)this_cpu()->index;
	int expected = -1;
	if (!__atomic_compare_exchange_n(&panic_owner, &expected, me, false,
					 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		arch_halt_forever();	/* another CPU is already panicking */
	panic_in_progress = true;
	arch_stop_other_cpus();

	char buf[PRINTK_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	struct thread *t = this_cpu()->current;
	printk("\npanic: %s\n", buf);
	printk("  on cpu %d, thread '%s' (tid %llu)\n", me, t ? t->name : "boot",
	       t ? (unsigned long long)t->tid : 0ull);
	printk("backtrace:\n");
	uintptr_t ret;
	uintptr_t caller_fp = arch_frame_unwind(arch_current_fp(), &ret);
	backtrace_print(ret, caller_fp);
	printk("system halted\n");
	if (panic_exits)
		arch_exit_emulator(EXIT_STATUS_PANIC);
	arch_halt_forever();
}

static int parse_panic(const char *value)
{
	if (!strcmp(value, "halt"))
		panic_exits = false;
	else if (!strcmp(value, "exit"))
		panic_exits = true;
	else
		return -EINVAL;
	return 0;
}
BOOT_OPTION(panic, "halt|exit", "after a panic, halt (default) or exit QEMU with status 37",
	    parse_panic);
