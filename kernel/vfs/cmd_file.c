// SPDX-License-Identifier: BSD-2-Clause
/*
 * The shell's file commands over the VFS (scion/vfs.h), so that a file's
 * exact bytes can be seen and written from the console without user
 * programs (the sparc64 port has none): `cat FILE` prints a file as it
 * is, `write FILE TEXT...` makes FILE hold TEXT (its words joined by one
 * space) and a newline, creating it when absent. `sync` puts it on disk.
 * Paths are absolute or taken from "/".
 */
#include <scion/errno.h>
#include <scion/mm.h>
#include <scion/printk.h>
#include <scion/shell.h>
#include <scion/string.h>
#include <scion/vfs.h>

#define CAT_CHUNK_BYTES 4096	/* read at a time */
#define CAT_PRINT_BYTES 256	/* printed at a time: printk formats at most 512 bytes a call */
#define FILE_MODE_RW_R_R 0644	/* a new file: rw-r--r-- */

/* Walk to argv's path; prints one line and returns -errno on failure. */
static int walk_path(const char *cmd, const char *arg, char *path, struct vnode **v)
{
	int err = vfs_normalize("/", arg, path, VFS_PATH_MAX);
	if (!err)
		err = vfs_walk(path, true, v);
	if (err)
		printk("%s: %s: %s\n", cmd, arg, errno_name(err));
	return err;
}

static int print_file(struct vnode *v, const char *name)
{
	char *chunk = kmalloc(CAT_CHUNK_BYTES);
	if (!chunk)
		return -ENOMEM;
	uint64_t off = 0;
	int err = 0;
	while (off < v->size) {
		int64_t got = v->fs->ops->read(v, off, chunk, CAT_CHUNK_BYTES);
		if (got <= 0) {
			err = got ? (int)got : -EIO;
			printk("\ncat: %s: %s at byte %llu\n", name, errno_name(err),
			       (unsigned long long)off);
			break;
		}
		for (int64_t at = 0; at < got; at += CAT_PRINT_BYTES)
			printk("%.*s", (int)MIN(got - at, (int64_t)CAT_PRINT_BYTES), chunk + at);
		off += (uint64_t)got;
	}
	kfree(chunk);
	return err;
}

static int cmd_cat(int argc, char **argv)
{
	if (argc != 2) {
		printk("cat: one file (cat FILE)\n");
		return -EINVAL;
	}
	char *path = kmalloc(VFS_PATH_MAX);
	if (!path)
		return -ENOMEM;
	struct vnode *v = NULL;
	int err = walk_path("cat", argv[1], path, &v);
	if (!err) {
		if (vnode_is_dir(v)) {
			printk("cat: %s: %s (ls lists a directory)\n", argv[1], errno_name(-EISDIR));
			err = -EISDIR;
		} else {
			err = print_file(v, argv[1]);
		}
		vnode_put(v);
	}
	kfree(path);
	return err;
}
SHELL_COMMAND(cat, "FILE", "print a file's bytes", cmd_cat);

/* argv[from..] joined by single spaces, then a newline, in a new buffer (*len bytes). */
static char *join_words(int argc, char **argv, int from, size_t *len)
{
	size_t n = 0;
	for (int i = from; i < argc; i++)
		n += strlen(argv[i]) + 1;
	char *text = kmalloc(n ? n : 1);
	if (!text)
		return NULL;
	size_t at = 0;
	for (int i = from; i < argc; i++) {
		size_t w = strlen(argv[i]);
		memcpy(text + at, argv[i], w);
		at += w;
		text[at++] = i + 1 < argc ? ' ' : '\n';
	}
	*len = at;
	return text;
}

static int write_text(struct vnode *v, const char *text, size_t len)
{
	if (v->fs->read_only || !v->fs->ops->write)
		return -EROFS;
	int err = vfs_truncate(v, 0);
	size_t done = 0;
	while (!err && done < len) {
		int64_t put = v->fs->ops->write(v, done, text + done, len - done);
		if (put <= 0)
			err = put ? (int)put : -EIO;
		else
			done += (size_t)put;
	}
	return err;
}

static int cmd_write(int argc, char **argv)
{
	if (argc < 3) {
		printk("write: a file and its text (write FILE TEXT...)\n");
		return -EINVAL;
	}
	char *path = kmalloc(VFS_PATH_MAX);
	size_t len = 0;
	char *text = join_words(argc, argv, 2, &len);
	struct vnode *v = NULL;
	int err = path && text ? vfs_normalize("/", argv[1], path, VFS_PATH_MAX) : -ENOMEM;
	if (!err) {
		err = vfs_create(path, VFS_S_IFREG | FILE_MODE_RW_R_R, NULL, &v);
		if (err == -EEXIST)
			err = vfs_walk(path, true, &v);
	}
	if (!err) {
		err = vnode_is_dir(v) ? -EISDIR : write_text(v, text, len);
		vnode_put(v);
	}
	if (err)
		printk("write: %s: %s\n", argv[1], errno_name(err));
	else
		printk("write: %s: %zu bytes\n", argv[1], len);
	kfree(text);
	kfree(path);
	return err;
}
SHELL_COMMAND(write, "FILE TEXT...", "make FILE hold TEXT and a newline (sync: to disk)", cmd_write);
