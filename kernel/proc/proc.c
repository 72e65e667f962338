// SPDX-License-Identifier: BSD-2-Clause
/*
 * Processes: the table, creation (the kernel's spawn and fork), the
 * thread each runs on, exit, and reaping by wait4.
 *
 * A process is ALIVE while its thread runs, then a ZOMBIE holding its
 * wait status until its parent reaps it; a process whose parent is
 * gone (or the kernel, which does not wait unless it asked to) is freed
 * as soon as it exits. proc_lock guards the table, every parent and
 * child link and every state; a process's own fields are its thread's
 * (proc_internal.h).
 *
 * Exit, in its own thread, in these steps:
 *   1. remove the grafts and code adaptations installed for it alone,
 *      close its files (pipes see EOF and EPIPE);
 *   2. leave its address space for the kernel's and free it, with every
 *      page it held;
 *   3. under proc_lock: move its thread's per-thread figures into the
 *      process (the monitor's process.* sources keep counting them),
 *      become a ZOMBIE with its wait status, hand its
 *      children to no one (zombies among them are freed), and wake its
 *      parent's wait4, or free itself when no one will reap it;
 *   4. release its FPU state and end the thread.
 * proc:::exit fires before step 1, in the exiting process (so pid and
 * execname are its own): arg0 illumos's reason (CLD_EXITED 1, CLD_KILLED
 * 2), arg1 the exit code or the signal. proc:::create fires for the
 * kernel's spawn too (arg0 the new pid, in the spawning kernel thread).
 */
#include <scion/vfs.h>
#include <scion/clock.h>
#include <scion/format.h>
#include <scion/graft.h>
#include <scion/codeadapt.h>
#include <scion/console.h>
#include <scion/errno.h>
#include <scion/mm.h>
#include <scion/printk.h>
#include <scion/sched.h>
#include <scion/sdt.h>
#include <scion/string.h>
#include <arch/cpu.h>
#include <arch/user.h>
#include "proc_internal.h"

struct spinlock proc_lock = SPINLOCK_INIT("proc");
static LIST_HEAD(all_processes);	/* proc_lock */
static unsigned nprocesses;		/* proc_lock */
static int next_pid = 1;		/* proc_lock */
static int foreground_pid;		/* atomic: the console's Ctrl-C goes here */
static struct waitq kernel_child_wq = WAITQ_INIT(kernel_child_wq, "proc-kernel-children");

struct process *proc_current(void)
{
	return thread_current()->proc;
}

int proc_pid(const struct process *p)
{
	return p ? p->pid : 0;
}

int proc_ppid(const struct process *p)
{
	return p ? READ_ONCE(p->ppid) : 0;	/* no lock: probe context reads it */
}

const char *proc_name(const struct process *p)
{
	return p ? p->name : "";
}

const char *proc_psargs(const struct process *p)
{
	return p ? p->psargs : "";
}

void proc_set_psargs(struct process *p, char *const *argv, unsigned argc)
{
	size_t n = 0;
	for (unsigned i = 0; i < argc && n + 1 < sizeof(p->psargs); i++) {
		if (i)
			p->psargs[n++] = ' ';
		n += strlcpy(p->psargs + n, argv[i], sizeof(p->psargs) - n);
		if (n >= sizeof(p->psargs))
			n = sizeof(p->psargs) - 1;
	}
	p->psargs[n] = '\0';
}

unsigned proc_count(void)
{
	return READ_ONCE(nprocesses);
}

struct process *proc_find_locked(int pid)
{
	list_foreach(&all_processes, n) {
		struct process *p = list_entry(n, struct process, all_node);
		if (p->pid == pid)
			return p;
	}
	return NULL;
}

static bool pid_in_use(int pid)
{
	return proc_find_locked(pid) != NULL;
}

/*
 * A new process in the table, ALIVE, with no memory map, files or
 * thread yet; parent NULL for the kernel's children.
 * Return value: the process, or NULL at PROC_MAX (or without memory).
 */
struct process *proc_alloc(struct process *parent)
{
	struct process *p = kzalloc(sizeof(*p));
	if (!p)
		return NULL;
	list_init(&p->children);
	waitq_init(&p->child_wq, "proc-children");
	spin_init(&p->files_lock, "proc-files");
	strlcpy(p->cwd, parent ? parent->cwd : "/", sizeof(p->cwd));
	p->start_ns = clock_ns();

	irqflags_t f = spin_lock_irqsave(&proc_lock);
	if (nprocesses >= PROC_MAX) {
		spin_unlock_irqrestore(&proc_lock, f);
		kfree(p);
		return NULL;
	}
	do {
		p->pid = next_pid++;
		if (next_pid > 99999)
			next_pid = 2;
	} while (pid_in_use(p->pid));
	nprocesses++;
	p->parent = parent;
	WRITE_ONCE(p->ppid, parent ? parent->pid : 0);
	if (parent)
		list_add_tail(&parent->children, &p->sibling);
	list_add_tail(&all_processes, &p->all_node);
	spin_unlock_irqrestore(&proc_lock, f);
	return p;
}

/* Drop p from the table and free it. Caller: p has no thread and no children list of its own. */
static void unlink_locked(struct process *p)
{
	list_remove(&p->all_node);
	if (p->parent)
		list_remove(&p->sibling);
	nprocesses--;
}

void proc_free(struct process *p)
{
	irqflags_t f = spin_lock_irqsave(&proc_lock);
	unlink_locked(p);
	spin_unlock_irqrestore(&proc_lock, f);
	fd_close_all(p);
	vm_destroy(&p->vm);
	kfree(p);
}

void proc_set_name(struct process *p, const char *path)
{
	strlcpy(p->name, path_last_component(path), sizeof(p->name));	/* path is normalized */
}

/* What a new process's thread starts from (proc_start_thread). */
struct start_info {
	struct process *p;
	struct trap_frame frame;
	const struct thread *fpu_from;	/* the forking thread, waiting in fork until we copied */
	struct waitq *copied_wq;
	bool copied;			/* copied_wq->lock */
	int err;
};

static void user_thread_main(void *arg)
{
	struct start_info *si = arg;
	struct thread *t = thread_current();
	struct process *p = si->p;
	struct trap_frame *f = arch_user_frame(t->stack_top);

	*f = si->frame;
	int err = arch_thread_user_init(t);
	if (!err && si->fpu_from)
		arch_thread_user_copy(t, si->fpu_from);
	if (!err) {
		t->proc = p;
		irqflags_t fl = spin_lock_irqsave(&proc_lock);
		p->thread = t;	/* here, not in the creator: the thread may exit before the creator runs on */
		spin_unlock_irqrestore(&proc_lock, fl);
		codeadapt_process_started(p->pid, t->tid);
		fl = arch_irq_save();
		t->arch.as = p->vm.as;
		arch_as_activate(p->vm.as);
		arch_irq_restore(fl);
	}
	irqflags_t fl = spin_lock_irqsave(&si->copied_wq->lock);
	si->err = err;
	si->copied = true;
	spin_unlock_irqrestore(&si->copied_wq->lock, fl);
	waitq_wake_all(si->copied_wq);	/* si is the creator's: not touched after this */
	if (err)
		thread_exit(err);
	proc_return_to_user(f);
	arch_enter_user(f);
}

/*
 * proc_start_thread - give p its thread, which enters user mode with
 *   frame (and, for fork, a copy of fpu_from's FPU state and TLS).
 * Return value: 0, or -ENOMEM. Caller's context: thread; returns once
 *   the new thread has copied what it needs from the caller.
 */
int proc_start_thread(struct process *p, const struct trap_frame *frame,
		      const struct thread *fpu_from)
{
	struct waitq wq;
	struct start_info si = { .p = p, .frame = *frame, .fpu_from = fpu_from, .copied_wq = &wq };
	char name[THREAD_NAME_MAX];

	waitq_init(&wq, "proc-start");
	snprintf(name, sizeof(name), "%s[%d]", p->name, p->pid);
	struct thread *t = thread_create(name, user_thread_main, &si, -1);
	if (!t)
		return -ENOMEM;
	thread_detach(t);
	wait_event(&wq, si.copied);
	return si.err;
}

/*
 * A vfork child gives its parent's memory map back (at exec, with its
 * own map in place, or at exit): forget the borrowed one and wake the
 * parent waiting in vfork.
 */
void proc_vfork_release(struct process *p)
{
	struct process *parent = p->vfork_parent;
	if (!parent)
		return;
	p->vfork_parent = NULL;
	irqflags_t f = spin_lock_irqsave(&parent->child_wq.lock);
	parent->vfork_done = true;
	spin_unlock_irqrestore(&parent->child_wq.lock, f);
	waitq_wake_all(&parent->child_wq);
}

bool proc_signal_pending(void)
{
	struct process *p = proc_current();
	return p && (READ_ONCE(p->fatal_signal) ||
		     (__atomic_load_n(&p->pending, __ATOMIC_RELAXED) & ~p->blocked));
}

__noreturn void proc_exit(int wait_status)
{
	struct thread *t = thread_current();
	struct process *p = t->proc;

	arch_irq_enable();
	if ((wait_status & 0x7f) == 0)
		SDT_PROBE2_P(proc, exit, PROC_CLD_EXITED, (wait_status >> 8) & 0xff);
	else
		SDT_PROBE2_P(proc, exit, PROC_CLD_KILLED, wait_status & 0x7f);
	/* Step 1. */
	unsigned grafts = graft_remove_scoped(t->tid);
	if (grafts)
		printk("proc: pid %d (%s) exits: %u graft%s installed for it removed\n", p->pid,
		       p->name, grafts, grafts == 1 ? "" : "s");
	unsigned versions = codeadapt_remove_process(p->pid);
	if (versions)
		printk("proc: pid %d (%s) exits: %u code adaptation%s for it removed\n", p->pid,
		       p->name, versions, versions == 1 ? "" : "s");
	fd_close_all(p);
	/* Step 2. */
	irqflags_t f = arch_irq_save();
	t->arch.as = NULL;
	arch_as_activate(NULL);
	arch_irq_restore(f);
	if (p->vfork_parent) {
		memset(&p->vm, 0, sizeof(p->vm));	/* the parent's: not ours to free */
		proc_vfork_release(p);
	}
	vm_destroy(&p->vm);
	/* Step 3. */
	bool free_now;
	struct process *parent;
	f = spin_lock_irqsave(&proc_lock);
	monitor_thread_leaves(t, &p->exited);	/* with p->thread = NULL: seen whole */
	p->state = PROC_ZOMBIE;
	p->wait_status = wait_status;
	p->thread = NULL;
	while (!list_empty(&p->children)) {
		struct process *c = list_entry(p->children.next, struct process, sibling);
		list_remove(&c->sibling);
		c->parent = NULL;
		WRITE_ONCE(c->ppid, 0);
		if (c->state == PROC_ZOMBIE) {
			list_remove(&c->all_node);
			nprocesses--;
			kfree(c);
		}
	}
	parent = p->parent;
	free_now = !parent && !p->kernel_waits;
	if (free_now)
		unlink_locked(p);
	if (READ_ONCE(foreground_pid) == p->pid)
		WRITE_ONCE(foreground_pid, 0);
	spin_unlock_irqrestore(&proc_lock, f);
	if (parent) {
		signal_send(parent, SIGCHLD);
		waitq_wake_all(&parent->child_wq);
	} else if (!free_now) {
		waitq_wake_all(&kernel_child_wq);
	}
	t->proc = NULL;
	if (free_now)
		kfree(p);
	/* Step 4. */
	arch_thread_user_release(t);
	thread_exit(0);
}

/*
 * wait4's search: a zombie child matching pid (-1: any), reaped.
 * Return value: its pid with *status set; 0 when matching children live
 * on; -ECHILD when none matches.
 */
static int reap_child(struct process *parent, int pid, int *status)
{
	int result = -ECHILD;
	struct process *zombie = NULL;
	irqflags_t f = spin_lock_irqsave(&proc_lock);
	list_foreach(&parent->children, n) {
		struct process *c = list_entry(n, struct process, sibling);
		if (pid > 0 && c->pid != pid)
			continue;
		if (c->state == PROC_ZOMBIE) {
			zombie = c;
			break;
		}
		result = 0;
	}
	if (zombie) {
		result = zombie->pid;
		*status = zombie->wait_status;
		parent->child_faults += zombie->child_faults + zombie->vm.faults;
		unlink_locked(zombie);
	}
	spin_unlock_irqrestore(&proc_lock, f);
	kfree(zombie);
	return result;
}

#define LINUX_WNOHANG 1

SYSCALL(wait4)
{
	int pid = (int)a0, status = 0;
	uintptr_t ustatus = a1;
	unsigned options = (unsigned)a2;
	struct process *p = proc_current();

	if (options & ~(unsigned)(LINUX_WNOHANG | 2 /* WUNTRACED */ | 8 /* WCONTINUED */))
		return -EINVAL;
	if (pid == 0 || pid < -1)
		pid = -1;	/* process groups: every child is in the caller's */
	for (;;) {
		int r = reap_child(p, pid, &status);
		if (r < 0)
			return r;
		if (r > 0) {
			if (ustatus && copyout(ustatus, &status, sizeof(status)))
				return -EFAULT;
			return r;
		}
		if (options & LINUX_WNOHANG)
			return 0;
		irqflags_t f = spin_lock_irqsave(&p->child_wq.lock);
		waitq_sleep(&p->child_wq, 10);	/* re-check also after a missed wake */
		spin_unlock_irqrestore(&p->child_wq.lock, f);
		if (proc_signal_pending())
			return -EINTR;
	}
}

int proc_reap_kernel_child(int pid, int *status)
{
	irqflags_t f = spin_lock_irqsave(&proc_lock);
	struct process *p = proc_find_locked(pid);
	if (!p || p->parent || !p->kernel_waits) {
		spin_unlock_irqrestore(&proc_lock, f);
		return -ECHILD;
	}
	if (p->state != PROC_ZOMBIE) {
		spin_unlock_irqrestore(&proc_lock, f);
		return -EAGAIN;
	}
	*status = p->wait_status;
	unlink_locked(p);
	spin_unlock_irqrestore(&proc_lock, f);
	kfree(p);
	return 0;
}

int proc_wait_kernel_child(int pid, int *status)
{
	int err;
	while ((err = proc_reap_kernel_child(pid, status)) == -EAGAIN)
		wait_event_timeout(&kernel_child_wq, false, 10);
	return err;
}

int proc_spawn_files(const char *path, const char *const argv[], struct file *const stdio[3],
		     bool suspended)
{
	static const char *const envp[] = { "PATH=/", "HOME=/", "TERM=vt100", NULL };
	unsigned argc = 0, envc = 0;
	int err = 0;
	struct process *p = NULL;
	struct trap_frame *frame = kmalloc(sizeof(*frame));
	while (argv[argc])
		argc++;
	while (envp[envc])
		envc++;
	struct linux_stat st;
	err = frame ? path_stat(path, &st) : -ENOMEM;
	if (!err && (st.st_mode & LINUX_S_IFMT) != LINUX_S_IFREG)
		err = -EACCES;
	if (!err && !(p = proc_alloc(NULL)))
		err = -EAGAIN;
	if (err) {
		for (int fd = 0; fd < 3; fd++)
			if (stdio[fd])
				file_put(stdio[fd]);
		kfree(frame);
		return err;
	}
	p->kernel_waits = true;
	proc_set_name(p, path);
	for (int fd = 0; fd < 3; fd++)	/* fds[] is empty: each goes where it should */
		if (stdio[fd])
			fd_install(p, stdio[fd], fd, false);
	proc_set_psargs(p, (char *const *)argv, argc);
	err = exec_load(p, path, (char *const *)argv, argc, (char *const *)envp, envc, frame);
	if (!err && suspended) {
		irqflags_t f = spin_lock_irqsave(&proc_lock);
		p->start_frame = frame;
		spin_unlock_irqrestore(&proc_lock, f);
		SDT_PROBE1_P(proc, create, p->pid);
		return p->pid;
	}
	if (!err)
		err = proc_start_thread(p, frame, NULL);
	kfree(frame);
	if (err) {
		proc_free(p);
		return err;
	}
	SDT_PROBE1_P(proc, create, p->pid);
	return p->pid;
}

int proc_spawn(const char *path, const char *const argv[], bool with_console)
{
	struct file *stdio[3] = { NULL, NULL, NULL };
	for (int fd = 0; fd < 3 && with_console; fd++) {
		if (!(stdio[fd] = tty_open(LINUX_O_RDWR))) {
			for (int i = 0; i < fd; i++)
				file_put(stdio[i]);
			return -ENOMEM;
		}
	}
	return proc_spawn_files(path, argv, stdio, false);
}

bool proc_is_suspended(int pid)
{
	irqflags_t f = spin_lock_irqsave(&proc_lock);
	struct process *p = proc_find_locked(pid);
	bool suspended = p && p->start_frame;
	spin_unlock_irqrestore(&proc_lock, f);
	return suspended;
}

int proc_resume(int pid)
{
	irqflags_t f = spin_lock_irqsave(&proc_lock);
	struct process *p = proc_find_locked(pid);
	struct trap_frame *frame = p ? p->start_frame : NULL;
	if (frame)
		p->start_frame = NULL;	/* ours: a second resume finds none */
	spin_unlock_irqrestore(&proc_lock, f);
	if (!frame)
		return p ? -EINVAL : -ESRCH;
	/* p stays: nobody frees an ALIVE process that has no thread. */
	int err = proc_start_thread(p, frame, NULL);
	if (err) {
		f = spin_lock_irqsave(&proc_lock);
		p->start_frame = frame;
		spin_unlock_irqrestore(&proc_lock, f);
		return err;
	}
	kfree(frame);
	return 0;
}

void proc_disown(int pid)
{
	struct process *zombie = NULL;
	irqflags_t f = spin_lock_irqsave(&proc_lock);
	struct process *p = proc_find_locked(pid);
	if (p && !p->parent && p->kernel_waits) {
		p->kernel_waits = false;
		if (p->state == PROC_ZOMBIE) {
			unlink_locked(p);
			zombie = p;
		}
	}
	spin_unlock_irqrestore(&proc_lock, f);
	kfree(zombie);
}

uint64_t proc_thread_id(int pid)
{
	uint64_t tid = 0;
	irqflags_t f = spin_lock_irqsave(&proc_lock);
	struct process *p = proc_find_locked(pid);
	if (p && p->state == PROC_ALIVE && p->thread)
		tid = p->thread->tid;
	spin_unlock_irqrestore(&proc_lock, f);
	return tid;
}

void proc_set_foreground(int pid)
{
	WRITE_ONCE(foreground_pid, pid);
}

bool proc_console_interrupt(void)
{
	int pid = READ_ONCE(foreground_pid);
	return pid && proc_kill(pid, SIGINT) == 0;
}

unsigned proc_snapshot(struct proc_row *rows, unsigned max)
{
	unsigned n = 0;
	irqflags_t f = spin_lock_irqsave(&proc_lock);
	list_foreach(&all_processes, it) {
		if (n == max)
			break;
		struct process *p = list_entry(it, struct process, all_node);
		rows[n] = (struct proc_row){
			.pid = p->pid, .ppid = p->parent ? p->parent->pid : 0,
			.zombie = p->state == PROC_ZOMBIE, .suspended = p->start_frame != NULL,
			.pages = READ_ONCE(p->vm.pages), .faults = READ_ONCE(p->vm.faults),
			.syscalls = READ_ONCE(p->syscalls),
		};
		memcpy(rows[n].name, p->name, sizeof(rows[n].name));
		n++;
	}
	spin_unlock_irqrestore(&proc_lock, f);
	return n;
}

void proc_foreach_monitor(void (*fn)(const struct proc_monitor_view *v, void *arg), void *arg)
{
	irqflags_t f = spin_lock_irqsave(&proc_lock);
	irqflags_t s = spin_lock_irqsave(&sched_lock);
	list_foreach(&all_processes, it) {
		struct process *p = list_entry(it, struct process, all_node);
		struct proc_monitor_view v = { .pid = p->pid, .name = p->name, .thread = p->thread,
					       .exited = &p->exited };
		fn(&v, arg);
	}
	spin_unlock_irqrestore(&sched_lock, s);
	spin_unlock_irqrestore(&proc_lock, f);
}
