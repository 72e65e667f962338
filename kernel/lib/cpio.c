// SPDX-License-Identifier: BSD-2-Clause
/*
 * The newc cpio parser (scion/cpio.h lists what it accepts, skips and
 * refuses). A border: the archive is a boot module anyone can hand the
 * kernel, so every length is checked against what is left before it is
 * used (never an addition that could wrap), every field is read as
 * exactly 8 hex digits, and a refusal is one line naming the entry's
 * offset and what is wrong. Portable: built into the kernel, the host
 * unit tests (tests/host/test_cpio.c) and a libFuzzer target
 * (tests/fuzz/fuzz_cpio.c). No state, no locks, nothing allocated.
 */
#include <stdarg.h>
#include <scion/cpio.h>
#include <scion/errno.h>
#include <scion/format.h>
#include <scion/string.h>

enum cpio_field {
	F_INO, F_MODE, F_UID, F_GID, F_NLINK, F_MTIME, F_FILESIZE, F_DEVMAJOR, F_DEVMINOR,
	F_RDEVMAJOR, F_RDEVMINOR, F_NAMESIZE, F_CHECK, F_COUNT
};

static const char *const field_names[F_COUNT] = {
	"ino", "mode", "uid", "gid", "nlink", "mtime", "filesize", "devmajor", "devminor",
	"rdevmajor", "rdevminor", "namesize", "check",
};

#define MAGIC_LEN 6
#define FIELD_LEN 8
#define MODE_KNOWN_BITS (CPIO_S_IFMT | 07777)

/* One line "cpio: offset N: ..." into msg; returns -EINVAL. */
static int __printf(4, 5) refuse(char *msg, size_t msglen, size_t offset, const char *fmt, ...)
{
	va_list ap;

	if (!msg || !msglen)
		return -EINVAL;
	int n = snprintf(msg, msglen, "cpio: offset %zu: ", offset);
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < msglen)
		vsnprintf(msg + n, msglen - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

const char *cpio_type_name(uint32_t mode)
{
	switch (mode & CPIO_S_IFMT) {
	case CPIO_S_IFREG: return "regular file";
	case CPIO_S_IFDIR: return "directory";
	case CPIO_S_IFLNK: return "symbolic link";
	case CPIO_S_IFCHR: return "character device";
	case CPIO_S_IFBLK: return "block device";
	case CPIO_S_IFIFO: return "FIFO";
	case CPIO_S_IFSOCK: return "socket";
	default: return "unknown type";
	}
}

/* Exactly 8 hex digits (either case) at p into *out; false if any is not one. */
static bool parse_hex8(const uint8_t *p, uint32_t *out)
{
	uint32_t v = 0;
	for (int i = 0; i < FIELD_LEN; i++) {
		uint8_t c = p[i];
		uint32_t d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return false;
		v = v << 4 | d;
	}
	*out = v;
	return true;
}

/* The number of bytes from off to the next multiple of 4. */
static size_t pad4(size_t off)
{
	return (4 - (off & 3)) & 3;
}

static bool bytes_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/*
 * Check a name's bytes (n of them, no NUL) and drop its leading "./"s:
 * *start and *len become the normalized name ("" for the root). NULL, or why not.
 */
static const char *normalize_name(const char *name, size_t n, size_t *start, size_t *len)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t c = (uint8_t)name[i];
		if (c < 0x20 || c >= 0x7f)
			return "a byte below 0x20 or above 0x7e in the name";	/* first */
	}
	if (name[0] == '/')
		return "an absolute name (names are relative to the archive's root)";
	size_t s = 0;
	while (n - s >= 2 && name[s] == '.' && name[s + 1] == '/')
		s += 2;
	if (s == n)
		return "an empty component in the name";	/* "./" */
	if (n - s == 1 && name[s] == '.') {
		*start = n;
		*len = 0;
		return NULL;			/* "." or "./.": the root */
	}
	/* Every component: not empty, not ".", not "..". */
	size_t c = s;
	for (size_t i = s; i <= n; i++) {
		if (i < n && name[i] != '/')
			continue;
		size_t clen = i - c;
		if (clen == 0)
			return "an empty component in the name";
		if (clen == 1 && name[c] == '.')
			return "a '.' component inside the name";
		if (clen == 2 && name[c] == '.' && name[c + 1] == '.')
			return "a '..' component in the name";
		c = i + 1;
	}
	*start = s;
	*len = n - s;
	return NULL;
}

/* Whether name a (alen bytes) is a proper ancestor directory of name b. */
static bool is_ancestor(const char *a, size_t alen, const char *b, size_t blen)
{
	if (alen == 0)
		return blen > 0;	/* the root is everything's */
	return blen > alen && b[alen] == '/' && !memcmp(a, b, alen);
}

/* An entry's name against the kept ones before it; NULL or why not. */
static const char *check_against_earlier(const struct cpio_entry *entries, size_t n,
					 const char *name, size_t len, uint32_t mode,
					 size_t *other)
{
	for (size_t i = 0; i < n; i++) {
		const struct cpio_entry *e = &entries[i];
		*other = e->offset;
		if (e->name_len == len && !memcmp(e->name, name, len))
			return "a second entry of the name";
		if ((e->mode & CPIO_S_IFMT) != CPIO_S_IFDIR &&
		    is_ancestor(e->name, e->name_len, name, len))
			return "a name under one that is not a directory";
		if ((mode & CPIO_S_IFMT) != CPIO_S_IFDIR &&
		    is_ancestor(name, len, e->name, e->name_len))
			return "not a directory, but an earlier name lies under it";
	}
	return NULL;
}

long cpio_parse(const void *archive, size_t size, struct cpio_entry *entries, size_t max_entries,
		struct cpio_summary *sum, char *msg, size_t msglen)
{
	const uint8_t *a = archive;
	size_t off = 0, kept = 0, skipped = 0;
	struct cpio_summary local;

	if (!sum)
		sum = &local;
	memset(sum, 0, sizeof(*sum));
	if (msg && msglen)
		msg[0] = '\0';
	for (;;) {
		const size_t at = off;
		if (size - off < CPIO_HEADER_SIZE) {
			if (off == size)
				return refuse(msg, msglen, at, "the archive ends without a "
					      CPIO_TRAILER " entry (truncated?)");
			return refuse(msg, msglen, at, "%zu bytes left, less than a %u-byte header "
				      "(truncated?)", size - off, CPIO_HEADER_SIZE);
		}
		const uint8_t *h = a + off;
		if (memcmp(h, "070701", MAGIC_LEN)) {
			if (!memcmp(h, "070707", MAGIC_LEN))
				return refuse(msg, msglen, at, "magic 070707 is the old portable "
					      "format; only newc (070701: cpio -H newc) is read");
			if (!memcmp(h, "070702", MAGIC_LEN))
				return refuse(msg, msglen, at, "magic 070702 is newc with checksums "
					      "(cpio -H crc); only newc (070701: cpio -H newc) is read");
			return refuse(msg, msglen, at, "no newc magic 070701 (not a cpio newc "
				      "archive, or a bad length before this entry)");
		}
		uint32_t f[F_COUNT];
		for (int i = 0; i < F_COUNT; i++)
			if (!parse_hex8(h + MAGIC_LEN + i * FIELD_LEN, &f[i]))
				return refuse(msg, msglen, at, "field %s is not 8 hex digits",
					      field_names[i]);
		if (f[F_CHECK])
			return refuse(msg, msglen, at, "check field 0x%x is not 0 (newc has no "
				      "checksums)", f[F_CHECK]);
		uint32_t namesize = f[F_NAMESIZE];
		if (namesize < 2)
			return refuse(msg, msglen, at, "namesize %u leaves no name", namesize);
		if (namesize > CPIO_NAME_MAX + 1)
			return refuse(msg, msglen, at, "namesize %u above %u", namesize,
				      CPIO_NAME_MAX + 1);
		off += CPIO_HEADER_SIZE;
		if (size - off < namesize)
			return refuse(msg, msglen, at, "the name (%u bytes) runs past the end",
				      namesize);
		const char *name = (const char *)a + off;
		if (name[namesize - 1] != '\0')
			return refuse(msg, msglen, at, "the name is not NUL-terminated at namesize "
				      "%u", namesize);
		if (strnlen(name, namesize - 1) != namesize - 1)
			return refuse(msg, msglen, at, "a NUL inside the name, before namesize %u",
				      namesize);
		off += namesize;
		if (size - off < pad4(off))
			return refuse(msg, msglen, at, "the name's padding runs past the end");
		if (!bytes_zero(a + off, pad4(off)))
			return refuse(msg, msglen, at, "the name's padding is not NULs");
		off += pad4(off);
		uint32_t filesize = f[F_FILESIZE];
		if (size - off < filesize)
			return refuse(msg, msglen, at, "the data (%u bytes) runs past the end "
				      "(%zu left)", filesize, size - off);
		const uint8_t *data = a + off;
		off += filesize;
		if (size - off < pad4(off))
			return refuse(msg, msglen, at, "the data's padding runs past the end");
		if (!bytes_zero(a + off, pad4(off)))
			return refuse(msg, msglen, at, "the data's padding is not NULs");
		off += pad4(off);

		size_t n = namesize - 1;
		if (n == sizeof(CPIO_TRAILER) - 1 && !memcmp(name, CPIO_TRAILER, n)) {
			if (filesize)
				return refuse(msg, msglen, at, CPIO_TRAILER " with %u bytes of data",
					      filesize);
			if (!bytes_zero(a + off, size - off))
				return refuse(msg, msglen, off, "bytes other than NUL after "
					      CPIO_TRAILER);
			sum->entries = kept;
			sum->skipped = skipped;
			sum->end = off;
			return (long)kept;
		}
		if (kept + skipped == CPIO_MAX_ENTRIES)
			return refuse(msg, msglen, at, "more than %u entries", CPIO_MAX_ENTRIES);
		size_t start = 0, len = 0;
		const char *bad = normalize_name(name, n, &start, &len);
		if (bad && !strncmp(bad, "a byte", 6))
			return refuse(msg, msglen, at, "%s", bad);	/* not printed: unprintable */
		if (bad)
			return refuse(msg, msglen, at, "'%s': %s", name, bad);
		uint32_t mode = f[F_MODE];
		if (mode & ~(uint32_t)MODE_KNOWN_BITS)
			return refuse(msg, msglen, at, "'%s': mode 0%o has bits outside the file "
				      "type and permissions", name, mode);
		uint32_t type = mode & CPIO_S_IFMT;
		switch (type) {
		case CPIO_S_IFREG:
			if (f[F_NLINK] > 1)
				return refuse(msg, msglen, at, "'%s': a hard-linked file (nlink %u; "
					      "cpio stores the data in the last link only)", name,
					      f[F_NLINK]);
			break;
		case CPIO_S_IFDIR:
			if (filesize)
				return refuse(msg, msglen, at, "'%s': a directory with %u bytes of "
					      "data", name, filesize);
			break;
		case CPIO_S_IFLNK: case CPIO_S_IFCHR: case CPIO_S_IFBLK: case CPIO_S_IFIFO:
		case CPIO_S_IFSOCK:
			if (!skipped++) {
				memcpy(sum->first_skipped, name, n + 1);
				sum->first_skipped_mode = mode;
			}
			continue;
		default:
			return refuse(msg, msglen, at, "'%s': mode 0%o has no known file type", name,
				      mode);
		}
		if (len == 0 && type != CPIO_S_IFDIR)
			return refuse(msg, msglen, at, "'%s': the root is not a directory", name);
		if (entries) {
			size_t other = 0;
			const char *why = check_against_earlier(entries, kept, name + start, len,
								mode, &other);
			if (why)
				return refuse(msg, msglen, at, "'%s': %s (offset %zu)", name, why,
					      other);
			if (kept == max_entries) {
				refuse(msg, msglen, at, "more than the %zu entries expected",
				       max_entries);
				return -E2BIG;
			}
			entries[kept] = (struct cpio_entry){
				.name = name + start, .name_len = len,
				.data = type == CPIO_S_IFREG ? data : NULL, .size = filesize,
				.mode = mode, .ino = f[F_INO], .uid = f[F_UID], .gid = f[F_GID],
				.nlink = f[F_NLINK], .mtime = f[F_MTIME], .offset = at,
			};
		}
		kept++;
	}
}
