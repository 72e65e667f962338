// SPDX-License-Identifier: BSD-2-Clause
/*
 * What may be probed, and when patched code is no longer in use.
 *
 * Static checks come from the symbol table and the structural analysis:
 * an address must be an instruction boundary of an analysed function
 * outside the probe machinery and boot-only code. What a jump probe
 * further needs of its detoured region is the arch's to check
 * (arch_probe_check_region), with the same analysis.
 *
 * The dynamic check (code_in_use) looks for execution inside a range,
 * which it only needs for code no CPU can enter any more (the first byte
 * of a jump region is a breakpoint, or a patch is no longer reachable):
 * every CPU reports the pc its cross-call interrupted, and every thread
 * the pc an interrupt last switched it out at (struct thread.preempted_pc,
 * kept until it next switches out, so a thread that resumed inside a
 * range and still runs there is seen too). Return addresses need no
 * check: a call inside a jump region must be its last instruction, and
 * code in a patch that calls out (the handler call) runs with interrupts
 * masked and never sleeps, except in a thread paused at a probe
 * (scion/pause.h), whose whole stack is checked while it is paused.
 */
#include <scion/cfg.h>
#include <scion/symtab.h>
#include <scion/thread.h>
#include <scion/xcall.h>
#include <scion/textimage.h>
#include <scion/errno.h>
#include <scion/mm.h>
#include <scion/insn_summary.h>
#include <arch/trap.h>
#include <arch/analysis.h>
#include "probe_internal.h"

extern char __text_start[], __text_end[], __noprobe_start[], __noprobe_end[];

struct ranges {
	const uint64_t *starts, *ends;
	unsigned n;
	bool *in_use;
};

static void mark(struct ranges *r, uint64_t word)
{
	for (unsigned i = 0; i < r->n; i++)
		if (word >= r->starts[i] && word < r->ends[i])
			r->in_use[i] = true;
}

/* Cross-call, on every CPU: the pc it was interrupted at. */
static void check_cpu(void *arg)
{
	struct trap_frame *f = arch_interrupted_frame();
	if (f)
		mark(arg, trap_frame_pc(f));
}

static void check_thread(struct thread *t, void *arg)
{
	uintptr_t pc = READ_ONCE(t->preempted_pc);
	if (pc)
		mark(arg, pc);
	/* A paused thread sleeps inside a hit: every word of its stack counts. */
	if (READ_ONCE(t->paused_at_probe) && !READ_ONCE(t->on_cpu) && t->stack_base) {
		uintptr_t sp = READ_ONCE(t->arch.saved_sp);
		for (uintptr_t w = ALIGN_UP(sp, 8); w >= t->stack_base && w + 8 <= t->stack_top;
		     w += 8)
			mark(arg, *(const uint64_t *)w);
	}
}

bool code_in_use(const uint64_t *starts, const uint64_t *ends, unsigned n, bool *in_use)
{
	struct ranges r = { starts, ends, n, in_use };
	bool any = false;

	xcall_all(check_cpu, &r);
	thread_foreach(check_thread, &r);
	for (unsigned i = 0; i < n; i++)
		any |= in_use[i];
	return any;
}

bool probe_range_in_use(uint64_t start, uint64_t end)
{
	bool in_use = false;
	return code_in_use(&start, &end, 1, &in_use);
}

/*
 * probe_check_address's checks; where they pass, *live receives the
 * registers live at addr (all of them when the analysis cannot say).
 * The function's symbol is looked up once: every lookup from here is a
 * call that the probes already enabled on it may hit (issue 28).
 */
int probe_check_site(uint64_t addr, const char **why, uint32_t *live)
{
	const char *machine_says = arch_probe_refusal(addr);
	if (machine_says) {
		*why = machine_says;
		return -EINVAL;
	}
	const struct cfg_function *f = cfg_function_at(addr);
	const struct ksym *sym = f ? f->sym : symtab_lookup_addr(&kernel_symtab, addr, NULL);
	if (sym && (sym->flags & SYM_INIT)) {
		*why = "boot-only code";
		return -EINVAL;
	}
	if (addr < (uintptr_t)__text_start || addr >= (uintptr_t)__text_end) {
		*why = "not in kernel text";
		return -EINVAL;
	}
	if (addr >= (uintptr_t)__noprobe_start && addr < (uintptr_t)__noprobe_end) {
		*why = "the probe machinery's own code (trap entry, breakpoint handling, patching)";
		return -EINVAL;
	}
	if (!text_image_ready()) {
		*why = "no copy of the booted text to restore from";
		return -EINVAL;
	}
	if (!f) {
		*why = "in no function of the symbol table";
		return -EINVAL;
	}
	if (f->status != CFG_OK) {
		*why = "a function the analysis could not read";
		return -EINVAL;
	}
	const struct cfg_block *b = cfg_block_at(f, addr);
	bool known = false;
	const struct cfg_insn_live *kept = b ? cfg_insn_at(f, b, addr, &known) : NULL;
	if (kept) {
		*live = kept->before;
		return 0;
	}
	/* Without the analysis's instructions (no memory for them), decode the block. */
	struct insn_summary in;
	for (uint64_t at = b ? b->start : addr + 1; !known && at <= addr; at += in.length) {
		uint32_t after;
		if (at == addr) {
			if (cfg_live_at(addr, live, &after))
				*live = ARCH_REGS_ALL;
			return 0;
		}
		if (arch_insn_summarise(&in, text_image_bytes(at), b->end - at, at))
			break;
	}
	*why = "not an instruction boundary";
	return -EINVAL;
}

int probe_check_address(uint64_t addr, const char **why)
{
	uint32_t live;
	return probe_check_site(addr, why, &live);
}
