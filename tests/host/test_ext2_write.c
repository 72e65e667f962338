// SPDX-License-Identifier: BSD-2-Clause
/*
 * Host tests of ext2 writing (kernel/ext2/alloc.c, write.c, dir_write.c,
 * namespace.c) on images mke2fs made (1 and 4 KiB blocks), checked by
 * e2fsprogs, not by the reader itself: after a script of creates,
 * writes (through single and double indirect blocks), symbolic and hard
 * links, renames (in a directory, across directories, over a file, a
 * directory moved), unlinks, rmdir, truncates (shrinking into the
 * indirect tree, growing sparse, to 0) and deletes, `e2fsck -fn` finds
 * nothing to fix and `debugfs` dumps every file with the bytes a model
 * kept; filling a small volume ends in ENOSPC with the files written
 * before intact and the volume still clean.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "host_test.h"
#include <scion/errno.h>
#include <scion/ext2.h>
#include <scion/mm.h>
#include "mm/mm_internal.h"

#define ARENA_PAGES 4096ull
#define MAX_FILES 400

static void heap(void)
{
	host_heap_reset(ARENA_PAGES);
}

struct disk {
	uint8_t *bytes;
	size_t size;
	unsigned writes, sync_writes;
};

static int disk_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	struct disk *d = ctx;
	if (off > d->size || len > d->size - off)
		return -EIO;
	memcpy(buf, d->bytes + off, len);
	return 0;
}

static int disk_write(void *ctx, uint64_t off, const void *buf, size_t len, bool sync)
{
	struct disk *d = ctx;
	if (off > d->size || len > d->size - off)
		return -EIO;
	memcpy(d->bytes + off, buf, len);
	d->writes++;
	d->sync_writes += sync;
	return 0;
}

static int disk_sync(void *ctx)
{
	(void)ctx;
	return 0;
}

static int64_t disk_now(void *ctx)
{
	(void)ctx;
	return 1700000000;
}

static char workdir[] = "/tmp/scion-ext2w-XXXXXX";

static void remove_workdir(void)
{
	char cmd[200];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", workdir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", workdir);
}

/* A fresh image of size bytes with blocks of block bytes, holding one file. */
static bool make_disk(struct disk *d, unsigned block, size_t size)
{
	static bool made;
	if (!made) {
		if (!mkdtemp(workdir))
			return false;
		if (!getenv("KEEP_EXT2W")) atexit(remove_workdir);
		made = true;
	}
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "cd %s && rm -rf tree img && mkdir tree && echo old > tree/old && "
		 "truncate -s %zu img && PATH=$PATH:/usr/sbin mke2fs -q -F -t ext2 -b %u -d tree img "
		 ">/dev/null 2>&1", workdir, size, block);
	if (system(cmd))
		return false;
	snprintf(cmd, sizeof(cmd), "%s/img", workdir);
	FILE *f = fopen(cmd, "rb");
	if (!f)
		return false;
	d->bytes = calloc(1, size);
	d->size = fread(d->bytes, 1, size, f);
	fclose(f);
	return d->size == size;
}

static bool save(const struct disk *d)
{
	char path[200];
	snprintf(path, sizeof(path), "%s/img", workdir);
	FILE *f = fopen(path, "wb");
	bool ok = f && fwrite(d->bytes, 1, d->size, f) == d->size;
	if (f)
		fclose(f);
	return ok;
}

/* e2fsck -fn's verdict: true when it found nothing to fix; its output's tail in why. */
static bool fsck_clean(char *why, size_t n)
{
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "PATH=$PATH:/usr/sbin e2fsck -fn %s/img 2>&1", workdir);
	FILE *p = popen(cmd, "r");
	char out[8192] = "";
	size_t len = p ? fread(out, 1, sizeof(out) - 1, p) : 0;
	out[len] = '\0';
	int status = p ? pclose(p) : -1;
	snprintf(why, n, "%s", len > n - 1 ? out + len - (n - 1) : out);
	return status == 0 && !strstr(out, "Fix?");
}

/* The model: what each path must hold. */
struct model_file {
	char path[96];
	uint8_t *data;
	size_t size;
};
static struct model_file model[MAX_FILES];
static unsigned nmodel;

static struct model_file *model_find(const char *path)
{
	for (unsigned i = 0; i < nmodel; i++)
		if (!strcmp(model[i].path, path))
			return &model[i];
	return NULL;
}

static void model_set(const char *path, const uint8_t *data, size_t size)
{
	struct model_file *m = model_find(path);
	if (!m) {
		m = &model[nmodel++];
		snprintf(m->path, sizeof(m->path), "%s", path);
	}
	free(m->data);
	m->data = malloc(size + 1);
	memcpy(m->data, data, size);
	m->size = size;
}

static void model_drop(const char *path)
{
	struct model_file *m = model_find(path);
	if (m) {
		free(m->data);
		*m = model[--nmodel];
		memset(&model[nmodel], 0, sizeof(model[nmodel]));
	}
}

static void model_clear(void)
{
	while (nmodel)
		model_drop(model[0].path);
}

/* debugfs dumps every model file; each must equal the model's bytes. */
static void check_dumps(struct host_test_ctx *t, const char *label)
{
	char cmdfile[200], cmd[600];
	snprintf(cmdfile, sizeof(cmdfile), "%s/cmds", workdir);
	FILE *f = fopen(cmdfile, "w");
	for (unsigned i = 0; i < nmodel; i++)
		fprintf(f, "dump %s %s/dump-%u\n", model[i].path, workdir, i);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cd %s && rm -f dump-* && PATH=$PATH:/usr/sbin debugfs -f cmds img "
		 ">/dev/null 2>&1", workdir);
	CHECK(t, system(cmd) == 0, "%s: debugfs failed", label);
	unsigned bad = 0;
	for (unsigned i = 0; i < nmodel; i++) {
		char path[300];
		snprintf(path, sizeof(path), "%s/dump-%u", workdir, i);
		FILE *d = fopen(path, "rb");
		uint8_t *got = malloc(model[i].size + 2);
		size_t n = d ? fread(got, 1, model[i].size + 1, d) : 0;
		if (d)
			fclose(d);
		if (!d || n != model[i].size || memcmp(got, model[i].data, n)) {
			if (!bad++)
				host_fail(t, __FILE__, __LINE__, "%s: %s dumped %zu bytes (%s), the model "
					  "holds %zu", label, model[i].path, n, d ? "differs" : "missing",
					  model[i].size);
		}
		free(got);
	}
}

struct vol {
	struct disk disk;
	struct ext2_fs fs;
	struct ext2_inode root;
};

static bool mount_disk(struct host_test_ctx *t, struct vol *v, unsigned block, size_t size)
{
	memset(v, 0, sizeof(*v));
	if (!make_disk(&v->disk, block, size)) {
		host_fail(t, __FILE__, __LINE__, "mke2fs failed (apt-get install e2fsprogs)");
		return false;
	}
	struct ext2_dev dev = { .read = disk_read, .write = disk_write, .sync = disk_sync,
				.now = disk_now, .ctx = &v->disk, .bytes = v->disk.size };
	char msg[160];
	int err = ext2_open(&dev, &v->fs, msg, sizeof(msg));
	if (err || v->fs.read_only || ext2_read_inode(&v->fs, 2, &v->root)) {
		host_fail(t, __FILE__, __LINE__, "open: %d %s", err, msg);
		return false;
	}
	return true;
}

static uint8_t *pattern(size_t size, unsigned seed)
{
	uint8_t *p = malloc(size + 1);
	for (size_t i = 0; i < size; i++)
		p[i] = (uint8_t)(i * 7 + seed * 13 + (i >> 10));
	return p;
}

/* Create path's last name in dir with size bytes of pattern seed, into the model. */
static void put_file(struct host_test_ctx *t, struct vol *v, struct ext2_inode *dir,
		     const char *dirpath, const char *name, size_t size, unsigned seed)
{
	struct ext2_inode in;
	int err = ext2_create(&v->fs, dir, name, strlen(name), 0100644, 0, 0, NULL, &in);
	CHECK(t, !err, "create %s/%s: %d (%s)", dirpath, name, err, v->fs.last_error);
	if (err)
		return;
	uint8_t *data = pattern(size, seed);
	/* Written in two unaligned pieces. */
	size_t first = size / 3;
	int64_t a = ext2_write(&v->fs, &in, 0, data, first);
	int64_t b = ext2_write(&v->fs, &in, first, data + first, size - first);
	CHECK(t, a == (int64_t)first && b == (int64_t)(size - first), "write %s/%s: %lld %lld (%s)",
	      dirpath, name, (long long)a, (long long)b, v->fs.last_error);
	char path[96];
	snprintf(path, sizeof(path), "%s/%s", dirpath, name);
	model_set(path, data, size);
	free(data);
}

static int lookup_inode(struct vol *v, struct ext2_inode *dir, const char *name,
			struct ext2_inode *out)
{
	uint32_t ino;
	int err = ext2_lookup(&v->fs, dir, name, strlen(name), &ino);
	return err ? err : ext2_read_inode(&v->fs, ino, out);
}

static void script(struct host_test_ctx *t, unsigned block)
{
	struct vol v;
	if (!mount_disk(t, &v, block, 8 << 20))
		return;
	model_clear();
	char why[600];
	struct ext2_inode dir, sub, other, in, victim;
	put_file(t, &v, &v.root, "", "a.txt", 10000, 1);
	/* 300 KiB: the double indirect block with 1 KiB blocks (12 + 256 blocks). */
	put_file(t, &v, &v.root, "", "big", 300 * 1024 + 5, 2);
	CHECK(t, !ext2_create(&v.fs, &v.root, "dir", 3, 040755, 0, 0, NULL, &dir), "mkdir dir");
	char name[64];
	for (unsigned i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "file-with-a-long-name-%04u", i);
		put_file(t, &v, &dir, "/dir", name, (i * 997) % 9000, i);
	}
	CHECK(t, dir.size > v.fs.block_size, "300 names take more than a block: %llu",
	      (unsigned long long)dir.size);
	CHECK(t, !ext2_create(&v.fs, &dir, "sub", 3, 040755, 0, 0, NULL, &sub), "mkdir dir/sub");
	CHECK(t, !ext2_create(&v.fs, &v.root, "other", 5, 040755, 0, 0, NULL, &other), "mkdir other");
	CHECK(t, ext2_create(&v.fs, &v.root, "dir", 3, 040755, 0, 0, NULL, &in) == -EEXIST,
	      "mkdir of an existing name");
	/* Links. */
	CHECK(t, !ext2_create(&v.fs, &v.root, "fast", 4, 0120777, 0, 0, "dir/sub", &in), "symlink");
	char target[200];
	memset(target, 't', sizeof(target) - 1);
	target[sizeof(target) - 1] = '\0';
	CHECK(t, !ext2_create(&v.fs, &v.root, "slow", 4, 0120777, 0, 0, target, &in), "long symlink");
	char got[300];
	CHECK(t, ext2_readlink(&v.fs, &in, got, sizeof(got)) == 199 && !strcmp(got, target),
	      "readlink of the long link");
	CHECK(t, !lookup_inode(&v, &v.root, "a.txt", &in) &&
	      !ext2_link(&v.fs, &other, "hard", 4, &in) && in.nlink == 2, "link other/hard");
	model_set("/other/hard", model_find("/a.txt")->data, 10000);
	/* Renames. */
	CHECK(t, !ext2_rename(&v.fs, &dir, "file-with-a-long-name-0001", 26, &dir, "renamed", 7,
			      &victim, &(bool){ 0 }), "rename in a directory");
	model_set("/dir/renamed", model_find("/dir/file-with-a-long-name-0001")->data,
		  model_find("/dir/file-with-a-long-name-0001")->size);
	model_drop("/dir/file-with-a-long-name-0001");
	bool replaced;
	CHECK(t, !ext2_rename(&v.fs, &dir, "file-with-a-long-name-0002", 26, &v.root, "a.txt", 5,
			      &victim, &replaced) && replaced && victim.nlink == 1,
	      "rename over a file with another link: replaced %d, its links %u", replaced,
	      victim.nlink);
	model_set("/a.txt", model_find("/dir/file-with-a-long-name-0002")->data,
		  model_find("/dir/file-with-a-long-name-0002")->size);
	model_drop("/dir/file-with-a-long-name-0002");
	CHECK(t, !ext2_rename(&v.fs, &dir, "file-with-a-long-name-0003", 26, &v.root, "big", 3,
			      &victim, &replaced) && replaced && victim.nlink == 0 &&
	      !ext2_delete(&v.fs, &victim), "rename over the last link of a file, then delete it");
	model_set("/big", model_find("/dir/file-with-a-long-name-0003")->data,
		  model_find("/dir/file-with-a-long-name-0003")->size);
	model_drop("/dir/file-with-a-long-name-0003");
	CHECK(t, ext2_rename(&v.fs, &v.root, "dir", 3, &sub, "x", 1, &victim, &replaced) == -EINVAL,
	      "a directory moved into itself");
	CHECK(t, !ext2_rename(&v.fs, &dir, "sub", 3, &other, "moved", 5, &victim, &replaced),
	      "a directory moved across parents: %s", v.fs.last_error);
	/* Unlinks and rmdir. */
	for (unsigned i = 10; i < 60; i++) {
		snprintf(name, sizeof(name), "file-with-a-long-name-%04u", i);
		int err = ext2_unlink(&v.fs, &dir, name, strlen(name), &victim);
		CHECK(t, !err && victim.nlink == 0 && !ext2_delete(&v.fs, &victim), "unlink %s: %d",
		      name, err);
		char path[96];
		snprintf(path, sizeof(path), "/dir/%s", name);
		model_drop(path);
	}
	CHECK(t, ext2_unlink(&v.fs, &v.root, "dir", 3, &victim) == -EISDIR, "unlink of a directory");
	CHECK(t, ext2_rmdir(&v.fs, &v.root, "other", 5, &victim) == -ENOTEMPTY, "rmdir non-empty");
	CHECK(t, !lookup_inode(&v, &v.root, "other", &other) &&
	      !ext2_rmdir(&v.fs, &other, "moved", 5, &victim) && !ext2_delete(&v.fs, &victim),
	      "rmdir other/moved");
	/* Truncates. */
	CHECK(t, !lookup_inode(&v, &v.root, "big", &in), "big");
	struct model_file *m = model_find("/big");
	uint8_t *data = pattern(300 * 1024, 9);
	CHECK(t, ext2_write(&v.fs, &in, 0, data, 300 * 1024) == 300 * 1024, "rewrite big");
	size_t sizes[] = { 200 * 1024 + 77, 13 * 1024 + 1, 1 << 20, 5000, 0, 70000 };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t keep = sizes[i] < 300 * 1024 ? sizes[i] : 300 * 1024;
		CHECK(t, !ext2_truncate(&v.fs, &in, sizes[i]), "truncate to %zu: %s", sizes[i],
		      v.fs.last_error);
		uint8_t *want = calloc(1, sizes[i] + 1);
		memcpy(want, data, keep);
		memset(data + keep, 0, 300 * 1024 - keep);	/* what was cut is gone */
		model_set("/big", want, sizes[i]);
		free(want);
	}
	(void)m;
	free(data);
	CHECK(t, !ext2_sync_super(&v.fs), "sync the superblock");
	CHECK(t, save(&v.disk), "save the image");
	CHECK(t, fsck_clean(why, sizeof(why)), "%u-byte blocks: e2fsck -fn: ...%s", block, why);
	check_dumps(t, block == 1024 ? "1 KiB blocks" : "4 KiB blocks");
	ext2_close(&v.fs);
	free(v.disk.bytes);
}

HOST_TEST(ext2_write_script_fsck_clean)
{
	heap();
	script(t, 1024);
	heap();
	script(t, 4096);
	model_clear();
}

HOST_TEST(ext2_write_until_full)
{
	heap();
	struct vol v;
	if (!mount_disk(t, &v, 1024, 256 << 10))
		return;
	model_clear();
	int err = 0;
	unsigned made = 0;
	char name[32], why[600];
	while (made < 300) {
		snprintf(name, sizeof(name), "f%03u", made);
		struct ext2_inode in;
		err = ext2_create(&v.fs, &v.root, name, strlen(name), 0100644, 0, 0, NULL, &in);
		if (err)
			break;
		uint8_t *data = pattern(20000, made);
		int64_t n = ext2_write(&v.fs, &in, 0, data, 20000);
		char path[40];
		snprintf(path, sizeof(path), "/%s", name);
		if (n > 0) {
			model_set(path, data, (size_t)n);
		} else {
			err = (int)n;
			model_set(path, data, 0);
		}
		free(data);
		made++;
		if (n != 20000)
			break;
	}
	CHECK(t, err == -ENOSPC || (err == 0 && made < 300), "filling: %d after %u files", err, made);
	CHECK(t, v.fs.free_blocks < 3, "%u blocks left free", v.fs.free_blocks);
	CHECK(t, !ext2_sync_super(&v.fs) && save(&v.disk), "save");
	CHECK(t, fsck_clean(why, sizeof(why)), "full volume: e2fsck -fn: ...%s", why);
	check_dumps(t, "full volume");
	model_clear();
	ext2_close(&v.fs);
	free(v.disk.bytes);
}

/*
 * Inode numbers come from the first clear bit at or after the group's
 * first non-reserved one (alloc.c's byte-skipping scan): freed numbers
 * on both sides of a bitmap byte boundary come back in ascending order,
 * then the next never used; filling the inode table ends in ENOSPC with
 * every number handed out once and the volume clean.
 */
HOST_TEST(ext2_inode_numbers_reuse_holes)
{
	enum { FILES = 40 };
	static const unsigned freed[] = { 0, 7, 8, 16, 39 };
	heap();
	struct vol v;
	if (!mount_disk(t, &v, 1024, 1 << 20))
		return;
	uint32_t ino[FILES];
	char name[32], why[600];
	struct ext2_inode in;
	for (unsigned i = 0; i < FILES; i++) {
		snprintf(name, sizeof(name), "f%03u", i);
		int err = ext2_create(&v.fs, &v.root, name, strlen(name), 0100644, 0, 0, NULL, &in);
		CHECK(t, !err, "create %s: %d", name, err);
		ino[i] = in.ino;
		CHECK(t, !i || ino[i] == ino[i - 1] + 1, "%s got inode %u after %u", name, ino[i],
		      i ? ino[i - 1] : 0);
	}
	for (unsigned k = 0; k < sizeof(freed) / sizeof(freed[0]); k++) {
		snprintf(name, sizeof(name), "f%03u", freed[k]);
		struct ext2_inode victim;
		CHECK(t, !ext2_unlink(&v.fs, &v.root, name, strlen(name), &victim) &&
		      !ext2_delete(&v.fs, &victim), "unlink %s", name);
	}
	for (unsigned k = 0; k < sizeof(freed) / sizeof(freed[0]); k++) {
		snprintf(name, sizeof(name), "g%03u", k);
		int err = ext2_create(&v.fs, &v.root, name, strlen(name), 0100644, 0, 0, NULL, &in);
		CHECK(t, !err && in.ino == ino[freed[k]], "%s got inode %u (%d), want the freed %u",
		      name, in.ino, err, ino[freed[k]]);
	}
	int err = ext2_create(&v.fs, &v.root, "next", 4, 0100644, 0, 0, NULL, &in);
	CHECK(t, !err && in.ino == ino[FILES - 1] + 1, "next got inode %u (%d), want %u", in.ino,
	      err, ino[FILES - 1] + 1);
	uint32_t free_before = v.fs.free_inodes, made = 0;
	for (;;) {
		snprintf(name, sizeof(name), "h%05u", made);
		err = ext2_create(&v.fs, &v.root, name, strlen(name), 0100644, 0, 0, NULL, &in);
		if (err)
			break;
		made++;
	}
	CHECK(t, err == -ENOSPC && made == free_before && v.fs.free_inodes == 0,
	      "filling the inode table: %d after %u of %u free", err, made, free_before);
	CHECK(t, !ext2_sync_super(&v.fs) && save(&v.disk), "save");
	CHECK(t, fsck_clean(why, sizeof(why)), "inode table full: e2fsck -fn: ...%s", why);
	ext2_close(&v.fs);
	free(v.disk.bytes);
}
