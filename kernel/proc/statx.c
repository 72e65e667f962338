// SPDX-License-Identifier: BSD-2-Clause
/*
 * statx(2): newfstatat's answer in Linux's struct statx, which has the
 * same layout on every machine (so it is written here, not in the
 * arch's linux_abi.h). Scion knows the basic fields (STATX_BASIC_STATS)
 * and says so in stx_mask; the birth time, attributes and direct-I/O
 * alignments are not known and stay 0 with their mask bits clear, as
 * Linux leaves what a file system cannot give.
 */
#include <scion/errno.h>
#include <scion/string.h>
#include <scion/syscall.h>
#include "proc_internal.h"

#define LINUX_STATX_BASIC_STATS		0x7ffu	/* type .. blocks */
#define LINUX_STATX_RESERVED		0x80000000u
#define LINUX_AT_STATX_SYNC_TYPE	0x6000u	/* FORCE_SYNC 0x2000, DONT_SYNC 0x4000 */

struct linux_statx_timestamp {
	int64_t tv_sec;
	uint32_t tv_nsec;
	int32_t reserved;
};

struct linux_statx {
	uint32_t stx_mask, stx_blksize;
	uint64_t stx_attributes;
	uint32_t stx_nlink, stx_uid, stx_gid;
	uint16_t stx_mode, spare0;
	uint64_t stx_ino, stx_size, stx_blocks, stx_attributes_mask;
	struct linux_statx_timestamp stx_atime, stx_btime, stx_ctime, stx_mtime;
	uint32_t stx_rdev_major, stx_rdev_minor, stx_dev_major, stx_dev_minor;
	uint64_t stx_mnt_id;
	uint32_t stx_dio_mem_align, stx_dio_offset_align;
	uint64_t spare3[12];
};
_Static_assert(sizeof(struct linux_statx) == 256, "struct statx of the Linux ABI");

/* A device number as stat gives it, split as glibc's major() and minor() split it. */
static uint32_t dev_major(uint64_t dev)
{
	return (uint32_t)(((dev >> 8) & 0xfff) | ((dev >> 32) & ~0xfffull));
}

static uint32_t dev_minor(uint64_t dev)
{
	return (uint32_t)((dev & 0xff) | ((dev >> 12) & ~0xffull));
}

static struct linux_statx_timestamp stamp(uint64_t sec, uint64_t nsec)
{
	return (struct linux_statx_timestamp){ .tv_sec = (int64_t)sec, .tv_nsec = (uint32_t)nsec };
}

/* statx(dirfd, path, flags, mask, buf): mask may ask for anything; the basic fields come. */
SYSCALL(statx)
{
	uint64_t flags = a2;
	if ((uint32_t)a3 & LINUX_STATX_RESERVED || a3 >> 32)
		return -EINVAL;
	if ((flags & LINUX_AT_STATX_SYNC_TYPE) == LINUX_AT_STATX_SYNC_TYPE)
		return -EINVAL;		/* force and don't sync at once */
	struct linux_stat st;
	int r = stat_at(proc_current(), (int)a0, a1, flags & ~(uint64_t)LINUX_AT_STATX_SYNC_TYPE,
			&st);
	if (r)
		return r;
	struct linux_statx sx;
	memset(&sx, 0, sizeof(sx));
	sx.stx_mask = LINUX_STATX_BASIC_STATS;
	sx.stx_blksize = (uint32_t)st.st_blksize;
	sx.stx_nlink = (uint32_t)st.st_nlink;
	sx.stx_uid = st.st_uid;
	sx.stx_gid = st.st_gid;
	sx.stx_mode = (uint16_t)st.st_mode;
	sx.stx_ino = st.st_ino;
	sx.stx_size = (uint64_t)st.st_size;
	sx.stx_blocks = (uint64_t)st.st_blocks;
	sx.stx_atime = stamp(st.st_atime, st.st_atime_nsec);
	sx.stx_mtime = stamp(st.st_mtime, st.st_mtime_nsec);
	sx.stx_ctime = stamp(st.st_ctime, st.st_ctime_nsec);
	sx.stx_rdev_major = dev_major(st.st_rdev);
	sx.stx_rdev_minor = dev_minor(st.st_rdev);
	sx.stx_dev_major = dev_major(st.st_dev);
	sx.stx_dev_minor = dev_minor(st.st_dev);
	return copyout(a4, &sx, sizeof(sx)) ? -EFAULT : 0;
}
