// SPDX-License-Identifier: BSD-2-Clause
/*
 * Pausing kernel threads at probes (scion/pause.h). A pause goes:
 *   1. pause_request, in probe context: the thread may sleep at this
 *      hit (see refusal()) and the CPU remembers it (cpu->pause_tid);
 *   2. the hit ends (cpu_probe_hit_end: no probe context any more);
 *   3. the general jump dispatcher calls pause_hit_end: the thread puts
 *      itself on the paused list with the hit's frame (on its own stack,
 *      where it stays valid while it waits), unmasks interrupts (the
 *      probed instruction ran with them unmasked: step 1 checked), posts
 *      the channel event and sleeps until pause_continue marks it;
 *   4. it takes itself off the list, masks interrupts again and returns
 *      into the patch, which restores the registers and runs on.
 * Software-fired sites' hit ends refuse every request; a breakpoint
 * site's refuses all but a single step's (pause_request_step) on a
 * machine whose breakpoint trap may sleep (ARCH_PAUSE_AT_BREAKPOINT):
 * its frame then already resumes in the site's out-of-line copy, which
 * a word of the sleeping thread's stack keeps alive. Each pause gets a
 * number (seq), so that a step can wait for the thread's next pause.
 *
 * Lock order: pause_mutex (the paused list), then pause_wq's or
 * paused_wq's lock.
 */
#include <scion/pause.h>
#include <scion/thread.h>
#include <scion/cpu.h>
#include <scion/wait.h>
#include <scion/mutex.h>
#include <scion/list.h>
#include <scion/clock.h>
#include <scion/channel.h>
#include <scion/symtab.h>
#include <scion/string.h>
#include <scion/errno.h>
#include <scion/insn_summary.h>
#include <scion/textimage.h>
#include <arch/cpu.h>
#include <arch/trap.h>
#include <arch/stack.h>

struct paused_thread {
	struct paused_thread_info info;
	struct trap_frame *frame;	/* on the paused thread's stack; at a breakpoint site
					   its pc is the out-of-line copy's */
	bool resumed;			/* pause_wq's lock */
	struct list_node node;		/* pause_mutex */
};

static struct mutex pause_mutex = MUTEX_INIT(pause_mutex, "pause");
static LIST_HEAD(paused);		/* pause_mutex: struct paused_thread, oldest first */
static struct waitq pause_wq = WAITQ_INIT(pause_wq, "pause");
static struct waitq paused_wq = WAITQ_INIT(paused_wq, "paused");	/* a thread paused */
static struct pause_stats stats;	/* paused: pause_mutex; refused, last_*: atomic stores */

/* Why the current thread cannot sleep at this hit, or NULL. Probe context. */
static const char *refusal(const struct cpu *c, const struct thread *t,
			   const struct trap_frame *frame)
{
	if (!trap_frame_irqs_were_enabled(frame))
		return "interrupts masked at the probe";
	if (c->irq_depth)
		return "in an interrupt handler";
	if (c->lock_depth)
		return "a spinlock held";
	if (t->is_idle)
		return "the idle thread";
	if (!strncmp(t->name, "channel", 7))
		return "the control channel's own thread";
	if (c->txn_depth)
		return "inside a graft transaction";
	return NULL;
}

static void refuse(uint64_t addr, const char *why)
{
	__atomic_fetch_add(&stats.refused, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&stats.last_refused_addr, addr, __ATOMIC_RELAXED);
	__atomic_store_n(&stats.last_refused_why, why, __ATOMIC_RELAXED);
}

/* Step 1, for pause_request and pause_request_step. */
static void request(const struct probe_hit *hit, bool step)
{
	struct cpu *c = this_cpu();
	struct thread *t = c->current;
	const char *why = refusal(c, t, hit->regs);

	if (why) {
		refuse(hit->addr, why);
		return;
	}
	if (c->pause_tid != t->tid)
		c->pause_step = false;
	c->pause_tid = t->tid;
	c->pause_addr = hit->addr;
	c->pause_step |= step;
}

void pause_request(const struct probe_hit *hit)
{
	request(hit, false);
}

void pause_request_step(const struct probe_hit *hit)
{
	request(hit, true);
}

/*
 * Whether addr is a function's first instruction or a return: there the
 * return address is on top of the stack (arch_stack_walk's boundary).
 */
static bool at_boundary(uint64_t addr)
{
	uint64_t offset = 0;
	const struct ksym *k = symtab_lookup_addr(&kernel_symtab, addr, &offset);
	struct insn_summary s;

	if (!k)
		return false;
	return !offset || (text_image_ready() &&
			   !arch_insn_summarise(&s, text_image_bytes(addr), k->size - offset,
						addr) &&
			   s.cls == INSN_CLASS_RETURN);
}

/* Steps 3 and 4. */
static void pause_hit_end(struct trap_frame *frame, enum pause_site site, unsigned region)
{
	struct cpu *c = this_cpu();
	struct thread *t = c->current;
	uint64_t tid = c->pause_tid, addr = c->pause_addr;
	bool step = c->pause_step;

	c->pause_tid = 0;
	c->pause_step = false;
	if (tid != t->tid)
		return;			/* a request left by a hit that ended elsewhere */
	if (site == PAUSE_SITE_SOFT ||
	    (site == PAUSE_SITE_TRAP && !(step && ARCH_PAUSE_AT_BREAKPOINT))) {
		refuse(addr, "a breakpoint or software-fired site");
		return;
	}
	struct paused_thread p = { .info = { .tid = tid, .addr = addr, .since_ns = clock_ns(),
					     .region = region },
				   .frame = frame };
	char where[96];
	strlcpy(p.info.name, t->name, sizeof(p.info.name));
	bool at_entry = at_boundary(addr);
	/* The walk starts at the paused instruction, not at a breakpoint site's copy. */
	struct trap_frame at = *frame;
	trap_frame_set_pc(&at, addr);
	p.info.stack[0] = addr;
	p.info.nstack = 1 + arch_stack_walk(&at, at_entry, p.info.stack + at_entry,
					    PAUSE_STACK_MAX - 1) - !at_entry;
	arch_irq_enable();
	mutex_lock(&pause_mutex);
	list_add_tail(&paused, &p.node);
	p.info.seq = ++stats.paused;
	mutex_unlock(&pause_mutex);
	waitq_wake_all(&paused_wq);
	WRITE_ONCE(t->paused_at_probe, true);
	channel_event("pause: thread %llu (%s) paused at %s", (unsigned long long)tid, t->name,
		      ksym_format(addr, where, sizeof(where)));
	wait_event(&pause_wq, p.resumed);
	WRITE_ONCE(t->paused_at_probe, false);
	mutex_lock(&pause_mutex);
	list_remove(&p.node);
	mutex_unlock(&pause_mutex);
	arch_irq_disable();
}

void (*pause_at_hit_end)(struct trap_frame *frame, enum pause_site site,
			 unsigned region) = pause_hit_end;

unsigned pause_continue(uint64_t tid)
{
	unsigned n = 0;
	mutex_lock(&pause_mutex);
	list_foreach(&paused, it) {
		struct paused_thread *p = list_entry(it, struct paused_thread, node);
		if (tid && p->info.tid != tid)
			continue;
		irqflags_t f = spin_lock_irqsave(&pause_wq.lock);
		n += !p->resumed;
		p->resumed = true;
		spin_unlock_irqrestore(&pause_wq.lock, f);
	}
	mutex_unlock(&pause_mutex);
	if (n)
		waitq_wake_all(&pause_wq);
	return n;
}

void pause_foreach(void (*fn)(const struct paused_thread_info *p, void *arg), void *arg)
{
	mutex_lock(&pause_mutex);
	list_foreach(&paused, it) {
		struct paused_thread *p = list_entry(it, struct paused_thread, node);
		struct paused_thread_info copy = p->info;
		fn(&copy, arg);
	}
	mutex_unlock(&pause_mutex);
}

/* The paused thread tid, or NULL. pause_mutex held. */
static struct paused_thread *find(uint64_t tid)
{
	list_foreach(&paused, it) {
		struct paused_thread *p = list_entry(it, struct paused_thread, node);
		if (p->info.tid == tid)
			return p;
	}
	return NULL;
}

int pause_with_frame(uint64_t tid, void (*fn)(const struct trap_frame *f, void *arg), void *arg)
{
	/* A paused thread takes pause_mutex to leave the list: it waits for fn. */
	mutex_lock(&pause_mutex);
	struct paused_thread *p = find(tid);
	if (p) {
		/* fn sees the paused instruction as the pc, even where the frame resumes a copy. */
		struct trap_frame f = *p->frame;
		trap_frame_set_pc(&f, p->info.addr);
		fn(&f, arg);
	}
	mutex_unlock(&pause_mutex);
	return p ? 0 : -ENOENT;
}

int pause_find(uint64_t tid, struct paused_thread_info *out)
{
	mutex_lock(&pause_mutex);
	struct paused_thread *p = find(tid);
	if (p)
		*out = p->info;
	mutex_unlock(&pause_mutex);
	return p ? 0 : -ENOENT;
}

/* Whether tid is paused by a pause numbered after `after` (then *out is it). */
static bool paused_after(uint64_t tid, uint64_t after, struct paused_thread_info *out)
{
	return !pause_find(tid, out) && out->seq > after;
}

int pause_wait_paused(uint64_t tid, uint64_t after, uint64_t timeout_ticks,
		      struct paused_thread_info *out)
{
	uint64_t deadline = clock_ticks() + timeout_ticks;

	/* The condition takes a mutex: check it between bounded sleeps, not under the lock. */
	while (!paused_after(tid, after, out)) {
		uint64_t now = clock_ticks();
		if (now >= deadline)
			return -ETIMEDOUT;
		irqflags_t f = spin_lock_irqsave(&paused_wq.lock);
		waitq_sleep(&paused_wq, 1);
		spin_unlock_irqrestore(&paused_wq.lock, f);
	}
	return 0;
}

void pause_get_stats(struct pause_stats *s)
{
	mutex_lock(&pause_mutex);
	s->paused = stats.paused;
	mutex_unlock(&pause_mutex);
	s->refused = __atomic_load_n(&stats.refused, __ATOMIC_RELAXED);
	s->last_refused_addr = __atomic_load_n(&stats.last_refused_addr, __ATOMIC_RELAXED);
	s->last_refused_why = __atomic_load_n(&stats.last_refused_why, __ATOMIC_RELAXED);
}
