// SPDX-License-Identifier: BSD-2-Clause
/*
 * Traps in C: taking %tba over from OpenBIOS, dispatching what
 * trap_entry.S hands to trap_handler (at TL 0, interrupts masked, on the
 * interrupted stack), and the fault report.
 *
 * Interrupt levels 1..15 come from SOFTINT: level 14 is the %tick_cmpr
 * timer (timer.c), which once the core runs is also its tick, the
 * console's input poll and a graft's watchdog; the scheduler may switch
 * threads on the way out. Others are acknowledged and counted. A fault
 * inside arch_safe_read resumes at its error exit. A fault in a thread
 * goes to the core's fault_handle (graft abort, thread killed, or
 * panic). Any other fault, and every fault before the first thread (the
 * self-checks), is reported here (trap type and name, TL, TPC, TNPC,
 * TSTATE, fault address, and a backtrace through the register windows)
 * and is fatal, unless the faulting pc has a registered fixup (a
 * deliberate, recoverable fault of the self-checks): then the report is
 * printed, the fixup's hook sees the frame, and execution resumes at the
 * fixup's address.
 * Invariants: a trap taken at TL > 1, or a refused window spill or fill,
 * never returns (its windows were discarded: trap_entry.S).
 */
#include <arch/safe_read.h>
#include <arch/trap.h>
#include <scion/clock.h>
#include <scion/cpu.h>
#include <scion/fault.h>
#include <scion/format.h>
#include <scion/sched.h>
#include <scion/symtab.h>
#include <scion/txn.h>

#include <arch/mmu.h>
#include <arch/patch.h>
#include <scion/probe.h>

#include "sparc64_internal.h"

/* trap_entry.S's TF_* offsets, checked against the C layout. */
_Static_assert(offsetof(struct trap_frame, tt) == 24, "TF_TT");
_Static_assert(offsetof(struct trap_frame, fault_addr) == 40, "TF_FAULT");
_Static_assert(offsetof(struct trap_frame, g) == 56, "TF_G");
_Static_assert(offsetof(struct trap_frame, sp) == 120, "TF_SP");
_Static_assert(offsetof(struct trap_frame, outer_tpc) == 136, "TF_OUTER_TPC");
_Static_assert(offsetof(struct trap_frame, o) == 144, "TF_O");
_Static_assert(sizeof(struct trap_frame) == 208, "TF_SIZE");

static struct {
	uint64_t pc, resume;
	void (*hook)(const struct trap_frame *tf);
} fixup;

static uint64_t spurious_irqs;

/*
 * sparc64_trap_init - make the kernel's trap table the machine's.
 * Steps:
 *  1. Interrupts masked (they are, since _start).
 *  2. Window state for a kernel-only machine: WSTATE 0 (spill/fill 0
 *     normal: the 64-bit handlers), no other-windows, every window clean.
 *  3. The kernel's 4 MB TTE locked into both TLBs (mmu.c): the table
 *     must never miss on itself.
 *  4. %tba := trap_table. From here on the kernel handles its own TLB
 *     misses and window traps; OpenBIOS is never called again.
 *  5. PIL 0: every interrupt level may interrupt once PSTATE.IE is set.
 */
void sparc64_trap_init(void)
{
	uint64_t ver, maxwin;

	wrpr_pstate(PSTATE_KERNEL);
	__asm__ __volatile__("rdpr %%ver, %0" : "=r"(ver));
	maxwin = ver & 0x1f;
	__asm__ __volatile__("wrpr %%g0, 0, %%wstate\n\t"
			     "wrpr %%g0, 0, %%otherwin\n\t"
			     "wrpr %0, 0, %%cleanwin"
			     : : "r"(maxwin) : "memory");
	mmu_lock_kernel();
	__asm__ __volatile__("wrpr %0, 0, %%tba" : : "r"(trap_table) : "memory");
	__asm__ __volatile__("wrpr %%g0, 0, %%pil" ::: "memory");
	early_printf("trap: own trap table at %p, %lu register windows\n", (void *)trap_table,
		     (unsigned long)(maxwin + 1));
}

void trap_set_fixup(uint64_t pc, uint64_t resume, void (*hook)(const struct trap_frame *tf))
{
	fixup.pc = pc;
	fixup.resume = resume;
	fixup.hook = hook;
}

static const char *trap_name(uint64_t tt)
{
	switch (tt) {
	case TT_IAE:		return "instruction access exception";
	case TT_ILLEGAL:	return "illegal instruction";
	case TT_PRIV_OPC:	return "privileged opcode";
	case TT_DIV_ZERO:	return "division by zero";
	case TT_DAE:		return "data access exception";
	case TT_ALIGN:		return "unaligned address";
	case TT_IVEC:		return "interrupt vector";
	case TT_IMMU_MISS:	return "instruction MMU miss";
	case TT_DMMU_MISS:	return "data MMU miss";
	case TT_DMMU_PROT:	return "data access protection";
	}
	if (tt >= TT_SPILL_0 && tt < TT_FILL_0)
		return "window spill refused (32-bit stack or foreign WSTATE)";
	if (tt >= TT_FILL_0 && tt < TT_TRAP_INSN)
		return "window fill refused (32-bit stack or foreign WSTATE)";
	if (tt > TT_IRQ_BASE && tt < TT_IRQ_BASE + 16)
		return "interrupt";
	if (tt >= TT_TRAP_INSN && tt < 0x180)
		return "software trap";
	return "unexpected trap";
}

static void sym(uint64_t addr, char *buf, size_t size)
{
	symtab_format(&kernel_symtab, addr, buf, size);
}

/* The report: one headline, the trap state, then the backtrace. */
static void trap_report(const struct trap_frame *tf)
{
	char a[96], b[96];
	uint64_t pstate = (tf->tstate >> TSTATE_PSTATE_SHIFT) & 0xfff;

	sym(tf->tpc, a, sizeof(a));
	early_printf("trap: %s (tt 0x%03lx) at TL %lu in %s\n", trap_name(tf->tt),
		     (unsigned long)tf->tt, (unsigned long)tf->tl,
		     (pstate & PSTATE_PRIV) ? "kernel mode" : "user mode");
	sym(tf->tnpc, b, sizeof(b));
	early_printf("  TPC   0x%016lx %s\n  TNPC  0x%016lx %s\n", (unsigned long)tf->tpc, a,
		     (unsigned long)tf->tnpc, b);
	early_printf("  TSTATE 0x%016lx (CWP %lu, PSTATE 0x%03lx)  fault address 0x%016lx\n",
		     (unsigned long)tf->tstate, (unsigned long)(tf->tstate & TSTATE_CWP_MASK),
		     (unsigned long)pstate, (unsigned long)tf->fault_addr);
	uint64_t off = tf->tpc - (uint64_t)trap_table;
	if (off < 2 * TRAP_TABLE_TL1)
		early_printf("  (TPC is in the trap table: the handler of tt 0x%03lx for traps at %s)\n",
			     (unsigned long)((off % TRAP_TABLE_TL1) / TRAP_ENTRY_SIZE),
			     off < TRAP_TABLE_TL1 ? "TL 0" : "TL > 0");
	if (tf->tl > 1) {
		sym(tf->outer_tpc, a, sizeof(a));
		early_printf("  inside a trap: TL 1 was tt 0x%03lx at 0x%016lx %s\n",
			     (unsigned long)tf->outer_tt, (unsigned long)tf->outer_tpc, a);
		early_printf("backtrace: none (the windows were discarded at TL %lu)\n",
			     (unsigned long)tf->tl);
	} else if (tf->tt >= TT_SPILL_0 && tf->tt < TT_TRAP_INSN) {
		early_printf("backtrace: none (the refused window's stack cannot be read)\n");
	} else {
		sparc64_backtrace_print(tf->tpc, tf->sp);
	}
}

/*
 * An interrupt at level 1..15, at TL 0 with interrupts masked, on the
 * interrupted thread's stack. Steps: 1. count it and note the frame
 * (arch_interrupted_frame) and the time (cpu_irq_time_enter, outermost
 * only); 2. level 14 is the timer (timer.c), others are acknowledged and
 * counted as spurious; 3. on the way out of the outermost handler, the
 * scheduler may switch threads (sched_irq_exit): the frame stays on
 * this thread's stack until the thread runs again and returns through it.
 */
static void interrupt(struct trap_frame *tf, uint64_t level)
{
	struct cpu *c = this_cpu();

	if (unlikely(c->txn_timer_only)) {
		/* A graft runs at PIL 13 (arch/txn.h): count time, run its watchdog, nothing else. */
		if (level == 14) {
			timer_interrupt();
			clock_count_tick();
			txn_watchdog(tf);
		} else {
			__asm__ __volatile__("wr %0, 0, %%clear_softint" : : "r"(1ul << level));
			spurious_irqs++;
		}
		return;
	}
	if (c->irq_depth++ == 0)
		cpu_irq_time_enter(c);
	c->interrupts++;
	struct trap_frame *outer = c->arch.irq_frame;
	c->arch.irq_frame = tf;
	if (level == 14) {
		timer_interrupt();
		if (sparc64_timer_core()) {
			sparc64_console_poll();
			sparc64_channel_poll();
			if (c->txn_depth)
				txn_watchdog(tf);
			clock_timer_interrupt();
		}
	} else {
		__asm__ __volatile__("wr %0, 0, %%clear_softint" : : "r"(1ul << level));
		spurious_irqs++;
	}
	c->arch.irq_frame = outer;
	if (--c->irq_depth == 0) {
		cpu_irq_time_exit(c);
		sched_irq_exit(trap_frame_pc(tf));
	}
}

struct trap_frame *arch_interrupted_frame(void)
{
	return this_cpu()->arch.irq_frame;
}

/* ---- arch_safe_read's faults (switch.S) ------------------------------------------ */

extern char safe_read_load[], safe_read_fault[];

__noprobe bool arch_safe_read_fixup(struct trap_frame *f)
{
	if (f->tl != 1 || f->tpc != (uint64_t)(uintptr_t)safe_read_load)
		return false;
	trap_frame_set_pc(f, (uint64_t)(uintptr_t)safe_read_fault);
	return true;
}

/* ---- sparc64_phys_probe8's faults (phys_probe.S): no device there, no report ---- */

extern char phys_probe_load[], phys_probe_fault[];

static __noprobe bool phys_probe_fixup(struct trap_frame *f)
{
	if (f->tl != 1 || f->tpc != (uint64_t)(uintptr_t)phys_probe_load)
		return false;
	trap_frame_set_pc(f, (uint64_t)(uintptr_t)phys_probe_fault);
	return true;
}

/*
 * Tracing may read anything that translates and is not a device: the
 * image, the direct map of RAM, and cacheable kmap pages.
 */
bool arch_trace_readable(uint64_t addr, size_t n)
{
	if (n == 0)
		return true;
	if (addr + n < addr)
		return false;
	for (uint64_t a = addr & ~(PAGE_SIZE - 1); a < addr + n; a += PAGE_SIZE) {
		unsigned flags = 0;
		if (arch_translate(a, &flags) != UINT64_MAX && (flags & MAP_NOCACHE))
			return false;
		if (a >= MMIO_BASE && a < MMIO_LIMIT)
			return false;
	}
	return true;
}

void arch_trap_print_regs(const struct trap_frame *f)
{
	printk("  TPC 0x%016llx TNPC 0x%016llx TSTATE 0x%016llx TT 0x%03llx TL %llu\n",
	       (unsigned long long)f->tpc, (unsigned long long)f->tnpc,
	       (unsigned long long)f->tstate, (unsigned long long)f->tt, (unsigned long long)f->tl);
	for (int i = 0; i < 8; i += 2)
		printk("  %%g%d 0x%016llx %%g%d 0x%016llx  %%o%d 0x%016llx %%o%d 0x%016llx\n", i,
		       (unsigned long long)f->g[i], i + 1, (unsigned long long)f->g[i + 1], i,
		       (unsigned long long)f->o[i], i + 1, (unsigned long long)f->o[i + 1]);
}

/*
 * A fault in a thread, once the core runs: the core's fault_handle
 * (kernel/core/fault.c) aborts a graft's transaction, kills an ordinary
 * thread, or panics. Its class is named as on x86 (the portable code and
 * tests know "page fault", "divide error"); the vector is the trap type.
 * Window spill/fill refusals and software traps keep the port's report.
 */
static bool core_fault(struct trap_frame *tf)
{
	struct fault_info info = { .vector = (unsigned)tf->tt, .has_address = tf->fault_addr != 0,
				   .address = tf->fault_addr };

	switch (tf->tt) {
	case TT_IMMU_MISS: case TT_DMMU_MISS: case TT_DMMU_PROT: case TT_DAE: case TT_IAE:
		info.what = "page fault";
		break;
	case TT_DIV_ZERO:
		info.what = "divide error";
		break;
	case TT_ILLEGAL:
		info.what = "invalid opcode";
		break;
	case TT_ALIGN:
		info.what = "alignment check";
		break;
	default:
		return false;
	}
	snprintf(info.detail, sizeof(info.detail), "%s (tt 0x%03x)", trap_name(tf->tt),
		 (unsigned)tf->tt);
	fault_handle(tf, &info);
	return true;
}

/* Probe context: a probe's breakpoint reaches probe_breakpoint before anything else runs. */
__noprobe void trap_handler(struct trap_frame *tf)
{
	uint64_t tt = tf->tt;

	if (tf->tl == 1 && tt == TT_TRAP_INSN + PATCH_BREAKPOINT_TRAP && probe_breakpoint(tf))
		return;
	if (tf->tl == 1 && tt > TT_IRQ_BASE && tt < TT_IRQ_BASE + 16) {
		interrupt(tf, tt - TT_IRQ_BASE);
		return;
	}
	if (arch_safe_read_fixup(tf) || phys_probe_fixup(tf))
		return;
	if (tf->tl == 1 && this_cpu()->current && core_fault(tf))
		return;
	trap_report(tf);
	if (tf->tl == 1 && fixup.pc && tf->tpc == fixup.pc) {
		early_printf("trap: recovered (a registered fixup resumes at 0x%lx)\n",
			     (unsigned long)fixup.resume);
		if (fixup.hook)
			fixup.hook(tf);
		tf->tpc = fixup.resume;
		tf->tnpc = fixup.resume + 4;
		fixup.pc = 0;
		return;
	}
	panic("fatal trap 0x%03lx at TL %lu", (unsigned long)tt, (unsigned long)tf->tl);
}
