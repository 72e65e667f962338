// SPDX-License-Identifier: BSD-2-Clause
/*
 * The program archive as a VFS file system: its entries are the inodes
 * (inode number = the tree's, scion/archive.h), file data is read from
 * the archive's bytes in place, and directories list "." and ".." and
 * then their entries in path order. The tree never changes after boot,
 * so nothing here takes a lock.
 */
#include <scion/archive.h>
#include <scion/errno.h>
#include <scion/mm.h>
#include <scion/string.h>
#include <scion/vfs.h>

#define DT_DIR 4
#define DT_REG 8
#define FIRST_CHILD_POS 2	/* positions 0 and 1 are "." and "..", then archive_child's cursor + 2 */

struct archive_vnode {
	struct vnode v;
	const struct archive_file *af;
};

static const struct archive_file *file_of(const struct vnode *v)
{
	return container_of(v, struct archive_vnode, v)->af;
}

static int archive_read_inode(struct vnode *v)
{
	const struct archive_file *af = archive_by_ino(v->ino);
	if (!af)
		return -ENOENT;
	container_of(v, struct archive_vnode, v)->af = af;
	v->mode = af->mode;
	v->nlink = 1;
	v->size = af->size;
	v->blocks512 = (af->size + 511) / 512;
	v->atime = v->mtime = v->ctime = (int64_t)af->mtime;
	return 0;
}

static int archive_vfs_lookup(struct vnode *dir, const char *name, size_t len, uint64_t *ino)
{
	const char *dpath = file_of(dir)->path;
	size_t dlen = strlen(dpath);
	char *path = kmalloc(dlen + len + 2);
	if (!path)
		return -ENOMEM;
	size_t n = dlen == 1 ? 0 : dlen;	/* "/" + name, or "/etc" + "/" + name */
	memcpy(path, dpath, n);
	path[n] = '/';
	memcpy(path + n + 1, name, len);
	path[n + 1 + len] = '\0';
	const struct archive_file *af = archive_lookup(path);
	kfree(path);
	if (!af)
		return -ENOENT;
	*ino = af->ino;
	return 0;
}

static int64_t archive_vfs_read(struct vnode *v, uint64_t off, void *buf, size_t len)
{
	const struct archive_file *af = file_of(v);
	if (off >= af->size)
		return 0;
	size_t n = af->size - off < len ? (size_t)(af->size - off) : len;
	memcpy(buf, (const uint8_t *)af->data + off, n);
	return (int64_t)n;
}

/* The inode number of dir's parent ("/" is its own). */
static uint64_t parent_ino(const struct archive_file *dir)
{
	size_t n = (size_t)(path_last_component(dir->path) - dir->path) - 1;
	if (n == 0)
		n = 1;	/* a child of "/" */
	char parent[256];
	if (n >= sizeof(parent))
		return dir->ino;
	memcpy(parent, dir->path, n);
	parent[n] = '\0';
	const struct archive_file *p = archive_lookup(parent);
	return p ? p->ino : dir->ino;
}

static int archive_vfs_iterate(struct vnode *dir, uint64_t *pos,
			       int (*fn)(void *arg, const struct vfs_dirent *d, uint64_t next),
			       void *arg)
{
	const struct archive_file *af = file_of(dir);
	if (!archive_is_dir(af))
		return -ENOTDIR;
	for (;;) {
		struct vfs_dirent d;
		uint64_t next;
		if (*pos < FIRST_CHILD_POS) {
			d = (struct vfs_dirent){ .ino = *pos ? parent_ino(af) : af->ino, .type = DT_DIR,
						 .name = "..", .len = *pos ? 2 : 1 };
			next = *pos + 1;
		} else {
			size_t cursor = (size_t)(*pos - FIRST_CHILD_POS);
			const struct archive_file *c = archive_child(af->path, &cursor);
			if (!c)
				return 0;
			const char *name = path_last_component(c->path);
			d = (struct vfs_dirent){ .ino = c->ino, .type = archive_is_dir(c) ? DT_DIR : DT_REG,
						 .name = name, .len = strlen(name) };
			next = cursor + FIRST_CHILD_POS;
		}
		int r = fn(arg, &d, next);
		if (r < 0)
			return r;
		*pos = next;
		if (r)
			return r;
	}
}

static const void *archive_contents(struct vnode *v)
{
	return file_of(v)->data;
}

static const struct vfs_ops archive_vfs_ops = {
	.name = "archive",
	.vnode_size = sizeof(struct archive_vnode),
	.read_inode = archive_read_inode,
	.lookup = archive_vfs_lookup,
	.read = archive_vfs_read,
	.iterate = archive_vfs_iterate,
	.contents = archive_contents,
};

struct vfs_fs *archive_vfs_open(void)
{
	static struct vfs_fs fs = {
		.ops = &archive_vfs_ops, .root_ino = 1, .source = "boot modules", .read_only = true,
		.magic = 0x858458f6,	/* Linux's RAMFS_MAGIC: an in-memory tree */
	};
	return &fs;
}
