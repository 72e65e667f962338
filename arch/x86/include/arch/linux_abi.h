/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Layouts of the Linux x86-64 ABI that user processes see and that
 * differ between machines: struct stat, the signal frame.
 */
#ifndef ARCH_LINUX_ABI_H
#define ARCH_LINUX_ABI_H

#include <stdint.h>

/* struct stat (fstat, newfstatat). */
struct linux_stat {
	uint64_t st_dev, st_ino, st_nlink;
	uint32_t st_mode, st_uid, st_gid, pad0;
	uint64_t st_rdev;
	int64_t st_size, st_blksize, st_blocks;
	uint64_t st_atime, st_atime_nsec, st_mtime, st_mtime_nsec, st_ctime, st_ctime_nsec;
	int64_t unused[3];
};
_Static_assert(sizeof(struct linux_stat) == 144, "struct stat of the Linux ABI");

/* What a signal handler is told (siginfo_t's first fields). */
struct user_siginfo {
	int signo;
	int code;		/* SI_USER (0), SI_KERNEL (0x80), or a fault's SEGV_* code */
	int pid;		/* the sender, for SI_USER */
	uint64_t addr;		/* the faulting address, for faults */
};
#define LINUX_SI_USER   0
#define LINUX_SI_KERNEL 0x80
#define LINUX_SI_TKILL  (-6)
#define LINUX_SEGV_MAPERR 1
#define LINUX_SEGV_ACCERR 2

#endif
