// SPDX-License-Identifier: BSD-2-Clause
/*
 * Self-removing block coverage (scion/coverage.h). A run:
 *   1. takes the kernel functions its globs name (each once, aliases
 *      under the name the analysis kept) and their blocks from the
 *      structural analysis, in address order;
 *   2. arms a counting splice (a PROBE_COUNT consumer, inline counter
 *      code where the site allows it) at each block's first
 *      instruction, all in one probe_enable_batch; a block whose first
 *      instruction cannot be probed is UNPROBED;
 *   3. every COVERAGE_REAP_MS the reaper thread takes out, in one
 *      probe_disable_batch, the splices whose counters moved: those
 *      blocks are HIT, and they cost nothing from then on;
 *   4. a stop reaps once more and takes out the rest: MISSED.
 * A splice cannot take itself out (text changes need the commit
 * protocol's thread context), so "self-removing" is the reaper's next
 * round, as in KernInst, where the instrumentation asked the daemon.
 *
 * The probes made for blocks ("coverage:kernel:FUNCTION:0xOFF") are kept
 * for later runs (probes are never freed), sorted by address.
 *
 * Lock order: coverage_mutex, then the probe registry's locks.
 */
#include <scion/coverage.h>
#include <scion/probe.h>
#include <scion/cfg.h>
#include <scion/symtab.h>
#include <scion/glob.h>
#include <scion/sort.h>
#include <scion/thread.h>
#include <scion/sched.h>
#include <scion/clock.h>
#include <scion/mutex.h>
#include <scion/mm.h>
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>
#include <scion/compiler.h>

struct cov_entry {
	struct coverage_block b;
	struct probe *probe;		/* NULL for an UNPROBED block */
	uint64_t *counter;		/* while ARMED */
	struct probe_consumer c;	/* enabled while ARMED */
};

static struct mutex coverage_mutex = MUTEX_INIT(coverage_mutex, "coverage");
/*
 * coverage_mutex: the last run's blocks, by address, in a large buffer
 * (every function of the kernel is more blocks than kmalloc's largest).
 */
static struct vbuf entries_buf;
static struct cov_entry *entries;
static uint32_t nentries;		/* coverage_mutex */
static struct coverage_stats stats;	/* coverage_mutex */
static struct thread *reaper;		/* coverage_mutex: while a run is on */
static bool running;			/* coverage_mutex to change; the reaper reads it */

/* Block probes made so far, by address (coverage_mutex). */
struct made_probe {
	uint64_t addr;
	struct probe *probe;
};
static struct made_probe *made;
static uint32_t nmade;

const char *coverage_state_name(enum coverage_state s)
{
	switch (s) {
	case COVERAGE_ARMED: return "armed";
	case COVERAGE_HIT: return "hit";
	case COVERAGE_MISSED: return "missed";
	case COVERAGE_UNPROBED: return "unprobed";
	}
	return "?";
}

static struct probe *made_find(uint64_t addr)
{
	uint32_t lo = 0, hi = nmade;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (made[mid].addr == addr)
			return made[mid].probe;
		if (made[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Merge the probes this run made (fresh, by address) into made. */
static int made_merge(const struct made_probe *fresh, uint32_t n)
{
	if (!n)
		return 0;
	struct made_probe *all = kmalloc((nmade + n) * sizeof(*all));
	if (!all)
		return -ENOMEM;
	uint32_t i = 0, j = 0, k = 0;
	while (i < nmade || j < n) {
		if (j == n || (i < nmade && made[i].addr < fresh[j].addr))
			all[k++] = made[i++];
		else
			all[k++] = fresh[j++];
	}
	kfree(made);
	made = all;
	nmade = k;
	return 0;
}

struct function_set {
	uint64_t *addr;
	uint32_t n, cap;
	bool no_memory;
};

static bool take_function(const struct ksym *sym, void *arg)
{
	struct function_set *set = arg;
	if (sym->flags & (SYM_INIT | SYM_NOPROBE) || !sym->size)
		return true;
	if (set->n == set->cap) {
		uint32_t cap = set->cap ? set->cap * 2 : 256;
		uint64_t *grown = kmalloc(cap * sizeof(*grown));
		if (!grown) {
			set->no_memory = true;
			return false;
		}
		memcpy(grown, set->addr, set->n * sizeof(*grown));
		kfree(set->addr);
		set->addr = grown;
		set->cap = cap;
	}
	set->addr[set->n++] = sym->addr;
	return true;
}

/* Step 1: the analysed functions the globs name, each once, by address. */
static int gather_functions(const char *const *specs, unsigned nspecs, struct function_set *set,
			    const char **why)
{
	for (unsigned i = 0; i < nspecs; i++) {
		const char *glob = strcmp(specs[i], "kernel") ? specs[i] : "*";
		symtab_foreach_glob(&kernel_symtab, glob, take_function, set);
		if (set->no_memory) {
			*why = "out of memory for the function list";
			return -ENOMEM;
		}
	}
	sort_u64(set->addr, set->n);
	uint32_t k = 0;
	for (uint32_t i = 0; i < set->n; i++)
		if (!k || set->addr[k - 1] != set->addr[i])
			set->addr[k++] = set->addr[i];
	set->n = k;
	if (!k) {
		*why = "no kernel function matches";
		return -ENOENT;
	}
	return 0;
}

static uint32_t count_blocks(const struct function_set *set)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < set->n; i++) {
		const struct cfg_function *f = cfg_function_at(set->addr[i]);
		if (f && f->sym->addr == set->addr[i] && f->status == CFG_OK)
			n += f->nblocks;
		else
			stats.refused++;
	}
	return n;
}

/* The probe for a block at addr of sym: an earlier run's, or a new one (into fresh). */
static struct probe *block_probe(const struct ksym *sym, uint64_t addr, struct made_probe *fresh,
				 uint32_t *nfresh)
{
	struct probe *p = made_find(addr);
	if (p)
		return p;
	char name[24];
	snprintf(name, sizeof(name), "0x%llx", (unsigned long long)(addr - sym->addr));
	p = probe_create("coverage", "kernel", ksym_name(&kernel_symtab, sym), name, &addr, 1);
	if (p)
		fresh[(*nfresh)++] = (struct made_probe){ addr, p };
	return p;
}

/* Step 2's first half: an entry per block, with its probe and counter where it can have them. */
static int build_entries(const struct function_set *set, struct made_probe *fresh,
			 uint32_t *nfresh, const char **why)
{
	for (uint32_t i = 0; i < set->n; i++) {
		const struct cfg_function *f = cfg_function_at(set->addr[i]);
		if (!f || f->sym->addr != set->addr[i] || f->status != CFG_OK)
			continue;
		stats.functions++;
		for (uint32_t k = 0; k < f->nblocks; k++) {
			struct cov_entry *e = &entries[nentries++];
			const char *ignored;
			e->b = (struct coverage_block){ f->blocks[k].start, f->blocks[k].end,
				ksym_name(&kernel_symtab, f->sym), 0, COVERAGE_UNPROBED };
			if (probe_check_address(e->b.start, &ignored))
				continue;
			e->probe = block_probe(f->sym, e->b.start, fresh, nfresh);
			e->counter = e->probe ? probe_counter_alloc() : NULL;
			if (!e->counter) {
				*why = "out of memory for the block probes";
				return -ENOMEM;
			}
			e->c = (struct probe_consumer){ .action = PROBE_COUNT,
							.counter = e->counter,
							.mechanism = PROBE_MECH_AUTO };
			e->b.state = COVERAGE_ARMED;
		}
	}
	return 0;
}

static void release_entries(void)
{
	for (uint32_t i = 0; i < nentries; i++)
		if (entries[i].counter)
			probe_counter_free(entries[i].counter);
	vbuf_free(&entries_buf);
	entries = NULL;
	nentries = 0;
}

/* Step 2's second half: enable the armed entries' consumers in one batch. */
static int arm(const char **why)
{
	struct probe **probes = kmalloc((nentries ? nentries : 1) * sizeof(*probes));
	struct probe_consumer **consumers = kmalloc((nentries ? nentries : 1) * sizeof(*consumers));
	unsigned n = 0;

	if (!probes || !consumers) {
		kfree(probes);
		kfree(consumers);
		*why = "out of memory for the batch";
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < nentries; i++) {
		if (entries[i].b.state != COVERAGE_ARMED)
			continue;
		probes[n] = entries[i].probe;
		consumers[n++] = &entries[i].c;
	}
	probe_enable_batch(probes, consumers, n);
	kfree(probes);
	kfree(consumers);
	for (uint32_t i = 0; i < nentries; i++) {
		struct cov_entry *e = &entries[i];
		if (e->b.state == COVERAGE_ARMED && !e->c.probe) {
			e->b.state = COVERAGE_UNPROBED;	/* refused when installed */
			probe_counter_free(e->counter);
			e->counter = NULL;
		}
		if (e->b.state == COVERAGE_ARMED)
			stats.armed++;
		else
			stats.unprobed++;
	}
	return 0;
}

/*
 * Take out the armed splices whose counters moved (every armed one when
 * all): one batch, through the registry's protocol. Their blocks become
 * HIT, or MISSED when all and the counter never moved. Caller holds
 * coverage_mutex. Return value: how many came out as HIT.
 */
static unsigned take_out(bool all)
{
	struct probe_consumer **batch = kmalloc((nentries ? nentries : 1) * sizeof(*batch));
	unsigned n = 0, hit = 0;

	for (uint32_t i = 0; i < nentries; i++) {
		struct cov_entry *e = &entries[i];
		if (e->b.state != COVERAGE_ARMED || (!all && !READ_ONCE(*e->counter)))
			continue;
		if (batch)
			batch[n++] = &e->c;
		else
			probe_disable(&e->c);	/* no memory for a batch: one at a time */
	}
	if (batch)
		probe_disable_batch(batch, n);
	kfree(batch);
	/* No CPU runs a disabled consumer any more: the counters are final. */
	for (uint32_t i = 0; i < nentries; i++) {
		struct cov_entry *e = &entries[i];
		if (e->b.state != COVERAGE_ARMED || e->c.probe)
			continue;
		e->b.hits = *e->counter;
		e->b.state = e->b.hits ? COVERAGE_HIT : COVERAGE_MISSED;
		probe_counter_free(e->counter);
		e->counter = NULL;
		stats.armed--;
		if (e->b.hits) {
			stats.hit++;
			hit++;
		} else {
			stats.missed++;
		}
	}
	if (hit)
		stats.reaps++;
	return hit;
}

unsigned coverage_reap(void)
{
	mutex_lock(&coverage_mutex);
	unsigned n = running ? take_out(false) : 0;
	mutex_unlock(&coverage_mutex);
	return n;
}

int coverage_stop(void)
{
	mutex_lock(&coverage_mutex);
	if (!running) {
		mutex_unlock(&coverage_mutex);
		return -ENOENT;
	}
	running = false;
	struct thread *t = reaper;
	reaper = NULL;
	mutex_unlock(&coverage_mutex);
	/* The reaper sees running false within a round; it takes coverage_mutex to reap. */
	if (t)
		thread_join(t);

	mutex_lock(&coverage_mutex);
	take_out(false);
	take_out(true);
	stats.running = false;
	mutex_unlock(&coverage_mutex);
	return 0;
}

void coverage_get_stats(struct coverage_stats *s)
{
	mutex_lock(&coverage_mutex);
	*s = stats;
	mutex_unlock(&coverage_mutex);
}

void coverage_foreach_block(bool (*fn)(const struct coverage_block *b, void *arg), void *arg)
{
	mutex_lock(&coverage_mutex);
	for (uint32_t i = 0; i < nentries; i++) {
		struct coverage_block copy = entries[i].b;
		if (copy.state == COVERAGE_ARMED)
			copy.hits = READ_ONCE(*entries[i].counter);
		if (!fn(&copy, arg))
			break;
	}
	mutex_unlock(&coverage_mutex);
}

static void reaper_main(void *arg)
{
	uint64_t ticks = ms_to_ticks((uintptr_t)arg);
	while (READ_ONCE(running)) {
		thread_sleep_ticks(ticks ? ticks : 1);
		coverage_reap();
	}
}

int coverage_start(const char *const *specs, unsigned nspecs, unsigned reap_ms,
		   const char **why)
{
	struct function_set set = { 0 };
	struct made_probe *fresh = NULL;
	uint32_t nfresh = 0;
	int err;

	mutex_lock(&coverage_mutex);
	if (running) {
		mutex_unlock(&coverage_mutex);
		*why = "a coverage run is on (stop it first)";
		return -EBUSY;
	}
	release_entries();
	stats = (struct coverage_stats){ 0 };
	if (cfg_analyse_kernel()) {
		*why = "out of memory for the structural analysis";
		err = -ENOMEM;
		goto out;
	}
	if ((err = gather_functions(specs, nspecs, &set, why)))
		goto out;
	uint32_t nblocks = count_blocks(&set);
	size_t room = (nblocks ? nblocks : 1) * sizeof(*entries);
	if (!vbuf_alloc(&entries_buf, room)) {
		entries = (struct cov_entry *)entries_buf.data;
		memset(entries, 0, room);
	}
	fresh = kmalloc((nblocks ? nblocks : 1) * sizeof(*fresh));
	if (!entries || !fresh) {
		*why = "out of memory for the blocks";
		err = -ENOMEM;
		goto out;
	}
	err = build_entries(&set, fresh, &nfresh, why);
	/* Probes made are kept even when the run fails: they exist now. */
	if (made_merge(fresh, nfresh) && !err) {
		*why = "out of memory for the probe index";
		err = -ENOMEM;
	}
	if (err || (err = arm(why)))
		goto out;
	stats.blocks = nentries;
	stats.started_ns = clock_ns();
	stats.reap_ms = reap_ms;
	running = true;
	if (reap_ms)
		reaper = thread_create("coverage-reaper", reaper_main,
				       (void *)(uintptr_t)reap_ms, -1);
	if (reap_ms && !reaper) {
		running = false;
		take_out(true);
		*why = "out of memory for the reaper thread";
		err = -ENOMEM;
		goto out;
	}
	stats.running = true;
	err = (int)stats.armed;
out:
	if (err < 0)
		release_entries();
	mutex_unlock(&coverage_mutex);
	kfree(set.addr);
	kfree(fresh);
	return err;
}
