// SPDX-License-Identifier: BSD-2-Clause
/*
 * The system-call dispatcher, and the boundary between user mode and
 * the kernel: what happens on a user fault and on every way back to
 * ring 3.
 *
 * The table is built at boot from the SYSCALL entries (a linker table,
 * proc_internal.h) indexed by Linux's numbers; a number without an
 * entry returns -ENOSYS and is counted, per number, in enosys_counts
 * (`syscalls` in the shell lists them by Linux's name). Every call,
 * implemented or not, passes the syscall provider's probes (systrace.c)
 * on its way in and out.
 */
#include <scion/errno.h>
#include <scion/fault.h>
#include <scion/format.h>
#include <scion/printk.h>
#include <scion/sched.h>
#include <scion/shell.h>
#include <scion/symtab.h>
#include <scion/cpu.h>
#include <arch/cpu.h>
#include <arch/user.h>
#include "proc_internal.h"

LINKER_TABLE_DECLARE(struct syscall_entry, syscalls);

static const struct syscall_entry *table[SYSCALL_COUNT];	/* set at boot, then read-only */
static uint64_t calls[SYSCALL_COUNT];				/* atomic */
static uint64_t enosys_counts[SYSCALL_COUNT];			/* atomic */
static uint64_t enosys_out_of_range;				/* atomic */
static bool table_built;

static void build_table(void)
{
	LINKER_TABLE_FOREACH(struct syscall_entry, syscalls, e) {
		if (e->nr >= SYSCALL_COUNT || table[e->nr])
			panic("syscall %s: number %u out of range or taken twice", e->name, e->nr);
		table[e->nr] = e;
	}
	__atomic_store_n(&table_built, true, __ATOMIC_RELEASE);
}

struct trap_frame *syscall_frame(void)
{
	return arch_user_frame(thread_current()->stack_top);
}

/* The call itself, inline in syscall_handle (the untraced path pays no extra call). */
static __always_inline int64_t dispatch(uint64_t nr, struct trap_frame *f)
{
	int64_t r;
	if (nr < SYSCALL_COUNT && table[nr]) {
		__atomic_fetch_add(&calls[nr], 1, __ATOMIC_RELAXED);
		r = table[nr]->fn(arch_syscall_arg(f, 0), arch_syscall_arg(f, 1), arch_syscall_arg(f, 2),
				  arch_syscall_arg(f, 3), arch_syscall_arg(f, 4), arch_syscall_arg(f, 5));
	} else {
		if (nr < SYSCALL_COUNT)
			__atomic_fetch_add(&enosys_counts[nr], 1, __ATOMIC_RELAXED);
		else
			__atomic_fetch_add(&enosys_out_of_range, 1, __ATOMIC_RELAXED);
		r = -ENOSYS;
	}
	return r;
}

int64_t syscall_dispatch(uint64_t nr, struct trap_frame *f)
{
	return dispatch(nr, f);
}

void syscall_handle(struct trap_frame *f)
{
	uint64_t nr = arch_syscall_nr(f);
	struct process *p = proc_current();
	int64_t r;

	if (unlikely(!__atomic_load_n(&table_built, __ATOMIC_ACQUIRE)))
		build_table();	/* first call: every CPU builds the same table */
	if (p)
		p->syscalls++;
	/* The syscall provider's one load and branch while it is disabled (systrace.c). */
	if (nr < SYSCALL_COUNT && unlikely(__atomic_load_n(&systrace_live[nr], __ATOMIC_RELAXED)))
		r = systrace_call((unsigned)nr, f);
	else
		r = dispatch(nr, f);
	arch_syscall_set_return(f, r);
	arch_irq_disable();
	proc_return_to_user(f);
}

/* The signal a user exception sends, as Linux chooses it. */
static int fault_signal(unsigned vector)
{
	switch (vector) {
	case 0: return SIGFPE;		/* divide error */
	case 16: case 19: return SIGFPE;	/* x87, SIMD */
	case 6: return SIGILL;		/* invalid opcode */
	case 1: case 3: return SIGTRAP;
	case 17: return SIGBUS;		/* alignment check */
	default: return SIGSEGV;	/* page fault, GP, stack fault ... */
	}
}

void proc_user_fault(struct trap_frame *f, const struct fault_info *info)
{
	struct process *p = proc_current();
	if (!p)
		panic("a user-mode fault in a thread without a process");
	int sig = fault_signal(info->vector);
	/*
	 * A handler that may run gets the fault (and if it returns, the
	 * fault comes again, as on Linux); ignored, blocked or left to its
	 * default, the fault kills, with a report.
	 */
	const struct sigaction_rec *a = &p->actions[sig - 1];
	if (a->handler != LINUX_SIG_DFL && a->handler != LINUX_SIG_IGN &&
	    !(p->blocked & (1ull << (sig - 1)))) {
		struct user_siginfo si = {
			.signo = sig, .code = LINUX_SI_KERNEL,
			.addr = info->has_address ? info->address : trap_frame_pc(f),
		};
		if (info->has_address)
			si.code = vm_find(&p->vm, info->address) ? LINUX_SEGV_ACCERR : LINUX_SEGV_MAPERR;
		signal_send_info(p, &si);
		return;
	}
	if (!p->fault_reported) {
		p->fault_reported = true;
		char addr[40] = "";
		if (info->has_address)
			snprintf(addr, sizeof(addr), " address 0x%llx", (unsigned long long)info->address);
		printk("proc: pid %d (%s) killed by %s: %s%s%s%s at pc 0x%llx%s\n", p->pid, p->name,
		       signal_name(sig), info->what, info->detail[0] ? " (" : "", info->detail,
		       info->detail[0] ? ")" : "", (unsigned long long)trap_frame_pc(f), addr);
	}
	int none = 0;
	__atomic_compare_exchange_n(&p->fatal_signal, &none, sig, false, __ATOMIC_RELAXED,
				    __ATOMIC_RELAXED);
	__atomic_fetch_or(&p->pending, 1ull << (sig - 1), __ATOMIC_RELAXED);
}

void proc_return_to_user(struct trap_frame *f)
{
	struct process *p = proc_current();
	if (!p)
		return;
	if (unlikely(READ_ONCE(p->deferred_signal)))
		signal_send(p, __atomic_exchange_n(&p->deferred_signal, 0, __ATOMIC_RELAXED));
	if (unlikely(READ_ONCE(p->deferred_stop)) &&
	    __atomic_exchange_n(&p->deferred_stop, 0, __ATOMIC_RELAXED))
		signal_stop_here(p);
	int sig = READ_ONCE(p->fatal_signal);
	if (unlikely(sig)) {
		if (!p->fault_reported && sig != SIGKILL && sig != SIGINT && sig != SIGTERM &&
		    sig != SIGPIPE)
			printk("proc: pid %d (%s) killed by %s\n", p->pid, p->name, signal_name(sig));
		proc_exit(WAIT_STATUS_SIGNALED(sig));
	}
	if (unlikely(__atomic_load_n(&p->pending, __ATOMIC_RELAXED) & ~p->blocked))
		signal_deliver(p, f);
	if (unlikely(this_cpu()->need_resched)) {
		arch_irq_enable();
		thread_yield();
		arch_irq_disable();
	}
}

/* Shell: `syscalls`: calls made by number, and the numbers that got ENOSYS. */
static int cmd_syscalls(int argc, char **argv)
{
	if (argc != 1) {
		printk("%s: takes no arguments\n", argv[0]);
		return -EINVAL;
	}
	unsigned implemented = 0;
	LINKER_TABLE_FOREACH(struct syscall_entry, syscalls, e)
		implemented++;
	printk("%u system calls implemented (Linux's numbers); calls made:\n", implemented);
	for (unsigned nr = 0; nr < SYSCALL_COUNT; nr++) {
		uint64_t n = READ_ONCE(calls[nr]);
		if (n)
			printk("  %3u %-20s %llu\n", nr, linux_syscall_names[nr], (unsigned long long)n);
	}
	printk("not implemented (returned ENOSYS):\n");
	for (unsigned nr = 0; nr < SYSCALL_COUNT; nr++) {
		uint64_t n = READ_ONCE(enosys_counts[nr]);
		if (n)
			printk("  %3u %-20s %llu\n", nr,
			       linux_syscall_names[nr] ? linux_syscall_names[nr] : "(no such call)",
			       (unsigned long long)n);
	}
	uint64_t oor = READ_ONCE(enosys_out_of_range);
	if (oor)
		printk("  numbers beyond the table: %llu\n", (unsigned long long)oor);
	return 0;
}
SHELL_COMMAND(syscalls, "", "system calls made by user processes, and those refused with ENOSYS",
	      cmd_syscalls);
