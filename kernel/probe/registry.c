// SPDX-License-Identifier: BSD-2-Clause
/*
 * The probe registry: every named probe, looked up by id or by a
 * provider:module:function:name spec, and the enabling of probes (one
 * consumer on every site of the probe).
 *
 * Providers fill the registry on first use (fbt needs the structural
 * analysis, which is not free), not at boot. Probes are never destroyed:
 * ids stay valid for the kernel's life; a probe without consumers costs
 * memory only.
 *
 * Invariant: a consumer is on its probe's list exactly while it is
 * attached to every site of the probe (c->probe != NULL).
 * Lock order: registry_mutex (serialises lookups, enabling and disabling;
 * the site operations take probe_mutex batch by batch beneath it), then
 * probe_mutex (the probe table, the sites, the patch heap), then
 * text_poke's mutex, then spinlocks.
 */
#include <scion/probe.h>
#include <scion/mm.h>
#include <scion/glob.h>
#include <scion/string.h>
#include <scion/printk.h>
#include <scion/format.h>
#include <scion/symtab.h>
#include <scion/errno.h>
#include <scion/clock.h>
#include <scion/sort.h>
#include "probe_internal.h"

/* Serialises enabling and disabling; taken before probe_mutex. */
static struct mutex registry_mutex = MUTEX_INIT(registry_mutex, "probe-registry");

static struct probe **by_id;		/* probe_mutex: index id - 1 */
static uint32_t nprobes, capacity;	/* probe_mutex */
static bool populated;			/* registry_mutex */

char *probe_fullname(const struct probe *p, char *buf, size_t size)
{
	snprintf(buf, size, "%s:%s:%s:%s", p->provider, p->module, p->function, p->name);
	return buf;
}

static bool grow(void)
{
	uint32_t cap = capacity ? capacity * 2 : 1024;
	struct probe **n = kmalloc(cap * sizeof(*n));
	if (!n)
		return false;
	if (nprobes)
		memcpy(n, by_id, nprobes * sizeof(*n));
	kfree(by_id);
	by_id = n;
	capacity = cap;
	return true;
}

/* Caller holds probe_mutex. */
LINKER_TABLE_DECLARE(struct probe_provider, probe_providers);

static struct probe *create_locked(const char *provider, const char *module,
				   const char *function, const char *name,
				   const uint64_t *sites, uint32_t nsites)
{
	size_t lp = strlen(provider) + 1, lm = strlen(module) + 1;
	size_t lf = strlen(function) + 1, ln = strlen(name) + 1;
	struct probe *p;

	if (nprobes == capacity && !grow())
		return NULL;
	p = kzalloc(sizeof(*p) + nsites * sizeof(uint64_t) + lp + lm + lf + ln);
	if (!p)
		return NULL;
	uint64_t *s = (uint64_t *)(p + 1);
	char *str = (char *)(s + nsites);
	memcpy(s, sites, nsites * sizeof(uint64_t));
	p->sites = s;
	p->nsites = nsites;
	p->provider = memcpy(str, provider, lp);
	p->module = memcpy(str + lp, module, lm);
	p->function = memcpy(str + lp + lm, function, lf);
	p->name = memcpy(str + lp + lm + lf, name, ln);
	list_init(&p->consumers);
	by_id[nprobes++] = p;
	p->id = nprobes;
	return p;
}

struct probe *probe_create(const char *provider, const char *module, const char *function,
			   const char *name, const uint64_t *sites, uint32_t nsites)
{
	mutex_lock(&probe_mutex);
	struct probe *p = create_locked(provider, module, function, name, sites, nsites);
	mutex_unlock(&probe_mutex);
	return p;
}

struct probe *probe_create_soft(const char *provider, const char *module, const char *function,
				const char *name, bool session_only)
{
	struct probe_soft *soft = kzalloc(sizeof(*soft));
	if (!soft)
		return NULL;
	soft->session_only = session_only;
	mutex_lock(&probe_mutex);
	struct probe *p = create_locked(provider, module, function, name, NULL, 0);
	if (p)
		p->soft = soft;
	mutex_unlock(&probe_mutex);
	if (!p)
		kfree(soft);
	return p;
}

/* Caller holds probe_mutex. */
static struct probe *find_locked(const char *provider, const char *module, const char *function,
				 const char *name)
{
	for (uint32_t i = 0; i < nprobes; i++) {
		struct probe *p = by_id[i];
		if (!strcmp(p->provider, provider) && !strcmp(p->module, module) &&
		    !strcmp(p->function, function) && !strcmp(p->name, name))
			return p;
	}
	return NULL;
}

struct probe *probe_find(const char *provider, const char *module, const char *function,
			 const char *name)
{
	mutex_lock(&probe_mutex);
	struct probe *p = find_locked(provider, module, function, name);
	mutex_unlock(&probe_mutex);
	return p;
}

/* Caller holds registry_mutex. */
static int provider_rank(const struct probe_provider *prov)
{
	if (!strcmp(prov->name, "dtrace"))
		return 0;
	return strcmp(prov->name, "fbt") ? 1 : 2;
}

static void populate(void)
{
	if (populated)
		return;
	populated = true;
	/*
	 * dtrace's probes first, fbt's last: BEGIN, END and ERROR are IDs 1-3
	 * as in DTrace, and the IDs scripts print for sdt and graft probes do
	 * not move whenever the kernel gains or loses a function.
	 */
	for (int rank = 0; rank < 3; rank++)
		LINKER_TABLE_FOREACH(struct probe_provider, probe_providers, prov)
			if (prov->provide && provider_rank(prov) == rank)
				prov->provide();
}

struct probe *probe_by_id(uint32_t id)
{
	mutex_lock(&registry_mutex);
	populate();
	mutex_unlock(&registry_mutex);
	mutex_lock(&probe_mutex);
	struct probe *p = id >= 1 && id <= nprobes ? by_id[id - 1] : NULL;
	mutex_unlock(&probe_mutex);
	return p;
}

/* A parsed spec: four globs, empty meaning any. */
struct spec {
	char buf[160];
	const char *part[4];	/* provider, module, function, name */
};

/*
 * provider:module:function:name; fewer parts fill from the right, as in
 * dtrace -n (func:name, mod:func:name), except that a lone word names a
 * function (all its probes): `probe list thread_create`.
 */
static int parse_spec(const char *text, struct spec *sp, const char **why)
{
	char *fields[4];
	unsigned n = 0;

	if (strlen(text) >= sizeof(sp->buf)) {
		*why = "probe spec too long";
		return -EINVAL;
	}
	strlcpy(sp->buf, text, sizeof(sp->buf));
	fields[n++] = sp->buf;
	for (char *c = sp->buf; *c; c++) {
		if (*c != ':')
			continue;
		if (n == 4) {
			*why = "a probe spec has at most four parts: provider:module:function:name";
			return -EINVAL;
		}
		*c = '\0';
		fields[n++] = c + 1;
	}
	for (unsigned i = 0; i < 4; i++)
		sp->part[i] = i < 4 - n ? "" : fields[i - (4 - n)];
	if (n == 1) {
		sp->part[2] = fields[0];
		sp->part[3] = "";
	}
	return 0;
}

static bool part_match(const char *pattern, const char *s)
{
	return !*pattern || glob_match(pattern, s);
}

static bool has_glob(const char *s)
{
	return strchr(s, '*') || strchr(s, '?') || strchr(s, '[');
}

/*
 * The insn probe for function+offset, created when first asked for.
 * Caller holds probe_mutex. Return value: the probe, or NULL with *why.
 */
static struct probe *insn_probe(const char *function, const char *offset, int *err,
				const char **why)
{
	const struct ksym *sym = symtab_lookup_name(&kernel_symtab, function);
	uint64_t off;
	char name[24];

	if (!sym) {
		*why = "no such function";
		*err = -ENOENT;
		return NULL;
	}
	if (parse_u64(offset, &off, false) || off >= sym->size) {
		*why = "offset is not a number inside the function";
		*err = -EINVAL;
		return NULL;
	}
	uint64_t addr = sym->addr + off;
	if ((*err = probe_check_address(addr, why)))
		return NULL;
	snprintf(name, sizeof(name), "0x%llx", (unsigned long long)off);
	for (uint32_t i = 0; i < nprobes; i++) {
		struct probe *p = by_id[i];
		if (!strcmp(p->provider, "insn") && p->sites[0] == addr)
			return p;
	}
	struct probe *p = create_locked("insn", "kernel", ksym_name(&kernel_symtab, sym), name,
					&addr, 1);
	if (!p) {
		*why = "out of memory";
		*err = -ENOMEM;
	}
	return p;
}

int probe_lookup(const char *text, bool (*fn)(struct probe *p, void *arg), void *arg,
		 const char **why)
{
	struct spec sp;
	int err = parse_spec(text, &sp, why), matched = 0;
	if (err)
		return err;

	mutex_lock(&registry_mutex);
	populate();
	/* A provider that makes probes by name (profile-97) makes this one now. */
	if (*sp.part[3] && !has_glob(sp.part[3]) && !has_glob(sp.part[1]) &&
	    !has_glob(sp.part[2])) {
		LINKER_TABLE_FOREACH(struct probe_provider, probe_providers, prov) {
			if (!prov->provide_named || !part_match(sp.part[0], prov->name))
				continue;
			if ((err = prov->provide_named(sp.part[1], sp.part[2], sp.part[3], why))) {
				mutex_unlock(&registry_mutex);
				return err;
			}
		}
	}
	mutex_lock(&probe_mutex);
	/* function+off, alone or as insn:kernel:function:off. */
	const char *plus = strchr(text, '+');
	struct probe *one = NULL;
	if (plus && !strchr(text, ':')) {
		char function[96];
		size_t len = (size_t)(plus - text);
		if (len >= sizeof(function)) {
			*why = "function name too long";
			err = -EINVAL;
			goto out;
		}
		memcpy(function, text, len);
		function[len] = '\0';
		one = insn_probe(function, plus + 1, &err, why);
		if (!one)
			goto out;
	} else if (!strcmp(sp.part[0], "insn") && !has_glob(sp.part[2]) && *sp.part[2] &&
		   !has_glob(sp.part[3]) && *sp.part[3]) {
		one = insn_probe(sp.part[2], sp.part[3], &err, why);
		if (!one)
			goto out;
	}
	uint32_t n = nprobes;
	mutex_unlock(&probe_mutex);
	/* Probes are never removed: an index stays valid even if by_id grows meanwhile. */
	if (one) {
		matched = 1;
		fn(one, arg);
	} else {
		for (uint32_t i = 0; i < n; i++) {
			mutex_lock(&probe_mutex);
			struct probe *p = by_id[i];
			mutex_unlock(&probe_mutex);
			if (part_match(sp.part[0], p->provider) && part_match(sp.part[1], p->module) &&
			    part_match(sp.part[2], p->function) && part_match(sp.part[3], p->name)) {
				matched++;
				if (!fn(p, arg))
					break;
			}
		}
	}
	mutex_unlock(&registry_mutex);
	return matched;
out:
	mutex_unlock(&probe_mutex);
	mutex_unlock(&registry_mutex);
	return err;
}

/*
 * Enabling many probes: their sites go to site_attach_batch in chunks of
 * PROBE_BATCH; a probe with any site refused is then detached from the
 * sites that took it, so a probe is enabled on all its sites or none.
 */
struct flat {
	uint64_t *addrs;
	struct probe_consumer **cs;
	int *errors;
	unsigned *owner;	/* index of the probe each site belongs to */
	unsigned n;
};

static bool flat_alloc(struct flat *f, unsigned n)
{
	f->addrs = kmalloc((n ? n : 1) * sizeof(*f->addrs));
	f->cs = kmalloc((n ? n : 1) * sizeof(*f->cs));
	f->errors = kmalloc((n ? n : 1) * sizeof(*f->errors));
	f->owner = kmalloc((n ? n : 1) * sizeof(*f->owner));
	f->n = 0;
	return f->addrs && f->cs && f->errors && f->owner;
}

static void flat_free(struct flat *f)
{
	kfree(f->addrs);
	kfree(f->cs);
	kfree(f->errors);
	kfree(f->owner);
}

static void detach_chunked(const uint64_t *addrs, struct probe_consumer **cs, unsigned n)
{
	for (unsigned i = 0; i < n; i += PROBE_BATCH)
		site_detach_batch(addrs + i, cs + i, n - i < PROBE_BATCH ? n - i : PROBE_BATCH);
}

/*
 * Open (+1) or close (-1) p's gates: while open, its gated sites' code
 * evaluates their arguments and reaches the sites. A gate counts the
 * enabled probes it serves: a gated site in an inline function is a site
 * (and a probe) in each function it is inlined into, all behind one
 * byte, which stays open while any of them is enabled. Opened only once
 * the sites are patched, so a hit finds its consumers; a CPU that passed
 * a gate just before it closed meets a restored no-op, which does
 * nothing. Caller holds probe_mutex.
 */
static void move_gates(const struct probe *p, int delta)
{
	for (uint32_t i = 0; i < p->ngates; i++)
		__atomic_fetch_add(p->gates[i], (uint8_t)delta, __ATOMIC_RELEASE);
}

/* Caller holds registry_mutex. */
static unsigned enable_locked(struct probe **probes, struct probe_consumer **consumers, unsigned n)
{
	unsigned total = 0, enabled = 0;
	struct flat f, undo;

	for (unsigned i = 0; i < n; i++)
		total += probes[i]->nsites;
	bool *refused = kzalloc((n ? n : 1) * sizeof(bool));
	bool have_f = flat_alloc(&f, total), have_undo = flat_alloc(&undo, total);
	if (!refused || !have_f || !have_undo) {
		flat_free(&f);
		flat_free(&undo);
		kfree(refused);
		printk("probe: no memory to enable %u probes\n", n);
		return 0;
	}
	for (unsigned i = 0; i < n; i++) {
		if (consumers[i]->probe) {
			printk("probe: consumer already enabled on probe %u\n", consumers[i]->probe->id);
			refused[i] = true;
			continue;
		}
		if (probes[i]->soft && probes[i]->soft->session_only) {
			printk("probe: %s:%s:%s:%s fires only for trace sessions (scion trace)\n",
			       probes[i]->provider, probes[i]->module, probes[i]->function,
			       probes[i]->name);
			refused[i] = true;
			continue;
		}
		consumers[i]->firing_for = probes[i];
		for (uint32_t k = 0; k < probes[i]->nsites; k++) {
			f.addrs[f.n] = probes[i]->sites[k];
			f.cs[f.n] = consumers[i];
			f.owner[f.n++] = i;
		}
	}
	/* undo.addrs doubles as the sorted list of everything this operation probes. */
	memcpy(undo.addrs, f.addrs, f.n * sizeof(uint64_t));
	sort_u64(undo.addrs, f.n);
	struct site_batch coming = { undo.addrs, f.n };
	for (unsigned i = 0; i < f.n; i += PROBE_BATCH)
		site_attach_batch(f.addrs + i, f.cs + i, f.n - i < PROBE_BATCH ? f.n - i : PROBE_BATCH,
				  f.errors + i, &coming);

	/* A probe refused at any site is detached from the sites that took it. */
	for (unsigned i = 0; i < f.n; i++)
		if (f.errors[i])
			refused[f.owner[i]] = true;
	for (unsigned i = 0; i < f.n; i++) {
		if (!f.errors[i] && refused[f.owner[i]]) {
			undo.addrs[undo.n] = f.addrs[i];
			undo.cs[undo.n++] = f.cs[i];
		}
	}
	detach_chunked(undo.addrs, undo.cs, undo.n);

	mutex_lock(&probe_mutex);
	for (unsigned i = 0; i < n; i++) {
		struct probe_consumer *c = consumers[i];
		if (refused[i] || (!probes[i]->nsites && !probes[i]->soft))
			continue;
		if (probes[i]->soft && soft_attach(probes[i], c)) {
			printk("probe: %s:%s:%s:%s has %u consumers already\n", probes[i]->provider,
			       probes[i]->module, probes[i]->function, probes[i]->name,
			       PROBE_SOFT_CONSUMERS);
			continue;
		}
		c->probe = probes[i];
		list_add_tail(&probes[i]->consumers, &c->node);
		if (probes[i]->nconsumers++ == 0)
			move_gates(probes[i], 1);
		enabled++;
	}
	mutex_unlock(&probe_mutex);
	kfree(refused);
	flat_free(&f);
	flat_free(&undo);
	return enabled;
}

unsigned probe_enable_batch(struct probe **probes, struct probe_consumer **consumers, unsigned n)
{
	mutex_lock(&registry_mutex);
	unsigned enabled = enable_locked(probes, consumers, n);
	mutex_unlock(&registry_mutex);
	return enabled;
}

int probe_enable(struct probe *p, struct probe_consumer *c)
{
	if (!p->nsites && !p->soft) {
		printk("probe: probe %u has no sites to enable\n", p->id);
		return -ENOENT;
	}
	if (c->probe)
		return -EBUSY;
	return probe_enable_batch(&p, &c, 1) == 1 ? 0 : -EINVAL;
}

/* Caller holds registry_mutex. */
static void disable_locked(struct probe_consumer **cs, unsigned n)
{
	unsigned total = 0;
	struct flat f;

	for (unsigned i = 0; i < n; i++)
		if (cs[i]->probe)
			total += cs[i]->probe->nsites;
	/* Disabling cannot fail: wait for memory if there is none. */
	while (!flat_alloc(&f, total)) {
		flat_free(&f);
		thread_sleep_ms(10);
	}
	for (unsigned i = 0; i < n; i++) {
		struct probe *p = cs[i]->probe;
		if (!p)
			continue;
		for (uint32_t k = 0; k < p->nsites; k++) {
			f.addrs[f.n] = p->sites[k];
			f.cs[f.n++] = cs[i];
		}
	}
	detach_chunked(f.addrs, f.cs, f.n);
	bool soft = false;
	mutex_lock(&probe_mutex);
	for (unsigned i = 0; i < n; i++) {
		struct probe *p = cs[i]->probe;
		if (!p)
			continue;
		if (p->soft) {
			soft_detach(p, cs[i]);
			soft = true;
		}
		list_remove(&cs[i]->node);
		if (--p->nconsumers == 0)
			move_gates(p, -1);
		cs[i]->probe = NULL;
	}
	mutex_unlock(&probe_mutex);
	if (soft)
		soft_quiesce();
	flat_free(&f);
}

void probe_disable_batch(struct probe_consumer **cs, unsigned n)
{
	mutex_lock(&registry_mutex);
	disable_locked(cs, n);
	mutex_unlock(&registry_mutex);
}

void probe_disable(struct probe_consumer *c)
{
	probe_disable_batch(&c, 1);
}

void probe_disable_all(void)
{
	mutex_lock(&registry_mutex);
	unsigned n = 0;
	mutex_lock(&probe_mutex);
	for (uint32_t i = 0; i < nprobes; i++)
		n += by_id[i]->nconsumers;
	struct probe_consumer **cs = kmalloc((n ? n : 1) * sizeof(*cs));
	unsigned k = 0;
	for (uint32_t i = 0; cs && i < nprobes; i++)
		list_foreach(&by_id[i]->consumers, it)
			cs[k++] = list_entry(it, struct probe_consumer, node);
	mutex_unlock(&probe_mutex);
	if (cs)
		disable_locked(cs, k);
	else
		printk("probe: no memory to disable all probes at once\n");
	kfree(cs);
	mutex_unlock(&registry_mutex);
}

uint64_t *probe_counter_alloc(void)
{
	mutex_lock(&probe_mutex);
	uint64_t *c = data_alloc(1);
	mutex_unlock(&probe_mutex);
	return c;
}

void probe_counter_free(uint64_t *counter)
{
	mutex_lock(&probe_mutex);
	data_free(counter);
	mutex_unlock(&probe_mutex);
}

void probe_get_stats(struct probe_stats *s)
{
	*s = (struct probe_stats){ 0 };
	mutex_lock(&probe_mutex);
	s->probes = nprobes;
	site_get_counts(&s->sites, &s->jump_sites, &s->breakpoint_sites);
	s->installs = probe_installs;
	s->removals = probe_removals;
	s->sync_rounds = probe_sync_rounds;
	s->refused_jumps = probe_refused_jumps;
	mutex_unlock(&probe_mutex);
}
