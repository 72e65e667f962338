// SPDX-License-Identifier: BSD-2-Clause
/*
 * The graft ELF loader (interface in elf_load.h): the file header, the
 * section table, the layout of allocated sections into three regions,
 * and the manifest. Symbols and relocations are in elf_reloc.c.
 *
 * A load runs in two halves. The first reads only the file: header,
 * section table (every name inside the name table, every section's
 * bytes inside the file, no two loaded sections overlapping), symbol
 * table, relocation records, and the layout with its size limit. Only
 * then is memory allocated, so a malformed or oversized file costs
 * none. The second half copies the sections, applies relocations
 * (checking each result fits its field) and checks the manifest as
 * loaded, since relocations write into it.
 *
 * Every read of the file goes through a range checked in the first half
 * with overflow-safe arithmetic (off <= size && len <= size - off), and
 * every write lands inside a section laid out inside its region.
 *
 * Software fault isolation slots in after this loader: graft_elf_load
 * returns with the image relocated but every region still writable and
 * not executable; its caller runs the verifier over TEXT (the arch
 * decoder: stores and indirect branches confined to the graft's regions
 * and exported entry points) and only if the code verifies maps TEXT
 * executable and RODATA read-only.
 */
#include <stdarg.h>
#include <scion/errno.h>
#include <scion/format.h>
#include <scion/string.h>
#include <arch/elf.h>
#include "elf_load_internal.h"

#define KIB 1024

/* The loader reads records in place: the machine's objects are in the kernel's byte order. */
_Static_assert((ARCH_ELF_DATA == ELF_DATA_LSB) == (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__),
	       "graft objects must have the kernel's byte order");

static const uint8_t elf_magic[] = { 0x7f, 'E', 'L', 'F' };
static const char *const region_names[GRAFT_REGIONS] = { "text", "rodata", "data" };

int elf_fail(struct elf_loader *ld, int rc, const char *fmt, ...)
{
	va_list ap;

	if (!ld->err || !ld->errlen)
		return rc;
	va_start(ap, fmt);
	vsnprintf(ld->err, ld->errlen, fmt, ap);
	va_end(ap);
	for (char *p = ld->err; *p; p++)
		if (!elf_printable(*p))
			*p = '?';
	return rc;
}

void elf_section(const struct elf_loader *ld, unsigned index, struct elf64_section *out)
{
	memcpy(out, ld->file + ld->shoff + (size_t)index * sizeof(*out), sizeof(*out));
}

const char *elf_section_name(const struct elf_loader *ld, unsigned index)
{
	struct elf64_section sh;

	elf_section(ld, index, &sh);
	return (const char *)ld->file + ld->shstrtab_offset + sh.name;
}

const char *elf_quote(const char *s, size_t max, char buf[ELF_QUOTE_MAX])
{
	static const char ellipsis[] = "...";
	size_t len = strnlen(s, max);
	size_t keep = len < ELF_QUOTE_MAX ? len : ELF_QUOTE_MAX - sizeof(ellipsis);

	for (size_t i = 0; i < keep; i++)
		buf[i] = elf_printable(s[i]) ? s[i] : '?';
	if (keep < len)
		memcpy(buf + keep, ellipsis, sizeof(ellipsis));
	else
		buf[keep] = '\0';
	return buf;
}

const char *elf_section_label(const struct elf_loader *ld, unsigned index, char buf[ELF_LABEL_MAX])
{
	char name[ELF_QUOTE_MAX];

	if (!ld->names_checked || index >= ld->shnum)
		snprintf(buf, ELF_LABEL_MAX, "section %u", index);
	else
		snprintf(buf, ELF_LABEL_MAX, "section %u (%s)", index,
			 elf_quote(elf_section_name(ld, index), ELF_QUOTE_MAX, name));
	return buf;
}

static bool in_file(const struct elf_loader *ld, uint64_t offset, uint64_t len)
{
	return offset <= ld->size && len <= ld->size - offset;
}

static int check_header(struct elf_loader *ld)
{
	struct elf64_header eh;

	if (ld->size < sizeof(eh))
		return elf_fail(ld, -ENOEXEC, "file of %zu bytes is shorter than an ELF header (%zu bytes)",
				ld->size, sizeof(eh));
	memcpy(&eh, ld->file, sizeof(eh));
	if (memcmp(eh.ident, elf_magic, sizeof(elf_magic)))
		return elf_fail(ld, -ENOEXEC, "not an ELF file (bad magic bytes)");
	if (eh.ident[ELF_IDENT_CLASS] != ELF_CLASS_64)
		return elf_fail(ld, -ENOEXEC, "ELF class %u is not ELFCLASS64: a graft is a 64-bit object",
				eh.ident[ELF_IDENT_CLASS]);
	if (eh.ident[ELF_IDENT_DATA] != ARCH_ELF_DATA)
		return elf_fail(ld, -ENOEXEC, "ELF data encoding %u is not " ARCH_ELF_DATA_NAME,
				eh.ident[ELF_IDENT_DATA]);
	if (eh.ident[ELF_IDENT_VERSION] != ELF_VERSION_CURRENT || eh.version != ELF_VERSION_CURRENT)
		return elf_fail(ld, -ENOEXEC, "ELF version %u/%u is not %u", eh.ident[ELF_IDENT_VERSION],
				eh.version, ELF_VERSION_CURRENT);
	if (eh.type != ELF_TYPE_REL)
		return elf_fail(ld, -ENOEXEC,
				"ELF type %u is not a relocatable object (ET_REL): "
				"compile the graft with -c, do not link it",
				eh.type);
	if (eh.machine != ARCH_ELF_MACHINE)
		return elf_fail(ld, -ENOEXEC, "ELF machine %u is not " ARCH_ELF_MACHINE_NAME " (%u)",
				eh.machine, ARCH_ELF_MACHINE);
	if (eh.ehsize != sizeof(eh))
		return elf_fail(ld, -ENOEXEC, "ELF header size %u, expected %zu", eh.ehsize, sizeof(eh));
	if (eh.shentsize != sizeof(struct elf64_section))
		return elf_fail(ld, -ENOEXEC, "section header size %u, expected %zu", eh.shentsize,
				sizeof(struct elf64_section));
	if (eh.shnum == 0)
		return elf_fail(ld, -ENOEXEC, "no section header table (e_shnum is 0)");
	if (eh.shnum > GRAFT_ELF_MAX_SECTIONS)
		return elf_fail(ld, -EFBIG, "%u sections; a graft may have at most %u", eh.shnum,
				GRAFT_ELF_MAX_SECTIONS);
	if (!in_file(ld, eh.shoff, (uint64_t)eh.shnum * sizeof(struct elf64_section)))
		return elf_fail(ld, -ENOEXEC,
				"section header table (offset 0x%llx, %u entries of %zu bytes) "
				"lies outside the file (size 0x%zx)", (unsigned long long)eh.shoff,
				eh.shnum, sizeof(struct elf64_section), ld->size);
	if (eh.shstrndx == SHN_UNDEF || eh.shstrndx >= eh.shnum)
		return elf_fail(ld, -ENOEXEC, "section name table index %u is not a section (the file has %u)",
				eh.shstrndx, eh.shnum);
	ld->shoff = (size_t)eh.shoff;
	ld->shnum = eh.shnum;
	ld->shstrndx = eh.shstrndx;
	return 0;
}

/* Every section's name lies in the name table and ends there. */
static int check_section_names(struct elf_loader *ld)
{
	struct elf64_section names, sh;

	elf_section(ld, ld->shstrndx, &names);
	if (names.type != SHT_STRTAB)
		return elf_fail(ld, -ENOEXEC, "section name table (section %u) has type %u, not SHT_STRTAB",
				ld->shstrndx, names.type);
	if (!in_file(ld, names.offset, names.size))
		return elf_fail(ld, -ENOEXEC,
				"section name table (section %u): offset 0x%llx + size 0x%llx "
				"lies outside the file (size 0x%zx)",
				ld->shstrndx, (unsigned long long)names.offset,
				(unsigned long long)names.size, ld->size);
	for (unsigned i = 0; i < ld->shnum; i++) {
		elf_section(ld, i, &sh);
		if (sh.name >= names.size)
			return elf_fail(ld, -ENOEXEC,
					"section %u: name offset 0x%x lies outside the section name "
					"table (size 0x%llx)",
					i, sh.name, (unsigned long long)names.size);
		size_t room = (size_t)(names.size - sh.name);
		if (strnlen((const char *)ld->file + names.offset + sh.name, room) == room)
			return elf_fail(ld, -ENOEXEC, "section %u: name is not NUL-terminated", i);
	}
	ld->shstrtab_offset = (size_t)names.offset;
	ld->names_checked = true;
	return 0;
}

static enum graft_region region_for(uint64_t flags)
{
	if (flags & SHF_EXECINSTR)
		return GRAFT_REGION_TEXT;
	if (flags & SHF_WRITE)
		return GRAFT_REGION_DATA;
	return GRAFT_REGION_RODATA;
}

static bool power_of_two(uint64_t x)
{
	return x && !(x & (x - 1));
}

/* One section's range, type and flags; marks the sections to load. */
static int check_section(struct elf_loader *ld, unsigned i)
{
	struct elf64_section sh;
	char label[ELF_LABEL_MAX];

	elf_section(ld, i, &sh);
	if (sh.type == SHT_NULL)
		return 0;
	elf_section_label(ld, i, label);
	if (sh.type != SHT_NOBITS && !in_file(ld, sh.offset, sh.size))
		return elf_fail(ld, -ENOEXEC,
				"%s: offset 0x%llx + size 0x%llx lies outside the file (size 0x%zx)", label,
				(unsigned long long)sh.offset, (unsigned long long)sh.size, ld->size);
	if (sh.type == SHT_REL)
		return elf_fail(ld, -ENOEXEC,
				"%s: SHT_REL relocations are not supported (" ARCH_ELF_MACHINE_NAME
				" objects use SHT_RELA)", label);
	if (sh.type == SHT_SYMTAB_SHNDX)
		return elf_fail(ld, -ENOEXEC, "%s: extended section indexes (SHT_SYMTAB_SHNDX) are not supported",
				label);
	if (!strcmp(elf_section_name(ld, i), GRAFT_SFI_NOTE))
		ld->out->sfi_note = true;
	if (!(sh.flags & SHF_ALLOC) || sh.type == SHT_NOTE)
		return 0;	/* not loaded: debug info, comments, notes, groups, tables */
	if (sh.type != SHT_PROGBITS && sh.type != SHT_NOBITS && sh.type != ARCH_ELF_SHT_UNWIND)
		return elf_fail(ld, -ENOEXEC, "%s: allocated section of type 0x%x is not supported in a graft",
				label, sh.type);
	if (sh.flags & SHF_TLS)
		return elf_fail(ld, -ENOEXEC, "%s: thread-local storage is not supported in a graft", label);
	if ((sh.flags & SHF_WRITE) && (sh.flags & SHF_EXECINSTR))
		return elf_fail(ld, -ENOEXEC, "%s: both writable and executable; graft code may not be writable",
				label);
	if (sh.addralign > GRAFT_REGION_ALIGN || (sh.addralign > 1 && !power_of_two(sh.addralign)))
		return elf_fail(ld, -ENOEXEC, "%s: alignment 0x%llx is not a power of two up to 0x%x", label,
				(unsigned long long)sh.addralign, GRAFT_REGION_ALIGN);
	if (sh.size > GRAFT_IMAGE_MAX)
		return elf_fail(ld, -EFBIG, "%s: size 0x%llx exceeds the graft size limit (%u KiB)", label,
				(unsigned long long)sh.size, GRAFT_IMAGE_MAX / KIB);
	ld->section_region[i] = (uint8_t)region_for(sh.flags);
	return 0;
}

/* No two loaded sections with contents share bytes of the file. */
static int check_overlaps(struct elf_loader *ld)
{
	struct elf64_section a, b;
	char label_a[ELF_LABEL_MAX], label_b[ELF_LABEL_MAX];

	for (unsigned i = 1; i < ld->shnum; i++) {
		elf_section(ld, i, &a);
		if (ld->section_region[i] == ELF_NOT_LOADED || a.type == SHT_NOBITS || !a.size)
			continue;
		for (unsigned j = i + 1; j < ld->shnum; j++) {
			elf_section(ld, j, &b);
			if (ld->section_region[j] == ELF_NOT_LOADED || b.type == SHT_NOBITS || !b.size)
				continue;
			if (a.offset < b.offset + b.size && b.offset < a.offset + a.size)
				return elf_fail(ld, -ENOEXEC, "%s and %s overlap in the file",
						elf_section_label(ld, i, label_a),
						elf_section_label(ld, j, label_b));
		}
	}
	return 0;
}

static int check_sections(struct elf_loader *ld)
{
	int rc = check_section_names(ld);

	for (unsigned i = 1; i < ld->shnum && !rc; i++)
		rc = check_section(ld, i);
	return rc ? rc : check_overlaps(ld);
}

/* Exactly one symbol table, with a string table; its size in symbols. */
static int find_symbol_table(struct elf_loader *ld)
{
	struct elf64_section sh, strings;
	char label[ELF_LABEL_MAX];

	for (unsigned i = 1; i < ld->shnum; i++) {
		elf_section(ld, i, &sh);
		if (sh.type != SHT_SYMTAB)
			continue;
		if (ld->symtab)
			return elf_fail(ld, -ENOEXEC, "more than one symbol table (sections %u and %u)",
					ld->symtab, i);
		ld->symtab = i;
	}
	if (!ld->symtab)
		return elf_fail(ld, -ENOEXEC, "no symbol table (SHT_SYMTAB): do not strip the graft's symbols");
	elf_section(ld, ld->symtab, &sh);
	elf_section_label(ld, ld->symtab, label);
	if (sh.entsize != sizeof(struct elf64_symbol))
		return elf_fail(ld, -ENOEXEC, "%s: symbol size %llu, expected %zu", label,
				(unsigned long long)sh.entsize, sizeof(struct elf64_symbol));
	if (sh.size % sizeof(struct elf64_symbol) || !sh.size)
		return elf_fail(ld, -ENOEXEC, "%s: size 0x%llx is not a non-zero multiple of the symbol size",
				label, (unsigned long long)sh.size);
	if (sh.link == SHN_UNDEF || sh.link >= ld->shnum)
		return elf_fail(ld, -ENOEXEC, "%s: string table index %u is not a section", label, sh.link);
	elf_section(ld, sh.link, &strings);
	if (strings.type != SHT_STRTAB)
		return elf_fail(ld, -ENOEXEC, "%s: its string table, section %u, has type %u, not SHT_STRTAB",
				label, sh.link, strings.type);
	ld->strtab = sh.link;
	ld->nsyms = (size_t)(sh.size / sizeof(struct elf64_symbol));
	return 0;
}

/* Exactly one manifest section, loadable, of the manifest's size. */
static int find_manifest(struct elf_loader *ld)
{
	struct elf64_section sh;
	char label[ELF_LABEL_MAX];

	for (unsigned i = 1; i < ld->shnum; i++) {
		if (strcmp(elf_section_name(ld, i), GRAFT_MANIFEST_SECTION))
			continue;
		if (ld->manifest)
			return elf_fail(ld, -ENOEXEC, "more than one %s section (sections %u and %u)",
					GRAFT_MANIFEST_SECTION, ld->manifest, i);
		ld->manifest = i;
	}
	if (!ld->manifest)
		return elf_fail(ld, -ENOEXEC, "no %s section: declare the graft with GRAFT_METHOD or GRAFT_EVENT",
				GRAFT_MANIFEST_SECTION);
	elf_section(ld, ld->manifest, &sh);
	elf_section_label(ld, ld->manifest, label);
	if (sh.type != SHT_PROGBITS || ld->section_region[ld->manifest] == ELF_NOT_LOADED)
		return elf_fail(ld, -ENOEXEC, "%s: the manifest must be allocated data (SHT_PROGBITS, SHF_ALLOC)",
				label);
	if (sh.size != sizeof(struct graft_manifest))
		return elf_fail(ld, -ENOEXEC, "%s: size 0x%llx, expected 0x%zx (struct graft_manifest)", label,
				(unsigned long long)sh.size, sizeof(struct graft_manifest));
	if (sh.addralign < _Alignof(struct graft_manifest))
		return elf_fail(ld, -ENOEXEC, "%s: alignment %llu, expected at least %zu", label,
				(unsigned long long)sh.addralign, _Alignof(struct graft_manifest));
	return 0;
}

/*
 * Place each loaded section at its alignment after the previous one of
 * its region, in section order; refuse a graft over GRAFT_IMAGE_MAX.
 * Sizes were bounded by check_section, so nothing here can overflow.
 */
static int lay_out(struct elf_loader *ld)
{
	struct elf64_section sh;
	uint64_t total = 0;

	for (unsigned i = 1; i < ld->shnum; i++) {
		unsigned r = ld->section_region[i];
		if (r == ELF_NOT_LOADED)
			continue;
		elf_section(ld, i, &sh);
		uint64_t offset = ALIGN_UP(ld->region_used[r], sh.addralign > 1 ? sh.addralign : 1);
		if (offset + sh.size > GRAFT_IMAGE_MAX)
			return elf_fail(ld, -EFBIG, "the graft's %s exceeds the graft size limit (%u KiB)",
					region_names[r], GRAFT_IMAGE_MAX / KIB);
		ld->section_offset[i] = (uint32_t)offset;
		ld->region_used[r] = offset + sh.size;
	}
	for (unsigned r = 0; r < GRAFT_REGIONS; r++)
		total += ALIGN_UP(ld->region_used[r], (uint64_t)GRAFT_REGION_ALIGN);
	if (total > GRAFT_IMAGE_MAX)
		return elf_fail(ld, -EFBIG,
				"the graft needs %llu KiB (text 0x%llx, rodata 0x%llx, data 0x%llx bytes); "
				"the limit is %u KiB",
				(unsigned long long)(total / KIB),
				(unsigned long long)ld->region_used[GRAFT_REGION_TEXT],
				(unsigned long long)ld->region_used[GRAFT_REGION_RODATA],
				(unsigned long long)ld->region_used[GRAFT_REGION_DATA], GRAFT_IMAGE_MAX / KIB);
	return 0;
}

/* One ops->alloc per region with contents; out names each at once. */
static int allocate_regions(struct elf_loader *ld)
{
	for (unsigned r = 0; r < GRAFT_REGIONS; r++) {
		if (!ld->region_used[r])
			continue;
		size_t size = (size_t)ALIGN_UP(ld->region_used[r], (uint64_t)GRAFT_REGION_ALIGN);
		uint8_t *base = ld->ops->alloc(ld->ctx, (enum graft_region)r, size);
		if (!base)
			return elf_fail(ld, -ENOMEM, "out of memory for the graft's %s (%zu bytes)",
					region_names[r], size);
		ld->out->region[r] = base;
		ld->out->region_size[r] = size;
		if ((uintptr_t)base % GRAFT_REGION_ALIGN)
			return elf_fail(ld, -EINVAL, "ops->alloc returned %s at %p, not %u-byte aligned",
					region_names[r], (void *)base, GRAFT_REGION_ALIGN);
		ld->region_base[r] = base;
	}
	return 0;
}

/* Section contents into their regions; SHT_NOBITS stays as alloc zeroed it. */
static void copy_sections(struct elf_loader *ld)
{
	struct elf64_section sh;

	for (unsigned i = 1; i < ld->shnum; i++) {
		unsigned r = ld->section_region[i];
		if (r == ELF_NOT_LOADED)
			continue;
		elf_section(ld, i, &sh);
		if (sh.type != SHT_NOBITS && sh.size)
			memcpy(ld->region_base[r] + ld->section_offset[i], ld->file + sh.offset,
			       (size_t)sh.size);
	}
}

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/* A manifest string: terminated inside its array, non-empty, printable. */
static int check_manifest_string(struct elf_loader *ld, const char *what, const char *s, size_t max,
				 bool graft_name)
{
	char quoted[ELF_QUOTE_MAX];
	size_t len = strnlen(s, max);

	if (len == max)
		return elf_fail(ld, -ENOEXEC, "manifest %s is not NUL-terminated", what);
	if (len == 0)
		return elf_fail(ld, -ENOEXEC, "manifest %s is empty", what);
	for (size_t i = 0; i < len; i++) {
		if (graft_name && !name_char(s[i]))
			return elf_fail(ld, -ENOEXEC, "manifest %s '%s' has a character outside [a-z0-9_-]", what,
					elf_quote(s, max, quoted));
		if (!elf_printable(s[i]))
			return elf_fail(ld, -ENOEXEC, "manifest %s '%s' has a non-printable character", what,
					elf_quote(s, max, quoted));
	}
	return 0;
}

/* The manifest as loaded (after relocation): fields, strings, entry. */
static int check_manifest(struct elf_loader *ld)
{
	unsigned r = ld->section_region[ld->manifest];
	const struct graft_manifest *m =
		(const struct graft_manifest *)(ld->region_base[r] + ld->section_offset[ld->manifest]);
	uint64_t text = (uintptr_t)ld->region_base[GRAFT_REGION_TEXT];
	int rc;

	if (m->magic != GRAFT_MANIFEST_MAGIC)
		return elf_fail(ld, -ENOEXEC, "manifest magic 0x%08x is not 0x%08x (\"GRFT\")", m->magic,
				GRAFT_MANIFEST_MAGIC);
	if (m->abi != GRAFT_ABI_VERSION)
		return elf_fail(ld, -ENOEXEC,
				"manifest ABI version %u does not match the kernel's graft ABI version %u: "
				"rebuild the graft against this kernel's headers",
				m->abi, GRAFT_ABI_VERSION);
	if (m->reserved)
		return elf_fail(ld, -ENOEXEC, "manifest reserved field is 0x%x; it must be 0", m->reserved);
	rc = check_manifest_string(ld, "name", m->name, sizeof(m->name), true);
	if (!rc)
		rc = check_manifest_string(ld, "point", m->point, sizeof(m->point), false);
	if (!rc)
		rc = check_manifest_string(ld, "signature", m->signature, sizeof(m->signature), false);
	if (rc)
		return rc;
	if (!text || m->entry < text || m->entry - text >= ld->region_used[GRAFT_REGION_TEXT])
		return elf_fail(ld, -ENOEXEC,
				"manifest entry 0x%llx does not lie in the graft's text (0x%llx, 0x%llx bytes)",
				(unsigned long long)m->entry, (unsigned long long)text,
				(unsigned long long)ld->region_used[GRAFT_REGION_TEXT]);
	ld->out->manifest = m;
	ld->out->entry = m->entry;
	return 0;
}

int graft_elf_load(const void *file, size_t size, const struct graft_load_ops *ops, void *ctx,
		   struct graft_image *out, char *err, size_t errlen)
{
	struct elf_loader ld = {
		.file = file, .size = size, .ops = ops, .ctx = ctx,
		.err = err, .errlen = errlen, .out = out,
	};
	int rc;

	if (err && errlen)
		err[0] = '\0';
	if (!out || !ops || !ops->alloc || !ops->resolve || (!file && size))
		return elf_fail(&ld, -EINVAL, "graft_elf_load: missing file, ops or result");
	memset(out, 0, sizeof(*out));
	memset(ld.section_region, ELF_NOT_LOADED, sizeof(ld.section_region));

	rc = check_header(&ld);
	if (!rc)
		rc = check_sections(&ld);
	if (!rc)
		rc = find_symbol_table(&ld);
	if (!rc)
		rc = find_manifest(&ld);
	if (!rc)
		rc = lay_out(&ld);
	if (!rc)
		rc = elf_check_symbols(&ld);
	if (!rc)
		rc = elf_relocate(&ld, false);
	if (!rc)
		rc = allocate_regions(&ld);
	if (rc)
		return rc;
	copy_sections(&ld);
	rc = elf_relocate(&ld, true);
	if (!rc)
		rc = check_manifest(&ld);
	return rc;
}
