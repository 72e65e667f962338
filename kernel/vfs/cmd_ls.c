// SPDX-License-Identifier: BSD-2-Clause
/*
 * The shell's `ls [DIR]`: a directory of the VFS (scion/vfs.h), one line
 * per entry as `ls -l` would show it (type and permissions, size, name;
 * a directory's name ends in '/', a link's is followed by its target),
 * in the file system's order, then the file systems mounted in it. DIR
 * is absolute or taken from "/". A file lists itself.
 */
#include <scion/errno.h>
#include <scion/mm.h>
#include <scion/printk.h>
#include <scion/shell.h>
#include <scion/string.h>
#include <scion/vfs.h>

static void mode_string(uint32_t mode, char out[11])
{
	static const char rwx[] = "rwxrwxrwx";
	uint32_t type = mode & VFS_S_IFMT;
	out[0] = type == VFS_S_IFDIR ? 'd' : type == VFS_S_IFLNK ? 'l' : '-';
	for (int i = 0; i < 9; i++)
		out[1 + i] = mode & (0400u >> i) ? rwx[i] : '-';
	out[10] = '\0';
}

static void print_entry(struct vnode *v, const char *name, size_t len)
{
	char mode[11];
	mode_string(v->mode, mode);
	char *target = vnode_is_link(v) ? kmalloc(VFS_PATH_MAX) : NULL;
	int n = target ? v->fs->ops->readlink(v, target, VFS_PATH_MAX) : -1;
	printk("%s %9llu %.*s%s%s%s\n", mode, (unsigned long long)v->size, (int)len, name,
	       vnode_is_dir(v) && strcmp(name, "/") ? "/" : "", vnode_is_link(v) ? " -> " : "",
	       n >= 0 ? target : vnode_is_link(v) ? "?" : "");
	kfree(target);
}

struct ls_arg {
	struct vnode *dir;
	size_t shown;
};

static int list_one(void *arg, const struct vfs_dirent *d, uint64_t next)
{
	(void)next;
	struct ls_arg *a = arg;
	if ((d->len == 1 && d->name[0] == '.') || (d->len == 2 && !memcmp(d->name, "..", 2)))
		return 0;
	struct vnode *v;
	int err = vnode_get(a->dir->fs, d->ino, &v);
	if (err) {
		printk("?????????? %9s %.*s (%s)\n", "?", (int)d->len, d->name, errno_name(err));
	} else {
		print_entry(v, d->name, d->len);
		vnode_put(v);
	}
	a->shown++;
	return 0;
}

static int cmd_ls(int argc, char **argv)
{
	if (argc > 2) {
		printk("ls: one directory at most (ls [DIR])\n");
		return -EINVAL;
	}
	char *path = kmalloc(VFS_PATH_MAX);
	if (!path)
		return -ENOMEM;
	int err = vfs_normalize("/", argc == 2 ? argv[1] : "/", path, VFS_PATH_MAX);
	struct vnode *v = NULL;
	if (!err)
		err = vfs_walk(path, true, &v);
	if (err) {
		printk("ls: %s: %s%s\n", argc == 2 ? argv[1] : "/", errno_name(err),
		       err == -ENOENT ? " (paths are absolute, e.g. /etc; `mounts` lists what is "
		       "mounted)" : "");
		kfree(path);
		return err;
	}
	if (!vnode_is_dir(v)) {
		print_entry(v, path, strlen(path));
		vnode_put(v);
		kfree(path);
		return 0;
	}
	struct ls_arg a = { .dir = v };
	uint64_t pos = 0;
	err = v->fs->ops->iterate(v, &pos, list_one, &a);
	if (err < 0)
		printk("ls: %s: %s after %zu entries\n", path, errno_name(err), a.shown);
	if (!strcmp(path, "/"))
		for (unsigned i = 1; vfs_mount_at(i); i++, a.shown++)
			printk("%s %9s %s/ (%s)\n", "drwxr-xr-x", "-", vfs_mount_at(i)->where + 1,
			       vfs_mount_at(i)->ops->name);
	printk("%zu entr%s in %s\n", a.shown, a.shown == 1 ? "y" : "ies", path);
	vnode_put(v);
	kfree(path);
	return err < 0 ? err : 0;
}

SHELL_COMMAND(ls, "[DIR]", "list a directory of the mounted file systems", cmd_ls);
