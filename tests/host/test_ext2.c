// SPDX-License-Identifier: BSD-2-Clause
/*
 * Host tests of the ext2 reader (kernel/ext2/), the border a disk
 * crosses: images that mke2fs -d makes from a tree written here (1, 2
 * and 4 KiB blocks) read back exactly, every file compared byte for
 * byte with the tree through a path walk of ext2_lookup; images with
 * features or geometry Scion does not take refused with their line; and
 * 1600 randomly damaged copies (bytes flipped, fields set to
 * edge values, anywhere in the used part of the image) walked whole
 * under ASan, the device read counting any request outside the image:
 * none may escape, crash or loop.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "host_test.h"
#include "ext2_walk.h"
#include <scion/errno.h>
#include <scion/ext2.h>
#include <scion/mm.h>
#include "mm/mm_internal.h"

#define ARENA_PAGES 4096ull
#define DAMAGED_COPIES 800

static void heap(void)
{
	host_heap_reset(ARENA_PAGES);
}

static void write_file(const char *path, size_t size, unsigned seed)
{
	FILE *f = fopen(path, "wb");
	for (size_t i = 0; i < size; i++)
		fputc((int)((i * 131 + seed * 7 + (i >> 9)) & 0xff), f);
	fclose(f);
}

static char *remove_top;

static void remove_tree(void)
{
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", remove_top);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", remove_top);
}

/* The tree: files of edge sizes, a subdirectory, a sparse file, links. Returns its folder. */
static char *make_tree(unsigned *files, unsigned *dirs, unsigned *links)
{
	static char top[] = "/tmp/scion-ext2-XXXXXX";
	char path[512];
	if (!mkdtemp(top))
		return NULL;
	remove_top = top;
	atexit(remove_tree);
	snprintf(path, sizeof(path), "%s/tree", top);
	mkdir(path, 0755);
	static const size_t sizes[] = { 0, 1, 1023, 1024, 1025, 4095, 4096, 4097, 12 * 1024 + 1,
					 13 * 4096 + 5, 300 * 1024 };
	for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		snprintf(path, sizeof(path), "%s/tree/size-%zu", top, sizes[i]);
		write_file(path, sizes[i], i);
	}
	snprintf(path, sizeof(path), "%s/tree/sub", top);
	mkdir(path, 0755);
	for (unsigned i = 0; i < 150; i++) {
		snprintf(path, sizeof(path), "%s/tree/sub/a-name-of-some-length-%03u", top, i);
		write_file(path, i * 10, i);
	}
	snprintf(path, sizeof(path), "%s/tree/sparse", top);
	int fd = open(path, O_WRONLY | O_CREAT, 0644);
	if (pwrite(fd, "x", 1, 2 << 20) != 1)
		fd = -1;
	close(fd);
	snprintf(path, sizeof(path), "%s/tree/fast-link", top);
	if (symlink("sub/a-name-of-some-length-007", path))
		return NULL;
	char target[200];
	memset(target, 'l', sizeof(target) - 1);
	target[sizeof(target) - 1] = '\0';
	snprintf(path, sizeof(path), "%s/tree/slow-link", top);
	if (symlink(target, path))
		return NULL;
	*files = 11 + 150 + 1;
	*dirs = 2;	/* the root and sub */
	*links = 2;
	return top;
}

static uint8_t *make_image(const char *top, unsigned block, size_t *size)
{
	char cmd[4096], img[512];
	snprintf(img, sizeof(img), "%s/img-%u", top, block);
	/* mke2fs leaves a new file's unused tail unwritten: give the file its size first. */
	if (truncate(img, 4 << 20) && (close(open(img, O_WRONLY | O_CREAT, 0644)), truncate(img, 4 << 20)))
		return NULL;
	snprintf(cmd, sizeof(cmd), "mke2fs -q -F -t ext2 -b %u -d %s/tree %s 4M >/dev/null 2>&1 || "
		 "/usr/sbin/mke2fs -q -F -t ext2 -b %u -d %s/tree %s 4M", block, top, img, block, top,
		 img);
	if (system(cmd))
		return NULL;
	FILE *f = fopen(img, "rb");
	if (!f)
		return NULL;
	uint8_t *bytes = malloc(4 << 20);
	*size = fread(bytes, 1, 4 << 20, f);
	fclose(f);
	return bytes;
}

struct memdev {
	const uint8_t *bytes;
	size_t size;
};

static int mem_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	struct memdev *m = ctx;
	if (off > m->size || len > m->size - off)
		return -EIO;
	memcpy(buf, m->bytes + off, len);
	return 0;
}

/* The inode at a relative path, by ext2_lookup from the root. */
static int walk_path(struct ext2_fs *fs, const char *rel, struct ext2_inode *in)
{
	int err = ext2_read_inode(fs, 2, in);
	char copy[512];
	snprintf(copy, sizeof(copy), "%s", rel);
	for (char *save, *c = strtok_r(copy, "/", &save); !err && c; c = strtok_r(NULL, "/", &save)) {
		uint32_t ino;
		err = ext2_lookup(fs, in, c, strlen(c), &ino);
		if (!err)
			err = ext2_read_inode(fs, ino, in);
	}
	return err;
}

/* Every regular file of dir (relative rel) read through the reader equals the host's. */
static void compare_files(struct host_test_ctx *t, struct ext2_fs *fs, const char *top,
			  const char *rel, unsigned *compared)
{
	char hpath[1100];
	snprintf(hpath, sizeof(hpath), "%s/tree/%s", top, rel);
	DIR *d = opendir(hpath);
	REQUIRE(t, d, "opendir %s", hpath);
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		char r[512], h[1100];
		snprintf(r, sizeof(r), "%s%s%s", rel, *rel ? "/" : "", e->d_name);
		snprintf(h, sizeof(h), "%s/tree/%s", top, r);
		struct stat st;
		lstat(h, &st);
		struct ext2_inode in;
		int err = walk_path(fs, r, &in);
		CHECK(t, err == 0, "lookup %s: %d (%s)", r, err, fs->last_error);
		if (err)
			continue;
		CHECK(t, in.mode == st.st_mode && (S_ISDIR(st.st_mode) || in.size == (uint64_t)st.st_size),
		      "%s: mode 0%o size %llu, the host says 0%o %lld", r, in.mode,
		      (unsigned long long)in.size, st.st_mode, (long long)st.st_size);
		if (S_ISDIR(st.st_mode)) {
			compare_files(t, fs, top, r, compared);
		} else if (S_ISREG(st.st_mode)) {
			uint8_t *want = malloc((size_t)st.st_size + 1), *got = malloc((size_t)st.st_size + 1);
			int fd = open(h, O_RDONLY);
			ssize_t n = read(fd, want, (size_t)st.st_size);
			close(fd);
			int64_t g = ext2_read(fs, &in, 0, got, (size_t)st.st_size + 1);
			CHECK(t, n == st.st_size && g == st.st_size && !memcmp(want, got, (size_t)n),
			      "%s: read %lld bytes, expected %lld, equal %d", r, (long long)g,
			      (long long)st.st_size, g == n && !memcmp(want, got, (size_t)n));
			free(want);
			free(got);
			++*compared;
		} else if (S_ISLNK(st.st_mode)) {
			char want[512] = "", got[512] = "";
			ssize_t n = readlink(h, want, sizeof(want) - 1);
			int g = ext2_readlink(fs, &in, got, sizeof(got));
			CHECK(t, n == g && !strcmp(want, got), "%s: link '%s', expected '%s'", r, got, want);
			CHECK(t, ext2_readlink(fs, &in, got, (size_t)n) == -ENAMETOOLONG,
			      "%s: readlink into a buffer without room for the NUL", r);
		}
	}
	closedir(d);
}

static char *tree_top;
static unsigned tree_files, tree_dirs, tree_links;

HOST_TEST(ext2_images_read_back)
{
	heap();
	if (!tree_top)
		tree_top = make_tree(&tree_files, &tree_dirs, &tree_links);
	REQUIRE(t, tree_top, "could not write the tree");
	static const unsigned blocks[] = { 1024, 2048, 4096 };
	for (unsigned b = 0; b < 3; b++) {
		size_t size;
		uint8_t *img = make_image(tree_top, blocks[b], &size);
		REQUIRE(t, img, "mke2fs -b %u failed (apt-get install e2fsprogs)", blocks[b]);
		struct ext2_walk w;
		ext2_walk_image(img, size, &w);
		CHECK(t, w.open_error == 0, "%u-byte blocks: open: %s", blocks[b], w.msg);
		/* lost+found is a directory mke2fs adds. */
		CHECK(t, w.files == tree_files && w.dirs == tree_dirs + 1 && w.links == tree_links &&
		      !w.errors && !w.escapes, "%u-byte blocks: %u files %u dirs %u links %u errors "
		      "(%s) %u escapes", blocks[b], w.files, w.dirs, w.links, w.errors, w.first_error,
		      w.escapes);
		struct memdev m = { img, size };
		struct ext2_dev dev = { .read = mem_read, .ctx = &m, .bytes = size };
		struct ext2_fs fs;
		char msg[160];
		REQUIRE(t, ext2_open(&dev, &fs, msg, sizeof(msg)) == 0, "open: %s", msg);
		CHECK(t, fs.block_size == blocks[b] && fs.read_only, "block size %u", fs.block_size);
		unsigned compared = 0;
		compare_files(t, &fs, tree_top, "", &compared);
		CHECK(t, compared == tree_files, "%u files compared of %u", compared, tree_files);
		uint32_t ino;
		struct ext2_inode root;
		REQUIRE(t, ext2_read_inode(&fs, 2, &root) == 0, "root");
		CHECK(t, ext2_lookup(&fs, &root, "nosuch", 6, &ino) == -ENOENT, "a missing name");
		char longname[300];
		memset(longname, 'x', 256);
		CHECK(t, ext2_lookup(&fs, &root, longname, 256, &ino) == -ENAMETOOLONG, "256 bytes");
		CHECK(t, ext2_read_inode(&fs, 0, &root) == -EIO && ext2_read_inode(&fs, fs.inodes + 1,
		      &root) == -EIO, "inode 0 and past the count refused");
		ext2_close(&fs);
		free(img);
	}
}

static void put32(uint8_t *img, size_t off, uint32_t v)
{
	memcpy(img + off, &v, 4);
}

HOST_TEST(ext2_refusals)
{
	heap();
	if (!tree_top)
		tree_top = make_tree(&tree_files, &tree_dirs, &tree_links);
	REQUIRE(t, tree_top, "could not write the tree");
	size_t size;
	uint8_t *good = make_image(tree_top, 4096, &size), *img = malloc(size);
	REQUIRE(t, good, "mke2fs failed");
	static const struct {
		size_t off;
		uint32_t value;
		int err;
		const char *line;
	} cases[] = {
		{ 1024 + 56, 0x1234, -EINVAL, "no ext2 superblock" },
		{ 1024 + 76, 2, -ENOTSUP, "ext2 revision 2" },
		{ 1024 + 24, 3, -ENOTSUP, "block size 1024 << 3" },
		{ 1024 + 96, 0x40 | 2, -ENOTSUP, "incompatible features 0x40" },
		{ 1024 + 0, 7, -EINVAL, "7 inodes, but 1 groups" },
		{ 1024 + 4, 5000, -EINVAL, "5000 blocks of 4096 bytes, but the disk holds" },
		{ 1024 + 32, 0, -EINVAL, "0 blocks per group" },
		{ 1024 + 40, 0, -EINVAL, "0 inodes per group" },
		{ 1024 + 20, 1, -EINVAL, "first data block 1 with 4096-byte blocks" },
		{ 1024 + 12, 99999, -EINVAL, "99999 free blocks" },
		{ 4096 + 8, 99999, -EINVAL, "group 0's inode table at block 99999" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memcpy(img, good, size);
		if (cases[i].off == 1024 + 56)
			img[cases[i].off] = 0x34, img[cases[i].off + 1] = 0x12;
		else
			put32(img, cases[i].off, cases[i].value);
		struct ext2_walk w;
		ext2_walk_image(img, size, &w);
		CHECK(t, w.open_error == cases[i].err && strstr(w.msg, cases[i].line) && !w.escapes,
		      "case %zu: %d '%s', expected %d '%s'", i, w.open_error, w.msg, cases[i].err,
		      cases[i].line);
	}
	struct ext2_walk w;
	ext2_walk_image(good, 2047, &w);
	CHECK(t, w.open_error == -EINVAL && strstr(w.msg, "too small"), "a 2047-byte disk: %s", w.msg);
	ext2_walk_image(good, 2048, &w);
	CHECK(t, w.open_error == -EINVAL && strstr(w.msg, "but the disk holds 2048 bytes"),
	      "a 2 KiB disk: %s", w.msg);
	free(good);
	free(img);
}

HOST_TEST(ext2_damaged_copies_never_escape)
{
	heap();
	if (!tree_top)
		tree_top = make_tree(&tree_files, &tree_dirs, &tree_links);
	REQUIRE(t, tree_top, "could not write the tree");
	static const unsigned blocks[] = { 1024, 4096 };
	static const uint32_t edges[] = { 0, 1, 2, 0x7fffffff, 0x80000000, 0xffffffff, 0xffff, 12 };
	unsigned long long seed = 0x5c10a;
	unsigned opened = 0, errors = 0, escapes = 0;
	for (unsigned b = 0; b < 2; b++) {
		size_t size;
		uint8_t *good = make_image(tree_top, blocks[b], &size), *img = malloc(size);
		REQUIRE(t, good, "mke2fs failed");
		size_t used = size;	/* the used part: up to the last non-zero byte */
		while (used > 0 && !good[used - 1])
			used--;
		for (unsigned i = 0; i < DAMAGED_COPIES; i++) {
			memcpy(img, good, size);
			unsigned changes = 1 + (unsigned)(seed >> 33) % 4;
			for (unsigned c = 0; c < changes; c++) {
				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				size_t off = (size_t)(seed >> 20) % (used - 4);
				if (seed & 1)
					img[off] ^= (uint8_t)(1u << ((seed >> 8) % 8));
				else
					put32(img, off & ~(size_t)3, edges[(seed >> 8) % 8]);
			}
			struct ext2_walk w;
			ext2_walk_image(img, size, &w);
			opened += !w.open_error;
			errors += w.errors;
			escapes += w.escapes;
		}
		free(good);
		free(img);
	}
	CHECK(t, escapes == 0, "%u device reads outside the image", escapes);
	CHECK(t, opened > DAMAGED_COPIES && errors > 0, "%u of %u damaged copies opened, %u refusals "
	      "met: the damage should reach past the superblock", opened, 2 * DAMAGED_COPIES, errors);
}
