/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Code adaptations (KernInst's third application): another version of a
 * kernel function, installed by a splice at the function's entry that
 * sends calls to it, unconditionally (an outlined copy) or behind a guard
 * (a specialized clone when an argument has the value it was built for;
 * a process's own version when the current thread is that process's).
 * The splice is a consumer of the probe registry (PROBE_REDIRECT), so it
 * goes in and out through the probe commit protocol, shares its site
 * with probes there (they run first: `fbt::F:entry` still fires), and
 * its removal restores the text byte for byte. At most one adaptation
 * per function.
 *
 * The version's memory is the adaptation's. After the splice is out, a
 * call already inside the version may still run in it (it may sleep
 * there, and its callees return into it), so the memory is released only
 * once no CPU's pc, no preempted thread's pc and no word of any thread's
 * stack points into it; until then the adaptation is listed "draining".
 *
 * Lock order: codeadapt's mutex, then the probe registry's locks.
 */
#ifndef SCION_CODEADAPT_H
#define SCION_CODEADAPT_H

#include <scion/compiler.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum codeadapt_kind {
	CODEADAPT_OUTLINE = 1,		/* the function with its cold blocks out of line */
	CODEADAPT_SPECIALIZE = 2,	/* a clone built for one value of an argument */
	CODEADAPT_VERSION = 3,		/* another implementation (a process's own, say) */
};

/* What to install (codeadapt_install copies what it keeps). */
struct codeadapt_spec {
	enum codeadapt_kind kind;
	uint64_t function;		/* the adapted kernel function's entry */
	uint64_t version;		/* where calls go: the version's entry */
	uint64_t version_start;		/* [start, end): the version's memory, watched while it
					   drains after removal */
	uint64_t version_end;
	int arg;			/* -1: no argument guard; else the argument (0-based)
					   that must equal value */
	unsigned arg_bytes;		/* 0 or 8: the whole register; 4: its low half (a
					   32-bit argument, whose upper half is undefined) */
	uint64_t value;
	uint64_t tid;			/* 0: every thread; else only this thread's calls */
	int pid;			/* 0, or only this process's calls (tid 0): a process
					   still suspended gets its thread's id when it starts */
	const char *source;		/* what built the version, for `codeadapt list` */
	/*
	 * release - free the version's memory. Called once, after removal,
	 *   when nothing can run in it any more (or when the install fails).
	 * Caller's context: thread, codeadapt's mutex held, may sleep.
	 */
	void (*release)(void *owner);
	void *owner;
};

enum codeadapt_state {
	CODEADAPT_INSTALLED = 1,
	CODEADAPT_DRAINING = 2,		/* removed; a thread may still run in the version */
};

/* One adaptation, as codeadapt_foreach shows it (a copy). */
struct codeadapt_info {
	uint32_t id;
	enum codeadapt_kind kind;
	enum codeadapt_state state;
	char function[48];
	uint64_t function_addr;
	uint64_t version;
	uint64_t version_size;
	int arg;
	unsigned arg_bytes;
	uint64_t value;
	uint64_t tid;			/* 0: any thread (or a process not started yet) */
	int pid;			/* 0: not a process's */
	char source[48];
	uint64_t taken;			/* calls the splice sent to the version */
	uint64_t installed_ns;
};

/*
 * codeadapt_install - Overview: splice the adaptation s at its function's
 *   entry, through the probe commit protocol (which refuses while a CPU
 *   or thread is inside the bytes the splice covers: they become a
 *   breakpoint, whose resume runs the same guard).
 * Arguments: s, filled in; err/errlen, one line on failure.
 * Return value: the adaptation's id (> 0), or a negative errno with err:
 *   -EINVAL (not the entry of an analysed function, a bad argument
 *   number, a machine without redirects), -EEXIST (the function is
 *   adapted already), -ENOMEM, -ENOSPC (no patch data left). On failure
 *   s->release has been called.
 * Caller's context: thread, no spinlocks, may sleep.
 */
int codeadapt_install(const struct codeadapt_spec *s, char *err, size_t errlen);

/*
 * codeadapt_remove - Overview: take adaptation id's splice out (text
 *   restored); its version is released at once or, while a thread may
 *   still run in it, later (codeadapt_collect).
 * Return value: 0, or -ENOENT (no installed adaptation id).
 * Caller's context: thread, no spinlocks, may sleep.
 */
int codeadapt_remove(uint32_t id);

/* Remove every adaptation (tests that must leave clean). Context: as codeadapt_remove. */
unsigned codeadapt_remove_all(void);

/*
 * codeadapt_remove_process - remove the adaptations scoped to process
 *   pid (it exits). Return value: how many.
 * Caller's context: thread, may sleep.
 */
unsigned codeadapt_remove_process(int pid);

/*
 * codeadapt_process_started - process pid, installed for while it was
 *   suspended, has its thread tid: its adaptations' guards take it.
 * Caller's context: the process's thread before it enters user mode, may
 *   sleep; a load and a branch while no adaptation waits for a process.
 */
void codeadapt_process_started(int pid, uint64_t tid);

/*
 * codeadapt_collect - release the versions of removed adaptations that
 *   nothing runs in any more. Return value: how many are still draining.
 * Caller's context: thread, may sleep.
 */
unsigned codeadapt_collect(void);

/*
 * codeadapt_foreach - call fn with a copy of every adaptation (installed,
 *   then draining), by id, until it returns false.
 * Caller's context: thread, may sleep; fn may not install or remove.
 */
void codeadapt_foreach(bool (*fn)(const struct codeadapt_info *a, void *arg), void *arg);

/* The adaptation of the function at addr, copied into out: false when none. */
bool codeadapt_find(uint64_t function, struct codeadapt_info *out);

/* Installed adaptation id, copied into out: false when none. Context: thread. */
bool codeadapt_get(uint32_t id, struct codeadapt_info *out);

const char *codeadapt_kind_name(enum codeadapt_kind k);

/*
 * codeadapt_install_object - Overview: link a code object (a clone the
 *   host compiled from the kernel's source; graft_code_load) and install
 *   its entry as a version of the function its manifest's point names.
 * Arguments: image/size, the ELF object; function, the function the
 *   caller means it for (its manifest must name the same); kind, arg,
 *   arg_bytes, value, pid as in
 *   struct codeadapt_spec; source, the object's name for the listing;
 *   err/errlen, one line on failure.
 * Return value: the adaptation's id, or a negative errno with err; the
 *   object's memory is freed on failure, and on removal once drained.
 * Caller's context: thread, no spinlocks, may sleep.
 */
int codeadapt_install_object(const void *image, size_t size, const char *function,
			     enum codeadapt_kind kind, int arg, unsigned arg_bytes, uint64_t value,
			     int pid, char *err, size_t errlen);

/*
 * Subcommands of the `codeadapt` shell command, from a linker table, so
 * each way of building a version (specialize.c, say) adds its own.
 */
struct codeadapt_cmd {
	const char *name;
	const char *usage;		/* the arguments after the name */
	/*
	 * fn - Overview: run `codeadapt NAME ARGS...`.
	 * Arguments: argc/argv, argv[0] is the subcommand's name.
	 * Return value: 0, or a negative errno after printing one line
	 *   starting "codeadapt:".
	 * Caller's context: the shell's thread, may sleep.
	 */
	int (*fn)(int argc, char **argv);
};
LINKER_TABLE_DECLARE(struct codeadapt_cmd, codeadapt_cmds);
#define CODEADAPT_COMMAND(cname, cusage, cfn) \
	static const struct codeadapt_cmd UNIQUE(codeadapt_cmd_) \
		LINKER_TABLE_ENTRY(codeadapt_cmds) = { .name = #cname, .usage = (cusage), \
						       .fn = (cfn) }

#endif
