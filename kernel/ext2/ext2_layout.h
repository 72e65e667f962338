/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The ext2 on-disk format (revision 0 and 1), as e2fsprogs writes it:
 * byte offsets of the fields Scion reads in the superblock, a group
 * descriptor, an inode and a directory entry, and the feature bits.
 * Every multi-byte field is little-endian. The one place these numbers
 * are written; the host tests check Scion's reading against e2fsprogs'
 * own tools (debugfs, e2fsck), not against this file.
 */
#ifndef EXT2_LAYOUT_H
#define EXT2_LAYOUT_H

#define EXT2_SUPER_OFFSET	1024	/* bytes from the start of the disk */
#define EXT2_SUPER_SIZE		1024
#define EXT2_MAGIC		0xEF53
#define EXT2_ROOT_INO		2
#define EXT2_GOOD_OLD_FIRST_INO	11
#define EXT2_GOOD_OLD_INODE_SIZE 128
#define EXT2_MIN_BLOCK_LOG	10	/* 1 KiB */
#define EXT2_MAX_BLOCK_LOG	12	/* 4 KiB: Scion's block cache block */

/* Superblock fields. */
#define SB_WTIME		48	/* u32 */
#define SB_INODES_COUNT		0	/* u32 */
#define SB_BLOCKS_COUNT		4	/* u32 */
#define SB_FREE_BLOCKS		12	/* u32 */
#define SB_FREE_INODES		16	/* u32 */
#define SB_FIRST_DATA_BLOCK	20	/* u32: 1 with 1 KiB blocks, else 0 */
#define SB_LOG_BLOCK_SIZE	24	/* u32: block size = 1024 << this */
#define SB_BLOCKS_PER_GROUP	32	/* u32 */
#define SB_INODES_PER_GROUP	40	/* u32 */
#define SB_MAGIC		56	/* u16 */
#define SB_STATE		58	/* u16: 1 clean, 2 errors */
#define SB_REV_LEVEL		76	/* u32: 0 or 1 */
#define SB_FIRST_INO		84	/* u32 (rev 1) */
#define SB_INODE_SIZE		88	/* u16 (rev 1) */
#define SB_FEATURE_COMPAT	92	/* u32 (rev 1) */
#define SB_FEATURE_INCOMPAT	96	/* u32 (rev 1) */
#define SB_FEATURE_RO_COMPAT	100	/* u32 (rev 1) */
#define SB_VOLUME_NAME		120	/* 16 bytes */

/* Features a reader may ignore (compat), must know (incompat), or must know to write (ro_compat). */
#define EXT2_FEATURE_INCOMPAT_FILETYPE	0x0002	/* directory entries carry the file type */
#define EXT2_FEATURE_INCOMPAT_KNOWN	EXT2_FEATURE_INCOMPAT_FILETYPE
#define EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER 0x0001
#define EXT2_FEATURE_RO_COMPAT_LARGE_FILE   0x0002
#define EXT2_FEATURE_RO_COMPAT_KNOWN	(EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER | \
					 EXT2_FEATURE_RO_COMPAT_LARGE_FILE)

/* A block group descriptor: 32 bytes, in the blocks after the superblock's. */
#define GD_SIZE			32
#define GD_BLOCK_BITMAP		0	/* u32 */
#define GD_INODE_BITMAP		4	/* u32 */
#define GD_INODE_TABLE		8	/* u32 */
#define GD_FREE_BLOCKS		12	/* u16 */
#define GD_FREE_INODES		14	/* u16 */
#define GD_USED_DIRS		16	/* u16 */

/* An inode. */
#define IN_MODE			0	/* u16 */
#define IN_UID			2	/* u16 */
#define IN_SIZE			4	/* u32: low half of the size */
#define IN_ATIME		8	/* u32 */
#define IN_CTIME		12	/* u32 */
#define IN_MTIME		16	/* u32 */
#define IN_GID			24	/* u16 */
#define IN_LINKS_COUNT		26	/* u16 */
#define IN_BLOCKS		28	/* u32: 512-byte units held, metadata blocks included */
#define IN_FLAGS		32	/* u32 */
#define EXT2_INDEX_FL		0x1000	/* an htree directory: cleared when Scion changes one */
#define IN_BLOCK		40	/* u32[15]: 12 direct, indirect, double, triple */
#define IN_FILE_ACL		104	/* u32: extended attribute block */
#define IN_SIZE_HIGH		108	/* u32: high half of a regular file's size */
#define IN_DTIME		20	/* u32: when it was deleted */
#define IN_GENERATION		100	/* u32 */
#define IN_UID_HIGH		120	/* u16 */
#define IN_GID_HIGH		122	/* u16 */
#define EXT2_N_BLOCKS		15
#define EXT2_NDIR_BLOCKS	12
#define EXT2_IND_BLOCK		12
#define EXT2_DIND_BLOCK		13
#define EXT2_TIND_BLOCK		14
#define EXT2_FAST_SYMLINK_MAX	60	/* a shorter target lives in i_block */

/* A directory entry: inode, record length, name length, file type, name. */
#define DE_INODE		0	/* u32: 0 for an unused record */
#define DE_REC_LEN		4	/* u16: to the next record, a multiple of 4 */
#define DE_NAME_LEN		6	/* u8 (u16 without the filetype feature) */
#define DE_FILE_TYPE		7	/* u8 */
#define DE_NAME			8
#define EXT2_NAME_LEN		255
#define EXT2_DIR_REC_LEN(name_len) (((name_len) + DE_NAME + 3) & ~3u)

/* Directory entry file types (with the filetype feature). */
#define EXT2_FT_UNKNOWN		0
#define EXT2_FT_REG_FILE	1
#define EXT2_FT_DIR		2
#define EXT2_FT_SYMLINK		7

/* st_mode file types, as ext2 stores them (Linux's). */
#define EXT2_S_IFMT		0170000
#define EXT2_S_IFSOCK		0140000
#define EXT2_S_IFLNK		0120000
#define EXT2_S_IFREG		0100000
#define EXT2_S_IFBLK		0060000
#define EXT2_S_IFDIR		0040000
#define EXT2_S_IFCHR		0020000
#define EXT2_S_IFIFO		0010000

#endif
