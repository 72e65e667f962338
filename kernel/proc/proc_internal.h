/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the files of kernel/proc/ share: the process, its memory map, its
 * open files, and the system-call table.
 *
 * Lock order: proc_lock -> a process's files_lock -> waitq locks ->
 * sched_lock. A process's memory map and its fd table are changed only
 * by its own thread, or before its first or after its last run (when no
 * other thread can see them), so they need no lock of their own beyond
 * what `ps` reads (counts, read with READ_ONCE).
 */
#ifndef PROC_INTERNAL_H
#define PROC_INTERNAL_H

#include <scion/proc.h>
#include <scion/list.h>
#include <scion/spinlock.h>
#include <scion/wait.h>
#include <scion/thread.h>
#include <scion/compiler.h>
#include <arch/mmu.h>
#include <arch/trap.h>
#include <scion/syscall.h>
#include <scion/monitor.h>
#include <arch/linux_abi.h>
#include <graft/vm.h>

/* Limits that protect the kernel from its processes. */
#define PROC_MAX          64		/* processes alive or zombie */
#define FD_MAX            256		/* open files per process */
#define PROC_PAGE_LIMIT   (64u << 8)	/* 64 MiB of memory per process */
#define VM_MAX_AREAS      256
#define ARG_BYTES_MAX     (64 * 1024)	/* argv + envp strings at execve */
#define ARG_COUNT_MAX     1024
#define PATH_MAX_LINUX    4096
#define CWD_MAX           256
#define STACK_SIZE_MAX    (8ull << 20)
#define STACK_TOP         USER_LIMIT
#define MMAP_TOP          (STACK_TOP - STACK_SIZE_MAX - (1ull << 20))	/* a gap below the stack */
#define PIE_LOAD_BASE     0x555555554000ull
#define BRK_ROOM          (1ull << 30)	/* address space kept free above the heap's start */

/* A region of the memory map. */
enum vm_kind { VMA_IMAGE, VMA_BRK, VMA_ANON, VMA_STACK };

struct vm_area {
	uintptr_t start, end;		/* page aligned, end exclusive */
	unsigned prot;			/* MAP_WRITE | MAP_EXEC; always readable */
	enum vm_kind kind;
};

/* The memory map's policies: graft point slots (points.c). */
struct vm_policy {
	graft_fn_vm_fault_around *fault_around;	/* graft point vm.fault_around */
};
extern struct vm_policy vm_policy;

struct vm {
	struct arch_as *as;
	struct vm_area areas[VM_MAX_AREAS];	/* sorted, disjoint */
	unsigned nareas;
	uintptr_t brk_start, brk;	/* the heap: [brk_start, brk) */
	size_t pages;			/* pages mapped (own thread writes; READ_ONCE) */
	uint64_t faults;		/* own thread writes: first touches served (minor faults) */
};

struct file;

/* A user iovec array being walked entry by entry (readv, writev). */
struct iov_walk {
	uintptr_t uiov;		/* user address of the array */
	uint64_t count, next;	/* entries in it; the next to fetch */
	uint64_t total;		/* bytes the entries fetched so far cover */
};

/* What a kind of open file does; each takes user pointers itself. */
struct file_ops {
	const char *kind;	/* for `ps -f`-like listings and errors */
	int64_t (*read)(struct file *f, uintptr_t ubuf, size_t len);
	int64_t (*write)(struct file *f, uintptr_t ubuf, size_t len);
	/* NULL: writev is one write per entry. A file whose writes must
	 * reach their reader whole (the terminal) gathers the entries. */
	int64_t (*writev)(struct file *f, struct iov_walk *w);
	/*
	 * What the file is ready for now (POLLIN, POLLOUT, POLLHUP, POLLERR:
	 * poll.c's LINUX_POLL* values); NULL: always ready to read and write.
	 * Whoever changes the answer calls proc_poll_notify. Any thread
	 * context; must not sleep.
	 */
	unsigned (*poll)(struct file *f);
	/* NULL: pread64 and pwrite64 give ESPIPE. They leave f->offset alone. */
	int64_t (*pread)(struct file *f, uintptr_t ubuf, size_t len, uint64_t off);
	int64_t (*pwrite)(struct file *f, uintptr_t ubuf, size_t len, uint64_t off);
	int64_t (*lseek)(struct file *f, int64_t off, int whence);	/* NULL: -ESPIPE */
	int (*stat)(struct file *f, struct linux_stat *st);
	int64_t (*getdents)(struct file *f, uintptr_t ubuf, size_t len);	/* NULL: -ENOTDIR */
	void (*release)(struct file *f);
	bool is_tty;
};

struct file {
	const struct file_ops *ops;
	unsigned refs;			/* files_lock of the processes sharing it (atomic) */
	unsigned flags;			/* O_ACCMODE, O_APPEND, O_NONBLOCK */
	uint64_t offset;		/* the process that reads it (shared after fork, like Linux) */
	void *priv;
};

#define LINUX_AT_FDCWD   (-100)	/* "relative to the working directory" in the *at calls */
#define LINUX_O_ACCMODE  3
#define LINUX_O_RDONLY   0
#define LINUX_O_WRONLY   1
#define LINUX_O_RDWR     2
#define LINUX_O_CREAT    0100
#define LINUX_O_EXCL     0200
#define LINUX_O_TRUNC    01000
#define LINUX_O_APPEND   02000
#define LINUX_O_NONBLOCK 04000
#define LINUX_O_DIRECTORY 0200000
#define LINUX_O_NOFOLLOW  0400000
#define LINUX_O_CLOEXEC  02000000


#define LINUX_S_IFMT   0170000
#define LINUX_S_IFDIR  0040000
#define LINUX_S_IFCHR  0020000
#define LINUX_S_IFIFO  0010000
#define LINUX_S_IFREG  0100000

/*
 * chrdev_stat - what fstat says of a character device (the terminal,
 *   /dev/null): S_IFCHR with perm, Linux's device number major:minor,
 *   its block size and one link; the rest of *st as the caller left it.
 * Return value: 0, as a file_ops stat returns.
 */
static inline int chrdev_stat(struct linux_stat *st, unsigned perm, unsigned major,
			      unsigned minor, unsigned blksize)
{
	st->st_mode = LINUX_S_IFCHR | perm;
	st->st_rdev = ((uint64_t)major << 8) | minor;
	st->st_blksize = blksize;
	st->st_nlink = 1;
	return 0;
}

/*
 * fifo_stat - what fstat says of a pipe-like file (a pipe, a channel
 *   output): S_IFIFO 0600, an inode number from the object behind it
 *   (f->priv), one link, its block size; the rest of *st as the caller
 *   left it. Return value: 0, as a file_ops stat returns.
 */
static inline int fifo_stat(const struct file *f, struct linux_stat *st, unsigned blksize)
{
	st->st_mode = LINUX_S_IFIFO | 0600;
	st->st_ino = (uint64_t)(uintptr_t)f->priv >> 4;
	st->st_nlink = 1;
	st->st_blksize = blksize;
	return 0;
}

enum proc_state { PROC_ALIVE, PROC_ZOMBIE };

struct sigaction_rec {
	uint64_t handler, flags, restorer, mask;
};
#define LINUX_SIG_DFL 0
#define LINUX_SIG_IGN 1

struct process {
	int pid;				/* set once */
	char name[PROC_NAME_MAX];		/* own thread (exec) */
	char psargs[PROC_PSARGS_MAX];		/* own thread (exec): argv joined by spaces,
						   cut (curpsinfo->pr_psargs) */
	struct process *parent;			/* proc_lock; NULL: the kernel's child */
	int ppid;				/* proc_lock to change, read lock-free (probe
						   context): parent's pid, 0 for none */
	struct list_node children;		/* proc_lock: struct process by sibling */
	struct list_node sibling;		/* proc_lock */
	struct list_node all_node;		/* proc_lock */
	enum proc_state state;			/* proc_lock */
	int wait_status;			/* proc_lock, valid when ZOMBIE: Linux wait status */
	struct thread *thread;			/* proc_lock: NULL once it has exited */
	struct waitq child_wq;			/* a child of this process changed state */
	struct vm vm;				/* own thread (see above) */
	struct spinlock files_lock;		/* fds[] against readers (ps, exit) */
	struct file *fds[FD_MAX];		/* files_lock for change; own thread reads */
	uint64_t cloexec[FD_MAX / 64];		/* own thread: close-on-exec, bit per fd */
	char cwd[CWD_MAX];			/* own thread */
	uint64_t pending;			/* atomic: signals sent, bit sig-1 */
	uint64_t blocked;			/* own thread: rt_sigprocmask */
	struct sigaction_rec actions[NSIG_LINUX];	/* own thread */
	struct user_siginfo siginfo[NSIG_LINUX];	/* proc_lock: what each pending signal carries */
	uint64_t suspend_mask;			/* own thread: the mask rt_sigsuspend replaced */
	bool in_suspend;			/* own thread: rt_sigsuspend's mask is in force */
	int fatal_signal;			/* atomic: the signal that kills it, 0 */
	int deferred_signal;			/* atomic: proc_signal_defer's, sent on the way
						   back to user mode; 0 */
	int deferred_stop;			/* atomic: proc_stop_defer asked for a stop */
	int stopped;				/* atomic: stopped (DTrace's stop()) until SIGCONT */
	bool fault_reported;			/* own thread */
	uint64_t clear_child_tid;		/* own thread: set_tid_address */
	uint64_t start_ns;			/* set once */
	uint64_t syscalls;			/* own thread: calls made */
	uint64_t child_faults;			/* proc_lock: faults of the children it reaped */
	struct monitor_exited exited;		/* proc_lock: its exited threads' per-thread
						   figures (the monitor's process.* sources) */
	bool kernel_waits;			/* set once: proc_wait_kernel_child will reap it */
	struct process *vfork_parent;		/* own thread: a vfork child runs in this parent's
						   memory map (vm borrowed) until it execs or exits */
	bool vfork_done;			/* the parent's child_wq.lock: the child let it go */
	struct trap_frame *start_frame;		/* proc_lock: a suspended process's first frame
						   (proc_resume gives it its thread); else NULL */
};

extern struct spinlock proc_lock;

/* proc.c */
struct process *proc_alloc(struct process *parent);
void proc_free(struct process *p);
struct process *proc_find_locked(int pid);
__noreturn void proc_exit(int wait_status);
int proc_start_thread(struct process *p, const struct trap_frame *frame,
		      const struct thread *fpu_from);
void proc_set_name(struct process *p, const char *path);
void proc_set_psargs(struct process *p, char *const *argv, unsigned argc);
bool proc_signal_pending(void);

/*
 * proc_spawn_files - proc_spawn with the files fds 0, 1 and 2 get.
 * Arguments: path, argv as proc_spawn's; stdio, three files whose
 *   references pass to the process (all of them, on failure too; NULL
 *   entries leave the fd closed); suspended: the process is made, its
 *   program loaded and its files installed, but it gets its thread only
 *   at proc_resume (`ps` shows it stopped).
 * Return value: the pid, or a negative errno as proc_spawn's.
 * Caller's context: thread, may sleep.
 */
int proc_spawn_files(const char *path, const char *const argv[], struct file *const stdio[3],
		     bool suspended);

/*
 * proc_reap_kernel_child - proc_wait_kernel_child without waiting.
 * Return value: 0 with *status (pid reaped); -EAGAIN while it lives
 *   (or is suspended); -ECHILD when it is no child the kernel waits for.
 * Caller's context: any thread; takes proc_lock.
 */
int proc_reap_kernel_child(int pid, int *status);

#define WAIT_STATUS_EXITED(code)   (((code) & 0xff) << 8)
/* proc:::exit's arg0, illumos's (and waitid's) reasons. */
#define PROC_CLD_EXITED 1
#define PROC_CLD_KILLED 2
#define WAIT_STATUS_SIGNALED(sig)  ((sig) & 0x7f)

/* A process as `ps` shows it. */
struct proc_row {
	int pid, ppid;
	bool zombie, suspended;
	size_t pages;
	uint64_t syscalls, faults;
	char name[PROC_NAME_MAX];
};
unsigned proc_snapshot(struct proc_row *rows, unsigned max);

void proc_vfork_release(struct process *p);

/* vm.c */
int vm_init(struct vm *vm);
void vm_destroy(struct vm *vm);
int vm_add_area(struct vm *vm, uintptr_t start, uintptr_t end, unsigned prot, enum vm_kind kind);
int vm_remove_range(struct vm *vm, uintptr_t start, uintptr_t end);
struct vm_area *vm_find(struct vm *vm, uintptr_t addr);
uintptr_t vm_find_gap(struct vm *vm, size_t len);
int vm_populate(struct vm *vm, uintptr_t addr, unsigned prot);
int vm_copy(struct vm *dst, struct vm *src);
int vm_break_cow(struct vm *vm, uintptr_t va, uint64_t pa, unsigned prot);
void vm_protect(struct vm *vm, uintptr_t start, uintptr_t end, unsigned prot);
void vm_page_release(uint64_t pa, void *arg);


/* exec.c */
int exec_load(struct process *p, const char *path, char *const *argv, unsigned argc,
	      char *const *envp, unsigned envc, struct trap_frame *frame);

static inline bool fd_cloexec(const struct process *p, int fd)
{
	return (p->cloexec[fd / 64] >> (fd % 64)) & 1;
}

static inline void fd_set_cloexec(struct process *p, int fd, bool on)
{
	if (on)
		p->cloexec[fd / 64] |= 1ull << (fd % 64);
	else
		p->cloexec[fd / 64] &= ~(1ull << (fd % 64));
}

/* file.c */
/* poll.c */
#define POLL_IN  0x001
#define POLL_OUT 0x004
#define POLL_ERR 0x008
#define POLL_HUP 0x010

int fd_install(struct process *p, struct file *f, int min_fd, bool cloexec);
struct file *fd_get(struct process *p, int fd);
int fd_close(struct process *p, int fd);
void fd_close_all(struct process *p);
void fd_close_on_exec(struct process *p);
void fd_copy_table(struct process *dst, struct process *src);
struct file *file_new(const struct file_ops *ops, unsigned flags, void *priv);
int iov_walk_next(struct iov_walk *w, uintptr_t *base, size_t *len);
void file_get(struct file *f);
void file_put(struct file *f);
struct file *tty_open(unsigned flags);
int vfs_open(const char *abs_path, unsigned flags, uint32_t mode, struct file **out);
int file_truncate(struct file *f, uint64_t size);
int file_fsync(struct file *f, bool data_only);
struct vfs_fs *file_fs(struct file *f);
int path_truncate(const char *abs_path, uint64_t size);
int path_lstat(const char *abs_path, struct linux_stat *st);
int path_resolve(struct process *p, int dirfd, const char *path, char *out, size_t size);
int path_from_user(struct process *p, int dirfd, uintptr_t upath, bool allow_empty, char **out);
/*
 * stat_at - newfstatat's answer: the file upath names, resolved against
 *   dirfd, with AT_EMPTY_PATH, AT_SYMLINK_NOFOLLOW, AT_NO_AUTOMOUNT
 *   (others: -EINVAL). 0 with *st filled, or the walk's -errno.
 */
int stat_at(struct process *p, int dirfd, uintptr_t upath, uint64_t flags,
	    struct linux_stat *st);
int path_stat(const char *abs_path, struct linux_stat *st);

/*
 * chanout.c: the files of a process the host started (exec_op.c). A
 *   chanout is the buffer its stdout and stderr write into and the
 *   "exec" stream that sends it; chanout_create gives the caller a
 *   reference, chanout_file a new file writing to it as fd 1 or 2 (its
 *   own reference), chanout_stream_start the stream (on success the
 *   caller's reference passes to the stream; the stream's id in *id, or
 *   -errno with why filled in). null_file: reads end of file, writes are
 *   discarded. Caller's context: thread, may sleep (stream start: the
 *   channel thread).
 */
struct chanout;
struct chanout *chanout_create(void);
void chanout_put(struct chanout *c);
void chanout_set_pid(struct chanout *c, int pid);
struct file *chanout_file(struct chanout *c, int fd);
int chanout_stream_start(struct chanout *c, uint32_t switch_ms, uint32_t *id, char *why,
			 size_t whylen);
struct file *null_file(unsigned flags);

/* signal.c */
void signal_send(struct process *p, int sig);
void signal_send_info(struct process *p, const struct user_siginfo *si);
int signal_default_is_ignore(int sig);
void signal_deliver(struct process *p, struct trap_frame *f);
/*
 * signal_stop_here - p, the calling process, stays stopped (sleeps) until
 *   SIGCONT or a fatal signal. Caller's context: proc_return_to_user,
 *   interrupts masked (enabled while it sleeps).
 */
void signal_stop_here(struct process *p);
const char *signal_name(int sig);

/*
 * The syscall provider (systrace.c). systrace_live[nr]: consumers enabled
 * on syscall::NAME:entry and :return of number nr (the probe registry
 * changes it under probe_mutex; syscall_handle reads it without a lock,
 * its one load per call while nothing traces).
 * systrace_call - Overview: fire nr's entry probe with f's six
 *   arguments, run the call (syscall_dispatch), set D's errno from its
 *   result and fire nr's return probe (arg0, arg1: the result).
 * Return value: the call's result.
 * Caller's context: syscall_handle, the calling thread, nr below
 *   SYSCALL_COUNT, systrace_live[nr] seen non-zero.
 */
extern unsigned systrace_live[SYSCALL_COUNT];
int64_t systrace_call(unsigned nr, struct trap_frame *f);

/*
 * syscall_dispatch - run system call nr with f's arguments: its table
 *   entry, or -ENOSYS (counted) for a number Scion does not implement.
 * Return value: the call's result (it may not return: exit, execve...).
 * Caller's context: syscall_handle or systrace_call, the calling thread.
 */
int64_t syscall_dispatch(uint64_t nr, struct trap_frame *f);

#endif
