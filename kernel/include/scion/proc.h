/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * User processes (kernel/proc/): unmodified static Linux x86-64 programs
 * in ring 3, each with its own address space and one thread, speaking
 * the Linux system-call ABI.
 *
 * This header is what the rest of the kernel and the arch layer call:
 * the hooks on the way in from and out to user mode, and starting,
 * waiting for, signalling and listing processes.
 */
#ifndef SCION_PROC_H
#define SCION_PROC_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

struct trap_frame;
struct fault_info;
struct process;

#define PROC_NAME_MAX 16	/* execname: the program's base name, truncated */
#define PROC_PSARGS_MAX 80	/* curpsinfo->pr_psargs: the arguments, cut (illumos's PRARGSZ) */

/* Linux signal numbers the kernel itself sends. */
#define SIGHUP   1
#define SIGINT   2
#define SIGQUIT  3
#define SIGILL   4
#define SIGTRAP  5
#define SIGABRT  6
#define SIGBUS   7
#define SIGFPE   8
#define SIGKILL  9
#define SIGUSR1  10
#define SIGSEGV  11
#define SIGUSR2  12
#define SIGPIPE  13
#define SIGALRM  14
#define SIGTERM  15
#define SIGCHLD  17
#define SIGCONT  18
#define SIGSTOP  19
#define NSIG_LINUX 64

/* What a page fault tried (proc_page_fault). */
#define PROC_ACCESS_READ  0
#define PROC_ACCESS_WRITE 1
#define PROC_ACCESS_EXEC  2

/*
 * proc_page_fault - resolve a fault at a user address by giving the
 *   process the page it has not touched yet (demand paging).
 * Arguments: addr, below USER_LIMIT; access, PROC_ACCESS_*; from_user,
 *   whether user mode faulted (else the kernel did, copying user memory:
 *   resolved only inside copyin/copyout, never from probe context).
 * Return value: true when the page is now mapped and the access may be
 *   retried; false for a fault the caller must treat as one.
 * Caller's context: the page-fault handler, interrupts masked.
 */
bool proc_page_fault(uintptr_t addr, unsigned access, bool from_user);

/*
 * proc_user_fault - an exception in user mode that demand paging did not
 *   resolve: the process gets the matching signal (SIGSEGV, SIGFPE,
 *   SIGILL, SIGBUS...), which kills it on the way back to user mode,
 *   with a one-line report.
 * Caller's context: the exception handler, interrupts masked.
 */
void proc_user_fault(struct trap_frame *f, const struct fault_info *info);

/*
 * proc_return_to_user - the work due before a user thread goes back to
 *   ring 3: a fatal signal ends the process here (never returning), and
 *   a pending reschedule is taken.
 * Caller's context: the last step of a trap, interrupt or system call
 *   from user mode, on the thread's kernel stack, no locks held;
 *   interrupts may be masked (they are enabled while work is done).
 */
void proc_return_to_user(struct trap_frame *f);

/*
 * syscall_handle - run the system call f asks for and store its result
 *   in f. Caller's context: the arch's system-call entry, interrupts
 *   enabled, on the calling thread's kernel stack.
 */
void syscall_handle(struct trap_frame *f);

/* The process the calling thread belongs to, or NULL for a kernel thread. */
struct process *proc_current(void);

/*
 * Identity of a process, for tracing and reports: 0 and "" for NULL (a
 * kernel thread). psargs: its arguments joined by spaces, at most
 * PROC_PSARGS_MAX - 1 bytes. Caller's context: any, probe context
 * included (no locks); p the caller's own process or one it holds.
 */
int proc_pid(const struct process *p);
int proc_ppid(const struct process *p);
const char *proc_name(const struct process *p);
const char *proc_psargs(const struct process *p);

/*
 * proc_spawn - start a program from the boot archive as a new process
 *   whose parent is the kernel (the shell's `run`, the host's exec).
 * Arguments: path, absolute; argv, NULL-terminated (argv[0] included);
 *   with_console: stdin, stdout and stderr are the console.
 * Return value: the new pid, or a negative errno (-ENOENT, -ENOEXEC,
 *   -EAGAIN at the process limit, -ENOMEM).
 * Caller's context: thread, may sleep.
 */
int proc_spawn(const char *path, const char *const argv[], bool with_console);

/*
 * proc_signal_defer - post sig to the current thread's process without a
 *   lock: it is sent (signal_send) as the process next returns to user
 *   mode (DTrace's raise(), which acts from probe context). A second one
 *   before then replaces the first.
 * Return value: 0; -EINVAL for a signal out of range; -ESRCH when the
 *   current thread belongs to no process.
 * Caller's context: any, probe context included; takes no lock.
 */
int proc_signal_defer(int sig);

/*
 * proc_stop_defer - stop the current thread's process as it next returns
 *   to user mode (DTrace's stop()): it sleeps there until SIGCONT (which
 *   only continues it) or a fatal signal (SIGKILL) arrives.
 * Return value: 0; -ESRCH when the current thread belongs to no process.
 * Caller's context: any, probe context included; takes no lock.
 */
int proc_stop_defer(void);

/*
 * proc_resume - start a process made suspended (the host's EXEC with
 *   CHAN_EXEC_SUSPENDED): it gets its thread and runs its program from
 *   the first instruction. A signal sent to it while suspended takes
 *   effect at once when it resumes (a fatal one ends it before it runs).
 * Arguments: pid, a process proc_spawn_files made suspended.
 * Return value: 0; -ESRCH for no such process; -EINVAL for one that is
 *   not suspended; -ENOMEM (it stays suspended).
 * Caller's context: thread, may sleep.
 */
int proc_resume(int pid);

/*
 * proc_exec_request / proc_exec_resume_request - the control channel's
 *   EXEC and EXEC_RESUME ops (kernel/proc/exec_op.c; the wire format is
 *   scion/chan_proto.h's): take the request apart, spawn or resume, and
 *   answer it.
 * Arguments: seq, the request's sequence number; body and len, the
 *   request after its op header (struct chan_exec_request and argv, or
 *   struct chan_exec_resume_request).
 * Return value: 0, or -errno (the request was answered with an ERROR).
 * Caller's context: the channel thread, may sleep.
 */
int proc_exec_request(uint32_t seq, const uint8_t *body, uint32_t len);
int proc_exec_resume_request(uint32_t seq, const uint8_t *body, uint32_t len);
/* The channel's SIGNAL op (chan_proto.h). Channel thread. */
int proc_signal_request(uint32_t seq, const uint8_t *body, uint32_t len);

/*
 * proc_wait_kernel_child - wait until a process proc_spawn started ends.
 * Return value: 0 with *status set to its Linux wait status, or -ECHILD.
 * Caller's context: thread, may sleep.
 */
int proc_wait_kernel_child(int pid, int *status);

/*
 * proc_disown - the kernel will not wait for pid (a background `run`):
 *   it is freed when it exits, or now if it has exited already.
 */
void proc_disown(int pid);

/*
 * proc_kill - send signal sig (1..64; 0 checks existence) to pid.
 * Return value: 0, -ESRCH, or -EINVAL for a bad signal.
 */
int proc_kill(int pid, int sig);

/*
 * proc_signal_set_mask - set the calling process's signal mask (as
 *   rt_sigreturn restores it; SIGKILL and SIGSTOP are never blocked).
 */
void proc_signal_set_mask(uint64_t mask);

/* rt_sigreturn found a frame it cannot return through: SIGSEGV kills the caller. */
void proc_signal_bad_frame(void);

/* The console's foreground process (Ctrl-C sends it SIGINT); 0: none. */
void proc_set_foreground(int pid);

/*
 * proc_poll_notify - something a poll or select may wait for changed (a
 *   pipe's contents or ends, the console's input): the waiters look again.
 * Caller's context: any, interrupts included; takes the poll queue's lock.
 */
void proc_poll_notify(void);

/*
 * proc_console_interrupt - the console read Ctrl-C: SIGINT to the
 *   foreground process. Return value: whether there was one (else the
 *   byte is input as usual). Caller's context: any, interrupts included.
 */
bool proc_console_interrupt(void);

/*
 * proc_thread_id - the thread id of live process pid (its one thread),
 *   for what is scoped per thread (grafts, metrics) to apply per process.
 * Return value: the tid, or 0 when no live process has that pid.
 */
uint64_t proc_thread_id(int pid);

/*
 * proc_is_suspended - whether pid was made suspended and has not been
 *   resumed (proc_resume). Caller's context: thread; takes proc_lock.
 */
bool proc_is_suspended(int pid);

/* Processes alive or not yet reaped, and pages their memory holds. */
unsigned proc_count(void);

struct thread;
struct monitor_exited;

/* What the monitor's per-process sources read of one process. */
struct proc_monitor_view {
	int pid;
	const char *name;
	const struct thread *thread;		/* its live thread, NULL once it exited */
	const struct monitor_exited *exited;	/* its exited threads' share */
};

/*
 * proc_foreach_monitor - visit every process (alive, suspended or a
 *   zombie) for the monitor's per-process sources (scion/monitor.h).
 * Arguments: fn, called with proc_lock and then sched_lock held (so a
 *   thread's exit, which moves its share into its process under
 *   proc_lock, is seen whole or not at all); it may not sleep or take a
 *   lock; the view lives only for the call.
 * Caller's context: thread, no spinlock held.
 */
void proc_foreach_monitor(void (*fn)(const struct proc_monitor_view *v, void *arg), void *arg);

#endif
