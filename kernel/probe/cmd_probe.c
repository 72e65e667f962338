// SPDX-License-Identifier: BSD-2-Clause
/*
 * `probe`: list, enable, disable and inspect probes from the shell.
 *
 * An enabling made here is a consumer that counts hits: `count` (inline
 * counter code where the site allows it) or `hcount` (the same count
 * made by C code called with every register saved, to compare the two).
 * shell_mutex guards the list of enablings made here.
 */
#include <scion/probe.h>
#include <scion/metrics.h>
#include <scion/shell.h>
#include <scion/mutex.h>
#include <scion/mm.h>
#include <scion/list.h>
#include <scion/symtab.h>
#include <scion/printk.h>
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>

struct enabling {
	struct probe_consumer c;
	uint64_t *counter;
	struct list_node node;		/* shell_mutex */
};

static struct mutex shell_mutex = MUTEX_INIT(shell_mutex, "probe-shell");
static LIST_HEAD(enablings);		/* shell_mutex */

/* The shell's count on p (sum of its enablings), or -1 if none. */
static int64_t shell_count(const struct probe *p)
{
	int64_t total = -1;
	list_foreach(&enablings, it) {
		struct enabling *e = list_entry(it, struct enabling, node);
		if (e->c.probe == p)
			total = (total < 0 ? 0 : total) + (int64_t)READ_ONCE(*e->counter);
	}
	return total;
}

struct shell_listing {
	bool (*fn)(struct probe *p, int64_t count, void *arg);
	void *arg;
};

static bool with_count(struct probe *p, void *arg)
{
	struct shell_listing *l = arg;
	return l->fn(p, shell_count(p), l->arg);
}

int probe_shell_list(const char *spec, bool (*fn)(struct probe *p, int64_t count, void *arg),
		     void *arg, const char **why)
{
	struct shell_listing l = { fn, arg };
	mutex_lock(&shell_mutex);
	int n = probe_lookup(spec, with_count, &l, why);
	mutex_unlock(&shell_mutex);
	return n;
}

static bool list_one(struct probe *p, int64_t count, void *arg)
{
	char name[192];
	unsigned *shown = arg;

	if (!(*shown)++)
		printk("  %-6s %-60s %-5s %s\n", "ID", "PROBE", "SITES", "ENABLED");
	if (count >= 0)
		printk("  %-6u %-60s %-5u %u, count %lld\n", p->id, probe_fullname(p, name, sizeof(name)),
		       p->nsites, p->nconsumers, (long long)count);
	else
		printk("  %-6u %-60s %-5u %u\n", p->id, probe_fullname(p, name, sizeof(name)),
		       p->nsites, p->nconsumers);
	return true;
}

static int probe_list(int argc, char **argv)
{
	unsigned shown = 0;
	const char *why;

	if (argc > 3) {
		printk("probe: usage: probe list [spec]\n");
		return -EINVAL;
	}
	int n = probe_shell_list(argc == 3 ? argv[2] : "", list_one, &shown, &why);
	if (n < 0) {
		printk("probe: %s: %s\n", argv[2], why);
		return n;
	}
	printk("%d probe%s\n", n, n == 1 ? "" : "s");
	return 0;
}

struct collect {
	struct probe **probes;
	unsigned n, cap;
	bool oom;
};

static bool collect_one(struct probe *p, void *arg)
{
	struct collect *c = arg;
	if (c->n == c->cap) {
		unsigned cap = c->cap ? c->cap * 2 : 64;
		struct probe **n = kmalloc(cap * sizeof(*n));
		if (!n) {
			c->oom = true;
			return false;
		}
		if (c->n)
			memcpy(n, c->probes, c->n * sizeof(*n));
		kfree(c->probes);
		c->probes = n;
		c->cap = cap;
	}
	c->probes[c->n++] = p;
	return true;
}

/* The probes spec names: by id or by spec. Return value: count or -errno. */
static int collect(const char *spec, struct collect *c)
{
	const char *why;
	uint64_t id;

	*c = (struct collect){ 0 };
	if (!parse_u64(spec, &id, false)) {
		struct probe *p = id <= 0xffffffffu ? probe_by_id((uint32_t)id) : NULL;
		if (!p) {
			printk("probe: no probe with id %s; 'probe list' shows them\n", spec);
			return -ENOENT;
		}
		collect_one(p, c);
	} else {
		int n = probe_lookup(spec, collect_one, c, &why);
		if (n < 0) {
			printk("probe: %s: %s\n", spec, why);
			return n;
		}
	}
	if (c->oom) {
		kfree(c->probes);
		printk("probe: out of memory listing the probes of %s\n", spec);
		return -ENOMEM;
	}
	if (!c->n) {
		printk("probe: no probe matches %s; 'probe list' shows them\n", spec);
		return -ENOENT;
	}
	return (int)c->n;
}

static void enabling_free(struct enabling *e)
{
	probe_counter_free(e->counter);
	kfree(e);
}

static int probe_enable_cmd(int argc, char **argv)
{
	enum probe_mechanism mech = PROBE_MECH_AUTO;
	struct collect c;
	bool in_c;

	if (argc < 4 || argc > 5) {
		printk("probe: usage: probe enable <id|spec> <count|hcount> [auto|jump|%s]\n",
		       probe_mechanism_name(PROBE_MECH_BREAKPOINT));
		return -EINVAL;
	}
	if (!strcmp(argv[3], "count")) {
		in_c = false;
	} else if (!strcmp(argv[3], "hcount")) {
		in_c = true;
	} else {
		printk("probe: unknown action '%s' (count or hcount)\n", argv[3]);
		return -EINVAL;
	}
	if (argc == 5) {
		if (!strcmp(argv[4], "jump"))
			mech = PROBE_MECH_JUMP;
		else if (!strcmp(argv[4], probe_mechanism_name(PROBE_MECH_BREAKPOINT)))
			mech = PROBE_MECH_BREAKPOINT;
		else if (strcmp(argv[4], "auto")) {
			printk("probe: unknown mechanism '%s' (auto, jump or %s)\n", argv[4],
			       probe_mechanism_name(PROBE_MECH_BREAKPOINT));
			return -EINVAL;
		}
	}
	int n = collect(argv[2], &c);
	if (n < 0)
		return n;

	struct probe_consumer **cs = kzalloc(c.n * sizeof(*cs));
	struct enabling **es = kzalloc(c.n * sizeof(*es));
	unsigned made = 0;
	int err = 0;
	for (; cs && es && made < c.n; made++) {
		struct enabling *e = kzalloc(sizeof(*e));
		if (!e || !(e->counter = probe_counter_alloc())) {
			kfree(e);
			break;
		}
		e->c.action = PROBE_COUNT;
		e->c.counter = e->counter;
		e->c.no_inline = in_c;
		e->c.mechanism = mech;
		es[made] = e;
		cs[made] = &e->c;
	}
	if (made < c.n) {
		printk("probe: out of memory for %u enablings\n", c.n);
		err = -ENOMEM;
		for (unsigned i = 0; i < made; i++)
			enabling_free(es[i]);
		goto out;
	}
	mutex_lock(&shell_mutex);
	unsigned ok = probe_enable_batch(c.probes, cs, c.n);
	for (unsigned i = 0; i < c.n; i++) {
		if (es[i]->c.probe)
			list_add_tail(&enablings, &es[i]->node);
		else
			enabling_free(es[i]);
	}
	mutex_unlock(&shell_mutex);
	struct probe_stats s;
	probe_get_stats(&s);
	printk("probe: enabled %u of %u probe%s (%s); %u sites patched: %u jump, %u %s\n", ok, c.n,
	       c.n == 1 ? "" : "s", argv[3], s.sites, s.jump_sites, s.breakpoint_sites,
	       probe_mechanism_name(PROBE_MECH_BREAKPOINT));
	if (ok < c.n)
		err = -EINVAL;
out:
	kfree(cs);
	kfree(es);
	kfree(c.probes);
	return err;
}

/* Disable the shell's enablings on the probes of c (all when c is NULL). */
static unsigned disable_enablings(const struct collect *c)
{
	LIST_HEAD(gone);
	unsigned n = 0;

	mutex_lock(&shell_mutex);
	list_foreach_safe(&enablings, it, tmp) {
		struct enabling *e = list_entry(it, struct enabling, node);
		bool match = !c || !e->c.probe;
		for (unsigned i = 0; c && !match && i < c->n; i++)
			match = e->c.probe == c->probes[i];
		if (!match)
			continue;
		list_remove(&e->node);
		list_add_tail(&gone, &e->node);
		n++;
	}
	struct probe_consumer **cs = kmalloc((n ? n : 1) * sizeof(*cs));
	unsigned k = 0;
	list_foreach(&gone, it) {
		struct enabling *e = list_entry(it, struct enabling, node);
		if (cs)
			cs[k++] = &e->c;
		else
			probe_disable(&e->c);
	}
	if (cs)
		probe_disable_batch(cs, k);
	kfree(cs);
	list_foreach_safe(&gone, it, tmp) {
		struct enabling *e = list_entry(it, struct enabling, node);
		list_remove(&e->node);
		enabling_free(e);
	}
	mutex_unlock(&shell_mutex);
	return n;
}

static int probe_disable_cmd(int argc, char **argv)
{
	struct collect c;

	if (argc != 3) {
		printk("probe: usage: probe disable <id|spec>\n");
		return -EINVAL;
	}
	int n = collect(argv[2], &c);
	if (n < 0)
		return n;
	unsigned k = disable_enablings(&c);
	kfree(c.probes);
	printk("probe: disabled %u enabling%s\n", k, k == 1 ? "" : "s");
	return 0;
}

static int probe_info(int argc, char **argv)
{
	char name[192], sym[96];
	uint64_t id;
	struct probe *p;

	if (argc != 3) {
		printk("probe: usage: probe info <id>\n");
		return -EINVAL;
	}
	if (parse_u64(argv[2], &id, false) || id > 0xffffffffu || !(p = probe_by_id((uint32_t)id))) {
		printk("probe: no probe with id %s; 'probe list' shows them\n", argv[2]);
		return -ENOENT;
	}
	mutex_lock(&shell_mutex);
	int64_t count = shell_count(p);
	mutex_unlock(&shell_mutex);
	printk("probe %u: %s, %u site%s, %u consumer%s", p->id, probe_fullname(p, name, sizeof(name)),
	       p->nsites, p->nsites == 1 ? "" : "s", p->nconsumers, p->nconsumers == 1 ? "" : "s");
	if (count >= 0)
		printk(", count %lld", (long long)count);
	printk("\n");
	for (uint32_t i = 0; i < p->nsites; i++) {
		struct probe_site_info info;
		probe_site_info(p->sites[i], &info);
		ksym_format(p->sites[i], sym, sizeof(sym));
		if (!info.present) {
			const char *why;
			int err = probe_check_address(p->sites[i], &why);
			printk("  0x%llx %-32s not patched%s%s\n", (unsigned long long)p->sites[i], sym,
			       err ? ": cannot be: " : "", err ? why : "");
			continue;
		}
		printk("  0x%llx %-32s %s probe, %u byte%s patched, patch at 0x%llx, %u consumer%s, "
		       "%llu hits in C, %llu missed\n", (unsigned long long)p->sites[i], sym,
		       probe_mechanism_name(info.mechanism), info.length, info.length == 1 ? "" : "s",
		       (unsigned long long)info.patch, info.consumers, info.consumers == 1 ? "" : "s",
		       (unsigned long long)info.hits, (unsigned long long)info.missed);
		if (info.why_not_jump)
			printk("    not a jump probe: %s\n", info.why_not_jump);
		if (info.springboard)
			printk("    through the springboard at 0x%llx (the patch is beyond the branch's "
			       "reach)\n", (unsigned long long)info.springboard);
	}
	return 0;
}

static int probe_clear(int argc, char **argv)
{
	(void)argv;
	if (argc != 2) {
		printk("probe: usage: probe clear\n");
		return -EINVAL;
	}
	unsigned n = disable_enablings(NULL);
	metric_clear();
	/* Anything another owner left enabled goes too; its owner sees c->probe == NULL. */
	probe_disable_all();
	struct probe_stats s;
	probe_get_stats(&s);
	printk("probe: cleared %u enabling%s and every metric; %u sites patched\n", n,
	       n == 1 ? "" : "s", s.sites);
	return 0;
}

/* `probe patches near|far`: where new patches go (far: through springboards). */
static int probe_patches(int argc, char **argv)
{
	bool far = argc == 3 && !strcmp(argv[2], "far");

	if (argc != 3 || (!far && strcmp(argv[2], "near"))) {
		printk("probe: usage: probe patches near|far\n");
		return -EINVAL;
	}
	if (far && !PATCH_FAR_CODE_SIZE) {
		printk("probe: this machine has no far patch arena (its jump reaches every patch)\n");
		return -ENOTSUP;
	}
	probe_set_far_patches(far);
	printk("probe: new patches go to the %s arena%s\n", far ? "far" : "near",
	       far ? ", their sites through springboards" : "");
	return 0;
}

static int cmd_probe(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} subs[] = {
		{ "list", probe_list }, { "enable", probe_enable_cmd },
		{ "disable", probe_disable_cmd }, { "info", probe_info }, { "clear", probe_clear },
		{ "patches", probe_patches },
	};

	for (size_t i = 0; argc >= 2 && i < ARRAY_SIZE(subs); i++)
		if (!strcmp(argv[1], subs[i].name))
			return subs[i].fn(argc, argv);
	printk("probe: usage: probe list|enable|disable|info|clear|patches ...\n");
	return -EINVAL;
}
SHELL_COMMAND(probe, "list|enable|disable|info|clear|patches ...",
	      "list, enable (count|hcount), disable, inspect or clear probes; where patches go",
	      cmd_probe);
