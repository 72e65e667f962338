/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Reading an ext2 file system (kernel/ext2/): the superblock and group
 * descriptors checked at open, inodes, the block map of a file, file
 * data, directory entries and symbolic links. The image comes from
 * outside the kernel, so this is a border: portable C that reaches the
 * disk only through struct ext2_dev's read, checks every field it uses
 * against the file system's geometry before it follows it, and turns
 * whatever the disk says into data or a negative errno, never a read
 * outside the disk or a loop. The VFS glue (kernel/ext2/vfs_ext2.c)
 * gives it the block cache; the host tests give it image files that
 * mke2fs made, and corrupted copies of them.
 *
 * Writing (alloc.c, write.c, dir_write.c, namespace.c) keeps the
 * metadata on the disk in an order that a crash can only leave leaked
 * blocks or inodes, never a block in two files or a name for a freed
 * inode: allocate (bitmap, then group counts) before pointing at it,
 * un-point before freeing. Namespace changes, truncation's inode,
 * indirect blocks and inode allocation are written synchronously
 * (dev.write with sync); the bits of freed blocks are cleared by the
 * write-back, after the pointers are gone from the disk.
 * Writing file data is UFS's delayed path: its blocks' bits, the group
 * counts and the inode (size, block map) are written back by the device
 * like the data, except that the bitmap block holding a new bit is made
 * synchronous before anything may point at the block on the disk (the
 * inode reaches the device only after it; any synchronous write first
 * syncs it: ext2_sync_bitmap). The superblock's and groups' free counts
 * are hints, written by ext2_sync_super and with the allocations. With
 * sync_all set, file data's metadata is written synchronously too (the
 * bits, counts, pointers and inode of every write, and freed bits).
 *
 * Accepted at open: magic 0xEF53, revision 0 or 1, blocks of 1, 2 or 4
 * KiB, inode size a power of two from 128 to the block size, geometry
 * that agrees with itself (groups from the block count, inode count =
 * groups * inodes per group, the inode table of every group inside the
 * file system, the file system inside the disk), incompatible features
 * only filetype. Unknown read-only-compatible features are named in the
 * message and the volume is read only, as it is on a device without a
 * write; writes then give EROFS.
 *
 * Refused inodes (-EIO with a reason in the fs's last_error): a number
 * of 0 or above the count, a block pointer outside the data area, a
 * directory whose size is not a multiple of the block size, a regular
 * file whose size needs more blocks than the block map holds.
 * Refused directory records (-EIO): a record length below 12, not a
 * multiple of 4, shorter than its name or crossing its block's end; a
 * name length of 0 in a used record; an inode number above the count.
 *
 * Context: thread, may sleep (reads may wait for the disk). Calls that
 * only read may run on several CPUs at once while nothing writes; the
 * caller serializes every call that writes against all others (the VFS
 * glue holds the file system's mutex).
 */
#ifndef SCION_EXT2_H
#define SCION_EXT2_H

#include <scion/compiler.h>

struct ext2_dev {
	/* Copy len bytes at byte offset from the disk into buf: 0 or -errno. */
	int (*read)(void *ctx, uint64_t offset, void *buf, size_t len);
	/*
	 * Write len bytes at offset (within one 4 KiB-aligned block): sync
	 * (metadata) on the disk before it returns, else written back later.
	 * NULL for a read-only device. 0 or -errno.
	 */
	int (*write)(void *ctx, uint64_t offset, const void *buf, size_t len, bool sync);
	/* Everything written so far on the disk: 0 or the first error. NULL with write. */
	int (*sync)(void *ctx);
	/* The time for inode stamps, seconds since 1970. */
	int64_t (*now)(void *ctx);
	void *ctx;
	uint64_t bytes;			/* the disk's size */
};

/* A block group: where its bitmaps and inode table are, and its counts. */
struct ext2_group {
	uint32_t block_bitmap, inode_bitmap, inode_table;
	uint32_t free_blocks, free_inodes, used_dirs;	/* the writer's (see Context above) */
};

struct ext2_fs {
	struct ext2_dev dev;
	uint32_t block_size, block_log;	/* 1024 << (block_log - 10) */
	uint32_t blocks, first_data_block, blocks_per_group;
	uint32_t inodes, inodes_per_group, inode_size, first_ino;
	uint32_t groups;
	uint32_t feature_compat, feature_incompat, feature_ro_compat;
	uint32_t free_blocks, free_inodes;
	struct ext2_group *group;	/* [groups] */
	bool read_only;
	bool super_dirty;		/* free counts not yet in the superblock (ext2_sync_super) */
	bool sync_all;			/* every metadata write synchronous: no delayed
					   path for file data (boot option ext2sync=all) */
	uint32_t unsynced_bitmap;	/* a block bitmap holding bits that file data
					   allocations set and the disk may lack (0:
					   none): synced before any synchronous write */
	char volume[17];
	char last_error[96];		/* why the last refused inode or record was refused (racy: for messages) */
};

struct ext2_inode {
	uint32_t ino;
	uint32_t mode, uid, gid, nlink, flags;
	uint64_t size;
	uint64_t blocks512;		/* i_blocks: 512-byte units held */
	int64_t atime, mtime, ctime, dtime;
	uint32_t block[15];		/* the block map (or a fast symlink's target) */
	uint32_t file_acl;
};

struct ext2_dirent {
	uint32_t ino;
	uint8_t type;			/* the record's file type (EXT2_FT_*), 0 when unknown */
	uint8_t name_len;
	char name[256];			/* NUL-terminated */
};

/*
 * ext2_open - check the superblock and group descriptors on dev.
 * Return value: 0 with *fs filled in; -EINVAL (not ext2, or a geometry
 *   that does not add up), -EOPNOTSUPP (an incompatible feature, a block
 *   size Scion does not take) or a read's error, with msg (msgsz bytes)
 *   saying why in one line; -ENOMEM.
 */
int ext2_open(const struct ext2_dev *dev, struct ext2_fs *fs, char *msg, size_t msgsz);
void ext2_close(struct ext2_fs *fs);

/* ext2_read_inode - inode ino into *in: 0, -EIO (refused, fs->last_error says why) or a read's error. */
int ext2_read_inode(struct ext2_fs *fs, uint32_t ino, struct ext2_inode *in);

/*
 * ext2_bmap - the disk block holding the file's block number index.
 * Return value: 0 with *block set (0 for a hole), -EFBIG past the map,
 *   -EIO for a pointer outside the data area, or a read's error.
 */
int ext2_bmap(struct ext2_fs *fs, const struct ext2_inode *in, uint64_t index, uint32_t *block);

/* ext2_read - up to len bytes of the file at off into buf: the count (0 at the end) or -errno. */
int64_t ext2_read(struct ext2_fs *fs, const struct ext2_inode *in, uint64_t off, void *buf,
		  size_t len);

/*
 * ext2_dir_iterate - call fn for each used record of directory dir at
 *   or after byte *pos, in order, until fn returns non-zero.
 * Arguments: fn gets the record and the position just past it; it
 *   returns 0 to go on, > 0 to stop having taken the record, < 0 to stop
 *   without taking it (a caller's buffer is full). *pos moves past every
 *   record fn took or that was unused.
 * Return value: 0 at the directory's end, fn's non-zero value, or
 *   -ENOTDIR, -EIO (a refused record or a hole), -ENOMEM, a read's error.
 */
int ext2_dir_iterate(struct ext2_fs *fs, const struct ext2_inode *dir, uint64_t *pos,
		     int (*fn)(void *arg, const struct ext2_dirent *d, uint64_t next), void *arg);

/* ext2_lookup - name (len bytes) in dir: 0 with *ino set, -ENOENT, or ext2_dir_next's errors. */
int ext2_lookup(struct ext2_fs *fs, const struct ext2_inode *dir, const char *name, size_t len,
		uint32_t *ino);

/* ext2_readlink - a symbolic link's target, NUL-terminated in buf: its length, -EINVAL (not a link), -ENAMETOOLONG, -EIO. */
int ext2_readlink(struct ext2_fs *fs, const struct ext2_inode *in, char *buf, size_t size);

/*
 * Writing (each: -EROFS on a read-only volume; -EIO for a refused
 * on-disk structure, fs->last_error saying why; -ENOSPC; a device's
 * error). The caller passes its own copy of every inode it names and
 * gets it back changed (and written); see Context above.
 */

/* ext2_write_inode - in's fields onto its inode on the disk, synchronously. */
int ext2_write_inode(struct ext2_fs *fs, const struct ext2_inode *in);

/* ext2_write - len bytes of buf at off into the file, allocating blocks: the count or -errno (-EFBIG past the map). */
int64_t ext2_write(struct ext2_fs *fs, struct ext2_inode *in, uint64_t off, const void *buf,
		   size_t len);


/* ext2_update_inode - in onto the disk by the write-back (new blocks' bits synchronously first). */
int ext2_update_inode(struct ext2_fs *fs, const struct ext2_inode *in);

/* ext2_truncate - the file's size set to size, freeing the blocks past it (growing leaves a hole). */
int ext2_truncate(struct ext2_fs *fs, struct ext2_inode *in, uint64_t size);

/* ext2_dir_add - name -> ino (of type EXT2_FT_*) in dir: 0, -ENAMETOOLONG. The caller checked it is not there. */
int ext2_dir_add(struct ext2_fs *fs, struct ext2_inode *dir, const char *name, size_t len,
		 uint32_t ino, uint8_t type);

/* ext2_dir_remove - drop name from dir: 0 with *ino what it named, -ENOENT. */
int ext2_dir_remove(struct ext2_fs *fs, struct ext2_inode *dir, const char *name, size_t len,
		    uint32_t *ino);

/* ext2_dir_set - point the existing name at ino instead: 0, -ENOENT. */
int ext2_dir_set(struct ext2_fs *fs, struct ext2_inode *dir, const char *name, size_t len,
		 uint32_t ino, uint8_t type);

/* ext2_dir_empty - 1 when dir holds only "." and "..", 0 when more, or -errno. */
int ext2_dir_empty(struct ext2_fs *fs, const struct ext2_inode *dir);

/* ext2_dir_init - the first block of a new directory dir ("." and ".." -> parent); sets dir->size. */
int ext2_dir_init(struct ext2_fs *fs, struct ext2_inode *dir, uint32_t parent);

/*
 * ext2_create - a new inode named name in dir: mode's type is a regular
 *   file, a directory (its "." and "..", and dir's link count) or a
 *   symbolic link to target (NULL otherwise). *out is the new inode.
 * Return value: 0, -EEXIST, -ENOTDIR, -ENOENT (dir was removed),
 *   -EMLINK, -ENAMETOOLONG, -ENOSPC, ...
 */
int ext2_create(struct ext2_fs *fs, struct ext2_inode *dir, const char *name, size_t len,
		uint32_t mode, uint32_t uid, uint32_t gid, const char *target,
		struct ext2_inode *out);

/* ext2_link - a new name in dir for target (not a directory): 0, -EEXIST, -EPERM, -EMLINK. */
int ext2_link(struct ext2_fs *fs, struct ext2_inode *dir, const char *name, size_t len,
	      struct ext2_inode *target);

/*
 * ext2_unlink - remove name (not a directory: -EISDIR) from dir; *victim
 *   is its inode with one link less. At 0 links, the caller calls
 *   ext2_delete once no one has the file open.
 */
int ext2_unlink(struct ext2_fs *fs, struct ext2_inode *dir, const char *name, size_t len,
		struct ext2_inode *victim);

/* ext2_rmdir - remove the empty directory name from dir (-ENOTDIR, -ENOTEMPTY, -EINVAL for "."); *victim then wants ext2_delete. */
int ext2_rmdir(struct ext2_fs *fs, struct ext2_inode *dir, const char *name, size_t len,
	       struct ext2_inode *victim);

/* ext2_delete - free an inode nothing names: its blocks, then the inode itself. */
int ext2_delete(struct ext2_fs *fs, struct ext2_inode *in);

/*
 * ext2_rename - oname in odir becomes nname in ndir (odir and ndir may
 *   be copies of one directory), replacing what nname named (a file by a
 *   file, an empty directory by a directory); *replaced is that inode
 *   with its link count lowered, *was_replaced true (ext2_delete it at 0
 *   links once it is not open). Return value: 0; -EINVAL (a directory
 *   into itself), -EISDIR, -ENOTDIR, -ENOTEMPTY, -ENOENT, ...
 */
int ext2_rename(struct ext2_fs *fs, struct ext2_inode *odir, const char *oname, size_t olen,
		struct ext2_inode *ndir, const char *nname, size_t nlen,
		struct ext2_inode *replaced, bool *was_replaced);

/* ext2_sync_super - the free counts and write time into the superblock. */
int ext2_sync_super(struct ext2_fs *fs);

#endif
