// SPDX-License-Identifier: BSD-2-Clause
/*
 * ACPI tables, read once at boot while the boot page tables still map the
 * first 4 GiB: the MADT (CPUs, I/O APICs, ISA overrides) and the FADT
 * with the \_S5 sleep type from the DSDT (power off).
 *
 * The tables are firmware input: checksums and lengths are verified and a
 * table that fails is reported and skipped.
 */
#include <scion/boot.h>
#include <scion/printk.h>
#include <scion/string.h>
#include <scion/compiler.h>
#include <arch/mmu.h>
#include "x86_internal.h"

#define ACPI_TABLE_MAX    (1u << 20)
#define BOOT_MAPPED_LIMIT (4ull << 30)

struct rsdp {
	char signature[8];
	uint8_t checksum;
	char oem_id[6];
	uint8_t revision;
	uint32_t rsdt;
	uint32_t length;
	uint64_t xsdt;
	uint8_t extended_checksum;
	uint8_t reserved[3];
} __packed;

struct sdt_header {
	char signature[4];
	uint32_t length;
	uint8_t revision;
	uint8_t checksum;
	char oem_id[6];
	char oem_table_id[8];
	uint32_t oem_revision;
	uint32_t creator_id;
	uint32_t creator_revision;
} __packed;

enum {
	MADT_LOCAL_APIC = 0,
	MADT_IO_APIC = 1,
	MADT_OVERRIDE = 2,
	MADT_LAPIC_ADDRESS = 5,
};

#define MADT_CPU_ENABLED 0x1
#define FADT_DSDT_OFFSET 40
#define FADT_PM1A_CNT_OFFSET 64
#define FADT_PM1B_CNT_OFFSET 68
#define FADT_X_DSDT_OFFSET 140
#define AML_NAME_OP 0x08
#define AML_PACKAGE_OP 0x12
#define AML_BYTE_PREFIX 0x0a
#define AML_ONE_OP 0x01

struct acpi_info acpi;

static uint8_t sum_bytes(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint8_t s = 0;

	while (n--)
		s += *b++;
	return s;
}

/* A table header at phys, checked; NULL (with a message) if it is unusable. */
static const struct sdt_header *map_table(uint64_t phys)
{
	if (phys == 0 || phys + sizeof(struct sdt_header) > BOOT_MAPPED_LIMIT)
		return NULL;
	const struct sdt_header *h = phys_to_virt(phys);
	if (h->length < sizeof(*h) || h->length > ACPI_TABLE_MAX ||
	    phys + h->length > BOOT_MAPPED_LIMIT) {
		printk("acpi: table at 0x%llx has a bad length %u; skipped\n",
		       (unsigned long long)phys, h->length);
		return NULL;
	}
	if (sum_bytes(h, h->length) != 0) {
		printk("acpi: table %.4s at 0x%llx fails its checksum; skipped\n", h->signature,
		       (unsigned long long)phys);
		return NULL;
	}
	return h;
}

static const struct rsdp *find_rsdp_in(uint64_t start, uint64_t end)
{
	for (uint64_t p = start; p + 20 <= end; p += 16) {
		const struct rsdp *r = phys_to_virt(p);
		if (!memcmp(r->signature, "RSD PTR ", 8) && sum_bytes(r, 20) == 0)
			return r;
	}
	return NULL;
}

static const struct rsdp *find_rsdp(void)
{
	if (boot_info.have_rsdp) {
		const struct rsdp *r = (const void *)boot_info.rsdp;
		if (!memcmp(r->signature, "RSD PTR ", 8) && sum_bytes(r, 20) == 0)
			return r;
		printk("acpi: the boot loader's RSDP copy is invalid; searching memory\n");
	}
	uint64_t ebda = (uint64_t)*(const uint16_t *)phys_to_virt(0x40e) << 4;
	const struct rsdp *r = NULL;
	if (ebda >= 0x80000 && ebda < 0xa0000)
		r = find_rsdp_in(ebda, ebda + 1024);
	return r ? r : find_rsdp_in(0xe0000, 0x100000);
}

static void parse_madt(const struct sdt_header *h)
{
	const uint8_t *p = (const uint8_t *)h;
	uint32_t off = sizeof(*h) + 8;

	acpi.lapic_phys = *(const uint32_t *)(p + sizeof(*h));
	while (off + 2 <= h->length) {
		uint8_t type = p[off], len = p[off + 1];
		const uint8_t *e = p + off;

		if (len < 2 || off + len > h->length) {
			printk("acpi: MADT entry at offset %u has a bad length %u; rest ignored\n",
			       off, len);
			break;
		}
		if (type == MADT_LOCAL_APIC && len >= 8) {
			uint32_t flags = *(const uint32_t *)(e + 4);
			if (flags & MADT_CPU_ENABLED) {
				if (acpi.ncpus < ARCH_MAX_CPUS)
					acpi.apic_ids[acpi.ncpus++] = e[3];
				else
					acpi.cpus_beyond_max++;
			}
		} else if (type == MADT_IO_APIC && len >= 12 && acpi.nioapics < ACPI_MAX_IOAPICS) {
			acpi.ioapics[acpi.nioapics++] = (struct acpi_ioapic){
				.id = e[2],
				.phys = *(const uint32_t *)(e + 4),
				.gsi_base = *(const uint32_t *)(e + 8),
			};
		} else if (type == MADT_OVERRIDE && len >= 10 &&
			   acpi.noverrides < ACPI_MAX_OVERRIDES) {
			acpi.overrides[acpi.noverrides++] = (struct acpi_override){
				.isa_irq = e[3],
				.gsi = *(const uint32_t *)(e + 4),
				.flags = *(const uint16_t *)(e + 8),
			};
		} else if (type == MADT_LAPIC_ADDRESS && len >= 12) {
			acpi.lapic_phys = *(const uint64_t *)(e + 4);
		}
		off += len;
	}
}

/* One AML data object of a package: ZeroOp, OneOp, or BytePrefix n. */
static bool aml_small_int(const uint8_t **p, const uint8_t *end, uint8_t *v)
{
	if (*p >= end)
		return false;
	if (**p == AML_BYTE_PREFIX) {
		if (*p + 1 >= end)
			return false;
		*v = (*p)[1];
		*p += 2;
		return true;
	}
	if (**p == 0 || **p == AML_ONE_OP) {
		*v = **p;
		*p += 1;
		return true;
	}
	return false;
}

/* Find Name(_S5, Package(){a, b, ...}) in the DSDT: its first two values are SLP_TYPa/b. */
static void parse_s5(const struct sdt_header *dsdt)
{
	const uint8_t *p = (const uint8_t *)dsdt + sizeof(*dsdt);
	const uint8_t *end = (const uint8_t *)dsdt + dsdt->length;

	for (; p + 8 < end; p++) {
		if (memcmp(p, "_S5_", 4) != 0 || p[4] != AML_PACKAGE_OP)
			continue;
		if (p[-1] != AML_NAME_OP && !(p[-1] == '\\' && p[-2] == AML_NAME_OP))
			continue;
		const uint8_t *q = p + 5;
		q += 1 + (*q >> 6);	/* PkgLength: 1 + (bits 7:6) bytes */
		q += 1;			/* NumElements */
		if (aml_small_int(&q, end, &acpi.s5_typa) && aml_small_int(&q, end, &acpi.s5_typb))
			acpi.have_s5 = true;
		return;
	}
}

static void parse_fadt(const struct sdt_header *h)
{
	const uint8_t *p = (const uint8_t *)h;
	uint64_t dsdt = 0;

	if (h->length >= FADT_PM1B_CNT_OFFSET + 4) {
		acpi.pm1a_cnt = *(const uint32_t *)(p + FADT_PM1A_CNT_OFFSET);
		acpi.pm1b_cnt = *(const uint32_t *)(p + FADT_PM1B_CNT_OFFSET);
		dsdt = *(const uint32_t *)(p + FADT_DSDT_OFFSET);
	}
	if (h->length >= FADT_X_DSDT_OFFSET + 8 && *(const uint64_t *)(p + FADT_X_DSDT_OFFSET))
		dsdt = *(const uint64_t *)(p + FADT_X_DSDT_OFFSET);
	const struct sdt_header *d = map_table(dsdt);
	if (d)
		parse_s5(d);
}

static void visit_table(uint64_t phys)
{
	const struct sdt_header *h = map_table(phys);

	if (!h)
		return;
	if (!memcmp(h->signature, "APIC", 4))
		parse_madt(h);
	else if (!memcmp(h->signature, "FACP", 4))
		parse_fadt(h);
}

__init void acpi_init(void)
{
	const struct rsdp *r = find_rsdp();

	if (!r) {
		printk("acpi: no RSDP found; running on one CPU without ACPI power-off\n");
		return;
	}
	memcpy(acpi.oem_id, r->oem_id, 6);
	bool use_xsdt = r->revision >= 2 && r->xsdt != 0;
	const struct sdt_header *root = map_table(use_xsdt ? r->xsdt : r->rsdt);
	if (!root) {
		printk("acpi: root table unusable; running on one CPU\n");
		return;
	}
	acpi.present = true;
	size_t entry_size = use_xsdt ? 8 : 4;
	size_t n = (root->length - sizeof(*root)) / entry_size;
	const uint8_t *entries = (const uint8_t *)(root + 1);
	for (size_t i = 0; i < n; i++) {
		uint64_t phys = use_xsdt ? *(const uint64_t *)(entries + i * 8) :
					   *(const uint32_t *)(entries + i * 4);
		visit_table(phys);
	}
	if (acpi.cpus_beyond_max)
		printk("acpi: %u CPUs beyond the %u Scion supports are left off\n",
		       acpi.cpus_beyond_max, ARCH_MAX_CPUS);
}
