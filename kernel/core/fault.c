// SPDX-License-Identifier: BSD-2-Clause
/*
 * Faults in kernel code: report, then recover by killing the thread, or
 * panic.
 *
 * Killing is safe only for an ordinary thread that holds no spinlock and
 * is not inside an interrupt handler: then nothing it was in the middle
 * of is shared state half-changed under a lock. Everything else (idle
 * threads, interrupt handlers, code holding spinlocks, code that ran with
 * interrupts masked) panics. A fault in a graft's code aborts the
 * graft's transaction instead (txn_fault): the kernel never dies of a
 * graft.
 */
#include <scion/fault.h>
#include <scion/printk.h>
#include <scion/probe.h>
#include <scion/symtab.h>
#include <scion/thread.h>
#include <scion/cpu.h>
#include <scion/string.h>
#include <scion/errno.h>
#include <scion/spinlock.h>
#include <scion/txn.h>

static struct spinlock fault_lock = SPINLOCK_INIT("fault-record");
static struct fault_record last_fault;	/* fault_lock */

static const char *why_not_killable(const struct trap_frame *frame)
{
	struct cpu *c = this_cpu();
	struct thread *t = c->current;

	if (!t)
		return "during boot";
	if (t->is_idle)
		return "in an idle thread";
	if (c->irq_depth)
		return "in an interrupt handler";
	if (c->lock_depth)
		return "while holding a spinlock";
	if (!trap_frame_irqs_were_enabled(frame))
		return "with interrupts masked";
	return NULL;
}

static void record(const struct thread *t, const struct fault_info *info, uintptr_t pc)
{
	uint64_t off, where = pc;
	probe_patch_origin(pc, &where);	/* a relocated instruction faults as its original */
	const struct ksym *s = symtab_lookup_addr(&kernel_symtab, where, &off);

	irqflags_t f = spin_lock_irqsave(&fault_lock);
	last_fault.count++;
	last_fault.tid = t->tid;
	strlcpy(last_fault.thread, t->name, sizeof(last_fault.thread));
	last_fault.vector = info->vector;
	last_fault.error_code = info->error_code;
	last_fault.address = info->has_address ? info->address : 0;
	last_fault.pc = pc;
	strlcpy(last_fault.function, s ? ksym_name(&kernel_symtab, s) : "",
		sizeof(last_fault.function));
	spin_unlock_irqrestore(&fault_lock, f);
}

void fault_last(struct fault_record *out)
{
	irqflags_t f = spin_lock_irqsave(&fault_lock);
	*out = last_fault;
	spin_unlock_irqrestore(&fault_lock, f);
}

void fault_handle(struct trap_frame *frame, const struct fault_info *info)
{
	struct cpu *c = this_cpu();
	struct thread *t = c->current;
	uintptr_t pc = trap_frame_pc(frame);
	const char *unsafe;
	char sym[96];

	if (c->txn_depth && txn_fault(frame, info))
		return;
	unsafe = why_not_killable(frame);
	printk("\n%s (vector %u) in kernel mode on cpu %u, thread '%s' (tid %llu)\n",
	       info->what, info->vector, c->index, t ? t->name : "boot",
	       t ? (unsigned long long)t->tid : 0ull);
	printk("  error code 0x%llx%s%s", (unsigned long long)info->error_code,
	       info->detail[0] ? ": " : "", info->detail);
	if (info->has_address)
		printk(", address 0x%016llx", (unsigned long long)info->address);
	printk("\n  pc 0x%016llx %s\n", (unsigned long long)pc, code_format(pc, sym, sizeof(sym)));
	arch_trap_print_regs(frame);
	printk("backtrace:\n");
	backtrace_print(pc, trap_frame_fp(frame));
	if (unsafe)
		panic("%s %s, pc %s", info->what, unsafe, code_format(pc, sym, sizeof(sym)));
	record(t, info, pc);
	printk("thread '%s' (tid %llu) killed by %s; the kernel goes on\n", t->name,
	       (unsigned long long)t->tid, info->what);
	thread_exit(-EFAULT);
}
