// SPDX-License-Identifier: BSD-2-Clause
/*
 * Probes under load and everywhere: other CPUs call a function in tight
 * loops while one CPU inserts and removes probes on it thousands of
 * times; and every byte offset of many functions is tried, with every
 * accepted one enabled at once while those functions do real work.
 * (Single-threaded TCG only: they patch code; see PLATFORMS.md.)
 */
#include <scion/ktest.h>
#include <scion/probe.h>
#include <scion/cfg.h>
#include <scion/printk.h>
#include <scion/thread.h>
#include <scion/cpu.h>
#include <scion/mm.h>
#include <scion/glob.h>
#include <scion/sort.h>
#include <scion/errno.h>
#include <scion/mutex.h>
#include <scion/sched.h>
#include <scion/clock.h>
#include <arch/cpu.h>
#include <arch/insn.h>
#include "probe_test.h"

#define STRESS_CYCLES 10000

/*
 * The window counter: 4k is "disabled, stable", 4k+1 "enabling",
 * 4k+2 "enabled, stable", 4k+3 "disabling". A worker call that starts
 * and ends in the same stable window must hit (enabled) or not (disabled).
 */
struct stress {
	unsigned window;
	bool stop;
	uint64_t handler_hits;
	struct stress_cpu {
		bool hit;		/* set by the handler on this CPU */
		uint64_t calls, observed, wrong, missed, spurious;
	} cpu[MAX_CPUS];
};

static struct stress stress;

static void stress_handler(const struct probe_hit *hit, void *arg)
{
	(void)hit;
	(void)arg;
	stress.cpu[this_cpu_index()].hit = true;
	atomic_add(&stress.handler_hits, 1);
}

static void stress_worker(void *arg)
{
	struct stress_cpu *me = arg;
	uint64_t x = 1;

	while (!atomic_load(&stress.stop)) {
		unsigned before = atomic_load(&stress.window);
		WRITE_ONCE(me->hit, false);
		if (pf_sum(x, 3) != pf_sum_expected(x, 3))
			me->wrong++;
		bool hit = READ_ONCE(me->hit);
		unsigned after = atomic_load(&stress.window);
		me->observed += hit;
		if (before == after && before % 4 == 2 && !hit)
			me->missed++;
		if (before == after && before % 4 == 0 && hit)
			me->spurious++;
		atomic_add(&me->calls, 1);
		x++;
		cpu_relax();	/* lets single-threaded TCG run the other vCPUs */
	}
}

/* Wait until every worker has made two more calls (both then lie inside the window). */
static void let_workers_call(unsigned nworkers)
{
	uint64_t start[MAX_CPUS];
	for (unsigned i = 1; i <= nworkers; i++)
		start[i] = atomic_load(&stress.cpu[i].calls);
	for (unsigned i = 1; i <= nworkers; i++)
		while (atomic_load(&stress.cpu[i].calls) < start[i] + 2)
			cpu_relax();
}

struct controller {
	struct probe *probes[3];
	unsigned nworkers;
	unsigned failures;
};

/* On CPU 0: insert and remove a probe STRESS_CYCLES times, cycling through the mechanisms. */
static void stress_controller(void *arg)
{
	static const enum probe_mechanism mechs[] = { PROBE_MECH_AUTO, PROBE_MECH_JUMP,
						       PROBE_MECH_BREAKPOINT };
	struct controller *ctl = arg;

	for (unsigned cycle = 0; cycle < STRESS_CYCLES; cycle++) {
		struct probe_consumer c = { .action = PROBE_HANDLER, .handler = stress_handler,
					    .mechanism = mechs[cycle % 3] };
		atomic_add(&stress.window, 1);			/* enabling */
		ctl->failures += probe_enable(ctl->probes[cycle % 3], &c) != 0;
		atomic_add(&stress.window, 1);			/* enabled, stable */
		if (cycle % 16 == 0)
			let_workers_call(ctl->nworkers);
		atomic_add(&stress.window, 1);			/* disabling */
		probe_disable(&c);
		atomic_add(&stress.window, 1);			/* disabled, stable */
		if (cycle % 16 == 8)
			let_workers_call(ctl->nworkers);
	}
}

KTEST(probe_smp_stress, 4)
{
	struct thread *workers[MAX_CPUS] = { 0 };
	void *sites[] = { pf_sum, pf_sum_mid, pf_sum_late };
	struct controller ctl = { .nworkers = cpu_count() - 1 };

	memset(&stress, 0, sizeof(stress));
	for (unsigned i = 0; i < 3; i++) {
		ctl.probes[i] = probe_at(sites[i]);
		KT_ASSERT(t, ctl.probes[i], "no probe at site %u", i);
	}
	for (unsigned i = 1; i <= ctl.nworkers; i++) {
		workers[i] = thread_create("stress", stress_worker, &stress.cpu[i], (int)i);
		KT_ASSERT(t, workers[i], "no memory for a worker");
	}
	struct thread *controller = thread_create("stress-ctl", stress_controller, &ctl, 0);
	KT_ASSERT(t, controller, "no memory for the controller");
	thread_join(controller);
	atomic_store(&stress.stop, true);
	uint64_t observed = 0, calls = 0, wrong = 0, missed = 0, spurious = 0;
	for (unsigned i = 1; i <= ctl.nworkers; i++) {
		thread_join(workers[i]);
		observed += stress.cpu[i].observed;
		calls += stress.cpu[i].calls;
		wrong += stress.cpu[i].wrong;
		missed += stress.cpu[i].missed;
		spurious += stress.cpu[i].spurious;
	}
	printk("probe_smp_stress: %u insert/remove cycles, %llu calls on %u CPUs, %llu hits\n",
	       STRESS_CYCLES, (unsigned long long)calls, ctl.nworkers,
	       (unsigned long long)stress.handler_hits);
	KT_EXPECT(t, ctl.failures == 0, "%u enables failed", ctl.failures);
	KT_EXPECT(t, wrong == 0, "%llu calls computed a wrong result", (unsigned long long)wrong);
	KT_EXPECT(t, stress.handler_hits == observed,
		  "handler ran %llu times, callers saw %llu hits: a hit was lost or doubled",
		  (unsigned long long)stress.handler_hits, (unsigned long long)observed);
	KT_EXPECT(t, missed == 0, "%llu calls inside an enabled window were not seen",
		  (unsigned long long)missed);
	KT_EXPECT(t, spurious == 0, "%llu calls inside a disabled window were seen",
		  (unsigned long long)spurious);
	KT_EXPECT(t, text_identical(), "text differs from the booted image");
}

/* Instruction starts of f, by a linear decode of the booted bytes. */
static uint32_t boundaries(const struct cfg_function *f, uint64_t *out, uint32_t max)
{
	uint64_t at = f->sym->addr, end = at + f->sym->size;
	uint32_t n = 0;
	struct insn_summary in;

	while (at < end && n < max) {
		out[n++] = at;
		if (arch_insn_summarise(&in, text_image_bytes(at), end - at, at))
			break;
		at += in.length;
	}
	return n;
}

static bool probeable(const struct ksym *s)
{
	const char *why;
	return !(s->flags & (SYM_INIT | SYM_NOPROBE)) && probe_check_address(s->addr, &why) == 0;
}

/*
 * Every byte of every probeable function: accepted exactly at the
 * instruction boundaries a linear decode finds.
 */
KTEST(probe_every_offset, 1)
{
	uint64_t *starts = kmalloc(4096 * sizeof(uint64_t));
	uint32_t functions = 0, accepted = 0, refused = 0;

	KT_ASSERT(t, starts, "no memory");
	for (uint32_t i = 0; i < kernel_symtab.count; i++) {
		const struct ksym *s = &kernel_symtab.syms[i];
		const struct cfg_function *f = cfg_function_at(s->addr);
		if (!f || f->sym != s || f->status != CFG_OK || !probeable(s) || s->size > 4096)
			continue;
		uint32_t n = boundaries(f, starts, 4096), k = 0;
		for (uint64_t a = s->addr; a < s->addr + s->size; a++) {
			const char *why;
			bool boundary = k < n && starts[k] == a;
			int err = probe_check_address(a, &why);
			k += boundary;
			if (boundary != (err == 0)) {
				kfree(starts);
				KT_ASSERT(t, false, "%s+0x%llx: boundary %d, check says %s",
					  ksym_name(&kernel_symtab, s), (unsigned long long)(a - s->addr),
					  boundary, err ? why : "ok");
			}
			accepted += boundary;
			refused += !boundary;
		}
		functions++;
	}
	kfree(starts);
	printk("probe_every_offset: %u functions, %u offsets accepted, %u refused\n", functions,
	       accepted, refused);
	KT_EXPECT(t, functions >= 50, "only %u functions checked", functions);
}

static void workload_thread(void *arg)
{
	uint64_t *out = arg;
	for (uint64_t i = 0; i < 100; i++)
		*out += pf_sum(i, i);
	thread_yield();
	thread_exit(7);
}

/* Work done by the functions the next test probes everywhere, hashed. */
static uint64_t workload(void)
{
	static const char *const patterns[] = { "fbt:*", "*entry", "a?c", "[a-c]x*", "\\*lit" };
	static const char *const subjects[] = { "fbt:kernel", "x:entry", "abc", "bxyz", "*lit", "no" };
	static const char *const numbers[] = { "0", "42", "0x1f", "4K", "zz", "18446744073709551616" };
	uint64_t values[64], h = 14695981039346656037ull;
	char buf[128];

#define MIX(v) (h = (h ^ (uint64_t)(v)) * 1099511628211ull)
	for (size_t i = 0; i < ARRAY_SIZE(patterns); i++)
		for (size_t k = 0; k < ARRAY_SIZE(subjects); k++)
			MIX(glob_match(patterns[i], subjects[k]));
	for (size_t i = 0; i < ARRAY_SIZE(numbers); i++) {
		uint64_t v = 0;
		MIX(parse_u64(numbers[i], &v, true));
		MIX(v);
	}
	for (size_t i = 0; i < ARRAY_SIZE(values); i++)
		values[i] = (i * 2654435761u) % 1009;
	sort_u64(values, ARRAY_SIZE(values));
	for (size_t i = 0; i < ARRAY_SIZE(values); i++)
		MIX(values[i]);
	MIX(sorted_u64_any_between(values, ARRAY_SIZE(values), 100, 200));
	MIX(snprintf(buf, sizeof(buf), "%s|%5d|%-8x|%llu|%p", "probe", -42, 0xbeefu,
		     18446744073709551615ull, (void *)buf));
	MIX(fnv1a64(buf, strlen(buf) - 18));	/* the %p part differs between runs: leave it out */
	MIX(strcmp("alpha", "alpine") < 0);
	MIX(strlcpy(buf, "a string that is long", 10));
	MIX(fnv1a64(buf, strlen(buf)));
	memmove(buf + 1, buf, 8);
	MIX(memcmp(buf, "aa strin", 8));
	/* Symbol lookups. */
	uint64_t fns[] = { (uintptr_t)pf_sum, (uintptr_t)pf_rip, (uintptr_t)pf_call,
			   (uintptr_t)pf_jcc, (uintptr_t)glob_match, (uintptr_t)sort_u64 };
	for (size_t i = 0; i < ARRAY_SIZE(fns); i++) {
		const struct ksym *s = symtab_lookup_addr(&kernel_symtab, fns[i], NULL);
		MIX(fnv1a64(ksym_format(fns[i] + 1, buf, sizeof(buf)), strlen(buf)));
		MIX(symtab_lookup_name(&kernel_symtab, ksym_name(&kernel_symtab, s)) == s);
	}
	/* Memory, threads and locks: the allocator and the scheduler run probed too. */
	for (unsigned i = 0; i < 8; i++) {
		uint8_t *block = kmalloc(16u << i);
		MIX(block != NULL);
		if (!block)
			continue;
		memset(block, (int)i, 16u << i);
		MIX(block[(16u << i) - 1]);
		kfree(block);
	}
	uint64_t from_thread = 0;
	struct thread *th = thread_create("probed", workload_thread, &from_thread, -1);
	MIX(th != NULL);
	if (th)
		MIX(thread_join(th));
	MIX(from_thread);
	struct mutex m = MUTEX_INIT(m, "workload");
	mutex_lock(&m);
	MIX(mutex_held_by_me(&m));
	mutex_unlock(&m);
	thread_sleep_ms(2);
	MIX(symtab_validate(&kernel_symtab));
	MIX(errno_name(-EEXIST)[1]);
	MIX(strstr("where is the needle", "needle") != NULL);
	MIX(pf_sum(3, 4));
	MIX(pf_rip(5));
	MIX(pf_short_jmp(6));
	MIX(pf_call(7));
	MIX(pf_jcc(0));
	MIX(pf_jcc(8));
#undef MIX
	return h;
}

/* The probeable functions workload() reaches by direct calls, from its direct callees. */
static unsigned closure(const struct cfg_function **out, unsigned max)
{
	const struct cfg_function *root = cfg_function_at((uintptr_t)workload);
	unsigned n = 0;

	if (!root)
		return 0;
	out[n++] = root;
	for (unsigned i = 0; i < n; i++) {
		for (uint32_t c = 0; c < out[i]->ncalls; c++) {
			const struct cfg_function *f = cfg_function_at(out[i]->calls[c].target);
			bool known = !f || f->status != CFG_OK;
			for (unsigned k = 0; k < n && !known; k++)
				known = out[k] == f;
			if (!known && n < max)
				out[n++] = f;
		}
	}
	/* workload itself is the test's code: leave it out, keep its callees. */
	out[0] = out[--n];
	return n;
}

/*
 * Every instruction of every function the workload reaches, probed at
 * once (a probe per function whose sites are all its instruction starts:
 * mostly int3, jumps where an instruction is 5 bytes or more), gives the
 * same results as unprobed, and every probe fires. The handler leaves
 * garbage in every caller-saved register: a jump patch puts back only
 * those live at its site, so a register the analysis wrongly called dead
 * changes a result.
 */
KTEST(probe_every_instruction_enabled, 1)
{
	enum { MAX_FUNCTIONS = 256, MAX_SITES = 1024 };
	const struct cfg_function **fns = kmalloc(MAX_FUNCTIONS * sizeof(*fns));
	uint64_t *sites = kmalloc(MAX_SITES * sizeof(uint64_t));
	struct probe **probes = kzalloc(MAX_FUNCTIONS * sizeof(*probes));
	struct probe_consumer **cs = kzalloc(MAX_FUNCTIONS * sizeof(*cs));
	uint64_t *hits = kzalloc(MAX_FUNCTIONS * sizeof(uint64_t));
	unsigned n = 0, used = 0, nsites = 0;

	KT_ASSERT(t, fns && sites && probes && cs && hits, "no memory");
	uint64_t expected = workload();
	n = closure(fns, MAX_FUNCTIONS);
	for (unsigned i = 0; i < n; i++) {
		if (!probeable(fns[i]->sym))
			continue;
		uint32_t k = boundaries(fns[i], sites, MAX_SITES);
		probes[used] = probe_create("test", "kernel", ksym_name(&kernel_symtab, fns[i]->sym),
					    "every-insn", sites, k);
		cs[used] = kzalloc(sizeof(**cs));
		KT_ASSERT(t, probes[used] && cs[used], "no memory");
		*cs[used] = clobbering_consumer(&hits[used], PROBE_MECH_AUTO);
		nsites += k;
		used++;
	}
	unsigned enabled = probe_enable_batch(probes, cs, used);
	struct probe_stats st;
	probe_get_stats(&st);
	uint64_t got = workload();
	unsigned fired = 0;
	for (unsigned i = 0; i < used; i++)
		fired += hits[i] != 0;
	probe_disable_batch(cs, used);
	printk("probe_every_instruction_enabled: %u functions, %u sites (%u jump, %u int3), "
	       "%u functions ran probed\n", used, nsites, st.jump_sites, st.breakpoint_sites, fired);
	KT_EXPECT(t, used >= 50, "only %u functions reached", used);
	KT_EXPECT(t, enabled == used, "%u of %u probes enabled", enabled, used);
	KT_EXPECT(t, got == expected, "results differ with every instruction probed");
	KT_EXPECT(t, workload() == expected, "results differ after disabling");
	KT_EXPECT(t, fired >= 50, "only %u of the probed functions ran", fired);
	KT_EXPECT(t, text_identical(), "text differs from the booted image");
	for (unsigned i = 0; i < used; i++)
		kfree(cs[i]);
	kfree(fns);
	kfree(sites);
	kfree(probes);
	kfree(cs);
	kfree(hits);
}

/*
 * A caller keeping values across a call of a callee that uses few
 * registers: compiled with IPA-RA, GCC keeps them in caller-saved
 * registers the callee spares (the kernel is built without it, so that
 * every call clobbers what the ABI says, as the analysis assumes). A
 * jump probe at the callee's entry whose handler leaves garbage in the
 * caller-saved registers must not change the caller's result.
 */
static __attribute__((noinline, noclone)) uint64_t spare_callee(uint64_t x)
{
	return x * 3 + 1;
}

static __attribute__((noinline, noclone)) uint64_t keeping_caller(const uint64_t *v, uint64_t x)
{
	uint64_t a = v[0], b = v[1], c = v[2], d = v[3], e = v[4], f = v[5];
	uint64_t r = spare_callee(x);
	return r + a * b + c * d + e * f + (a ^ f) + (b ^ e) + (c ^ d);
}

KTEST(probe_callee_entry_keeps_caller_registers, 1)
{
	static uint64_t v[6] = { 3, 5, 7, 11, 13, 17 };
	static volatile uint64_t x = 9;		/* nothing to fold at compile time */
	struct probe *p = probe_at((void *)spare_callee);
	uint64_t hits = 0, expected = keeping_caller(v, x);
	KT_ASSERT(t, p, "no fbt probe at spare_callee");
	struct probe_consumer c = clobbering_consumer(&hits, PROBE_MECH_JUMP);
	KT_ASSERT(t, probe_enable(p, &c) == 0, "enabling a jump probe at spare_callee failed");
	uint64_t got = keeping_caller(v, x);
	probe_disable(&c);
	KT_EXPECT(t, hits == 1, "the probe fired %llu times", (unsigned long long)hits);
	KT_EXPECT(t, got == expected, "the caller computed %llu, not %llu with the callee probed",
		  (unsigned long long)got, (unsigned long long)expected);
}
