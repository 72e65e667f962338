// SPDX-License-Identifier: BSD-2-Clause
/*
 * What the portable core calls in the parts of kernel/ the sparc64 port
 * does not build yet (arch/sparc64/arch.mk lists them and why): probes
 * (kernel/probe/: the SPARC decoder, patch emitter and splicer are not
 * there) and user processes (kernel/proc/: they speak the Linux x86-64
 * ABI). Each entry point refuses honestly: a request gets -ENOTSUP or
 * "nothing found" with a one-line reason, a query reports that none
 * exist; nothing pretends to succeed. This file goes away piece by
 * piece as those directories join ARCH_CORE_SRCS.
 * Invariants: no state; safe in any context.
 */
#include <scion/errno.h>
#include <scion/printk.h>
#include <scion/probe.h>
#include <scion/proc.h>
#include <scion/shell.h>
#include <scion/string.h>

#define NO_PROBES "sparc64: no splicer yet (issue 25): probes are not available"
#define NO_PROCS "sparc64: no user processes yet (issue 25): the Linux x86-64 ABI has no SPARC counterpart here"

/* ---- Probes (kernel/probe/) ------------------------------------------------------ */

struct probe *probe_create_soft(const char *provider, const char *module, const char *function,
				const char *name, bool session_only)
{
	(void)provider; (void)module; (void)function; (void)name; (void)session_only;
	return NULL;
}

struct probe *probe_find(const char *provider, const char *module, const char *function,
			 const char *name)
{
	(void)provider; (void)module; (void)function; (void)name;
	return NULL;
}

void probe_fire_consumers(struct probe *p, struct trap_frame *frame)
{
	(void)p; (void)frame;
}

int probe_lookup(const char *spec, bool (*fn)(struct probe *p, void *arg), void *arg,
		 const char **why)
{
	(void)spec; (void)fn; (void)arg;
	if (why)
		*why = NO_PROBES;
	return -ENOTSUP;
}

int probe_shell_list(const char *spec, bool (*fn)(struct probe *p, int64_t count, void *arg),
		     void *arg, const char **why)
{
	(void)spec; (void)fn; (void)arg;
	if (why)
		*why = NO_PROBES;
	return -ENOTSUP;
}

char *probe_fullname(const struct probe *p, char *buf, size_t size)
{
	(void)p;
	strlcpy(buf, "?", size);
	return buf;
}

const char *probe_mechanism_name(enum probe_mechanism m)
{
	(void)m;
	return "none (sparc64: no splicer yet)";
}

void probe_disable(struct probe_consumer *c)
{
	(void)c;
}

unsigned probe_enable_batch(struct probe **probes, struct probe_consumer **consumers, unsigned n)
{
	(void)probes; (void)consumers; (void)n;
	return 0;
}

void probe_disable_batch(struct probe_consumer **consumers, unsigned n)
{
	(void)consumers; (void)n;
}

void probe_get_stats(struct probe_stats *s)
{
	memset(s, 0, sizeof(*s));
}

uint64_t *probe_counter_alloc(void)
{
	return NULL;
}

void probe_counter_free(uint64_t *counter)
{
	(void)counter;
}

int probe_accumulator_init(struct probe_accumulator *acc)
{
	(void)acc;
	return -ENOTSUP;
}

void probe_accumulator_read(const struct probe_accumulator *acc, int64_t *inside,
			    uint64_t *area, uint64_t *elapsed)
{
	(void)acc;
	*inside = 0;
	*area = 0;
	*elapsed = 0;
}

void probe_accumulator_release(struct probe_accumulator *acc)
{
	(void)acc;
}

/* No probe patches exist, so no pc is in one. */
bool probe_patch_origin(uint64_t pc, uint64_t *origin)
{
	(void)pc; (void)origin;
	return false;
}

/* ---- Processes (kernel/proc/) ---------------------------------------------------- */

int proc_pid(const struct process *p)
{
	(void)p;
	return -1;
}

int proc_ppid(const struct process *p)
{
	(void)p;
	return -1;
}

const char *proc_name(const struct process *p)
{
	(void)p;
	return "?";
}

const char *proc_psargs(const struct process *p)
{
	(void)p;
	return "";
}

uint64_t proc_thread_id(int pid)
{
	(void)pid;
	return 0;
}

void proc_poll_notify(void)
{
}

/* No process reads the console: Ctrl-C is an ordinary byte. */
bool proc_console_interrupt(void)
{
	return false;
}

void proc_foreach_monitor(void (*fn)(const struct proc_monitor_view *v, void *arg), void *arg)
{
	(void)fn; (void)arg;
}

static int refuse_request(const char *what)
{
	printk("%s: %s\n", what, NO_PROCS);
	return -ENOTSUP;
}

int proc_exec_request(uint32_t seq, const uint8_t *body, uint32_t len)
{
	(void)seq; (void)body; (void)len;
	return refuse_request("exec");
}

int proc_exec_resume_request(uint32_t seq, const uint8_t *body, uint32_t len)
{
	(void)seq; (void)body; (void)len;
	return refuse_request("exec");
}

int proc_signal_request(uint32_t seq, const uint8_t *body, uint32_t len)
{
	(void)seq; (void)body; (void)len;
	return refuse_request("signal");
}

/* ---- What the in-kernel tests call besides (tests/kernel/) ------------------------ */

int probe_enable(struct probe *p, struct probe_consumer *c)
{
	(void)p; (void)c;
	return -ENOTSUP;
}

void probe_site_info(uint64_t addr, struct probe_site_info *info)
{
	(void)addr;
	memset(info, 0, sizeof(*info));
}

int proc_spawn(const char *path, const char *const argv[], bool with_console)
{
	(void)argv; (void)with_console;
	printk("%s: %s\n", path, NO_PROCS);
	return -ENOTSUP;
}

int proc_wait_kernel_child(int pid, int *status)
{
	(void)pid; (void)status;
	return -ENOTSUP;
}

/* ---- The shell commands of the directories left out: they answer why -------------- */

static int cmd_probe(int argc, char **argv)
{
	(void)argc;
	printk("%s: %s\n", argv[0], NO_PROBES);
	return -ENOTSUP;
}
SHELL_COMMAND(probe, "...", "probes (not on sparc64 yet: no splicer)", cmd_probe);

static int cmd_no_processes(int argc, char **argv)
{
	(void)argc;
	printk("%s: %s\n", argv[0], NO_PROCS);
	return -ENOTSUP;
}
SHELL_COMMAND(run, "...", "user processes (not on sparc64 yet)", cmd_no_processes);
SHELL_COMMAND(ps, "", "user processes (not on sparc64 yet)", cmd_no_processes);
SHELL_COMMAND(kill, "...", "user processes (not on sparc64 yet)", cmd_no_processes);
