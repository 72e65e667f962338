// SPDX-License-Identifier: BSD-2-Clause
/*
 * Single steps of a paused thread (scion/pause.h: pause_step), the way
 * KernInst would take them on a machine without a step trap: from the
 * instruction the thread is paused at, the instruction summary the
 * structural analysis uses (scion/insn_summary.h, read from the booted
 * text image, since the live text there holds a probe) says where it can
 * go next: the next instruction; a direct jump's target; a conditional
 * branch's target and the next; a direct call's callee (a step goes
 * into calls); a return's return address, read from the paused stack
 * (arch_return_target); an indirect call's or jump's target, from the
 * paused registers and the memory its operand names (arch_indirect_target),
 * else a jump table's entries (the analysis found them). An indirect
 * call the machine does not work out, an indirect jump without a table,
 * an instruction that leaves or stops, a delayed branch: the step is
 * refused with its reason, and nothing changes.
 *
 * Each next place gets a probe whose consumer fires in that thread alone
 * (struct probe_consumer's tid) and asks for a step's pause
 * (pause_request_step); then the thread is resumed and the step waits
 * until it pauses again, and takes its probes away (out of probe
 * context: here, in the stepping thread), so the text is as before.
 *
 * What the thread runs when resumed is what its pause site runs: a
 * breakpoint site, one instruction out of line; a jump site, the whole
 * region its jump covers (relocated in the patch), so the next places
 * are those of the region: where its branches go, and where its last
 * instruction goes. A new site is a breakpoint site, so the steps after
 * the first are one instruction each; a next place that already has a
 * site keeps its mechanism. A step needs a machine that can pause at a
 * breakpoint site (ARCH_PAUSE_AT_BREAKPOINT, arch/trap.h): elsewhere it
 * is refused. The pause at the breakpoint the thread stopped at first is
 * behind it: its probe may stay enabled, and the thread meets it again
 * only by running that instruction again.
 *
 * Invariants: one step at a time (step_mutex: a second waits); the
 * consumers live until probe_disable has returned; a refused step
 * enables nothing and leaves the pause as it was; a step that times out
 * removes its probes and leaves the thread running.
 *
 * Lock order: step_mutex, then either the probe registry's locks
 * (probe_lookup, probe_enable, probe_disable) or pause_mutex (pause_find,
 * pause_with_frame, pause_continue), never both at once.
 */
#include <scion/pause.h>
#include <scion/probe.h>
#include <scion/cfg.h>
#include <scion/insn_summary.h>
#include <scion/textimage.h>
#include <scion/symtab.h>
#include <scion/mutex.h>
#include <scion/clock.h>
#include <scion/mm.h>
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>
#include <arch/trap.h>
#include <arch/stack.h>

#define STEP_NEXT_MAX	16		/* next places of one step */
#define STEP_TIMEOUT_MS	10000		/* a resumed thread pauses again within this */

static struct mutex step_mutex = MUTEX_INIT(step_mutex, "pause step");

/* Where a step can go: each place and how many instructions run to get there. */
struct step_next {
	uint64_t addr[STEP_NEXT_MAX];
	unsigned ran[STEP_NEXT_MAX];
	unsigned n;
};

/* The paused thread's registers and the address its return would take. */
struct step_regs {
	struct trap_frame f;
	bool have_ret;
	uint64_t ret;
};

/*
 * indirect - Overview: the target of the indirect call or jump at a, by
 *   the paused registers, when it is the first instruction the thread
 *   runs (later ones of a region see registers changed before them).
 * Return value: true with *to. Caller's context: thread.
 */
static bool indirect(uint64_t a, uint64_t first, uint64_t end, const struct step_regs *r,
		     uint64_t *to)
{
	return a == first && arch_indirect_target(&r->f, a, text_image_bytes(a), end - a, to);
}

static void add_next(struct step_next *nx, uint64_t addr, unsigned ran, const char **why)
{
	for (unsigned i = 0; i < nx->n; i++)
		if (nx->addr[i] == addr)
			return;
	if (nx->n == STEP_NEXT_MAX) {
		*why = "it can go to more places than a step can watch; use continue";
		return;
	}
	nx->addr[nx->n] = addr;
	nx->ran[nx->n++] = ran;
}

/* The summary of the instruction at addr, from the booted text. Thread context. */
static int summarise(uint64_t addr, struct insn_summary *s, const char **why)
{
	const struct cfg_function *fn = cfg_function_at(addr);

	if (!fn || fn->status != CFG_OK) {
		*why = "it is in no analysed function; use continue";
		return -EINVAL;
	}
	uint64_t end = fn->sym->addr + fn->sym->size;
	if (addr >= end || arch_insn_summarise(s, text_image_bytes(addr), end - addr, addr)) {
		*why = "its instruction does not decode; use continue";
		return -EINVAL;
	}
	return 0;
}

/* A jump table's entries: the starts of the blocks the analysis gave the jump's block. */
static void add_table(struct step_next *nx, uint64_t addr, unsigned ran, const char **why)
{
	const struct cfg_function *fn = cfg_function_at(addr);
	const struct cfg_block *b = fn ? cfg_block_at(fn, addr) : NULL;

	if (!b || !(b->end_kind & CFG_END_JUMP_TABLE) || !b->nsucc) {
		*why = "an indirect jump with no jump table the analysis knows; use continue";
		return;
	}
	for (unsigned i = 0; i < b->nsucc && !*why; i++)
		add_next(nx, fn->blocks[fn->succ[b->first_succ + i]].start, ran, why);
}

/*
 * next_places - Overview: where the thread can go once it has run what
 *   its pause site runs from addr (region bytes, 0: one instruction).
 * Arguments: r, its registers (a return is only known as the first
 *   instruction it runs); nx, filled; why, set when it cannot be known.
 * Return value: 0, or -EINVAL with *why. Caller's context: thread.
 */
static int next_places(uint64_t addr, unsigned region, const struct step_regs *r,
		       struct step_next *nx, const char **why)
{
	const struct cfg_function *fn = cfg_function_at(addr);
	uint64_t end = addr + (region ? region : 1), a = addr, to = 0;
	uint64_t fn_end = fn ? fn->sym->addr + fn->sym->size : addr;
	unsigned ran = 0;
	struct insn_summary s;

	nx->n = 0;
	*why = NULL;
	for (;;) {
		if (summarise(a, &s, why))
			return -EINVAL;
		ran++;
		uint64_t next = a + s.length;
		bool last = next >= end || !insn_class_falls_through(s.cls);
		if (s.delay_slots) {
			*why = "a delayed branch, whose delay slot runs with it; use continue";
			return -EINVAL;
		}
		switch (s.cls) {
		case INSN_CLASS_SEQ:
			break;
		case INSN_CLASS_JUMP:
		case INSN_CLASS_BRANCH:
		case INSN_CLASS_CALL:
			add_next(nx, s.target, ran, why);
			break;
		case INSN_CLASS_RETURN:
			if (a != addr || !r->have_ret) {
				*why = "a return whose return address is not known before the "
				       "instructions ahead of it run; use continue";
				return -EINVAL;
			}
			add_next(nx, r->ret, ran, why);
			break;
		case INSN_CLASS_JUMP_INDIRECT:
			if (indirect(a, addr, fn_end, r, &to))
				add_next(nx, to, ran, why);
			else
				add_table(nx, a, ran, why);
			break;
		case INSN_CLASS_CALL_INDIRECT:
			if (indirect(a, addr, fn_end, r, &to)) {
				add_next(nx, to, ran, why);
				break;
			}
			*why = "an indirect call whose callee cannot be worked out from the "
			       "paused registers; use continue";
			return -EINVAL;
		default:
			*why = "an instruction that leaves for where the analysis cannot follow; "
			       "use continue";
			return -EINVAL;
		}
		if (*why)
			return -EINVAL;
		if (last) {
			/* A call comes back only after its callee: the step stops in the callee. */
			if (insn_class_falls_through(s.cls) && !insn_class_is_call(s.cls))
				add_next(nx, next, ran, why);
			return *why ? -EINVAL : 0;
		}
		a = next;
	}
}

static void copy_regs(const struct trap_frame *f, void *arg)
{
	struct step_regs *r = arg;
	r->f = *f;
	r->have_ret = arch_return_target(f, &r->ret);
}

/* The step's consumer: the thread reached one of its next places. Probe context. */
static void step_hit(const struct probe_hit *hit, void *arg)
{
	(void)arg;
	pause_request_step(hit);
}

static bool take_first(struct probe *p, void *arg)
{
	*(struct probe **)arg = p;
	return false;
}

/*
 * arm - Overview: a probe for thread tid alone at each next place, on the
 *   place's site if it has one (its mechanism), else a new breakpoint site.
 * Arguments: cs, room for nx->n consumers (zeroed); failed, set to the
 *   place that could not be armed; why, its reason.
 * Return value: 0 with every one enabled; -EINVAL with *failed and *why,
 *   none enabled. Caller's context: thread, step_mutex held.
 */
static int arm(uint64_t tid, const struct step_next *nx, struct probe_consumer *cs,
	       uint64_t *failed, const char **why)
{
	char spec[96];

	for (unsigned i = 0; i < nx->n; i++) {
		struct probe_site_info info;
		struct probe *p = NULL;
		const char *no = NULL;

		*failed = nx->addr[i];
		if (probe_check_address(nx->addr[i], &no)) {
			*why = no;
			goto undo;
		}
		probe_site_info(nx->addr[i], &info);
		bool jump = info.present && info.mechanism == PROBE_MECH_JUMP;
		if (!jump && !ARCH_PAUSE_AT_BREAKPOINT) {
			*why = "only a breakpoint probe could go there, where this machine "
			       "cannot pause a thread; use continue";
			goto undo;
		}
		ksym_format(nx->addr[i], spec, sizeof(spec));
		if (probe_lookup(spec, take_first, &p, &no) <= 0 || !p) {
			*why = no ? no : "no probe for that instruction";
			goto undo;
		}
		cs[i] = (struct probe_consumer){
			.action = PROBE_HANDLER, .handler = step_hit, .tid = tid, .may_pause = true,
			.mechanism = jump ? PROBE_MECH_JUMP : PROBE_MECH_BREAKPOINT };
		if (probe_enable(p, &cs[i])) {
			*why = "a probe could not go there (the console says why); use continue";
			goto undo;
		}
	}
	return 0;
undo:
	for (unsigned i = 0; i < nx->n; i++)
		probe_disable(&cs[i]);
	return -EINVAL;
}

/* A refusal naming its place: written under step_mutex, valid until the next step's. */
static char refusal_line[224];

static const char *at_place(uint64_t addr, const char *what)
{
	char where[96];
	snprintf(refusal_line, sizeof(refusal_line), "%s: %s%s",
		 ksym_format(addr, where, sizeof(where)), what,
		 strstr(what, "use continue") ? "" : "; use continue");
	return refusal_line;
}

int pause_step(uint64_t tid, uint64_t *to, unsigned *ran, const char **why)
{
	struct paused_thread_info info, again;
	struct step_regs r;
	struct step_next nx;
	int err;

	mutex_lock(&step_mutex);
	err = -ENOENT;
	*why = "it is not paused";
	if (pause_find(tid, &info) || pause_with_frame(tid, copy_regs, &r))
		goto out;
	err = -EINVAL;
	if (!ARCH_PAUSE_AT_BREAKPOINT) {
		*why = "this machine cannot pause at a breakpoint site, which a step needs; "
		       "use continue";
		goto out;
	}
	if (!text_image_ready()) {
		*why = "the booted text image is missing, so its instructions are unknown";
		goto out;
	}
	const char *no = NULL;
	if (next_places(info.addr, info.region, &r, &nx, &no)) {
		*why = at_place(info.addr, no);
		goto out;
	}
	struct probe_consumer *cs = kzalloc(nx.n * sizeof(*cs));
	err = -ENOMEM;
	*why = "out of memory";
	if (!cs)
		goto out;
	err = -EINVAL;
	uint64_t failed = 0;
	if (arm(tid, &nx, cs, &failed, &no)) {
		*why = at_place(failed, no);
		kfree(cs);
		goto out;
	}
	if (!pause_continue(tid)) {
		err = -ENOENT;
		*why = "it is not paused";
	} else if (pause_wait_paused(tid, info.seq, ms_to_ticks(STEP_TIMEOUT_MS), &again)) {
		err = -ETIMEDOUT;
		*why = "it did not reach its next instruction in time; it runs on";
	} else {
		err = 0;
		*why = NULL;
		*to = again.addr;
		*ran = 1;
		for (unsigned i = 0; i < nx.n; i++)
			if (nx.addr[i] == again.addr)
				*ran = nx.ran[i];
	}
	for (unsigned i = 0; i < nx.n; i++)
		probe_disable(&cs[i]);
	kfree(cs);
out:
	mutex_unlock(&step_mutex);
	return err;
}
