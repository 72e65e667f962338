// SPDX-License-Identifier: BSD-2-Clause
/*
 * In-kernel tests of single steps (pause_step, kernel/debug/step.c): a
 * worker thread pauses at a fixture function of known layout
 * (probe_fixture.S's pf_sum, pf_jcc, pf_call), is stepped instruction by
 * instruction, and the places it pauses at must be the path the
 * instruction decoder gives (the next instruction for straight-line
 * code, a branch's target or the next by the argument, a callee's entry,
 * the caller after a return, an indirect call's callee from the paused
 * registers), each step one pause, while another thread calls the same
 * function meanwhile; continued, the call returns the right result, and
 * the text is as booted once the probes are gone. A pause at a jump probe
 * steps over the region its jump covers. Refusals: a thread that is not
 * paused, a call into code no probe may go in (.text.noprobe): one
 * reason, the thread still paused where it was, the text untouched.
 * The first pause is taken at a breakpoint site (pause_request_step),
 * which a machine without ARCH_PAUSE_AT_BREAKPOINT cannot do: there the
 * tests check that a step is refused and skip the rest.
 */
#include <scion/ktest.h>
#include <scion/pause.h>
#include <scion/thread.h>
#include <scion/sched.h>
#include <scion/cpu.h>
#include <scion/insn_summary.h>
#include <scion/string.h>
#include <scion/errno.h>
#include <arch/trap.h>
#include "probe_test.h"

enum step_fn { STEP_SUM, STEP_JCC, STEP_CALL, STEP_ICALL, STEP_NOPROBE };

struct step_worker {
	enum step_fn fn;
	uint64_t x, y;			/* arguments */
	uint64_t result;
	uint64_t tid;
	bool go, done;
};

static uint64_t icall_target(uint64_t x)
{
	return x + 40;
}

static uint64_t (*volatile icall_fn)(uint64_t) = icall_target;

/* An indirect call: a step goes to the callee the paused registers name. */
__noinline uint64_t step_icall(uint64_t x)
{
	return icall_fn(x) + 2;
}

/* A callee where no probe may go, so no step can stop there. */
static __noprobe uint64_t step_unprobeable(uint64_t x)
{
	__asm__ volatile("" ::: "memory");
	return x + 3;
}

__noinline uint64_t step_calls_unprobeable(uint64_t x)
{
	return step_unprobeable(x) * 2;
}

static uint64_t step_call(const struct step_worker *w)
{
	switch (w->fn) {
	case STEP_SUM: return pf_sum(w->x, w->y);
	case STEP_JCC: return pf_jcc(w->x);
	case STEP_CALL: return pf_call(w->x);
	case STEP_ICALL: return step_icall(w->x);
	default: return step_calls_unprobeable(w->x);
	}
}

__noinline void step_worker_main(void *arg)
{
	struct step_worker *w = arg;
	WRITE_ONCE(w->tid, this_cpu()->current->tid);
	while (!READ_ONCE(w->go))
		thread_sleep_ticks(1);
	uint64_t r = step_call(w);
	__asm__ volatile("" ::: "memory");
	WRITE_ONCE(w->result, r);
	WRITE_ONCE(w->done, true);
}

/* Another thread calling pf_sum while one is stepped: it never pauses. */
struct bystander {
	uint64_t calls, wrong;
	bool stop;
};

static void bystander_main(void *arg)
{
	struct bystander *b = arg;
	while (!READ_ONCE(b->stop)) {
		if (pf_sum(b->calls, 1) != pf_sum_expected(b->calls, 1))
			b->wrong++;
		WRITE_ONCE(b->calls, b->calls + 1);
		thread_sleep_ticks(1);
	}
}

/* The first pause: the worker whose tid is *arg, at a step's request (any site). */
static void pause_worker(const struct probe_hit *hit, void *arg)
{
	if (this_cpu()->current->tid == READ_ONCE(*(uint64_t *)arg))
		pause_request_step(hit);
}

/* A running worker and its thread, paused at addr with mechanism mech. */
struct stepping {
	struct step_worker w;
	struct thread *th;
	struct probe_consumer first;
	struct paused_thread_info at;
};

static bool start_paused(struct ktest_ctx *t, struct stepping *s, const void *addr,
			 enum probe_mechanism mech)
{
	struct probe *p = probe_at(addr);
	s->first = (struct probe_consumer){ .action = PROBE_HANDLER, .handler = pause_worker,
					    .arg = &s->w.tid, .may_pause = true,
					    .mechanism = mech };
	s->th = thread_create("step-worker", step_worker_main, &s->w, -1);
	if (!s->th || !p) {
		ktest_fail(t, __FILE__, __LINE__, "no worker or no probe at %p", addr);
		return false;
	}
	while (!READ_ONCE(s->w.tid))
		thread_sleep_ticks(1);
	if (probe_enable(p, &s->first)) {
		ktest_fail(t, __FILE__, __LINE__, "enabling the first pause at %p failed", addr);
		WRITE_ONCE(s->w.go, true);
		thread_join(s->th);
		return false;
	}
	WRITE_ONCE(s->w.go, true);
	for (int i = 0; i < 300 && pause_find(s->w.tid, &s->at); i++)
		thread_sleep_ticks(1);
	if (pause_find(s->w.tid, &s->at) || s->at.addr != (uintptr_t)addr) {
		ktest_fail(t, __FILE__, __LINE__, "the worker did not pause at %p", addr);
		probe_disable(&s->first);
		pause_continue(s->w.tid);
		thread_join(s->th);
		return false;
	}
	return true;
}

/* Continue the worker, check its result, and that the text is as booted. */
static void finish(struct ktest_ctx *t, struct stepping *s, uint64_t want)
{
	probe_disable(&s->first);
	KT_EXPECT(t, pause_continue(s->w.tid) == 1, "continue found no paused thread");
	thread_join(s->th);
	KT_EXPECT(t, s->w.done && s->w.result == want, "result %llu, want %llu",
		  (unsigned long long)s->w.result, (unsigned long long)want);
	KT_EXPECT(t, text_identical(), "the text differs from the booted image");
}

/* The instruction after the one at addr, by the decoder. */
static uint64_t next_insn(uint64_t addr)
{
	struct insn_summary s;
	if (arch_insn_summarise(&s, text_image_bytes(addr), 16, addr))
		return 0;
	return addr + s.length;
}

static uint64_t branch_target(uint64_t addr)
{
	struct insn_summary s;
	if (arch_insn_summarise(&s, text_image_bytes(addr), 16, addr) ||
	    !insn_class_has_target(s.cls))
		return 0;
	return s.target;
}

static void read_pc(const struct trap_frame *f, void *arg)
{
	*(uint64_t *)arg = trap_frame_pc(f);
}

/* Step once; check it reached want (0: anywhere) after ran instructions. */
static uint64_t step_to(struct ktest_ctx *t, struct stepping *s, uint64_t want, unsigned ran)
{
	uint64_t to = 0;
	unsigned n = 0;
	const char *why = NULL;
	struct pause_stats before, after;

	pause_get_stats(&before);
	int err = pause_step(s->w.tid, &to, &n, &why);
	pause_get_stats(&after);
	KT_EXPECT(t, !err && (!want || to == want) && n == ran,
		  "step from %#llx: error %d (%s), at %#llx after %u; want %#llx after %u",
		  (unsigned long long)s->at.addr, err, why ? why : "", (unsigned long long)to, n,
		  (unsigned long long)want, ran);
	KT_EXPECT(t, after.paused == before.paused + 1, "%llu pauses in one step",
		  (unsigned long long)(after.paused - before.paused));
	KT_EXPECT(t, !pause_find(s->w.tid, &s->at) && s->at.addr == to,
		  "after the step the worker is not paused at %#llx", (unsigned long long)to);
	/* Its registers and stack show the place, even where the frame resumes a copy. */
	uint64_t pc = 0;
	KT_EXPECT(t, !pause_with_frame(s->w.tid, read_pc, &pc) && pc == to &&
		  s->at.nstack >= 2 && s->at.stack[0] == to,
		  "paused at %#llx: pc %#llx, stack[0] %#llx of %u", (unsigned long long)to,
		  (unsigned long long)pc, (unsigned long long)s->at.stack[0], s->at.nstack);
	return to;
}

/* On a machine that cannot pause at a breakpoint site: every step is refused. */
static bool steps_supported(struct ktest_ctx *t)
{
	if (ARCH_PAUSE_AT_BREAKPOINT)
		return true;
	struct stepping s = { .w = { .fn = STEP_SUM, .x = 2, .y = 3 } };
	if (start_paused(t, &s, pf_sum, PROBE_MECH_JUMP)) {
		uint64_t to;
		unsigned ran;
		const char *why = NULL;
		KT_EXPECT(t, pause_step(s.w.tid, &to, &ran, &why) == -EINVAL && why,
			  "a step was not refused");
		finish(t, &s, pf_sum_expected(2, 3));
	}
	return false;
}

/* Whether addr is in function fn (its caller after a return). */
static bool in_function(uint64_t addr, const void *fn)
{
	uint64_t off;
	const struct ksym *a = symtab_lookup_addr(&kernel_symtab, addr, &off);
	const struct ksym *b = symtab_lookup_addr(&kernel_symtab, (uintptr_t)fn, &off);
	return a && a == b;
}

KTEST_NEEDS(probe_pause_step_straight_line, 1, FEATURE_PROBES)
{
	if (!steps_supported(t))
		KT_SKIP(t, "this machine does not pause at breakpoint sites: steps are refused");
	static struct bystander by;
	by = (struct bystander){ 0 };
	struct thread *other = thread_create("step-bystander", bystander_main, &by, -1);
	KT_ASSERT(t, other, "no memory for a thread");
	static struct stepping s;
	s = (struct stepping){ .w = { .fn = STEP_SUM, .x = 5, .y = 9 } };
	if (start_paused(t, &s, pf_sum, PROBE_MECH_BREAKPOINT)) {
		uint64_t pc = (uintptr_t)pf_sum, calls = READ_ONCE(by.calls);
		/* push, mov, mov, imul, add, add, pop: each to the next; then ret. */
		for (int i = 0; i < 7; i++) {
			pc = step_to(t, &s, next_insn(pc), 1);
			thread_sleep_ticks(2);
		}
		uint64_t back = step_to(t, &s, 0, 1);
		KT_EXPECT(t, in_function(back, step_worker_main) || in_function(back, step_call),
			  "the return went to %#llx, not the caller", (unsigned long long)back);
		KT_EXPECT(t, READ_ONCE(by.calls) > calls, "the other thread made no call "
			  "while this one was stepped");
		finish(t, &s, pf_sum_expected(5, 9));
	}
	WRITE_ONCE(by.stop, true);
	thread_join(other);
	KT_EXPECT(t, !by.wrong, "the other thread got %llu wrong results",
		  (unsigned long long)by.wrong);
}

KTEST_NEEDS(probe_pause_step_branch_and_call, 1, FEATURE_PROBES)
{
	if (!steps_supported(t))
		KT_SKIP(t, "this machine does not pause at breakpoint sites: steps are refused");
	/* pf_jcc: test, jz; taken for 0 (to movl $100), not for 5 (movl $200); ret. */
	for (uint64_t x = 0; x <= 5; x += 5) {
		static struct stepping s;
		s = (struct stepping){ .w = { .fn = STEP_JCC, .x = x } };
		if (!start_paused(t, &s, pf_jcc, PROBE_MECH_BREAKPOINT))
			return;
		uint64_t jz = step_to(t, &s, next_insn((uintptr_t)pf_jcc), 1);
		uint64_t mov = step_to(t, &s, x ? next_insn(jz) : branch_target(jz), 1);
		step_to(t, &s, next_insn(mov), 1);
		step_to(t, &s, 0, 1);
		finish(t, &s, x ? 200 : 100);
	}
	/* pf_call: the call steps into pf_helper; its two instructions; back after the call. */
	static struct stepping c;
	c = (struct stepping){ .w = { .fn = STEP_CALL, .x = 20 } };
	if (!start_paused(t, &c, pf_call, PROBE_MECH_BREAKPOINT))
		return;
	uint64_t helper = step_to(t, &c, branch_target((uintptr_t)pf_call), 1);
	uint64_t ret = step_to(t, &c, next_insn(helper), 1);
	(void)ret;
	step_to(t, &c, next_insn((uintptr_t)pf_call), 1);
	finish(t, &c, 41);
}

KTEST_NEEDS(probe_pause_step_over_a_jump_region, 1, FEATURE_PROBES)
{
	if (!steps_supported(t))
		KT_SKIP(t, "this machine does not pause at breakpoint sites: steps are refused");
	/* pf_sum's entry jump covers push, mov, mov: a step runs them and stops at pf_sum_mid. */
	static struct stepping s;
	s = (struct stepping){ .w = { .fn = STEP_SUM, .x = 1, .y = 2 } };
	if (!start_paused(t, &s, pf_sum, PROBE_MECH_JUMP))
		return;
	struct probe_site_info info;
	probe_site_info((uintptr_t)pf_sum, &info);
	KT_EXPECT(t, info.present && info.mechanism == PROBE_MECH_JUMP && info.length == 7,
		  "pf_sum's entry site: mechanism %d, %u bytes", info.mechanism, info.length);
	step_to(t, &s, (uintptr_t)pf_sum_mid, 3);
	step_to(t, &s, next_insn((uintptr_t)pf_sum_mid), 1);
	finish(t, &s, pf_sum_expected(1, 2));
}

/* The first instruction of fn of class cls (calling callee, when not NULL), or 0. */
static uint64_t find_insn(const void *fn, uint8_t cls, const void *callee)
{
	uint64_t off, a = (uintptr_t)fn;
	const struct ksym *k = symtab_lookup_addr(&kernel_symtab, a, &off);
	struct insn_summary s;
	while (k && a < k->addr + k->size &&
	       !arch_insn_summarise(&s, text_image_bytes(a), k->addr + k->size - a, a)) {
		if (s.cls == cls && (!callee || s.target == (uintptr_t)callee))
			return a;
		a += s.length;
	}
	return 0;
}

KTEST_NEEDS(probe_pause_step_indirect_call, 1, FEATURE_PROBES)
{
	if (!steps_supported(t))
		KT_SKIP(t, "this machine does not pause at breakpoint sites: steps are refused");
	uint64_t site = find_insn(step_icall, INSN_CLASS_CALL_INDIRECT, NULL);
	KT_ASSERT(t, site, "no indirect call found in step_icall");
	static struct stepping s;
	s = (struct stepping){ .w = { .fn = STEP_ICALL, .x = 2 } };
	if (!start_paused(t, &s, (const void *)(uintptr_t)site, PROBE_MECH_BREAKPOINT))
		return;
	step_to(t, &s, (uintptr_t)icall_target, 1);
	finish(t, &s, 44);
}

KTEST_NEEDS(probe_pause_step_refused, 1, FEATURE_PROBES)
{
	uint64_t to = 0;
	unsigned ran = 0;
	const char *why = NULL;
	KT_EXPECT(t, pause_step(999999, &to, &ran, &why) == -ENOENT && why &&
		  !strcmp(why, "it is not paused"), "a thread that is not paused: '%s'",
		  why ? why : "");
	if (!steps_supported(t))
		return;		/* the refusal this machine gives every step was checked */
	uint64_t site = find_insn(step_calls_unprobeable, INSN_CLASS_CALL, step_unprobeable);
	KT_ASSERT(t, site, "no call of step_unprobeable found");
	static struct stepping s;
	s = (struct stepping){ .w = { .fn = STEP_NOPROBE, .x = 2 } };
	if (!start_paused(t, &s, (const void *)(uintptr_t)site, PROBE_MECH_BREAKPOINT))
		return;
	struct paused_thread_info was = s.at;
	why = NULL;
	int err = pause_step(s.w.tid, &to, &ran, &why);
	KT_EXPECT(t, err == -EINVAL && why && strstr(why, "step_unprobeable+0x0: "),
		  "a call into .text.noprobe: error %d, '%s'", err, why ? why : "");
	KT_EXPECT(t, !pause_find(s.w.tid, &s.at) && s.at.seq == was.seq && s.at.addr == site,
		  "the refused step changed the pause");
	struct probe_site_info info;
	probe_site_info(site, &info);
	KT_EXPECT(t, info.present && info.consumers == 1, "the refused step left %u consumers",
		  info.consumers);
	probe_site_info((uintptr_t)step_unprobeable, &info);
	KT_EXPECT(t, !info.present, "a site was left at step_unprobeable");
	finish(t, &s, 10);
}
