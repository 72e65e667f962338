// SPDX-License-Identifier: BSD-2-Clause
/*
 * Host tests of the newc cpio parser (kernel/lib/cpio.c), the border the
 * program archive crosses: a good archive as `cpio -o -H newc` writes it,
 * then each header field, the name, the paddings, the trailer and the
 * file types corrupted one at a time, each refused with its own line;
 * every truncation and every single-byte change of a good archive parsed
 * from a buffer of exactly its size (ASan sees any read past it).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "host_test.h"
#include <scion/cpio.h>
#include <scion/errno.h>

#define MAX_ARCHIVE (CPIO_MAX_ENTRIES * 120 + 8192)
#define MSG 200

enum { F_INO, F_MODE, F_UID, F_GID, F_NLINK, F_MTIME, F_FILESIZE, F_DEVMAJOR, F_DEVMINOR,
	F_RDEVMAJOR, F_RDEVMINOR, F_NAMESIZE, F_CHECK, F_COUNT };
static const char *const field_names[F_COUNT] = {
	"ino", "mode", "uid", "gid", "nlink", "mtime", "filesize", "devmajor", "devminor",
	"rdevmajor", "rdevminor", "namesize", "check",
};

struct ab {
	uint8_t buf[MAX_ARCHIVE];
	size_t len;
	uint32_t next_ino;
};

static void pad(struct ab *b)
{
	while (b->len & 3)
		b->buf[b->len++] = 0;
}

/* Append a well-formed entry; returns its header's offset. */
static size_t add(struct ab *b, const char *name, uint32_t mode, const char *data)
{
	size_t at = b->len, dlen = data ? strlen(data) : 0, nlen = strlen(name) + 1;
	char hdr[CPIO_HEADER_SIZE + 1];
	snprintf(hdr, sizeof(hdr), "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		 ++b->next_ino, mode, 0u, 0u, 1u, 1700000000u, (unsigned)dlen, 8u, 1u, 0u, 0u,
		 (unsigned)nlen, 0u);
	memcpy(b->buf + b->len, hdr, CPIO_HEADER_SIZE);
	b->len += CPIO_HEADER_SIZE;
	memcpy(b->buf + b->len, name, nlen);
	b->len += nlen;
	pad(b);
	if (dlen)
		memcpy(b->buf + b->len, data, dlen);
	b->len += dlen;
	pad(b);
	return at;
}

static size_t trailer(struct ab *b)
{
	size_t at = add(b, CPIO_TRAILER, 0, NULL);
	return at;
}

/* Overwrite field i of the header at `at` with 8 characters. */
static void set_text(struct ab *b, size_t at, int i, const char *eight)
{
	memcpy(b->buf + at + 6 + i * 8, eight, 8);
}

static void set_field(struct ab *b, size_t at, int i, uint32_t v)
{
	char t[9];
	snprintf(t, sizeof(t), "%08X", v);
	set_text(b, at, i, t);
}

/* The standard good archive: ".", "etc", "etc/motd", "hello", trailer. */
static void good(struct ab *b)
{
	b->len = 0;	/* add() writes every byte, paddings included */
	b->next_ino = 0;
	add(b, ".", CPIO_S_IFDIR | 0755, NULL);
	add(b, "etc", CPIO_S_IFDIR | 0755, NULL);
	add(b, "etc/motd", CPIO_S_IFREG | 0644, "welcome to Scion\n");
	add(b, "hello", CPIO_S_IFREG | 0755, "\177ELF...");
	trailer(b);
}

struct result {
	long rc;
	char msg[MSG];
	struct cpio_entry e[16];
	struct cpio_summary sum;
};

/* Parse a copy of exactly len bytes (so ASan sees over-reads), with and without entries. */
static long parse_len(struct host_test_ctx *t, const uint8_t *bytes, size_t len, struct result *r)
{
	uint8_t *copy = malloc(len ? len : 1);
	memcpy(copy, bytes, len);
	memset(r, 0, sizeof(*r));
	r->rc = cpio_parse(copy, len, r->e, 16, &r->sum, r->msg, sizeof(r->msg));
	char msg2[MSG];
	long counted = cpio_parse(copy, len, NULL, 0, NULL, msg2, sizeof(msg2));
	/* A counting pass accepts whatever the full one does, with the same count. */
	if (r->rc >= 0)
		CHECK(t, counted == r->rc, "counting pass gave %ld, full pass %ld", counted, r->rc);
	if (r->rc < 0) {
		CHECK(t, !strncmp(r->msg, "cpio: offset ", 13), "refusal line '%s'", r->msg);
		for (const char *p = r->msg; *p; p++)
			CHECK(t, *p >= ' ' && *p < 0x7f, "unprintable byte in '%s'", r->msg);
	}
	/* Kept entries lie inside the archive. */
	for (long i = 0; i < r->rc && i < 16; i++) {
		const struct cpio_entry *e = &r->e[i];
		CHECK(t, (const uint8_t *)e->name >= copy && (const uint8_t *)e->name + e->name_len <=
		      copy + len, "entry %ld's name outside", i);
		if (e->data)
			CHECK(t, e->data >= copy && e->data + e->size <= copy + len,
			      "entry %ld's data outside", i);
		/* Pointers are rebased on the caller's bytes for the checks below. */
		e = NULL;
	}
	for (long i = 0; i < r->rc && i < 16; i++) {
		r->e[i].name = (const char *)bytes + ((const uint8_t *)r->e[i].name - copy);
		if (r->e[i].data)
			r->e[i].data = bytes + (r->e[i].data - copy);
	}
	free(copy);
	return r->rc;
}

static long parse(struct host_test_ctx *t, struct ab *b, struct result *r)
{
	return parse_len(t, b->buf, b->len, r);
}

#define EXPECT_REFUSED(t, b, r, needle) do { \
	long rc_ = parse((t), (b), (r)); \
	CHECK((t), rc_ == -EINVAL, "%s: accepted (rc %ld)", (needle), rc_); \
	CHECK((t), strstr((r)->msg, (needle)) != NULL, "expected '%s' in '%s'", (needle), \
	      (r)->msg); \
} while (0)

static bool entry_is(const struct cpio_entry *e, const char *name)
{
	return e->name_len == strlen(name) && !memcmp(e->name, name, e->name_len);
}

HOST_TEST(cpio_good_archive)
{
	static struct ab b;
	static struct result r;
	good(&b);
	REQUIRE(t, parse(t, &b, &r) == 4, "rc %ld: %s", r.rc, r.msg);
	CHECK(t, entry_is(&r.e[0], "") && (r.e[0].mode & CPIO_S_IFMT) == CPIO_S_IFDIR,
	      "'.' is the root, a directory");
	CHECK(t, entry_is(&r.e[1], "etc") && !r.e[1].data && r.e[1].size == 0, "etc");
	CHECK(t, entry_is(&r.e[2], "etc/motd") && r.e[2].size == 17 &&
	      !memcmp(r.e[2].data, "welcome to Scion\n", 17) && r.e[2].mode == (CPIO_S_IFREG | 0644),
	      "etc/motd");
	CHECK(t, entry_is(&r.e[3], "hello") && r.e[3].size == 7 && r.e[3].ino == 4 &&
	      r.e[3].mtime == 1700000000u && r.e[3].nlink == 1, "hello");
	CHECK(t, r.sum.entries == 4 && r.sum.skipped == 0 && r.sum.end == b.len, "summary");
	CHECK(t, r.msg[0] == '\0', "no message for a good archive: '%s'", r.msg);

	/* cpio pads the archive to 512 bytes with NULs. */
	size_t end = b.len;
	memset(b.buf + b.len, 0, 512 - b.len % 512);
	b.len += 512 - b.len % 512;
	CHECK(t, parse(t, &b, &r) == 4 && r.sum.end == end, "NUL padding after the trailer");
}

HOST_TEST(cpio_names_normalized)
{
	static struct ab b;
	static struct result r;
	memset(&b, 0, sizeof(b));
	add(&b, "./bin", CPIO_S_IFDIR | 0755, NULL);
	add(&b, "./bin/x", CPIO_S_IFREG | 0755, "x");
	add(&b, "a/b/c", CPIO_S_IFREG | 0644, "implied parents");	/* no a, no a/b */
	add(&b, "./.", CPIO_S_IFDIR | 0755, NULL);
	add(&b, "...", CPIO_S_IFREG | 0644, "");
	add(&b, ".hidden", CPIO_S_IFREG | 0644, "");
	add(&b, "e", CPIO_S_IFREG | 0644, "");	/* empty file */
	trailer(&b);
	REQUIRE(t, parse(t, &b, &r) == 7, "rc %ld: %s", r.rc, r.msg);
	CHECK(t, entry_is(&r.e[0], "bin") && entry_is(&r.e[1], "bin/x"), "leading ./ dropped");
	CHECK(t, entry_is(&r.e[2], "a/b/c"), "a name whose parents have no entries");
	CHECK(t, entry_is(&r.e[3], ""), "./. is the root");
	CHECK(t, entry_is(&r.e[4], "...") && entry_is(&r.e[5], ".hidden"), "dots in names");
	CHECK(t, r.e[6].size == 0 && r.e[6].data, "an empty file has (empty) data");
}

HOST_TEST(cpio_magic)
{
	static struct ab b;
	static struct result r;
	good(&b);
	memcpy(b.buf, "070707", 6);
	EXPECT_REFUSED(t, &b, &r, "070707 is the old portable format");
	memcpy(b.buf, "070702", 6);
	EXPECT_REFUSED(t, &b, &r, "070702 is newc with checksums");
	memcpy(b.buf, "\177ELF\2\1", 6);
	EXPECT_REFUSED(t, &b, &r, "no newc magic");
	/* A bad magic in a later entry names its offset. */
	good(&b);
	memcpy(b.buf + 112, "070700", 6);
	EXPECT_REFUSED(t, &b, &r, "offset 112: no newc magic");
	/* Nothing, or less than a header. */
	CHECK(t, parse_len(t, b.buf, 0, &r) == -EINVAL && strstr(r.msg, "without a TRAILER!!!"),
	      "empty: '%s'", r.msg);
	CHECK(t, parse_len(t, (const uint8_t *)"070701", 6, &r) == -EINVAL &&
	      strstr(r.msg, "less than a 110-byte header"), "6 bytes: '%s'", r.msg);
}

HOST_TEST(cpio_every_field_hex)
{
	static struct ab b;
	static struct result r;
	static const char *const bad[] = { "0000000g", "0x000001", " 0000001", "-0000001",
					   "0000000\0", "+1234567" };
	for (int f = 0; f < F_COUNT; f++) {
		for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
			good(&b);
			set_text(&b, 112, f, bad[k]);	/* the "etc" entry */
			char want[64];
			snprintf(want, sizeof(want), "offset 112: field %s is not 8 hex digits",
				 field_names[f]);
			EXPECT_REFUSED(t, &b, &r, want);
		}
	}
	/* Either case is hex. */
	good(&b);
	set_text(&b, 0, F_MTIME, "6553f1Ab");
	CHECK(t, parse(t, &b, &r) == 4 && r.e[0].mtime == 0x6553f1ab, "mixed-case hex: %s", r.msg);
	/* uid, gid and the device numbers are free. */
	good(&b);
	set_field(&b, 0, F_UID, 0xffffffff);
	set_field(&b, 0, F_GID, 0x12345678);
	set_field(&b, 0, F_DEVMAJOR, 0xffffffff);
	set_field(&b, 0, F_RDEVMINOR, 0xffffffff);
	CHECK(t, parse(t, &b, &r) == 4 && r.e[0].uid == 0xffffffff && r.e[0].gid == 0x12345678,
	      "any uid, gid, devices: %s", r.msg);
}

HOST_TEST(cpio_check_field)
{
	static struct ab b;
	static struct result r;
	good(&b);
	set_field(&b, 0, F_CHECK, 1);
	EXPECT_REFUSED(t, &b, &r, "check field 0x1 is not 0");
}

HOST_TEST(cpio_namesize)
{
	static struct ab b;
	static struct result r;
	good(&b);
	set_field(&b, 0, F_NAMESIZE, 0);
	EXPECT_REFUSED(t, &b, &r, "namesize 0 leaves no name");
	good(&b);
	set_field(&b, 0, F_NAMESIZE, 1);
	EXPECT_REFUSED(t, &b, &r, "namesize 1 leaves no name");
	good(&b);
	set_field(&b, 0, F_NAMESIZE, CPIO_NAME_MAX + 2);
	EXPECT_REFUSED(t, &b, &r, "namesize 257 above 256");
	good(&b);
	set_field(&b, 0, F_NAMESIZE, 0xffffffff);
	EXPECT_REFUSED(t, &b, &r, "namesize 4294967295 above 256");
	/* A name of exactly CPIO_NAME_MAX bytes is accepted. */
	memset(&b, 0, sizeof(b));
	char longname[CPIO_NAME_MAX + 1];
	memset(longname, 'n', CPIO_NAME_MAX);
	longname[CPIO_NAME_MAX] = '\0';
	add(&b, longname, CPIO_S_IFREG | 0644, "x");
	trailer(&b);
	CHECK(t, parse(t, &b, &r) == 1 && r.e[0].name_len == CPIO_NAME_MAX, "255-byte name: %s",
	      r.msg);
	/* The name runs past the end. */
	memset(&b, 0, sizeof(b));
	size_t at = add(&b, "abc", CPIO_S_IFREG | 0644, NULL);
	b.len = at + CPIO_HEADER_SIZE + 2;
	EXPECT_REFUSED(t, &b, &r, "the name (4 bytes) runs past the end");
}

HOST_TEST(cpio_name_nul)
{
	static struct ab b;
	static struct result r;
	/* namesize one short: the byte at namesize - 1 is the name's last letter. */
	good(&b);
	set_field(&b, 112, F_NAMESIZE, 3);	/* "et" + 'c' where the NUL should be */
	EXPECT_REFUSED(t, &b, &r, "offset 112: the name is not NUL-terminated at namesize 3");
	/* namesize one long: a NUL inside. */
	memset(&b, 0, sizeof(b));
	size_t at = add(&b, "ab", CPIO_S_IFDIR | 0755, NULL);	/* name + NUL = 3, pad 1 */
	trailer(&b);
	set_field(&b, at, F_NAMESIZE, 4);
	EXPECT_REFUSED(t, &b, &r, "a NUL inside the name");
}

HOST_TEST(cpio_bad_names)
{
	static struct ab b;
	static struct result r;
	static const struct { const char *name, *why; } cases[] = {
		{ "/etc", "an absolute name" },
		{ "../x", "a '..' component" },
		{ "a/../b", "a '..' component" },
		{ "a/..", "a '..' component" },
		{ "..", "a '..' component" },
		{ "./..", "a '..' component" },
		{ "a//b", "an empty component" },
		{ "a/", "an empty component" },
		{ "./", "an empty component" },
		{ "a/./b", "a '.' component inside" },
		{ "a/.", "a '.' component inside" },
		{ "tab\there", "a byte below 0x20" },
		{ "esc\033[2J", "a byte below 0x20" },
		{ "del\177", "above 0x7e" },
		{ "utf\303\251", "above 0x7e" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&b, 0, sizeof(b));
		add(&b, cases[i].name, CPIO_S_IFREG | 0644, "x");
		trailer(&b);
		EXPECT_REFUSED(t, &b, &r, cases[i].why);
	}
}

HOST_TEST(cpio_lengths_past_end)
{
	static struct ab b;
	static struct result r;
	/* filesize past the end. */
	good(&b);
	set_field(&b, 0, F_FILESIZE, 0x7fffffff);
	EXPECT_REFUSED(t, &b, &r, "the data (2147483647 bytes) runs past the end");
	good(&b);
	set_field(&b, 0, F_FILESIZE, 0xffffffff);
	EXPECT_REFUSED(t, &b, &r, "runs past the end");
	/* The name's padding past the end: header + "ab\0" ends at 113, padding to 116. */
	memset(&b, 0, sizeof(b));
	add(&b, "ab", CPIO_S_IFREG | 0644, NULL);
	b.len = CPIO_HEADER_SIZE + 3 + 1;
	EXPECT_REFUSED(t, &b, &r, "the name's padding runs past the end");
	/* The data's padding past the end: 5 bytes of data, then 3 of padding. */
	memset(&b, 0, sizeof(b));
	add(&b, "f", CPIO_S_IFREG | 0644, "12345");	/* header 110 + "f\0" = 112, data to 117 */
	b.len = 117 + 2;
	EXPECT_REFUSED(t, &b, &r, "the data's padding runs past the end");
	/* Paddings that are not NULs. */
	memset(&b, 0, sizeof(b));
	add(&b, "ab", CPIO_S_IFREG | 0644, "12345");
	trailer(&b);
	b.buf[113] = 'x';
	EXPECT_REFUSED(t, &b, &r, "the name's padding is not NULs");
	memset(&b, 0, sizeof(b));
	add(&b, "ab", CPIO_S_IFREG | 0644, "12345");
	trailer(&b);
	b.buf[116 + 5] = 'x';
	EXPECT_REFUSED(t, &b, &r, "the data's padding is not NULs");
}

HOST_TEST(cpio_trailer)
{
	static struct ab b;
	static struct result r;
	/* Missing: the archive ends at an entry boundary. */
	memset(&b, 0, sizeof(b));
	add(&b, "a", CPIO_S_IFREG | 0644, "x");
	EXPECT_REFUSED(t, &b, &r, "ends without a TRAILER!!! entry");
	/* Then zeros where the trailer should be. */
	memset(b.buf + b.len, 0, 512);
	b.len += 512;
	EXPECT_REFUSED(t, &b, &r, "no newc magic");
	/* A trailer with data. */
	memset(&b, 0, sizeof(b));
	add(&b, CPIO_TRAILER, 0, "oops");
	EXPECT_REFUSED(t, &b, &r, "TRAILER!!! with 4 bytes of data");
	/* Something after the trailer (a second archive is not read). */
	good(&b);
	size_t end = b.len;
	add(&b, "sneaky", CPIO_S_IFREG | 0644, "x");
	trailer(&b);
	char want[64];
	snprintf(want, sizeof(want), "offset %zu: bytes other than NUL after TRAILER!!!", end);
	EXPECT_REFUSED(t, &b, &r, want);
	/* A name that only starts like the trailer is a file. */
	memset(&b, 0, sizeof(b));
	add(&b, "TRAILER!!!x", CPIO_S_IFREG | 0644, "x");
	trailer(&b);
	CHECK(t, parse(t, &b, &r) == 1, "TRAILER!!!x is a file: %s", r.msg);
}

HOST_TEST(cpio_types_and_modes)
{
	static struct ab b;
	static struct result r;
	static const uint32_t skipped[] = { CPIO_S_IFLNK, CPIO_S_IFCHR, CPIO_S_IFBLK, CPIO_S_IFIFO,
					    CPIO_S_IFSOCK };
	for (size_t i = 0; i < sizeof(skipped) / sizeof(skipped[0]); i++) {
		good(&b);
		/* Insert before the trailer: rebuild with the special entry. */
		memset(&b, 0, sizeof(b));
		add(&b, "etc", CPIO_S_IFDIR | 0755, NULL);
		add(&b, "etc/special", skipped[i] | 0777, skipped[i] == CPIO_S_IFLNK ? "motd" : NULL);
		add(&b, "etc/link2", CPIO_S_IFLNK | 0777, "x");
		add(&b, "etc/motd", CPIO_S_IFREG | 0644, "hi\n");
		trailer(&b);
		CHECK(t, parse(t, &b, &r) == 2 && r.sum.skipped == 2 &&
		      !strcmp(r.sum.first_skipped, "etc/special") &&
		      r.sum.first_skipped_mode == (skipped[i] | 0777),
		      "%s skipped and counted: rc %ld skipped %zu '%s' %s", cpio_type_name(skipped[i]),
		      r.rc, r.sum.skipped, r.sum.first_skipped, r.msg);
		CHECK(t, entry_is(&r.e[1], "etc/motd"), "the entries after a skipped one");
	}
	CHECK(t, !strcmp(cpio_type_name(CPIO_S_IFLNK), "symbolic link") &&
	      !strcmp(cpio_type_name(0), "unknown type"), "type names");
	good(&b);
	set_field(&b, 112, F_MODE, 0644);
	EXPECT_REFUSED(t, &b, &r, "'etc': mode 0644 has no known file type");
	good(&b);
	set_field(&b, 112, F_MODE, 0170755);
	EXPECT_REFUSED(t, &b, &r, "has no known file type");
	good(&b);
	set_field(&b, 112, F_MODE, 0240755);
	EXPECT_REFUSED(t, &b, &r, "has bits outside the file type and permissions");
	/* A directory with data. */
	memset(&b, 0, sizeof(b));
	add(&b, "d", CPIO_S_IFDIR | 0755, "data");
	trailer(&b);
	EXPECT_REFUSED(t, &b, &r, "'d': a directory with 4 bytes of data");
	/* Hard links. */
	good(&b);
	size_t motd = (size_t)((uint8_t *)memmem(b.buf, b.len, "etc/motd", 8) - b.buf) -
		CPIO_HEADER_SIZE;
	set_field(&b, motd, F_NLINK, 2);
	EXPECT_REFUSED(t, &b, &r, "'etc/motd': a hard-linked file (nlink 2");
	/* The root as a file. */
	memset(&b, 0, sizeof(b));
	add(&b, ".", CPIO_S_IFREG | 0644, "x");
	trailer(&b);
	EXPECT_REFUSED(t, &b, &r, "the root is not a directory");
	/* Setuid and sticky bits are permissions. */
	memset(&b, 0, sizeof(b));
	add(&b, "s", CPIO_S_IFREG | 07755, "x");
	trailer(&b);
	CHECK(t, parse(t, &b, &r) == 1 && r.e[0].mode == (CPIO_S_IFREG | 07755), "07755: %s",
	      r.msg);
}

HOST_TEST(cpio_duplicates_and_parents)
{
	static struct ab b;
	static struct result r;
	memset(&b, 0, sizeof(b));
	add(&b, "a", CPIO_S_IFREG | 0644, "1");
	add(&b, "./a", CPIO_S_IFREG | 0644, "2");
	trailer(&b);
	EXPECT_REFUSED(t, &b, &r, "'./a': a second entry of the name (offset 0)");
	memset(&b, 0, sizeof(b));
	add(&b, "d", CPIO_S_IFDIR | 0755, NULL);
	add(&b, "d", CPIO_S_IFDIR | 0755, NULL);
	trailer(&b);
	EXPECT_REFUSED(t, &b, &r, "a second entry of the name");
	memset(&b, 0, sizeof(b));
	add(&b, ".", CPIO_S_IFDIR | 0755, NULL);
	add(&b, "./.", CPIO_S_IFDIR | 0755, NULL);
	trailer(&b);
	EXPECT_REFUSED(t, &b, &r, "a second entry of the name");
	memset(&b, 0, sizeof(b));
	add(&b, "a", CPIO_S_IFREG | 0644, "1");
	add(&b, "a/b", CPIO_S_IFREG | 0644, "2");
	trailer(&b);
	EXPECT_REFUSED(t, &b, &r, "'a/b': a name under one that is not a directory");
	memset(&b, 0, sizeof(b));
	add(&b, "a/b/c", CPIO_S_IFREG | 0644, "2");
	add(&b, "a/b", CPIO_S_IFREG | 0644, "1");
	trailer(&b);
	EXPECT_REFUSED(t, &b, &r, "'a/b': not a directory, but an earlier name lies under it");
	/* A directory given after what lies in it is fine (find -depth order). */
	memset(&b, 0, sizeof(b));
	add(&b, "a/b/c", CPIO_S_IFREG | 0644, "2");
	add(&b, "a/b", CPIO_S_IFDIR | 0755, NULL);
	add(&b, "ab", CPIO_S_IFREG | 0644, "3");	/* a prefix, not a parent */
	add(&b, "a", CPIO_S_IFDIR | 0755, NULL);
	trailer(&b);
	CHECK(t, parse(t, &b, &r) == 4, "depth-first order: %s", r.msg);
}

HOST_TEST(cpio_too_many_entries)
{
	static struct ab b;
	memset(&b, 0, sizeof(b));
	for (int i = 0; i < 5; i++) {
		char name[16];
		snprintf(name, sizeof(name), "f%d", i);
		add(&b, name, CPIO_S_IFREG | 0644, "x");
	}
	trailer(&b);
	struct cpio_entry e[5];
	char msg[MSG];
	CHECK(t, cpio_parse(b.buf, b.len, NULL, 0, NULL, msg, sizeof(msg)) == 5, "count: %s", msg);
	CHECK(t, cpio_parse(b.buf, b.len, e, 5, NULL, NULL, 0) == 5, "room for 5");
	CHECK(t, cpio_parse(b.buf, b.len, e, 4, NULL, msg, sizeof(msg)) == -E2BIG &&
	      strstr(msg, "more than the 4 entries"), "room for 4: '%s'", msg);
	/* No message buffer: still refused, nothing written. */
	CHECK(t, cpio_parse(b.buf, 10, NULL, 0, NULL, NULL, 0) == -EINVAL, "no msg buffer");
}

HOST_TEST(cpio_every_truncation_and_byte)
{
	static struct ab b;
	static struct result r;
	good(&b);
	size_t full = b.len;
	for (size_t n = 0; n < full; n++) {
		long rc = parse_len(t, b.buf, n, &r);
		CHECK(t, rc == -EINVAL, "truncated to %zu bytes: rc %ld", n, rc);
	}
	/* Every byte set to a few values: refused, or accepted with entries inside (checked). */
	static const uint8_t values[] = { 0, '0', '7', 'f', 'F', 'g', '/', '.', 0xff };
	for (size_t i = 0; i < full; i++) {
		for (size_t k = 0; k < sizeof(values); k++) {
			good(&b);
			b.buf[i] = values[k];
			long rc = parse(t, &b, &r);
			CHECK(t, rc == -EINVAL || (rc >= 0 && rc <= 4),
			      "byte %zu = 0x%02x: rc %ld", i, values[k], rc);
		}
	}
}

HOST_TEST(cpio_entry_limit)
{
	static struct ab b;
	memset(&b, 0, sizeof(b));
	for (int i = 0; i < CPIO_MAX_ENTRIES; i++) {
		char name[16];
		snprintf(name, sizeof(name), "%x", i);	/* 1-3 chars: 112 or 116 bytes each */
		add(&b, name, i % 7 ? CPIO_S_IFREG | 0644 : CPIO_S_IFLNK | 0777, NULL);
	}
	size_t end = b.len;
	trailer(&b);
	char msg[MSG];
	long n = cpio_parse(b.buf, b.len, NULL, 0, NULL, msg, sizeof(msg));
	CHECK(t, n > 0 && n < CPIO_MAX_ENTRIES, "exactly the limit (links included): %ld %s", n, msg);
	b.len = end;
	add(&b, "one-more", CPIO_S_IFREG | 0644, NULL);
	trailer(&b);
	CHECK(t, cpio_parse(b.buf, b.len, NULL, 0, NULL, msg, sizeof(msg)) == -EINVAL &&
	      strstr(msg, "more than 4096 entries"), "one past the limit: '%s'", msg);
}
