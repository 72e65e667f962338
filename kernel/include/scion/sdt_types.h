/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The argument types of every SDT probe, written once here as the
 * parameter list of a prototype. Two readers use them:
 *
 *  - the C compiler, at each site: SDT_PROBEn(_P) type-checks the
 *    site's arguments against the list in an unevaluated sizeof, so a
 *    site that passes a pointer where the list says an integer (or the
 *    wrong struct) does not build, and a probe missing from this list
 *    does not build either;
 *  - dtc, through the kernel's CTF: sdt_types.c defines each prototype
 *    as an empty function in a section the final link discards, so
 *    kernel.ctf (taken from the relocatable link) holds its parameter
 *    types and args[N] of the probe gets them, as fbt's args[] gets a
 *    function's.
 *
 * The function of provider p's probe n is sdt_types__p__n, with n as
 * the site names it (on__cpu for on-cpu); dtc forms the same name from
 * a probe description. Probes of the sdt provider itself have p = sdt.
 * The arguments are the probe's arg0, arg1, ... in order.
 */
#ifndef SCION_SDT_TYPES_H
#define SCION_SDT_TYPES_H

#include <stdint.h>

struct thread;
struct cpu;
struct spinlock;
struct mutex;
struct process;

#define SDT_TYPES_(provider, name) sdt_types__##provider##__##name

/* The prototype that gives the probe's argument types (params: a parameter list). */
#define SDT_TYPES_DECLARE(provider, name, ...) \
	void SDT_TYPES_(provider, name)(__VA_ARGS__)

/*
 * Its definition, for kernel.ctf: empty, and discarded by the final
 * link (kernel.ld), so it costs the image nothing. A test declares the
 * types of its own probes with this alone.
 */
#define SDT_TYPES_DEFINE(provider, name, ...)					\
	SDT_TYPES_DECLARE(provider, name, __VA_ARGS__);				\
	_Pragma("GCC diagnostic push")						\
	_Pragma("GCC diagnostic ignored \"-Wunused-parameter\"")		\
	__attribute__((used, noinline, section(".discard.sdt_types")))		\
	SDT_TYPES_DECLARE(provider, name, __VA_ARGS__) {}			\
	_Pragma("GCC diagnostic pop")

/*
 * X(provider, name, parameters...): every probe of the kernel proper.
 * The sched probes give the thread (its tid, then the thread itself)
 * and the CPU (its index, then the struct cpu); off-cpu's thread is the
 * one about to run, as in DTrace.
 */
#define SDT_KERNEL_PROBES(X)							\
	X(sched, enqueue, uint64_t tid, unsigned cpu, struct thread *t, struct cpu *c)	\
	X(sched, dequeue, uint64_t tid, unsigned cpu, struct thread *t, struct cpu *c)	\
	X(sched, wakeup, uint64_t tid, unsigned cpu, struct thread *t, struct cpu *c)	\
	X(sched, preempt, uint64_t tid, unsigned cpu, struct thread *t, struct cpu *c)	\
	X(sched, sleep, uint64_t tid, unsigned cpu, struct thread *t, struct cpu *c)	\
	X(sched, off__cpu, uint64_t tid, unsigned cpu, struct thread *t, struct cpu *c)	\
	X(sched, on__cpu, uint64_t tid, unsigned cpu, struct thread *t, struct cpu *c)	\
	X(sched, tick, uint64_t tid, unsigned cpu, struct thread *t, struct cpu *c)	\
	X(lockstat, spin__acquire, struct spinlock *lock)				\
	X(lockstat, spin__spin, struct spinlock *lock, uint64_t ns)			\
	X(lockstat, spin__release, struct spinlock *lock)				\
	X(lockstat, adaptive__acquire, struct mutex *lock)				\
	X(lockstat, adaptive__block, struct mutex *lock, uint64_t ns)			\
	X(lockstat, adaptive__release, struct mutex *lock)				\
	X(proc, create, int pid)							\
	X(proc, exec, const char *path)							\
	X(proc, exec__success, void)							\
	X(proc, exec__failure, int64_t error)						\
	X(proc, exit, int reason, int status)						\
	X(proc, signal__send, int pid, int signo, struct process *p)			\
	X(io, start, unsigned dev, uint64_t sector, uint64_t bytes, int write, int pid)	\
	X(io, wait__start, unsigned dev, uint64_t sector, uint64_t bytes, int write, int pid)	\
	X(io, wait__done, unsigned dev, uint64_t sector, uint64_t bytes, int write, int pid)	\
	X(io, done, unsigned dev, uint64_t sector, uint64_t bytes, int write, int pid,	\
	  int64_t error)								\
	X(monitor, redflag, const char *source, int64_t value, int64_t expected,	\
	  int64_t low, int64_t high)							\
	X(adapt, candidate, const char *policy, uint64_t hits, uint64_t misses,	\
	  uint64_t aborts, uint64_t requests)						\
	X(adapt, sched_candidate, const char *policy, uint64_t worst_permille,		\
	  uint64_t mean_permille, uint64_t aborts, uint64_t threads)			\
	X(adapt, evaluate, uint64_t rows, uint64_t workers, uint64_t load_ns,		\
	  uint64_t simulate_ns, uint64_t cpu_ns)					\
	X(adapt, decide, const char *choice, uint64_t live, uint64_t best,		\
	  uint64_t optimum, uint64_t margin)						\
	X(adapt, install, const char *policy, uint64_t before, uint64_t pid)		\
	X(adapt, watch, uint64_t before, uint64_t after)				\
	X(adapt, revert, const char *policy, uint64_t after)				\
	X(adapt, flag, uint64_t ratio_permille, uint64_t threshold_permille)		\
	X(adapt, record, uint64_t recording)						\
	X(adapt, mode, uint64_t mode)							\
	X(sdt, thread__create, uint64_t tid, unsigned cpu)				\
	X(sdt, thread__switch, uint64_t prev_tid, uint64_t next_tid)			\
	X(sdt, thread__exit, uint64_t tid, int code)					\
	X(sdt, shell__command, const char *command, int argc)

#define SDT_TYPES_DECLARE_X_(provider, name, ...) SDT_TYPES_DECLARE(provider, name, __VA_ARGS__);
SDT_KERNEL_PROBES(SDT_TYPES_DECLARE_X_)
#undef SDT_TYPES_DECLARE_X_

#endif
