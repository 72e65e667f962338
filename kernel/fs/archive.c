// SPDX-License-Identifier: BSD-2-Clause
/*
 * The program archive's file tree (scion/archive.h). Each archive is
 * parsed (kernel/lib/cpio.c: a counting pass, then a pass that keeps the
 * entries); the files and directories of the accepted ones, the
 * directories they imply and "/" become one array sorted by path, in an
 * order where '/' sorts first, so that a directory's descendants are one
 * contiguous run just after it: a lookup is a binary search and a listing
 * a scan of that run. File data stays in the archive's bytes (at boot the
 * module where the boot loader put it, which mm keeps, through the direct
 * map). Built once (archive_boot.c finds the modules), never changed
 * afterwards: no locks. No machine-specific code and no boot state here:
 * the host unit tests (tests/host/test_archive.c) build trees of their own.
 */
#include <scion/archive.h>
#include <scion/cpio.h>
#include <scion/errno.h>
#include <scion/format.h>
#include <scion/mm.h>
#include <scion/printk.h>
#include <scion/string.h>
#include "archive_internal.h"

#define MSG_BYTES 200
#define IMPLIED_DIR_MODE (ARCHIVE_S_IFDIR | 0755)

static const char root_path[] = "/";	/* never freed; every other path is kmalloc'ed */
static const struct archive_file root_only = { .path = root_path, .mode = IMPLIED_DIR_MODE,
					       .ino = 1 };
static const struct archive_file *files = &root_only;
static unsigned nfiles = 1;
static unsigned nmodules;

/* While building: each candidate, and whether an archive named it or only implied it. */
struct candidate {
	struct archive_file f;
	unsigned order;		/* module index * 2^20 + entry index: the first one wins */
	bool implied;
};

/*
 * Path order: bytes compared as unsigned, except that '/' sorts before
 * every other byte but the end, so that "/etc/motd" comes before "/etc-x"
 * and a directory's descendants follow it directly.
 */
static int path_strcmp(const char *a, const char *b)
{
	for (;; a++, b++) {
		unsigned ca = (uint8_t)*a, cb = (uint8_t)*b;
		if (ca == '/')
			ca = 1;
		if (cb == '/')
			cb = 1;
		if (ca != cb)
			return ca < cb ? -1 : 1;
		if (!ca)
			return 0;
	}
}

#define MODULE_SHIFT 20

/* By path; for one path, the first module's, and its entry before a directory it implies. */
static int path_cmp(const struct candidate *a, const struct candidate *b)
{
	int c = path_strcmp(a->f.path, b->f.path);
	if (c)
		return c;
	if (a->order >> MODULE_SHIFT != b->order >> MODULE_SHIFT)
		return a->order >> MODULE_SHIFT < b->order >> MODULE_SHIFT ? -1 : 1;
	if (a->implied != b->implied)
		return a->implied ? 1 : -1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* Heapsort of n candidates by path_cmp (no recursion, no allocation). */
static void sift(struct candidate *c, size_t i, size_t n)
{
	for (;;) {
		size_t big = i, l = 2 * i + 1, r = l + 1;
		if (l < n && path_cmp(&c[l], &c[big]) > 0)
			big = l;
		if (r < n && path_cmp(&c[r], &c[big]) > 0)
			big = r;
		if (big == i)
			return;
		struct candidate t = c[i];
		c[i] = c[big];
		c[big] = t;
		i = big;
	}
}

static void sort_candidates(struct candidate *c, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift(c, i, n);
	for (size_t end = n; end-- > 1;) {
		struct candidate t = c[0];
		c[0] = c[end];
		c[end] = t;
		sift(c, 0, end);
	}
}

/* "/" + the first len bytes of name, or NULL when out of memory. */
static char *abs_path(const char *name, size_t len)
{
	char *p = kmalloc(len + 2);
	if (!p)
		return NULL;
	p[0] = '/';
	memcpy(p + 1, name, len);
	p[len + 1] = '\0';
	return p;
}

/* One parsed module. */
struct loaded {
	struct cpio_entry *e;
	long n;
	const char *name;
};

/* Parse module m; its entries (kmalloc) and count, or n < 0 after saying why. */
static void load_module(const struct archive_module *m, struct loaded *out)
{
	char msg[MSG_BYTES];
	const void *bytes = m->bytes;
	size_t size = m->size;

	out->name = m->name;
	out->e = NULL;
	out->n = cpio_parse(bytes, size, NULL, 0, NULL, msg, sizeof(msg));
	if (out->n < 0)
		goto refused;
	out->e = kmalloc(((size_t)out->n + 1) * sizeof(*out->e));
	if (!out->e) {
		printk("boot module %s: no memory for its %ld entries; its files are not "
		       "available\n", out->name, out->n);
		out->n = -ENOMEM;
		return;
	}
	struct cpio_summary sum;
	out->n = cpio_parse(bytes, size, out->e, (size_t)out->n, &sum, msg, sizeof(msg));
	if (out->n < 0) {
		kfree(out->e);
		out->e = NULL;
		goto refused;
	}
	size_t dirs = 0;
	for (long i = 0; i < out->n; i++)
		dirs += (out->e[i].mode & CPIO_S_IFMT) == CPIO_S_IFDIR;
	printk("boot module %s: program archive, %zu files and %zu directories",
	       out->name, (size_t)out->n - dirs, dirs);
	if (sum.skipped)
		printk(" (%zu entries skipped: links, devices, FIFOs and sockets are not kept; the "
		       "first, '%s', is a %s)", sum.skipped, sum.first_skipped,
		       cpio_type_name(sum.first_skipped_mode));
	printk("\n");
	return;
refused:
	printk("boot module %s: refused as a program archive: %s\n", out->name, msg);
}

/* The number of '/'-separated components of name (len bytes, non-empty). */
static size_t components(const char *name, size_t len)
{
	size_t n = 1;
	for (size_t i = 0; i < len; i++)
		n += name[i] == '/';
	return n;
}

/* The index of path in sorted table t[0..n), or -1. */
static long find_in(const struct archive_file *t, size_t n, const char *path)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = path_strcmp(t[mid].path, path);
		if (!c)
			return (long)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static void free_path(const char *path)
{
	if (path != root_path)
		kfree((void *)path);
}

/* Forget the tree (free what it allocated): back to "/" alone. */
static void tree_free(void)
{
	if (files != &root_only) {
		for (unsigned i = 0; i < nfiles; i++)
			free_path(files[i].path);
		kfree((void *)files);
	}
	files = &root_only;
	nfiles = 1;
	nmodules = 0;
}

static void build(struct loaded *mods, unsigned nmods)
{
	size_t cap = 1;
	for (unsigned k = 0; k < nmods; k++)
		for (long i = 0; i < mods[k].n; i++)
			cap += components(mods[k].e[i].name, mods[k].e[i].name_len);
	struct candidate *c = kzalloc(cap * sizeof(*c));
	if (!c) {
		printk("archive: no memory for %zu paths; no program archive\n", cap);
		return;
	}
	size_t n = 0;
	bool oom = false;
	c[n++] = (struct candidate){ .f = { .path = root_path, .mode = IMPLIED_DIR_MODE },
				     .order = ~0u, .implied = true };
	for (unsigned k = 0; k < nmods; k++) {
		for (long i = 0; i < mods[k].n; i++) {
			const struct cpio_entry *e = &mods[k].e[i];
			unsigned order = k << MODULE_SHIFT | (unsigned)i;
			if (!e->name_len) {	/* "." */
				c[n++] = (struct candidate){ .f = { .path = root_path, .mode = e->mode,
						.mtime = e->mtime }, .order = order };
				continue;
			}
			char *path = abs_path(e->name, e->name_len);
			if (!path) {
				oom = true;
				break;
			}
			c[n++] = (struct candidate){ .f = { .path = path, .data = e->data,
					.size = e->size, .mode = e->mode, .mtime = e->mtime },
					.order = order };
			/* Every ancestor: "/a" and "/a/b" for "/a/b/c". */
			for (size_t j = 1; j < e->name_len + 1; j++) {
				if (path[j] != '/')
					continue;
				char *dir = abs_path(e->name, j - 1);
				if (!dir) {
					oom = true;
					break;
				}
				c[n++] = (struct candidate){ .f = { .path = dir,
						.mode = IMPLIED_DIR_MODE }, .order = order,
						.implied = true };
			}
		}
	}
	if (oom)
		printk("archive: out of memory while building the tree; some files are missing\n");
	sort_candidates(c, n);

	/* Keep the first of each path; drop what lies under a path that is not a directory. */
	struct archive_file *out = kzalloc(n * sizeof(*out));
	if (!out) {
		printk("archive: no memory for %zu paths; no program archive\n", n);
		for (size_t i = 0; i < n; i++)
			free_path(c[i].f.path);
		kfree(c);
		return;
	}
	size_t kept = 0, hidden = 0;
	for (size_t i = 0; i < n; i++) {
		if (kept && !path_strcmp(out[kept - 1].path, c[i].f.path)) {
			bool both_dirs = archive_is_dir(&out[kept - 1]) && archive_is_dir(&c[i].f);
			if (!c[i].implied && !both_dirs) {
				printk("archive: %s of a later module is hidden by the first one's\n",
				       c[i].f.path);
				hidden++;
			}
			free_path(c[i].f.path);
			continue;
		}
		/* The parent, kept earlier (it sorts before), must be a directory. */
		const char *slash = strchr(c[i].f.path + 1, '/'), *last = NULL;
		for (; slash; slash = strchr(slash + 1, '/'))
			last = slash;
		if (kept && last) {
			size_t plen = (size_t)(last - c[i].f.path);
			char *ppath = abs_path(c[i].f.path + 1, plen - 1);
			long j = ppath ? find_in(out, kept, ppath) : -1;
			kfree(ppath);
			if (j < 0 || !archive_is_dir(&out[j])) {
				printk("archive: %s lies under a file of an earlier module; dropped\n",
				       c[i].f.path);
				hidden++;
				free_path(c[i].f.path);
				continue;
			}
		}
		out[kept] = c[i].f;
		out[kept].ino = (uint32_t)kept + 1;
		kept++;
	}
	kfree(c);
	files = out;
	nfiles = (unsigned)kept;
	if (hidden)
		printk("archive: %zu paths hidden or dropped\n", hidden);
}

unsigned archive_build(const struct archive_module *modules, unsigned n)
{
	static struct loaded mods[ARCHIVE_MAX_MODULES];
	unsigned nmods = 0;

	tree_free();
	for (unsigned i = 0; i < n && nmods < ARCHIVE_MAX_MODULES; i++) {
		load_module(&modules[i], &mods[nmods]);
		if (mods[nmods].n >= 0)
			nmods++;
	}
	if (!nmods)
		return 0;
	build(mods, nmods);
	nmodules = nmods;
	for (unsigned k = 0; k < nmods; k++)
		kfree(mods[k].e);
	return nmods;
}

static long find(const char *path)
{
	return find_in(files, nfiles, path);
}

const struct archive_file *archive_lookup(const char *abs_path)
{
	long i = find(abs_path);
	return i < 0 ? NULL : &files[i];
}

const struct archive_file *archive_child(const char *dir, size_t *cursor)
{
	long d = find(dir);
	if (d < 0 || !archive_is_dir(&files[d]))
		return NULL;
	size_t dlen = strlen(dir), plen = dlen == 1 ? 1 : dlen + 1;	/* "/" or "/etc/" */
	for (size_t i = *cursor ? *cursor : (size_t)d + 1; i < nfiles; i++) {
		const char *p = files[i].path;
		if (strncmp(p, dir, dlen) || p[plen - 1] != '/')
			return NULL;		/* past the directory's run */
		if (strchr(p + plen, '/'))
			continue;		/* deeper */
		*cursor = i + 1;
		return &files[i];
	}
	*cursor = nfiles;
	return NULL;
}

unsigned archive_count(void)
{
	return nfiles;
}

unsigned archive_modules_loaded(void)
{
	return nmodules;
}

const struct archive_file *archive_by_ino(uint64_t ino)
{
	return ino >= 1 && ino <= nfiles ? &files[ino - 1] : NULL;
}
