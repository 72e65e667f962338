// SPDX-License-Identifier: BSD-2-Clause
/*
 * The x86-64 half of the in-kernel probe tests (test_probe.c has the
 * portable half), on probe_fixture.S: the djprobe protocol's
 * intermediate states, regions that relocate (RIP-relative operands,
 * short branches, calls) and the refusals that depend on x86's
 * variable-length instructions, and the lean frame of a jump site's one
 * handler (made whole when its patch is retired). Left out of other
 * ports' test kernels (their arch.mk). Every test leaves the text as it
 * was booted.
 */
#include <scion/ktest.h>
#include <scion/probe.h>
#include <scion/probe_arch.h>
#include <scion/cpu.h>
#include <scion/symtab.h>
#include <scion/errno.h>
#include <scion/mm.h>
#include <scion/string.h>
#include <arch/patch.h>
#include <arch/mmu.h>
#include <arch/probe.h>
#include "probe_test.h"
#include "../../kernel/probe/probe_internal.h"

/* What the protocol test sees after each step of a commit. */
struct step_record {
	uint8_t bytes[5][PATCH_JUMP_LEN];	/* site bytes after step 1..4 */
	uint64_t count[5];			/* the consumer's count after a call there */
	bool seen[5];
	bool wrong_result;
	uint64_t *counter;
};

static void observe_step(unsigned step, void *arg)
{
	struct step_record *r = arg;
	memcpy(r->bytes[step], pf_sum_mid, PATCH_JUMP_LEN);
	r->seen[step] = true;
	r->wrong_result |= pf_sum(5, 6) != pf_sum_expected(5, 6);
	r->count[step] = *r->counter;
}

/*
 * A commit from bytes `from` to bytes `to` at the site: after step 1 an
 * int3 heads from's tail, after step 3 it heads to's tail, after step 4
 * `to` is whole; count[] is the consumer's count after a call at each.
 */
static void check_steps(struct ktest_ctx *t, const struct step_record *r, const char *what,
			const uint8_t *from, const uint8_t *to, const uint64_t count[3])
{
	uint8_t brk = patch_breakpoint_byte();
	const unsigned steps[3] = { 1, 3, 4 };

	KT_EXPECT(t, r->bytes[1][0] == brk && !memcmp(r->bytes[1] + 1, from + 1, PATCH_JUMP_LEN - 1),
		  "%s step 1: not int3 + the old tail", what);
	KT_EXPECT(t, r->bytes[3][0] == brk && !memcmp(r->bytes[3] + 1, to + 1, PATCH_JUMP_LEN - 1),
		  "%s step 3: not int3 + the new tail", what);
	KT_EXPECT(t, !memcmp(r->bytes[4], to, PATCH_JUMP_LEN), "%s step 4: not the new bytes", what);
	for (unsigned i = 0; i < 3; i++)
		KT_EXPECT(t, r->count[steps[i]] == count[i], "%s step %u: count %llu, expected %llu",
			  what, steps[i], (unsigned long long)r->count[steps[i]],
			  (unsigned long long)count[i]);
}

/*
 * The djprobe protocol's intermediate states at pf_sum_mid, installing
 * and removing: after step 1 an int3 heads the original bytes, after
 * step 3 it heads the jump's tail, after step 4 the jump is whole (and
 * the reverse on removal); a call at every state runs the consumer
 * exactly once and computes the right result.
 */
KTEST(probe_protocol_steps, 1)
{
	struct probe *mid = probe_at(pf_sum_mid);
	uint8_t orig[PATCH_JUMP_LEN], jmp[PATCH_JUMP_LEN];
	struct step_record r = { .counter = probe_counter_alloc() };
	struct probe_site_info info;

	KT_ASSERT(t, mid && r.counter, "no probe or counter");
	memcpy(orig, pf_sum_mid, sizeof(orig));
	struct probe_consumer c = count_consumer(r.counter, PROBE_MECH_JUMP);
	probe_set_step_observer(observe_step, &r);
	int err = probe_enable(mid, &c);
	probe_set_step_observer(NULL, NULL);
	KT_ASSERT(t, err == 0, "enable failed: %s", errno_name(err));
	probe_site_info((uintptr_t)pf_sum_mid, &info);
	KT_ASSERT(t, info.mechanism == PROBE_MECH_JUMP, "not a jump probe");
	KT_ASSERT(t, patch_jump_bytes(jmp, (uintptr_t)pf_sum_mid, info.patch), "patch out of reach");

	KT_EXPECT(t, r.seen[1] && r.seen[3] && r.seen[4] && !r.seen[2], "install steps seen: %d%d%d%d",
		  r.seen[1], r.seen[2], r.seen[3], r.seen[4]);
	check_steps(t, &r, "install", orig, jmp, (const uint64_t[]){ 1, 2, 3 });
	KT_EXPECT(t, pf_sum(5, 6) == pf_sum_expected(5, 6) && *r.counter == 4, "installed: count %llu",
		  (unsigned long long)*r.counter);

	memset(r.seen, 0, sizeof(r.seen));
	probe_set_step_observer(observe_step, &r);
	probe_disable(&c);
	probe_set_step_observer(NULL, NULL);
	KT_EXPECT(t, r.seen[1] && r.seen[3] && r.seen[4], "removal steps not all seen");
	/*
	 * While the breakpoint or the jump is there, the consumer runs once
	 * per call; after step 4 the original bytes run and it does not.
	 */
	check_steps(t, &r, "removal", jmp, orig, (const uint64_t[]){ 5, 6, 6 });
	KT_EXPECT(t, !r.wrong_result, "a call during the protocol computed a wrong result");
	KT_EXPECT(t, pf_sum(5, 6) == pf_sum_expected(5, 6) && *r.counter == 6,
		  "the disabled probe still counts");
	KT_EXPECT(t, text_identical(), "text differs from the booted image");
	probe_counter_free(r.counter);
}

/* A call that entered a site's old patch before the breakpoint stopped newcomers. */
struct old_patch_call {
	uint64_t (*old)(uint64_t, uint64_t);	/* the replaced patch, called as pf_sum */
	bool wrong_result;
	bool called;
};

static void call_old_patch(unsigned step, void *arg)
{
	struct old_patch_call *o = arg;
	if (step != PROBE_STEP_BREAKPOINT)
		return;
	o->called = true;
	o->wrong_result |= o->old(5, 6) != pf_sum_expected(5, 6);
}

/*
 * A call through a replaced patch runs the consumers attached now. A
 * thread that entered the old patch just before its site was rebuilt
 * (here: a call of the old patch at step 1 of the rebuild) runs a
 * consumer added by the rebuild and not one removed by it. Before, such
 * a call ran no C consumer at all, and a latency metric whose entry ran
 * there and whose return did not went below zero.
 */
KTEST(probe_replaced_patch_runs_current_consumers, 1)
{
	struct probe *entry = probe_named("fbt:kernel:pf_sum:entry");
	uint64_t hits_a = 0, hits_b = 0;
	struct probe_consumer a = handler_consumer(&hits_a, PROBE_MECH_JUMP);
	struct probe_consumer b = handler_consumer(&hits_b, PROBE_MECH_JUMP);
	struct old_patch_call o = { 0 };
	struct probe_site_info info;

	KT_ASSERT(t, entry, "no entry probe for pf_sum");
	KT_ASSERT(t, probe_enable(entry, &a) == 0, "enabling the first consumer failed");
	probe_site_info((uintptr_t)pf_sum, &info);
	KT_ASSERT(t, info.mechanism == PROBE_MECH_JUMP, "pf_sum's entry is not a jump probe");
	o.old = (uint64_t (*)(uint64_t, uint64_t))(uintptr_t)info.patch;

	/* Adding b: the old patch's call runs a and the newly attached b. */
	probe_set_step_observer(call_old_patch, &o);
	int err = probe_enable(entry, &b);
	probe_set_step_observer(NULL, NULL);
	KT_ASSERT(t, err == 0, "enabling the second consumer failed");
	KT_EXPECT(t, o.called && hits_a == 1 && hits_b == 1,
		  "adding: the old patch ran a %llu and b %llu times, expected 1 and 1",
		  (unsigned long long)hits_a, (unsigned long long)hits_b);

	/* Removing a: the patch of a and b, now replaced, runs b only. */
	probe_site_info((uintptr_t)pf_sum, &info);
	o.old = (uint64_t (*)(uint64_t, uint64_t))(uintptr_t)info.patch;
	o.called = false;
	probe_set_step_observer(call_old_patch, &o);
	probe_disable(&a);
	probe_set_step_observer(NULL, NULL);
	KT_EXPECT(t, o.called && hits_a == 1 && hits_b == 2,
		  "removing: a ran %llu and b %llu times in all, expected 1 and 2",
		  (unsigned long long)hits_a, (unsigned long long)hits_b);
	KT_EXPECT(t, pf_sum(5, 6) == pf_sum_expected(5, 6) && hits_a == 1 && hits_b == 3,
		  "after the rebuild: a %llu, b %llu", (unsigned long long)hits_a,
		  (unsigned long long)hits_b);
	KT_EXPECT(t, !o.wrong_result, "a call through a replaced patch computed a wrong result");
	probe_disable(&b);
	KT_EXPECT(t, text_identical(), "text differs from the booted image");
}

struct reloc_case {
	const char *name;
	uint64_t (*fn)(uint64_t);
};

/*
 * Jump probes whose detoured bytes begin with a RIP-relative load, end in
 * a short jmp or a short jcc, or are a call: the relocated copies behave
 * as the originals.
 */
KTEST(probe_relocated_regions, 1)
{
	static const struct reloc_case cases[] = {
		{ "pf_rip", pf_rip }, { "pf_short_jmp", pf_short_jmp },
		{ "pf_call", pf_call }, { "pf_jcc", pf_jcc },
	};
	static const uint64_t inputs[] = { 0, 1, 2, 41, 1000000 };
	char spec[64];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		uint64_t expected[ARRAY_SIZE(inputs)], hits = 0;
		struct probe_site_info info;
		for (size_t k = 0; k < ARRAY_SIZE(inputs); k++)
			expected[k] = cases[i].fn(inputs[k]);
		snprintf(spec, sizeof(spec), "fbt:kernel:%s:entry", cases[i].name);
		struct probe *p = probe_named(spec);
		KT_ASSERT(t, p, "no probe %s", spec);
		struct probe_consumer c = handler_consumer(&hits, PROBE_MECH_JUMP);
		int err = probe_enable(p, &c);
		KT_ASSERT(t, err == 0, "%s: jump probe refused: %s", cases[i].name, errno_name(err));
		probe_site_info(p->sites[0], &info);
		KT_EXPECT(t, info.mechanism == PROBE_MECH_JUMP && info.length >= PATCH_JUMP_LEN,
			  "%s: mechanism %d, %u bytes", cases[i].name, info.mechanism, info.length);
		for (unsigned round = 0; round < 3; round++)
			for (size_t k = 0; k < ARRAY_SIZE(inputs); k++)
				KT_EXPECT(t, cases[i].fn(inputs[k]) == expected[k],
					  "%s(%llu) = %llu probed, %llu not", cases[i].name,
					  (unsigned long long)inputs[k],
					  (unsigned long long)cases[i].fn(inputs[k]),
					  (unsigned long long)expected[k]);
		probe_disable(&c);
		KT_EXPECT(t, hits == 3 * ARRAY_SIZE(inputs), "%s: %llu hits for %zu calls",
			  cases[i].name, (unsigned long long)hits, 3 * ARRAY_SIZE(inputs));
	}
	KT_EXPECT(t, text_identical(), "text differs from the booted image");
}

static const struct ksym *first_init_function(void)
{
	for (uint32_t i = 0; i < kernel_symtab.count; i++)
		if (kernel_symtab.syms[i].flags & SYM_INIT)
			return &kernel_symtab.syms[i];
	return NULL;
}

/* Bad places to probe are refused with a reason; overlaps with -EEXIST; one address shares. */
KTEST(probe_refusals, 1)
{
	static uint64_t data_word;
	const struct ksym *init = first_init_function();
	const char *why = NULL;
	uint64_t hits = 0, hits2 = 0;

	KT_EXPECT(t, probe_check_address((uintptr_t)&data_word, &why) == -EINVAL && why,
		  "a data address was accepted");
	KT_EXPECT(t, probe_check_address((uintptr_t)pf_sum + 2, &why) == -EINVAL &&
		     strstr(why, "boundary"), "the middle of an instruction was accepted");
	KT_EXPECT(t, probe_check_address((uintptr_t)probe_breakpoint, &why) == -EINVAL &&
		     strstr(why, "probe machinery"), "the breakpoint handler was accepted");
	KT_EXPECT(t, init && probe_check_address(init->addr, &why) == -EINVAL &&
		     strstr(why, "boot-only"), "boot-only code was accepted");
	KT_EXPECT(t, probe_check_address((uintptr_t)pf_sum_mid, &why) == 0, "pf_sum_mid refused");
	KT_EXPECT(t, !probe_named("pf_sum+0x2"), "a probe was created mid-instruction");

	/* A jump at the entry detours [0, 7): a jump at +4 would overlap it. */
	struct probe *entry = probe_named("fbt:kernel:pf_sum:entry");
	struct probe *at4 = probe_named("pf_sum+0x4");
	KT_ASSERT(t, entry && at4, "fixture probes missing");
	struct probe_consumer c1 = handler_consumer(&hits, PROBE_MECH_JUMP);
	struct probe_consumer c2 = handler_consumer(&hits2, PROBE_MECH_AUTO);
	KT_ASSERT(t, probe_enable(entry, &c1) == 0, "entry jump refused");
	int err = probe_enable(at4, &c2);
	KT_EXPECT(t, err != 0 && !c2.probe, "a probe inside a jump's bytes was accepted");

	/* The same address: a second consumer shares the site and its patch. */
	struct probe_site_info before, after;
	probe_site_info((uintptr_t)pf_sum, &before);
	KT_ASSERT(t, probe_enable(entry, &c2) == 0, "a second consumer at one address refused");
	probe_site_info((uintptr_t)pf_sum, &after);
	KT_EXPECT(t, after.consumers == 2 && after.mechanism == PROBE_MECH_JUMP,
		  "second consumer: %u consumers, mechanism %d", after.consumers, after.mechanism);
	KT_EXPECT(t, pf_sum(1, 1) == pf_sum_expected(1, 1) && hits == 1 && hits2 == 1,
		  "shared site: hits %llu and %llu", (unsigned long long)hits,
		  (unsigned long long)hits2);
	KT_EXPECT(t, probe_enable(entry, &c2) == -EBUSY, "enabling an enabled consumer again");
	probe_disable(&c2);
	probe_disable(&c1);

	/* An int3 site refuses a consumer that insists on a jump. */
	struct probe *late = probe_at(pf_sum_late);
	struct probe_consumer c3 = handler_consumer(&hits, PROBE_MECH_BREAKPOINT);
	struct probe_consumer c4 = handler_consumer(&hits2, PROBE_MECH_JUMP);
	KT_ASSERT(t, late && probe_enable(late, &c3) == 0, "int3 probe refused");
	KT_EXPECT(t, probe_enable(late, &c4) != 0 && !c4.probe, "a jump was stacked on an int3 site");
	probe_disable(&c3);
	KT_EXPECT(t, text_identical(), "text differs from the booted image");
}


/* A jump patch for site (a handler call, then the region) into code, built at PATCH_CODE_BASE. */
static size_t build_at_base(uint64_t site, unsigned len, uint8_t *code, size_t cap,
			    struct probe_patch_origins *o)
{
	struct probe_patch_plan plan = { .site = site, .length = len,
					 .mechanism = PROBE_SITE_JUMP, .live = ~0u,
					 .call_fn = (uintptr_t)pf_sum, .call_cookie = 1 };
	struct patch_buf b;
	patch_buf_init(&b, code, cap, PATCH_CODE_BASE);
	arch_probe_build_patch(&b, &plan, o);
	return patch_buf_ok(&b) ? b.len : 0;
}

struct kept_decodes {
	unsigned compared;
	const char *differs;	/* the first function where they differ, or NULL */
};

/*
 * Under probe_mutex: every fifth function's entry checked, prepared as a
 * breakpoint and built, cold and from kept decodes.
 */
static void compare_kept_decodes(void *arg)
{
	static uint8_t cold[512], warm[512];
	struct probe_patch_origins oc, ow;
	struct kept_decodes *r = arg;

	for (uint32_t i = 0; i < kernel_symtab.count && !r->differs; i += 5) {
		const struct ksym *s = &kernel_symtab.syms[i];
		const char *why_c = NULL, *why_w = NULL;
		unsigned len_c = 0, len_w = 0;
		if (s->flags & (SYM_INIT | SYM_NOPROBE) || !s->size ||
		    probe_check_address(s->addr, &why_c))
			continue;
		arch_probe_forget_decoded();
		int err_c = arch_probe_check_region(s->addr, &len_c, &why_c);
		int err_w = arch_probe_check_region(s->addr, &len_w, &why_w);
		if (err_c != err_w || len_c != len_w || why_c != why_w) {
			r->differs = ksym_name(&kernel_symtab, s);
			break;
		}
		/* A breakpoint's copy from what the check kept (other bounds), and cold. */
		unsigned bl_w = 0, bl_c = 0;
		int be_w = arch_probe_prepare_breakpoint(s->addr, &bl_w, &why_w);
		arch_probe_forget_decoded();
		int be_c = arch_probe_prepare_breakpoint(s->addr, &bl_c, &why_c);
		if (be_w != be_c || bl_w != bl_c) {
			r->differs = ksym_name(&kernel_symtab, s);
			break;
		}
		if (err_c)
			continue;
		arch_probe_check_region(s->addr, &len_w, &why_w);
		size_t nw = build_at_base(s->addr, len_w, warm, sizeof(warm), &ow);
		arch_probe_forget_decoded();
		size_t nc = build_at_base(s->addr, len_c, cold, sizeof(cold), &oc);
		if (!nc || nc != nw || memcmp(cold, warm, nc) || oc.n != ow.n ||
		    memcmp(oc.m, ow.m, oc.n * sizeof(oc.m[0])))
			r->differs = ksym_name(&kernel_symtab, s);
		r->compared++;
	}
}

/*
 * probe_site.c keeps the instructions of the regions it checks decoded
 * (issue 28): the regions it accepts, the breakpoint copies it prepares
 * and the patches it builds must be those of a cold decode, byte for byte.
 */
KTEST(probe_kept_decodes_build_the_same, 1)
{
	struct kept_decodes r = { 0, NULL };

	probe_run_locked(compare_kept_decodes, &r);
	KT_EXPECT(t, !r.differs, "%s: checked or built differently once decoded", r.differs);
	KT_EXPECT(t, r.compared > 200, "only %u patches compared", r.compared);
}

/* switch_fixture.S: fn() with %rbx, %r12 .. %r15 = seed + 1 .. seed + 5. */
void switch_fixture_call(void (*fn)(void), uint64_t seed, uint64_t seen[6]);

__noinline void probe_frame_target(void)
{
	__asm__ __volatile__("");
}

static struct trap_frame frame_seen;
static struct probe_hit hit_seen;
static unsigned frame_calls;

static bool frame_nest;		/* keep_frame calls its target again: a nested hit */

static void keep_frame(const struct probe_hit *hit, void *arg)
{
	(void)arg;
	frame_seen = *hit->regs;
	hit_seen = *hit;
	frame_calls++;
	if (frame_nest)
		probe_frame_target();
}

/* Undo site_state_retire, which only tests may. */
static void unretire(struct site_state *st)
{
	__atomic_store_n(&st->retired, false, __ATOMIC_RELEASE);
	if (st->hot)
		__atomic_fetch_and(&st->hot[PATCH_HOT_HITS], ~PROBE_PATCH_HITS_RETIRED,
				   __ATOMIC_RELEASE);
}

/*
 * A jump site's one handler gets a lean frame: rbx saved, r12..r15 not
 * (the callee keeps them; the registers come back as they were). When
 * its patch is retired, the general dispatcher it calls runs the site's
 * consumers with the frame made whole: r12..r15 as they were at the
 * site, vector and error 0. A hit inside the handler only counts as
 * missed, whether the patch sees it or, retired, the general path.
 */
KTEST(probe_lean_frame_whole_when_retired, 1)
{
	struct probe *entry = probe_named("fbt:kernel:probe_frame_target:entry");
	struct probe_consumer c = { .action = PROBE_HANDLER, .handler = keep_frame,
				    .mechanism = PROBE_MECH_JUMP };
	uint64_t seen[6];

	KT_ASSERT(t, entry && probe_enable(entry, &c) == 0, "enabling the target's entry failed");
	struct probe_site *site = site_lookup((uintptr_t)probe_frame_target);
	struct site_state *st = site ? __atomic_load_n(&site->state, __ATOMIC_ACQUIRE) : NULL;
	KT_ASSERT(t, st && st->ncall == 1 && st->hot, "no site state with one handler in its patch");

	frame_calls = 0;
	switch_fixture_call(probe_frame_target, 100, seen);
	KT_EXPECT(t, frame_calls == 1 && frame_seen.rbx == 101, "lean: %u calls, rbx %llu",
		  frame_calls, (unsigned long long)frame_seen.rbx);
	KT_EXPECT(t, hit_seen.probe == entry && hit_seen.addr == (uintptr_t)probe_frame_target &&
		  frame_seen.rip == hit_seen.addr && frame_seen.cs == 0x08,
		  "lean: the hit's probe %p, addr 0x%llx, rip 0x%llx, cs 0x%llx", hit_seen.probe,
		  (unsigned long long)hit_seen.addr, (unsigned long long)frame_seen.rip,
		  (unsigned long long)frame_seen.cs);
	/* The site is the target's entry: its return address is on top of the stack. */
	uint64_t top = frame_seen.rsp ? *(const uint64_t *)(uintptr_t)frame_seen.rsp : 0;
	KT_EXPECT(t, top > (uintptr_t)switch_fixture_call && top < (uintptr_t)switch_fixture_call + 256,
		  "lean: rsp 0x%llx holds 0x%llx, not a return into switch_fixture_call",
		  (unsigned long long)frame_seen.rsp, (unsigned long long)top);
	KT_EXPECT(t, site_state_hits(st) == 1, "lean: %llu hits counted, not 1",
		  (unsigned long long)site_state_hits(st));
	KT_EXPECT(t, seen[0] == 101 && seen[1] == 102 && seen[4] == 105,
		  "lean: the callee-saved registers came back as %llu %llu .. %llu",
		  (unsigned long long)seen[0], (unsigned long long)seen[1],
		  (unsigned long long)seen[4]);

	site_state_retire(st);
	frame_seen = (struct trap_frame){ .vector = 0xbad, .error = 0xbad };
	switch_fixture_call(probe_frame_target, 200, seen);
	unretire(st);
	KT_EXPECT(t, frame_calls == 2, "retired: %u calls, not 2", frame_calls);
	KT_EXPECT(t, !cpu_probe_running(this_cpu()), "retired: the CPU still runs consumers");
	KT_EXPECT(t, frame_seen.rbx == 201 && frame_seen.r12 == 202 && frame_seen.r13 == 203 &&
		  frame_seen.r14 == 204 && frame_seen.r15 == 205,
		  "retired: rbx, r12..r15 %llu %llu %llu %llu %llu, not 201..205",
		  (unsigned long long)frame_seen.rbx, (unsigned long long)frame_seen.r12,
		  (unsigned long long)frame_seen.r13, (unsigned long long)frame_seen.r14,
		  (unsigned long long)frame_seen.r15);
	KT_EXPECT(t, !frame_seen.vector && !frame_seen.error, "retired: vector %llu, error %llu",
		  (unsigned long long)frame_seen.vector, (unsigned long long)frame_seen.error);
	KT_EXPECT(t, seen[1] == 202 && seen[4] == 205, "retired: r12 %llu, r15 %llu came back",
		  (unsigned long long)seen[1], (unsigned long long)seen[4]);

	/* A hit inside the handler: counted missed, by the patch, then by the general path. */
	uint64_t missed = st->missed;
	frame_nest = true;
	switch_fixture_call(probe_frame_target, 300, seen);
	KT_EXPECT(t, frame_calls == 3 && st->missed == missed + 1 && seen[4] == 305,
		  "nested: %u calls (not 3), %llu missed (not 1)", frame_calls,
		  (unsigned long long)(st->missed - missed));
	/*
	 * Retired, with the site's current state another (a copy of st's, as
	 * a rebuild makes): both the hit and the nested one go to it, through
	 * the general path; the retired state counts neither.
	 */
	size_t bytes = sizeof(*st) + sizeof(st->c[0]);
	struct site_state *current = kmalloc(bytes);
	KT_ASSERT(t, current, "no memory for a second state");
	memcpy(current, st, bytes);
	current->hot = NULL;
	current->hits = current->missed = 0;
	current->pooled = false;
	__atomic_store_n(&site->state, current, __ATOMIC_RELEASE);
	site_state_retire(st);
	switch_fixture_call(probe_frame_target, 400, seen);
	unretire(st);
	__atomic_store_n(&site->state, st, __ATOMIC_RELEASE);
	frame_nest = false;
	KT_EXPECT(t, frame_calls == 4 && current->hits == 1 && current->missed == 1 &&
		  st->missed == missed + 1 && seen[4] == 405 && !cpu_probe_running(this_cpu()),
		  "nested, retired: %u calls (not 4); the current state counted %llu hits and "
		  "%llu missed (not 1 and 1), the retired one %llu missed more (not 0)", frame_calls,
		  (unsigned long long)current->hits, (unsigned long long)current->missed,
		  (unsigned long long)(st->missed - missed - 1));
	kfree(current);
	probe_disable(&c);
	KT_EXPECT(t, text_identical(), "text differs from the booted image");
}
