// SPDX-License-Identifier: BSD-2-Clause
/*
 * The shell's `ls [DIR]`: the program archive's tree (scion/archive.h),
 * one line per entry as `ls -l` would show it (type and permissions,
 * size, name; a directory's name ends in '/'). DIR is absolute or taken
 * from "/"; trailing slashes are dropped. A file lists itself.
 */
#include <scion/archive.h>
#include <scion/errno.h>
#include <scion/printk.h>
#include <scion/shell.h>
#include <scion/string.h>

#define PATH_BYTES 256

static void mode_string(uint32_t mode, char out[11])
{
	static const char rwx[] = "rwxrwxrwx";
	out[0] = (mode & ARCHIVE_S_IFMT) == ARCHIVE_S_IFDIR ? 'd' : '-';
	for (int i = 0; i < 9; i++)
		out[1 + i] = mode & (0400u >> i) ? rwx[i] : '-';
	out[10] = '\0';
}

static void print_entry(const struct archive_file *f, const char *name)
{
	char mode[11];
	mode_string(f->mode, mode);
	printk("%s %9zu %s%s\n", mode, f->size, name,
	       archive_is_dir(f) && strcmp(name, "/") ? "/" : "");
}


/* "/" + arg without trailing slashes (or arg so when absolute) into path. */
static int normalize(const char *arg, char *path, size_t size)
{
	size_t n = 0;
	if (arg[0] != '/')
		path[n++] = '/';
	if (strlcpy(path + n, arg, size - n) >= size - n)
		return -EINVAL;
	n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		path[--n] = '\0';
	return 0;
}

static int cmd_ls(int argc, char **argv)
{
	char path[PATH_BYTES];

	if (argc > 2) {
		printk("ls: one directory at most (ls [DIR])\n");
		return -EINVAL;
	}
	if (archive_modules_loaded() == 0) {
		printk("ls: no program archive was given at boot (make run PROGRAMS=..., "
		       "scion run --programs FILE)\n");
		return -ENOENT;
	}
	if (normalize(argc == 2 ? argv[1] : "/", path, sizeof(path))) {
		printk("ls: path longer than %d bytes\n", PATH_BYTES - 1);
		return -EINVAL;
	}
	const struct archive_file *f = archive_lookup(path);
	if (!f) {
		printk("ls: no %s in the program archive (paths are absolute, e.g. /etc)\n", path);
		return -ENOENT;
	}
	if (!archive_is_dir(f)) {
		print_entry(f, f->path);
		return 0;
	}
	size_t cursor = 0, n = 0;
	for (const struct archive_file *c; (c = archive_child(path, &cursor)); n++)
		print_entry(c, path_last_component(c->path));
	printk("%zu entr%s in %s\n", n, n == 1 ? "y" : "ies", path);
	return 0;
}

SHELL_COMMAND(ls, "[DIR]", "list the program archive (the .cpio boot module)", cmd_ls);
