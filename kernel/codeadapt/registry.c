// SPDX-License-Identifier: BSD-2-Clause
/*
 * The code adaptations installed (scion/codeadapt.h): each is a
 * PROBE_REDIRECT consumer on the instruction probe at its function's
 * entry, whose guard reads four words of patch data (target, value,
 * thread id, taken count) that the adaptation owns. Installing and
 * removing go through the probe registry, so the commit protocol, its
 * safety check and the byte-for-byte restore are the probes'.
 *
 * An adaptation removed goes on the draining list until nothing runs in
 * its version (version_in_use), then its version is released and its
 * memory freed. The provider `codeadapt` fires codeadapt:::install and
 * codeadapt:::remove (arg0 id, arg1 kind, arg2 the function, arg3 the
 * version, arg4 the guarded argument or -1, arg5 its value).
 *
 * Lock order: adapt_mutex, then the probe registry's locks (probe_enable
 * and probe_disable take them); thread_foreach's lock inside adapt_mutex.
 */
#include <scion/codeadapt.h>
#include <scion/probe.h>
#include <scion/probe_arch.h>
#include <scion/symtab.h>
#include <scion/cfg.h>
#include <scion/thread.h>
#include <scion/proc.h>
#include <scion/cpu.h>
#include <scion/insn_summary.h>
#include <scion/mutex.h>
#include <scion/list.h>
#include <scion/mm.h>
#include <scion/clock.h>
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>
#include <arch/probe.h>
#include <arch/insn.h>
#include <arch/trap.h>

struct adaptation {
	struct codeadapt_info info;	/* adapt_mutex; taken is read from the slot */
	void (*release)(void *owner);
	void *owner;
	uint64_t version_start, version_end;
	uint64_t *target, *value, *tid, *taken;	/* patch data the guard reads */
	struct probe_redirect redirect;
	struct probe_consumer consumer;		/* enabled while INSTALLED */
	struct list_node node;			/* adapt_mutex: installed or draining */
};

static struct mutex adapt_mutex = MUTEX_INIT(adapt_mutex, "codeadapt");
static LIST_HEAD(installed);		/* adapt_mutex */
static LIST_HEAD(draining);		/* adapt_mutex */
static uint32_t next_id = 1;		/* adapt_mutex */
static unsigned scoped;			/* adapt_mutex to change: installed for a process
					   (read unlocked: an exit with none pays one load) */
static unsigned waiting;		/* adapt_mutex to change: installed for a process that
					   has not started (read unlocked) */

/* A thread id no thread has: the guard of a process that has not started. */
#define NO_THREAD_YET UINT64_MAX
static struct probe *probe_install, *probe_remove;	/* set once by the provider */

const char *codeadapt_kind_name(enum codeadapt_kind k)
{
	switch (k) {
	case CODEADAPT_OUTLINE: return "outline";
	case CODEADAPT_SPECIALIZE: return "specialize";
	case CODEADAPT_VERSION: return "version";
	}
	return "?";
}

static void codeadapt_provide(void)
{
	probe_install = probe_create_soft("codeadapt", "kernel", "", "install", false);
	probe_remove = probe_create_soft("codeadapt", "kernel", "", "remove", false);
}
PROBE_PROVIDER(codeadapt_provider, "codeadapt", codeadapt_provide, NULL);

static void fire(struct probe *p, const struct adaptation *a)
{
	struct trap_frame f;

	if (!p)
		return;
	trap_frame_capture(&f);
	trap_frame_set_arg(&f, 0, a->info.id);
	trap_frame_set_arg(&f, 1, a->info.kind);
	trap_frame_set_arg(&f, 2, a->info.function_addr);
	trap_frame_set_arg(&f, 3, a->info.version);
	trap_frame_set_arg(&f, 4, (uint64_t)(int64_t)a->info.arg);
	trap_frame_set_arg(&f, 5, a->info.value);
	probe_fire(p, &f);
}

static void free_slots(struct adaptation *a)
{
	uint64_t **slots[] = { &a->target, &a->value, &a->tid, &a->taken };
	for (unsigned i = 0; i < 4; i++) {
		if (*slots[i])
			probe_counter_free(*slots[i]);
		*slots[i] = NULL;
	}
}

static void destroy(struct adaptation *a)
{
	if (a->release)
		a->release(a->owner);
	free_slots(a);
	kfree(a);
}

static int fail(char *err, size_t errlen, int rc, const char *fmt, const char *what)
{
	if (errlen)
		snprintf(err, errlen, fmt, what);
	return rc;
}

/* The installed adaptation of function (when not 0), else the one with id. adapt_mutex held. */
static struct adaptation *find_installed(uint64_t function, uint32_t id)
{
	list_foreach(&installed, it) {
		struct adaptation *a = list_entry(it, struct adaptation, node);
		if (function ? a->info.function_addr == function : a->info.id == id)
			return a;
	}
	return NULL;
}

/* Whether spec s can be an adaptation: a message into err if not. */
static int check(const struct codeadapt_spec *s, const char **name, char *err, size_t errlen)
{
	uint64_t off = 1;
	const struct ksym *sym;

	if (!ARCH_PROBE_REDIRECTS)
		return fail(err, errlen, -EINVAL, "codeadapt: %s", "this machine's patches "
			    "cannot redirect calls yet");
	sym = symtab_lookup_addr(&kernel_symtab, s->function, &off);
	if (!sym || off)
		return fail(err, errlen, -EINVAL, "codeadapt: %s", "not the entry of a kernel "
			    "function");
	*name = ksym_name(&kernel_symtab, sym);
	if (s->arg_bytes && s->arg_bytes != 4 && s->arg_bytes != 8)
		return fail(err, errlen, -EINVAL, "codeadapt: %s: the guard compares 4 or 8 bytes "
			    "of an argument", *name);
	if (s->arg >= ARCH_PROBE_REDIRECT_ARGS || s->arg < -1)
		return fail(err, errlen, -EINVAL, "codeadapt: %s: the guard can test only the "
			    "arguments passed in registers", *name);
	if (!s->version || s->version_start > s->version || s->version >= s->version_end)
		return fail(err, errlen, -EINVAL, "codeadapt: %s: the version's entry is outside "
			    "its memory", *name);
	if (s->kind < CODEADAPT_OUTLINE || s->kind > CODEADAPT_VERSION)
		return fail(err, errlen, -EINVAL, "codeadapt: %s: no such kind", *name);
	return 0;
}

/* The entry's instruction probe, created on first use (probe_lookup's function+off). */
static bool take_probe(struct probe *p, void *arg)
{
	*(struct probe **)arg = p;
	return false;
}

static int setup(struct adaptation *a, const struct codeadapt_spec *s)
{
	a->target = probe_counter_alloc();
	a->taken = probe_counter_alloc();
	if (s->arg >= 0)
		a->value = probe_counter_alloc();
	if (s->tid || s->pid)
		a->tid = probe_counter_alloc();
	if (!a->target || !a->taken || (s->arg >= 0 && !a->value) ||
	    ((s->tid || s->pid) && !a->tid))
		return -ENOSPC;
	*a->target = s->version;
	if (a->value)
		*a->value = s->value;
	if (a->tid)
		*a->tid = a->info.tid ? a->info.tid : NO_THREAD_YET;
	a->redirect = (struct probe_redirect){ a->target, a->value,
					       s->arg >= 0 ? (unsigned)s->arg : 0,
					       s->arg_bytes ? s->arg_bytes : 8, a->tid, a->taken };
	a->consumer = (struct probe_consumer){ .action = PROBE_REDIRECT,
					       .redirect = &a->redirect,
					       .mechanism = PROBE_MECH_AUTO };
	return 0;
}

int codeadapt_install(const struct codeadapt_spec *s, char *err, size_t errlen)
{
	const char *name = NULL;
	struct adaptation *a = NULL;
	struct probe *p = NULL;
	char spec[80];
	const char *why = NULL;
	int rc = check(s, &name, err, errlen);

	if (rc)
		goto refused;
	rc = fail(err, errlen, -ENOMEM, "codeadapt: %s: out of memory", name);
	if (!(a = kzalloc(sizeof(*a))))
		goto refused;
	a->release = s->release;
	a->owner = s->owner;
	a->version_start = s->version_start;
	a->version_end = s->version_end;
	a->info = (struct codeadapt_info){ .kind = s->kind, .state = CODEADAPT_INSTALLED,
					   .function_addr = s->function, .version = s->version,
					   .version_size = s->version_end - s->version_start,
					   .arg = s->arg,
					   .arg_bytes = s->arg_bytes ? s->arg_bytes : 8,
					   .value = s->value, .tid = s->tid, .pid = s->pid };
	if (s->pid && !s->tid && !(a->info.tid = proc_thread_id(s->pid)) &&
	    !proc_is_suspended(s->pid)) {
		rc = fail(err, errlen, -ESRCH, "codeadapt: %s: no live process", name);
		goto destroy;
	}
	strlcpy(a->info.function, name, sizeof(a->info.function));
	strlcpy(a->info.source, s->source ? s->source : "", sizeof(a->info.source));
	if ((rc = setup(a, s))) {
		fail(err, errlen, rc, "codeadapt: %s: no patch data left for the guard",
		     name);
		goto destroy;
	}
	snprintf(spec, sizeof(spec), "%s+0x0", name);
	if (probe_lookup(spec, take_probe, &p, &why) <= 0 || !p) {
		rc = -EINVAL;
		snprintf(err, errlen, "codeadapt: %s: %s", name,
			 why ? why : "no probe at its entry");
		goto destroy;
	}
	mutex_lock(&adapt_mutex);
	if (find_installed(s->function, 0)) {
		mutex_unlock(&adapt_mutex);
		rc = fail(err, errlen, -EEXIST, "codeadapt: %s is adapted already", name);
		goto destroy;
	}
	rc = probe_enable(p, &a->consumer);
	if (rc) {
		mutex_unlock(&adapt_mutex);
		fail(err, errlen, rc, "codeadapt: %s: the entry splice was refused (see the probe "
		     "line above)", name);
		goto destroy;
	}
	a->info.id = next_id++;
	a->info.installed_ns = clock_ns();
	if (a->tid && *a->tid == NO_THREAD_YET)
		WRITE_ONCE(waiting, waiting + 1);
	if (a->info.pid)
		WRITE_ONCE(scoped, scoped + 1);
	list_add_tail(&installed, &a->node);
	fire(probe_install, a);
	mutex_unlock(&adapt_mutex);
	return (int)a->info.id;
destroy:
	destroy(a);
	return rc;
refused:
	if (s->release)
		s->release(s->owner);
	return rc;
}

/*
 * Whether w, a word inside [start, end), is a return address: the
 * instruction that ends at w, inside the version too, is a call. Other
 * words pointing there (a pointer to the version kept in a frame) do not
 * hold its memory.
 */
static bool return_address(uint64_t w, uint64_t start)
{
	for (unsigned k = 1; k <= INSN_MAX_LENGTH && w - k >= start; k++) {
		struct insn_summary in;
		if (arch_insn_summarise(&in, (const uint8_t *)(uintptr_t)(w - k), k, w - k))
			continue;
		if (in.length == k &&
		    (in.cls == INSN_CLASS_CALL || in.cls == INSN_CLASS_CALL_INDIRECT))
			return true;
	}
	return false;
}

/* Thread walk for version_in_use: the live part of every thread's stack. */
struct watch {
	uint64_t start, end;
	struct thread *self;
	uintptr_t self_sp;
	bool seen;
};

static void scan_thread(struct thread *t, void *arg)
{
	struct watch *w = arg;
	/* Another CPU's running thread: all of its stack (it moves as we read). */
	uintptr_t from = t == w->self ? w->self_sp
		       : READ_ONCE(t->on_cpu) ? t->stack_base : READ_ONCE(t->arch.saved_sp);

	if (!t->stack_base || from < t->stack_base || from >= t->stack_top)
		return;
	for (const uint64_t *word = (const uint64_t *)ALIGN_UP(from, 8);
	     (uintptr_t)word < t->stack_top && !w->seen; word++) {
		uint64_t v = READ_ONCE(*word);
		w->seen = v >= w->start && v < w->end && return_address(v, w->start);
	}
}

/*
 * Whether anything may still run in [start, end): a CPU's or preempted
 * thread's pc there (the probes' check), or a return address into it on
 * a thread's stack (a call the version made that has not come back).
 */
static bool version_in_use(uint64_t start, uint64_t end)
{
	struct watch w = { start, end, this_cpu()->current, (uintptr_t)__builtin_frame_address(0),
			   false };

	if (probe_range_in_use(start, end))
		return true;
	thread_foreach(scan_thread, &w);
	return w.seen;
}

static unsigned collect_locked(void)
{
	unsigned left = 0;

	list_foreach_safe(&draining, it, tmp) {
		struct adaptation *a = list_entry(it, struct adaptation, node);
		if (version_in_use(a->version_start, a->version_end)) {
			left++;
			continue;
		}
		list_remove(&a->node);
		destroy(a);
	}
	return left;
}

unsigned codeadapt_collect(void)
{
	mutex_lock(&adapt_mutex);
	unsigned left = collect_locked();
	mutex_unlock(&adapt_mutex);
	return left;
}

/* Take a's splice out and let it drain. adapt_mutex held. */
static void remove_locked(struct adaptation *a)
{
	probe_disable(&a->consumer);
	if (a->tid && *a->tid == NO_THREAD_YET)
		WRITE_ONCE(waiting, waiting - 1);
	if (a->info.pid)
		WRITE_ONCE(scoped, scoped - 1);
	a->info.taken = READ_ONCE(*a->taken);
	a->info.state = CODEADAPT_DRAINING;
	list_remove(&a->node);
	list_add_tail(&draining, &a->node);
	fire(probe_remove, a);
}

int codeadapt_remove(uint32_t id)
{
	mutex_lock(&adapt_mutex);
	struct adaptation *a = id ? find_installed(0, id) : NULL;
	if (a)
		remove_locked(a);
	collect_locked();
	mutex_unlock(&adapt_mutex);
	return a ? 0 : -ENOENT;
}

static unsigned remove_matching(int pid, bool any)
{
	unsigned n = 0;

	mutex_lock(&adapt_mutex);
	list_foreach_safe(&installed, it, tmp) {
		struct adaptation *a = list_entry(it, struct adaptation, node);
		if (any || (a->info.pid && a->info.pid == pid)) {
			remove_locked(a);
			n++;
		}
	}
	collect_locked();
	mutex_unlock(&adapt_mutex);
	return n;
}

unsigned codeadapt_remove_all(void)
{
	return remove_matching(0, true);
}

unsigned codeadapt_remove_process(int pid)
{
	return pid > 0 && READ_ONCE(scoped) ? remove_matching(pid, false) : 0;
}

void codeadapt_process_started(int pid, uint64_t tid)
{
	if (!READ_ONCE(waiting))
		return;
	mutex_lock(&adapt_mutex);
	list_foreach(&installed, it) {
		struct adaptation *a = list_entry(it, struct adaptation, node);
		if (a->info.pid == pid && a->tid && *a->tid == NO_THREAD_YET) {
			WRITE_ONCE(*a->tid, tid);
			a->info.tid = tid;
			WRITE_ONCE(waiting, waiting - 1);
		}
	}
	mutex_unlock(&adapt_mutex);
}

static void snapshot(const struct adaptation *a, struct codeadapt_info *out)
{
	*out = a->info;
	if (a->info.state == CODEADAPT_INSTALLED)
		out->taken = READ_ONCE(*a->taken);
}

void codeadapt_foreach(bool (*fn)(const struct codeadapt_info *a, void *arg), void *arg)
{
	struct list_node *lists[] = { &installed, &draining };

	mutex_lock(&adapt_mutex);
	collect_locked();
	for (unsigned l = 0; l < 2; l++) {
		list_foreach(lists[l], it) {
			struct codeadapt_info copy;
			snapshot(list_entry(it, struct adaptation, node), &copy);
			if (!fn(&copy, arg)) {
				mutex_unlock(&adapt_mutex);
				return;
			}
		}
	}
	mutex_unlock(&adapt_mutex);
}

/* A copy of the installed adaptation find_installed finds. */
static bool get_installed(uint64_t function, uint32_t id, struct codeadapt_info *out)
{
	mutex_lock(&adapt_mutex);
	struct adaptation *a = find_installed(function, id);
	if (a)
		snapshot(a, out);
	mutex_unlock(&adapt_mutex);
	return a != NULL;
}

bool codeadapt_find(uint64_t function, struct codeadapt_info *out)
{
	return function && get_installed(function, 0, out);
}

bool codeadapt_get(uint32_t id, struct codeadapt_info *out)
{
	return id && get_installed(0, id, out);
}
