// SPDX-License-Identifier: BSD-2-Clause
/*
 * Host tests of the program archive's tree (kernel/fs/archive.c) over
 * archives built here: implied directories, the path order that keeps a
 * directory's entries together ("/etc/motd" before "/etc-x"), lookups of
 * normalized paths only, listings with a cursor, inode numbers, several
 * modules (the first wins, directories merge, what lies under another
 * module's file is dropped, a refused module adds nothing) and the lines
 * printed for each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "host_test.h"
#include <scion/archive.h>
#include <scion/cpio.h>
#include <scion/mm.h>
#include "fs/archive_internal.h"
#include "mm/mm_internal.h"

#define ARENA_PAGES 1024ull

/*
 * A fresh heap. Each test leaves the tree empty (done()), so that nothing
 * points into an arena another test frees.
 */
static void heap(void)
{
	host_heap_reset(ARENA_PAGES);
}

struct ab {
	uint8_t buf[4096];
	size_t len;
};

static void add(struct ab *b, const char *name, uint32_t mode, const char *data)
{
	size_t dlen = data ? strlen(data) : 0, nlen = strlen(name) + 1;
	char hdr[CPIO_HEADER_SIZE + 1];
	snprintf(hdr, sizeof(hdr), "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		 99u, mode, 0u, 0u, 1u, 1700000000u, (unsigned)dlen, 0u, 0u, 0u, 0u,
		 (unsigned)nlen, 0u);
	memcpy(b->buf + b->len, hdr, CPIO_HEADER_SIZE);
	b->len += CPIO_HEADER_SIZE;
	memcpy(b->buf + b->len, name, nlen);
	b->len += nlen;
	while (b->len & 3)
		b->buf[b->len++] = 0;
	memcpy(b->buf + b->len, data ? data : "", dlen);
	b->len += dlen;
	while (b->len & 3)
		b->buf[b->len++] = 0;
}

static void trailer(struct ab *b)
{
	add(b, CPIO_TRAILER, 0, NULL);
}

static void done(void)
{
	archive_build(NULL, 0);
	host_printk_take();
}

#define DIR (CPIO_S_IFDIR | 0755)
#define REG (CPIO_S_IFREG | 0644)

/* The names directly in dir, joined by spaces. */
static const char *children(const char *dir)
{
	static char out[512];
	size_t cursor = 0;
	out[0] = '\0';
	for (const struct archive_file *f; (f = archive_child(dir, &cursor));) {
		if (out[0])
			strcat(out, " ");
		strcat(out, f->path);
	}
	return out;
}

HOST_TEST(archive_empty_tree_has_root)
{
	heap();
	archive_build(NULL, 0);
	const struct archive_file *r = archive_lookup("/");
	CHECK(t, r && archive_is_dir(r) && r->ino == 1 && !r->data, "/ always exists");
	CHECK(t, archive_count() == 1 && archive_modules_loaded() == 0, "count %u", archive_count());
	CHECK(t, !archive_lookup("/hello") && !strcmp(children("/"), ""), "nothing else");
	done();
}

HOST_TEST(archive_implied_directories_and_order)
{
	static struct ab b;
	heap();
	memset(&b, 0, sizeof(b));
	add(&b, "etc-x", REG, "x");
	add(&b, "a/b/c", REG, "deep");
	add(&b, "etc", DIR, NULL);
	add(&b, "etc/motd", REG, "hi\n");
	add(&b, "etc.d", DIR, NULL);
	add(&b, "hello", CPIO_S_IFREG | 0755, "\177ELF");
	trailer(&b);
	struct archive_module m = { "t.cpio", b.buf, b.len };
	CHECK(t, archive_build(&m, 1) == 1, "one module accepted: %s", host_printk_take());

	const struct archive_file *a = archive_lookup("/a"), *ab = archive_lookup("/a/b");
	CHECK(t, a && archive_is_dir(a) && a->mode == (CPIO_S_IFDIR | 0755) && a->mtime == 0,
	      "/a implied: a directory 0755");
	CHECK(t, ab && archive_is_dir(ab), "/a/b implied");
	const struct archive_file *c = archive_lookup("/a/b/c");
	CHECK(t, c && c->size == 4 && !memcmp(c->data, "deep", 4) && c->mode == REG &&
	      c->mtime == 1700000000u, "/a/b/c's data and metadata");
	CHECK(t, !strcmp(children("/"), "/a /etc /etc-x /etc.d /hello"), "/ lists '%s'", children("/"));
	CHECK(t, !strcmp(children("/etc"), "/etc/motd"), "/etc lists '%s' (not /etc-x)",
	      children("/etc"));
	CHECK(t, !strcmp(children("/a"), "/a/b") && !strcmp(children("/a/b"), "/a/b/c"),
	      "implied directories list");
	CHECK(t, !strcmp(children("/etc.d"), ""), "an empty directory lists nothing");
	CHECK(t, archive_count() == 9, "9 entries with / and two implied: %u", archive_count());

	/* Only normalized absolute paths. */
	CHECK(t, !archive_lookup("/etc/") && !archive_lookup("etc") && !archive_lookup("/etc//motd") &&
	      !archive_lookup("/etc/./motd") && !archive_lookup("") && !archive_lookup("/a/b/c/"),
	      "unnormalized paths are not found");
	CHECK(t, !archive_lookup("/et") && !archive_lookup("/etc/mot") && !archive_lookup("/hello/x"),
	      "prefixes and names under a file");
	/* Listing a file, a missing or an unnormalized directory: nothing. */
	size_t cursor = 0;
	CHECK(t, !archive_child("/hello", &cursor) && !archive_child("/nothing", &cursor) &&
	      !archive_child("/etc/", &cursor), "children of non-directories");
	/* The cursor resumes. */
	cursor = 0;
	const struct archive_file *first = archive_child("/", &cursor);
	size_t saved = cursor;
	const struct archive_file *second = archive_child("/", &cursor);
	cursor = saved;
	CHECK(t, first && second && archive_child("/", &cursor) == second, "the cursor resumes");
	/* Unique inode numbers, 1 for /. */
	unsigned inos[16] = { 0 }, n = 0;
	const char *all[] = { "/", "/a", "/a/b", "/a/b/c", "/etc", "/etc/motd", "/etc-x", "/etc.d",
			      "/hello" };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		const struct archive_file *f = archive_lookup(all[i]);
		CHECK(t, f && !strcmp(f->path, all[i]), "lookup %s", all[i]);
		if (!f)
			continue;
		for (unsigned j = 0; j < n; j++)
			CHECK(t, inos[j] != f->ino, "%s shares inode %u", all[i], f->ino);
		inos[n++] = f->ino;
	}
	CHECK(t, archive_lookup("/")->ino == 1, "/ is inode 1");
	done();
}

HOST_TEST(archive_root_entry_and_lines)
{
	static struct ab b;
	heap();
	memset(&b, 0, sizeof(b));
	add(&b, ".", CPIO_S_IFDIR | 0700, NULL);
	add(&b, "x", REG, "1");
	add(&b, "l", CPIO_S_IFLNK | 0777, "x");
	trailer(&b);
	struct archive_module m = { "programs.cpio", b.buf, b.len };
	host_printk_take();
	archive_build(&m, 1);
	const char *out = host_printk_take();
	CHECK(t, strstr(out, "boot module programs.cpio: program archive, 1 files and 1 directories "
		     "(1 entries skipped") && strstr(out, "'l', is a symbolic link"), "line: %s", out);
	CHECK(t, archive_lookup("/")->mode == (CPIO_S_IFDIR | 0700), "'.' gives / its mode");
	CHECK(t, !archive_lookup("/l"), "the link is not in the tree");
	done();
}

HOST_TEST(archive_several_modules)
{
	static struct ab one, two, bad;
	heap();
	memset(&one, 0, sizeof(one));
	add(&one, "etc", DIR, NULL);
	add(&one, "etc/motd", REG, "first");
	add(&one, "tool", REG, "a file in the first");
	trailer(&one);
	memset(&two, 0, sizeof(two));
	add(&two, "etc/motd", REG, "second");
	add(&two, "etc/other", REG, "other");
	add(&two, "tool/sub", REG, "under the first's file");
	add(&two, "extra", REG, "e");
	trailer(&two);
	memset(&bad, 0, sizeof(bad));
	add(&bad, "/abs", REG, "x");
	trailer(&bad);
	struct archive_module m[] = { { "one.cpio", one.buf, one.len },
				      { "bad.cpio", bad.buf, bad.len },
				      { "two.cpio", two.buf, two.len } };
	host_printk_take();
	struct kmalloc_stats before, after;
	kmalloc_get_stats(&before);
	CHECK(t, archive_build(m, 3) == 2 && archive_modules_loaded() == 2, "two of three accepted");
	const char *out = host_printk_take();
	CHECK(t, strstr(out, "boot module bad.cpio: refused as a program archive: cpio: offset 0: "
		     "'/abs': an absolute name"), "refusal line: %s", out);
	CHECK(t, strstr(out, "archive: /etc/motd of a later module is hidden by the first one's") &&
	      strstr(out, "archive: /tool/sub lies under a file of an earlier module; dropped"),
	      "conflict lines: %s", out);
	const struct archive_file *motd = archive_lookup("/etc/motd");
	CHECK(t, motd && motd->size == 5 && !memcmp(motd->data, "first", 5), "the first module wins");
	CHECK(t, archive_lookup("/etc/other") && archive_lookup("/extra"), "the second adds the rest");
	CHECK(t, !strcmp(children("/etc"), "/etc/motd /etc/other"), "directories merge: '%s'",
	      children("/etc"));
	const struct archive_file *tool = archive_lookup("/tool");
	CHECK(t, tool && !archive_is_dir(tool) && !archive_lookup("/tool/sub"), "/tool stays a file");

	/* Building again replaces the tree and frees the old one. */
	archive_build(m, 1);
	CHECK(t, !archive_lookup("/extra") && archive_lookup("/tool"), "rebuilt from one module");
	archive_build(NULL, 0);
	CHECK(t, archive_count() == 1, "back to / alone");
	kmalloc_get_stats(&after);
	CHECK(t, after.bytes_in_use == before.bytes_in_use && after.allocs - before.allocs ==
	      after.frees - before.frees, "everything built was freed: %llu bytes, %llu allocs, "
	      "%llu frees", (unsigned long long)(after.bytes_in_use - before.bytes_in_use),
	      (unsigned long long)(after.allocs - before.allocs),
	      (unsigned long long)(after.frees - before.frees));
	done();
}
