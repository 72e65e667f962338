// SPDX-License-Identifier: BSD-2-Clause
/*
 * From trap_common into the kernel: exceptions go to the fault path,
 * interrupts to their handler, then the local APIC is acknowledged and
 * the scheduler may preempt.
 *
 * handlers[] is written only while attaching (irq_lock) and read by the
 * interrupt path without a lock: an entry is complete before the vector
 * can fire, since the device is enabled after attaching.
 */
#include <scion/cpu.h>
#include <scion/fault.h>
#include <scion/printk.h>
#include <scion/sched.h>
#include <scion/xcall.h>
#include <scion/clock.h>
#include <scion/format.h>
#include <scion/errno.h>
#include <scion/shell.h>
#include <scion/probe.h>
#include <scion/txn.h>
#include <arch/trap.h>
#include <arch/txn.h>
#include <arch/safe_read.h>
#include <arch/irq.h>
#include <arch/user.h>
#include <arch/mmu.h>
#include <scion/proc.h>
#include <arch/x86.h>
#include "vectors.h"
#include "x86_internal.h"

struct irq_entry {
	irq_handler_t fn;
	void *arg;
	const char *name;
	uint64_t count;
};

static struct irq_entry handlers[256];
static struct spinlock irq_lock = SPINLOCK_INIT("irq-table");
static uint64_t spurious_interrupts;
static uint64_t unexpected_nmis;

static const char *const exception_names[32] = {
	"divide error", "debug", "NMI", "breakpoint", "overflow", "bound range",
	"invalid opcode", "device not available", "double fault",
	"coprocessor segment overrun", "invalid TSS", "segment not present",
	"stack fault", "general protection", "page fault", "reserved",
	"x87 floating point", "alignment check", "machine check",
	"SIMD floating point", "virtualization", "control protection",
};

int arch_irq_attach_vector(unsigned vector, irq_handler_t fn, void *arg, const char *name)
{
	int err = 0;
	irqflags_t f = spin_lock_irqsave(&irq_lock);
	if (handlers[vector].fn)
		err = -EBUSY;
	else
		handlers[vector] = (struct irq_entry){ fn, arg, name, 0 };
	spin_unlock_irqrestore(&irq_lock, f);
	return err;
}

void arch_trap_print_regs(const struct trap_frame *f)
{
	printk("  rax %016llx rbx %016llx rcx %016llx rdx %016llx\n"
	       "  rsi %016llx rdi %016llx rbp %016llx rsp %016llx\n"
	       "  r8  %016llx r9  %016llx r10 %016llx r11 %016llx\n"
	       "  r12 %016llx r13 %016llx r14 %016llx r15 %016llx\n"
	       "  rip %016llx rflags %08llx cs %04llx ss %04llx cr2 %016llx\n",
	       (unsigned long long)f->rax, (unsigned long long)f->rbx,
	       (unsigned long long)f->rcx, (unsigned long long)f->rdx,
	       (unsigned long long)f->rsi, (unsigned long long)f->rdi,
	       (unsigned long long)f->rbp, (unsigned long long)f->rsp,
	       (unsigned long long)f->r8, (unsigned long long)f->r9,
	       (unsigned long long)f->r10, (unsigned long long)f->r11,
	       (unsigned long long)f->r12, (unsigned long long)f->r13,
	       (unsigned long long)f->r14, (unsigned long long)f->r15,
	       (unsigned long long)f->rip, (unsigned long long)f->rflags,
	       (unsigned long long)f->cs, (unsigned long long)f->ss,
	       (unsigned long long)read_cr2());
}

#define PF_PRESENT  0x1
#define PF_WRITE    0x2
#define PF_USER     0x4
#define PF_RESERVED 0x8
#define PF_FETCH    0x10

static void decode_page_fault(struct fault_info *info)
{
	uint64_t e = info->error_code;

	info->has_address = true;
	info->address = read_cr2();
	snprintf(info->detail, sizeof(info->detail), "%s, %s%s%s",
		 (e & PF_FETCH) ? "instruction fetch" : (e & PF_WRITE) ? "write" : "read",
		 (e & PF_PRESENT) ? "protection violation" : "not present",
		 (e & PF_RESERVED) ? ", reserved bit set" : "",
		 (e & PF_USER) ? ", user mode" : "");
}

/*
 * NMIs stop CPUs during a panic. Any other NMI is only counted: it can
 * arrive while this CPU holds the console lock, so it must not print.
 */
static __noprobe void handle_nmi(struct trap_frame *f)
{
	(void)f;
	if (panic_in_progress)
		arch_halt_forever();
	__atomic_fetch_add(&unexpected_nmis, 1, __ATOMIC_RELAXED);
}

extern const char safe_read_may_fault[], safe_read_fixup[];

bool __noprobe arch_safe_read_fixup(struct trap_frame *f)
{
	if (f->rip != (uint64_t)(uintptr_t)safe_read_may_fault)
		return false;
	f->rip = (uint64_t)(uintptr_t)safe_read_fixup;
	return true;
}

/*
 * A page fault at a user address, from user mode or from the kernel
 * copying to or from user memory, may be a page the process has not
 * touched yet: the process's memory map resolves it (demand paging).
 */
static __noprobe bool resolve_user_page_fault(struct trap_frame *f)
{
	uintptr_t addr = read_cr2();
	if (addr >= USER_LIMIT)
		return false;
	unsigned access = (f->error & PF_FETCH) ? PROC_ACCESS_EXEC :
			  (f->error & PF_WRITE) ? PROC_ACCESS_WRITE : PROC_ACCESS_READ;
	return proc_page_fault(addr, access, trap_frame_is_user(f));
}

static __noprobe void handle_exception(struct trap_frame *f)
{
	struct fault_info info = {
		.what = f->vector < 32 && exception_names[f->vector] ?
			exception_names[f->vector] : "reserved exception",
		.vector = (unsigned)f->vector,
		.error_code = f->error,
	};

	switch (f->vector) {
	case VEC_NMI:
		handle_nmi(f);
		return;
	case VEC_BREAKPOINT:
		if (probe_breakpoint(f))
			return;
		break;
	case VEC_PAGE_FAULT:
		if (resolve_user_page_fault(f))
			return;
		if (arch_safe_read_fixup(f))
			return;
		decode_page_fault(&info);
		break;
	case VEC_GP:
		if (arch_safe_read_fixup(f))	/* a non-canonical address */
			return;
		break;
	case VEC_DOUBLE_FAULT:
		/* A graft that ran off its stack: a page fault could not be delivered. */
		info.what = "double fault (stack overflow?)";
		if (txn_fault(f, &info))
			return;
		arch_trap_print_regs(f);
		panic("double fault on cpu %u (kernel stack overflow?) at pc 0x%llx",
		      this_cpu()->index, (unsigned long long)f->rip);
	default:
		break;
	}
	if (trap_frame_is_user(f)) {
		proc_user_fault(f, &info);
		return;
	}
	fault_handle(f, &info);
}

struct trap_frame *arch_interrupted_frame(void)
{
	return this_cpu()->arch.irq_frame;
}

_Static_assert(VEC_PRIORITY_CLASS(VEC_LAPIC_TIMER) == ARCH_TPR_TIMER_ONLY + 1,
	       "the timer must be alone in the class just above ARCH_TPR_TIMER_ONLY");
_Static_assert(VEC_PRIORITY_CLASS(VEC_IPI_RESCHED) <= ARCH_TPR_TIMER_ONLY &&
	       VEC_PRIORITY_CLASS(VEC_IPI_XCALL) <= ARCH_TPR_TIMER_ONLY &&
	       VEC_PRIORITY_CLASS(VEC_DEVICE_LAST) <= ARCH_TPR_TIMER_ONLY,
	       "timer-only mode must hold back every vector but the timer");

/*
 * A graft runs where its caller masked interrupts (txn.c): the task
 * priority lets only the timer through, and the caller may hold any
 * lock, so the tick only counts time and runs the graft watchdog.
 */
static __noprobe void timer_only_interrupt(struct trap_frame *f)
{
	if (f->vector == VEC_SPURIOUS)
		return;
	lapic_eoi();
	if (f->vector != VEC_LAPIC_TIMER)
		panic("vector 0x%llx arrived through the graft task priority", (unsigned long long)f->vector);
	clock_count_tick();
	txn_watchdog(f);
}

/* Called from trap_common with interrupts masked. */
__noprobe void trap_dispatch(struct trap_frame *f)
{
	struct cpu *c;

	if (f->vector < VEC_FIRST_IRQ) {
		handle_exception(f);
		if (trap_frame_is_user(f) && f->vector != VEC_NMI)
			proc_return_to_user(f);
		return;
	}
	c = this_cpu();
	if (unlikely(c->txn_timer_only)) {
		timer_only_interrupt(f);
		return;
	}
	if (c->irq_depth++ == 0)
		cpu_irq_time_enter(c);
	c->interrupts++;
	struct trap_frame *outer = c->arch.irq_frame;
	c->arch.irq_frame = f;
	struct irq_entry *h = &handlers[f->vector];
	if (h->fn) {
		__atomic_fetch_add(&h->count, 1, __ATOMIC_RELAXED);
		h->fn(h->arg);
	} else {
		spurious_interrupts++;
	}
	/*
	 * The spurious vector and the masked PIC's spurious lines get no
	 * EOI; the timer had its own at the start (timer_interrupt).
	 */
	if (f->vector != VEC_SPURIOUS && f->vector != VEC_LAPIC_TIMER &&
	    (f->vector < VEC_PIC_BASE || f->vector >= VEC_PIC_BASE + 16))
		lapic_eoi();
	c->arch.irq_frame = outer;
	if (--c->irq_depth == 0) {
		cpu_irq_time_exit(c);
		sched_irq_exit(trap_frame_pc(f));
	}
	if (trap_frame_is_user(f))
		proc_return_to_user(f);
}

static void ipi_xcall(void *arg)
{
	(void)arg;
	xcall_handle_ipi();
}

static void ipi_resched(void *arg)
{
	(void)arg;
	sched_handle_resched_ipi();
}

/*
 * The timer is acknowledged first: a graft that the tick itself runs
 * (timer.tick, sched.tick) must still be reachable by the next tick's
 * watchdog, which an in-service timer vector would hold back.
 */
static void timer_interrupt(void *arg)
{
	(void)arg;
	lapic_eoi();
	if (this_cpu()->txn_depth)
		txn_watchdog(arch_interrupted_frame());
	clock_timer_interrupt();
}

/* Attach the kernel's own vectors. Caller: boot CPU, once. */
void trap_init_vectors(void)
{
	arch_irq_attach_vector(VEC_IPI_XCALL, ipi_xcall, NULL, "ipi-xcall");
	arch_irq_attach_vector(VEC_IPI_RESCHED, ipi_resched, NULL, "ipi-resched");
	arch_irq_attach_vector(VEC_LAPIC_TIMER, timer_interrupt, NULL, "timer");
}

/* Print the interrupt counts (shell `irqs`). */
void arch_irq_print_stats(void)
{
	for (unsigned v = VEC_FIRST_IRQ; v < 256; v++)
		if (handlers[v].fn)
			printk("  vector 0x%02x %-12s %llu\n", v, handlers[v].name,
			       (unsigned long long)READ_ONCE(handlers[v].count));
	printk("  spurious or unattached: %llu\n", (unsigned long long)READ_ONCE(spurious_interrupts));
	printk("  NMIs outside a panic: %llu\n", (unsigned long long)READ_ONCE(unexpected_nmis));
}

static int cmd_irqs(int argc, char **argv)
{
	if (argc != 1) {
		printk("%s: takes no arguments\n", argv[0]);
		return -EINVAL;
	}
	arch_irq_print_stats();
	return 0;
}
SHELL_COMMAND(irqs, "", "interrupt counts by vector", cmd_irqs);
