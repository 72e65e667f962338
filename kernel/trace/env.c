// SPDX-License-Identifier: BSD-2-Clause
/*
 * The kernel's DIF environment (struct dif_env_ops) for one ECB firing:
 * loads and string copies through arch_safe_read, after
 * arch_trace_readable has refused device memory; built-in variables
 * from the probe hit and the current thread (caller from a stack walk);
 * variables of the three scopes; scratch space (the only memory a
 * program writes), strtok()'s place and speculation ids; copyin's reads
 * of the current process's memory.
 *
 * Process built-ins (pid, ppid, execname, curpsinfo->...) are the
 * current thread's process's (scion/proc.h), read without a lock: the
 * process cannot go away under its own running thread. A kernel thread
 * has pid 0 and its thread name as execname.
 *
 * Storage: global scalars in the session's globals area, clause-locals
 * in the CPU's locals area (zeroed at each probe firing), thread-locals
 * and associative arrays in the dynamic variable space keyed by a byte
 * string: the thread id for self->, then each tuple item (an integer as
 * 8 bytes, a string as its length in 2 bytes and its bytes). A string
 * loaded from dynamic space is copied to scratch first, so another CPU
 * deleting the element cannot change it under the program.
 *
 * Probe context throughout: interrupts masked, nothing sleeps.
 */
#include <scion/thread.h>
#include <scion/clock.h>
#include <scion/string.h>
#include <scion/errno.h>
#include <scion/proc.h>
#include <arch/mmu.h>
#include <arch/safe_read.h>
#include <arch/stack.h>
#include "trace_internal.h"

/* A trace read: device memory is refused before anything is read, like an unmapped page. */
static int env_read(void *env, uint64_t addr, void *buf, size_t n)
{
	(void)env;
	if (!arch_trace_readable(addr, n))
		return -EFAULT;
	return arch_safe_read(buf, addr, n);
}

/*
 * Copy the string at addr into dst (at most max bytes, NUL included).
 * Return value: its length, or -EFAULT when a byte before its end does
 * not read.
 */
static long copy_string(char *dst, uint64_t addr, size_t max)
{
	uint64_t bad;
	long len = dif_copy_string(&trace_env_ops, NULL, addr, dst, max, &bad);
	return len < 0 ? -EFAULT : len;
}

/*
 * The probe's own names (probeprov, probemod, probefunc, probename: an
 * aggregation key's usual string) live with the probe, which cannot go
 * while it fires, so they are copied as they are: checking each chunk's
 * readability and reading it under a fault handler was most of
 * @[probefunc] = count()'s cost. Any other address is read as a load.
 */
long trace_copy_string(const struct trace_firing *x, char *dst, uint64_t addr, size_t max)
{
	const struct probe *p = x->hit->probe;
	if (addr && (addr == (uintptr_t)p->function || addr == (uintptr_t)p->name ||
		     addr == (uintptr_t)p->module || addr == (uintptr_t)p->provider)) {
		const char *s = (const char *)(uintptr_t)addr;
		size_t n = 0;
		for (; n + 1 < max && s[n]; n++)
			dst[n] = s[n];
		dst[n] = '\0';
		return (long)n;
	}
	return copy_string(dst, addr, max);
}

/*
 * caller, as DTrace computes it: at a probe in a function (fbt, sdt, an
 * instruction) the first frame of its stack() -- at fbt entry and return
 * the return address into the caller, elsewhere the probed pc; at a
 * probe in no function (profile, BEGIN...) the second, the return
 * address of the interrupted or firing function.
 */
static uint64_t caller(const struct trace_firing *x)
{
	uint64_t pcs[2] = { 0, 0 };
	bool anchored = x->hit->probe->function[0] != '\0';
	arch_stack_walk(x->hit->regs, x->ecb->site != TRACE_SITE_INSIDE, pcs, anchored ? 1 : 2);
	return pcs[anchored ? 0 : 1];
}

/* stackdepth: the frames stack() would record, up to DOF_MAX_FRAMES. */
static uint64_t stack_depth(const struct trace_firing *x)
{
	uint64_t pcs[DOF_MAX_FRAMES];
	return arch_stack_walk(x->hit->regs, x->ecb->site != TRACE_SITE_INSIDE, pcs,
			       DOF_MAX_FRAMES);
}

/* t's time on a CPU at now, the firing's clock_ns() (t running: the current thread). */
static uint64_t vtimestamp(const struct thread *t, uint64_t now)
{
	return clock_cycles_to_ns(t->run_cycles) + (now - clock_ns_at(t->oncpu_since));
}

__noinline uint64_t trace_env_variable(struct trace_firing *x, unsigned id)
{
	struct thread *t = this_cpu()->current;
	const struct probe *p = x->hit->probe;

	switch (id) {
	case DIF_VAR_TIMESTAMP: return trace_firing_now(x);
	case DIF_VAR_VTIMESTAMP: return t ? vtimestamp(t, trace_firing_now(x)) : 0;
	case DIF_VAR_WALLTIMESTAMP: return x->session->wall_base_ns + trace_firing_now(x);
	case DIF_VAR_CPU: return this_cpu_index();
	case DIF_VAR_TID: return t ? t->tid : 0;
	case DIF_VAR_PID:
	case DIF_VAR_PS_PID: return (uint64_t)proc_pid(t ? t->proc : NULL);
	case DIF_VAR_PPID:
	case DIF_VAR_PS_PPID: return (uint64_t)proc_ppid(t ? t->proc : NULL);
	case DIF_VAR_UID: return 0;	/* one user */
	case DIF_VAR_ERRNO: return t ? (uint64_t)t->trace_errno : 0;
	case DIF_VAR_EXECNAME:
	case DIF_VAR_PS_FNAME:
		return (uint64_t)(uintptr_t)(!t ? "" : t->proc ? proc_name(t->proc) : t->name);
	case DIF_VAR_PS_PSARGS: return (uint64_t)(uintptr_t)proc_psargs(t ? t->proc : NULL);
	case DIF_VAR_PROBEPROV: return (uint64_t)(uintptr_t)p->provider;
	case DIF_VAR_PROBEMOD: return (uint64_t)(uintptr_t)p->module;
	case DIF_VAR_PROBEFUNC: return (uint64_t)(uintptr_t)p->function;
	case DIF_VAR_PROBENAME: return (uint64_t)(uintptr_t)p->name;
	case DIF_VAR_EPID: return x->ecb->epid;
	case DIF_VAR_ID: return p->id;
	case DIF_VAR_CURTHREAD: return (uint64_t)(uintptr_t)t;
	case DIF_VAR_THREAD_AFFINITY: return t ? (uint64_t)(int64_t)t->se.affinity : 0;
	case DIF_VAR_THREAD_TICKS_RUN: return t ? t->se.ticks_run : 0;
	case DIF_VAR_THREAD_SWITCHES_IN: return t ? t->se.switches_in : 0;
	case DIF_VAR_CALLER: return caller(x);
	case DIF_VAR_STACKDEPTH: return stack_depth(x);
	default: return 0;
	}
}

static uint64_t env_builtin(void *env, unsigned id)
{
	return trace_builtin(env, id);
}

static void *env_scratch(void *env, size_t bytes)
{
	struct trace_firing *x = env;
	struct trace_cpu *c = x->cpu;
	size_t need = (bytes + 7) & ~(size_t)7;
	if (need > TRACE_SCRATCH - c->scratch_used)
		return NULL;
	void *p = c->scratch + c->scratch_used;
	c->scratch_used += (uint32_t)need;
	return p;
}

static bool within(uint64_t addr, size_t n, const void *area, uint32_t bytes)
{
	uint64_t base = (uint64_t)(uintptr_t)area;
	return addr >= base && addr - base <= bytes && n <= bytes - (addr - base);
}

/*
 * What a program may write: the scratch this firing has taken (alloca's,
 * strings made) and the variables held by reference (global, this CPU's
 * clause-locals, and the dynamic space's storage of associative-array
 * elements and thread-locals). Never the kernel's own memory.
 */
static bool env_writable(void *env, uint64_t addr, size_t n)
{
	struct trace_firing *x = env;
	const struct trace_object *o = &x->session->obj;
	const uint8_t *dynamic;
	uint32_t dynamic_bytes = dynvar_byref_area(x->session->dynvars, &dynamic);
	return within(addr, n, x->cpu->scratch, x->cpu->scratch_used) ||
	       within(addr, n, x->session->globals, o->globals_byref_bytes) ||
	       within(addr, n, x->cpu->locals, o->locals_byref_bytes) ||
	       within(addr, n, dynamic, dynamic_bytes);
}

static void env_scratch_release(void *env, void *from)
{
	struct trace_cpu *c = ((struct trace_firing *)env)->cpu;
	uint8_t *p = from;
	if (p >= c->scratch && p <= c->scratch + c->scratch_used)
		c->scratch_used = (uint32_t)(p - c->scratch);
}

/*
 * The dynamic-space key of v with keys: the thread id for self->, then
 * each item. Return value: its length, or -EFAULT for a string key that
 * does not read.
 */
static long build_key(uint8_t *key, const struct dif_var *v, const struct dif_tuple_item *keys,
		      unsigned nkeys)
{
	uint32_t len = 0;
	if (v->scope == DIF_SCOPE_THREAD) {
		struct thread *t = this_cpu()->current;
		uint64_t tid = t ? t->tid : 0;
		memcpy(key, &tid, 8);
		len = 8;
	}
	for (unsigned i = 0; i < nkeys; i++) {
		if (!keys[i].size) {
			memcpy(key + len, &keys[i].value, 8);
			len += 8;
			continue;
		}
		uint32_t max = keys[i].size > DIF_STRSIZE_MAX ? DIF_STRSIZE_MAX : keys[i].size;
		long n = copy_string((char *)key + len + 2, keys[i].value, max);
		if (n < 0)
			return -EFAULT;
		uint16_t n16 = (uint16_t)n;
		memcpy(key + len, &n16, 2);
		len += 2 + (uint32_t)n;
	}
	return len;
}

static const struct trace_var *var_rules(struct trace_firing *x, const struct dif_var *v)
{
	const struct trace_object *o = &x->session->obj;
	return v->scope == DIF_SCOPE_GLOBAL ? &o->globals[v->id] :
	       v->scope == DIF_SCOPE_THREAD ? &o->thread_vars[v->id] : &o->locals[v->id];
}

/* Fixed storage of a global scalar or clause-local, or NULL for dynamic ones. */
static uint8_t *fixed_slot(struct trace_firing *x, const struct dif_var *v)
{
	const struct trace_var *r = var_rules(x, v);
	if (v->scope == DIF_SCOPE_GLOBAL && v->kind == DIF_KIND_SCALAR)
		return x->session->globals + r->offset;
	if (v->scope == DIF_SCOPE_CLAUSE)
		return x->cpu->locals + r->offset;
	return NULL;
}

static int env_load_var(void *env, const struct dif_var *v, const struct dif_tuple_item *keys,
			unsigned nkeys, uint64_t *out)
{
	struct trace_firing *x = env;
	const struct trace_var *r = var_rules(x, v);
	uint8_t *slot = fixed_slot(x, v);

	if (slot) {
		*out = r->type == DIF_TYPE_INT ? *(uint64_t *)slot : (uint64_t)(uintptr_t)slot;
		return 0;
	}
	uint8_t *key = x->cpu->key;
	long keylen = build_key(key, v, keys, nkeys);
	if (keylen < 0)
		return -EFAULT;
	if (r->type == DIF_TYPE_BYREF) {
		/* Its storage's address, made on first use as DTrace faults such elements in. */
		irqflags_t f = dynvar_lock(x->session->dynvars);
		void *val = dynvar_lookup_byref(x->session->dynvars, v->scope, v->id, key,
						(uint32_t)keylen, r->size);
		dynvar_unlock(x->session->dynvars, f);
		*out = (uint64_t)(uintptr_t)val;
		return val ? 0 : -ENOSPC;
	}
	char *copy = NULL;
	if (r->type == DIF_TYPE_STRING && !(copy = env_scratch(env, r->size)))
		return -ENOMEM;
	irqflags_t f = dynvar_lock(x->session->dynvars);
	void *val = dynvar_lookup(x->session->dynvars, v->scope, v->id, key, (uint32_t)keylen,
				  r->size, false);
	if (r->type == DIF_TYPE_STRING) {
		if (val)
			memcpy(copy, val, r->size);
		else
			copy[0] = '\0';
		*out = (uint64_t)(uintptr_t)copy;
	} else {
		*out = val ? *(uint64_t *)val : 0;
	}
	dynvar_unlock(x->session->dynvars, f);
	return 0;
}

static int env_store_var(void *env, const struct dif_var *v, const struct dif_tuple_item *keys,
			 unsigned nkeys, uint64_t value)
{
	struct trace_firing *x = env;
	const struct trace_var *r = var_rules(x, v);
	uint8_t *slot = fixed_slot(x, v);

	if (r->type == DIF_TYPE_BYREF)
		return -EFAULT;	/* the verifier refuses it: such storage is never freed */
	if (slot) {
		/* D's NULL (strtok() at the end...) stores as "": both compare equal to NULL. */
		if (r->type == DIF_TYPE_STRING && !value)
			slot[0] = '\0';
		else if (r->type == DIF_TYPE_STRING)
			return copy_string((char *)slot, value, r->size) < 0 ? -EFAULT : 0;
		else
			*(uint64_t *)slot = value;
		return 0;
	}
	uint8_t *key = x->cpu->key;
	long keylen = build_key(key, v, keys, nkeys);
	if (keylen < 0)
		return -EFAULT;
	char *str = NULL;
	if (r->type == DIF_TYPE_STRING && value) {
		/* Read the string before taking the lock: the read may fault. */
		if (!(str = env_scratch(env, r->size)))
			return -ENOMEM;
		if (copy_string(str, value, r->size) < 0)
			return -EFAULT;
	}
	struct dynvar_space *d = x->session->dynvars;
	irqflags_t f = dynvar_lock(d);
	int err = 0;
	if (value == 0) {	/* 0 or NULL deletes the element, which then reads as 0 or "" */
		dynvar_delete(d, v->scope, v->id, key, (uint32_t)keylen);
	} else {
		void *val = dynvar_lookup(d, v->scope, v->id, key, (uint32_t)keylen, r->size, true);
		if (!val)
			err = -ENOSPC;
		else if (str)
			memcpy(val, str, r->size);
		else
			*(uint64_t *)val = value;
	}
	dynvar_unlock(d, f);
	return err;
}

static uint64_t env_random(void *env)
{
	struct trace_firing *x = env;
	uint64_t s = x->cpu->random ? x->cpu->random : clock_ns() | 1;
	s ^= s << 13;
	s ^= s >> 7;
	s ^= s << 17;
	x->cpu->random = s;
	return s;
}

static uint64_t *env_strtok_state(void *env)
{
	return ((struct trace_firing *)env)->strtok;
}

static uint64_t env_speculation(void *env)
{
	struct trace_firing *x = env;
	uint64_t id = spec_new(x->session->specs);
	if (!id)
		__atomic_fetch_add(&x->session->counters.spec_unavail, 1, __ATOMIC_RELAXED);
	return id;
}

/*
 * copyin: user memory of the current process only, and only what is
 * mapped now. in_uaccess is cleared around the read, so that a probe
 * firing inside the kernel's own copyin (which allows demand paging)
 * still never resolves a fault: an untouched page reads as an error.
 */
static int env_copyin(void *env, uint64_t addr, void *buf, size_t n)
{
	(void)env;
	struct thread *t = this_cpu()->current;
	if (!t || !t->proc || !n)
		return n ? -EFAULT : 0;
	if (!user_range_ok(addr, n))
		return -EFAULT;
	bool was = t->in_uaccess;
	t->in_uaccess = false;
	int err = arch_safe_read(buf, addr, n);
	t->in_uaccess = was;
	return err;
}

const struct dif_env_ops trace_env_ops = {
	.read = env_read,
	.builtin = env_builtin,
	.load_var = env_load_var,
	.store_var = env_store_var,
	.scratch = env_scratch,
	.random = env_random,
	.speculation = env_speculation,
	.strtok_state = env_strtok_state,
	.scratch_release = env_scratch_release,
	.copyin = env_copyin,
	.writable = env_writable,
};
