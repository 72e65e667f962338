// SPDX-License-Identifier: BSD-2-Clause
/*
 * The sdt provider: one probe per (enclosing function, name) of the sites
 * SDT_PROBE* compiled into the kernel (scion/sdt.h), taken from the
 * linker table table.sdt_sites. A site named "provider:name" (the
 * SDT_PROBE*_P forms) belongs to that provider instead of sdt. A site in
 * code that may not be probed (boot-only, or the probe machinery) gets
 * no probe, and says so. A probe with gated sites carries their gates
 * (struct probe's gates), which the registry opens while it is enabled.
 */
#include <scion/probe.h>
#include <scion/sdt.h>
#include <scion/symtab.h>
#include <scion/mm.h>
#include <scion/string.h>
#include <scion/sort.h>
#include <scion/printk.h>
#include <scion/textimage.h>
#include <scion/insn_summary.h>
#include "probe_internal.h"

/* thread__switch -> thread-switch */
static void display_name(const char *in, char *out, size_t size)
{
	size_t n = 0;
	while (*in && n + 1 < size) {
		if (in[0] == '_' && in[1] == '_') {
			out[n++] = '-';
			in += 2;
		} else {
			out[n++] = *in++;
		}
	}
	out[n] = '\0';
}

/* "monitor:redflag" -> provider "monitor", name "redflag"; "thread__switch" is sdt's. */
static const char *split_provider(const char *site_name, char *provider, size_t size)
{
	const char *colon = strchr(site_name, ':');
	size_t n = colon ? (size_t)(colon - site_name) : 0;

	if (!colon || n >= size) {
		strlcpy(provider, "sdt", size);
		return site_name;
	}
	memcpy(provider, site_name, n);
	provider[n] = '\0';
	return colon + 1;
}

static bool same_probe(const struct sdt_site *a, const struct sdt_site *b)
{
	return symtab_lookup_addr(&kernel_symtab, a->addr, NULL) ==
	       symtab_lookup_addr(&kernel_symtab, b->addr, NULL) && !strcmp(a->name, b->name);
}

/*
 * The sites' addresses, sorted: built at the first question (the boot's
 * analysis asks about every no-op of a site's length) and kept; racing
 * builders publish one copy. Without memory for it every such no-op is
 * taken for a site, which only keeps more registers live.
 */
static const uint64_t *sorted_site_addrs;

bool sdt_site_at(uint64_t addr)
{
	size_t n = LINKER_TABLE_COUNT(sdt_sites);
	const uint64_t *sorted = __atomic_load_n(&sorted_site_addrs, __ATOMIC_ACQUIRE);

	if (!sorted) {
		uint64_t *built = kmalloc((n ? n : 1) * sizeof(*built));
		if (!built)
			return true;	/* the safe answer: more registers live, never fewer */
		size_t i = 0;
		LINKER_TABLE_FOREACH(struct sdt_site, sdt_sites, s)
			built[i++] = s->addr;
		sort_u64(built, n);
		const uint64_t *none = NULL;
		if (__atomic_compare_exchange_n(&sorted_site_addrs, &none, built, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			sorted = built;
		} else {
			kfree(built);
			sorted = none;
		}
	}
	return addr && sorted_u64_any_between(sorted, n, addr - 1, addr + 1);
}

/*
 * Give p, the probe of site s and the sites like it, their ngates gates.
 * A probe that cannot have them is never enabled: a gate left shut would
 * keep its site from firing. Return value: false when out of memory.
 */
static bool attach_gates(struct probe *p, const struct sdt_site *s, uint32_t ngates)
{
	uint8_t **gates = kmalloc(ngates * sizeof(*gates));	/* probes are never freed */
	uint32_t n = 0;

	if (!gates) {
		p->nsites = 0;
		return false;
	}
	for (const struct sdt_site *e = s; e < __stop_table_sdt_sites; e++)
		if (e->gate && same_probe(e, s))
			gates[n++] = e->gate;
	p->gates = gates;
	p->ngates = n;
	return true;
}

static void sdt_provide(void)
{
	size_t n = LINKER_TABLE_COUNT(sdt_sites);
	uint64_t *sites = kmalloc((n ? n : 1) * sizeof(uint64_t));
	const char *why;
	char name[64], provider[32];

	if (!sites) {
		printk("sdt: out of memory; no sdt probes\n");
		return;
	}
	LINKER_TABLE_FOREACH(struct sdt_site, sdt_sites, s) {
		const struct ksym *sym = symtab_lookup_addr(&kernel_symtab, s->addr, NULL);
		bool first = true;
		for (const struct sdt_site *e = __start_table_sdt_sites; e < s; e++)
			first &= !same_probe(e, s);
		if (!first)
			continue;	/* already part of an earlier entry's probe */
		if (!sym || probe_check_address(s->addr, &why)) {
			printk("sdt: site %s at 0x%llx cannot be probed: %s\n", s->name,
			       (unsigned long long)s->addr, sym ? why : "in no function");
			continue;
		}
		struct insn_summary in;
		if (arch_insn_summarise(&in, text_image_bytes(s->addr), ARCH_SDT_SITE_LEN, s->addr) ||
		    in.length != ARCH_SDT_SITE_LEN) {
			printk("sdt: site %s at %s is not the %u-byte no-op the macro writes; "
			       "no probe\n", s->name, ksym_format(s->addr, name, sizeof(name)),
			       ARCH_SDT_SITE_LEN);
			continue;
		}
		uint32_t k = 0, ngates = 0;
		for (const struct sdt_site *e = s; e < __stop_table_sdt_sites; e++) {
			if (same_probe(e, s)) {
				sites[k++] = e->addr;
				ngates += e->gate != NULL;
			}
		}
		display_name(split_provider(s->name, provider, sizeof(provider)), name,
			     sizeof(name));
		struct probe *p = probe_create(provider, "kernel", ksym_name(&kernel_symtab, sym),
					       name, sites, k);
		if (!p || (ngates && !attach_gates(p, s, ngates)))
			printk("sdt: out of memory for %s\n", name);
	}
	kfree(sites);
}

PROBE_PROVIDER(sdt_provider, "sdt", sdt_provide, NULL);
