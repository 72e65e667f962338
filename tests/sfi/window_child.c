// SPDX-License-Identifier: BSD-2-Clause
/*
 * The parent's side of the window child (window_child.h): start the
 * child (window_setup.c), then run graft code in it one instruction at a
 * time with PTRACE_SYSEMU_SINGLESTEP (a system call stops before it
 * runs) and decide, after each step, whether the code stayed in its
 * sandbox (arch/sfi.h):
 *   - %r15 still holds the window base; %rsp lies in [W, W + stack];
 *   - rip is an instruction start of the text that the verifier marked
 *     (SFI_MARK_START; a guarded one only as the next instruction after
 *     the previous rip, so no branch skipped its check), the exit gate
 *     (the run ends), or the API entry reached by a call (the trusted
 *     API is emulated: it returns to the call's successor with the
 *     caller-saved registers and the flags scrambled);
 *   - a fault's address is the CPU's verdict: the child maps every page
 *     of the user half outside the window's reserve read-only, so a
 *     page fault there is a write (or an instruction fetch), an escape,
 *     and a page fault inside the reserve is what the kernel's guard
 *     zones do: the graft's transaction aborts, nothing was written.
 * Faults the CPU does not classify from user mode, a #GP (si_addr 0,
 * SI_KERNEL: a non-canonical address, or a misaligned cmpxchg16b) and a
 * page fault where the child cannot map anything (the kernel half, the
 * first 64 KiB, the last user page), are the only place where the arch
 * decoder's opinion is used (fault_is_a_store): an instruction that
 * stores through an explicit memory operand is an escape there (unless,
 * for a #GP, that operand's address is canonical: the #GP was about
 * something else), any other a read that faulted. That is sound enough:
 * a faulting store writes nothing, and a store the verifier confined
 * has a canonical address inside the reserve, so a store that faults
 * elsewhere shows the verifier let an address out; and the canonical
 * user-range states of the proof find the same bugs independently of
 * the decoder. SIGILL (ud2, ud0/1, an instruction this CPU lacks),
 * SIGFPE (#DE) and a trap (int3, int1) end a run confined: the
 * instruction wrote nothing and, in the kernel, aborts the graft.
 */
#define _GNU_SOURCE	/* memfd_create, sched_getcpu */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <arch/insn.h>
#include "window_child.h"
#include "window_setup.h"

/* A child whose page tables grow past this is replaced (random reads fill them). */
#define PAGE_TABLE_LIMIT_KB (96u * 1024)
#define RUNS_BETWEEN_PAGE_TABLE_CHECKS 4096u
#define RFLAGS_FIXED 0x202ull	/* IF and the reserved bit 1 */
#define RFLAGS_STATUS 0x8d5ull	/* CF PF AF ZF SF OF */

static const char *const outcome_names[WINDOW_OUTCOMES] = {
	[WINDOW_EXIT] = "exit", [WINDOW_GUARD_FAULT] = "guard-fault",
	[WINDOW_READ_FAULT] = "read-fault", [WINDOW_UD] = "ud", [WINDOW_DIVIDE] = "divide",
	[WINDOW_TRAP] = "trap", [WINDOW_STEP_LIMIT] = "step-limit", [WINDOW_ESCAPE] = "ESCAPE",
	[WINDOW_BROKEN] = "BROKEN",
};

const char *window_outcome_name(enum window_outcome o)
{
	return o < WINDOW_OUTCOMES ? outcome_names[o] : "?";
}

void window_pin_to_this_cpu(void)
{
	cpu_set_t set;
	int cpu = sched_getcpu();

	if (cpu < 0 || getenv("SFI_WINDOW_NO_PIN"))
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *view(int fd, uint64_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	return p == MAP_FAILED ? NULL : p;
}

/* Fork the child and wait for it to stop, sealed, at window_seal's int3. */
static int spawn(struct window_child *c, char *err, size_t errlen)
{
	int pipefd[2];
	int status;

	if (pipe(pipefd)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	c->pid = fork();
	if (c->pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		return -1;
	}
	if (c->pid == 0) {
		close(pipefd[0]);
		window_setup_child(c->fds, c->text_size, pipefd[1]);
	}
	close(pipefd[1]);
	pid_t got;
	while ((got = waitpid(c->pid, &status, __WALL)) < 0 && errno == EINTR)
		continue;
	if (got != c->pid || !WIFSTOPPED(status) || WSTOPSIG(status) != SIGTRAP) {
		char line[160] = "";
		ssize_t n = read(pipefd[0], line, sizeof(line) - 1);
		line[n > 0 ? n - 1 : 0] = '\0';
		snprintf(err, errlen, "the window child did not start: %s (status 0x%x)",
			 line[0] ? line : "no message", status);
		close(pipefd[0]);
		c->pid = 0;
		return -1;
	}
	close(pipefd[0]);
	if (ptrace(PTRACE_GETREGS, c->pid, 0, &c->initial) ||
	    ptrace(PTRACE_SETOPTIONS, c->pid, 0, PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD)) {
		snprintf(err, errlen, "ptrace the window child: %s", strerror(errno));
		return -1;
	}
	if (c->initial.rip != (uint64_t)(uintptr_t)window_seal_done) {
		errno = 0;
		uint64_t addr = (uint64_t)ptrace(PTRACE_PEEKDATA, c->pid, c->initial.r12, 0);
		snprintf(err, errlen, "the window child could not seal its memory: mprotect(0x%llx) "
			 "failed: %s", (unsigned long long)addr, strerror((int)-(int64_t)c->initial.rax));
		return -1;
	}
	c->initial.orig_rax = (unsigned long long)-1;	/* no system call to restart */
	return 0;
}

int window_child_start(struct window_child *c, uint64_t text_size, char *err, size_t errlen)
{
	static const char *const names[3] = { "sfi-text", "sfi-stack", "sfi-data" };
	const uint64_t sizes[3] = { text_size, SFI_STACK_SIZE, WINDOW_DATA_SIZE };
	void *views[3];

	memset(c, 0, sizeof(*c));
	c->text_size = text_size;
	c->rng = 0x9e3779b97f4a7c15ull;
	if (text_size < SFI_TEXT_MIN || text_size > WINDOW_TEXT_MAX || (text_size & (text_size - 1))) {
		snprintf(err, errlen, "text size 0x%llx: not a power of two in 4 KiB .. 8 KiB",
			 (unsigned long long)text_size);
		return -1;
	}
	for (int i = 0; i < 3; i++) {
		c->fds[i] = memfd_create(names[i], MFD_CLOEXEC);
		if (c->fds[i] < 0 || ftruncate(c->fds[i], (off_t)sizes[i]) ||
		    !(views[i] = view(c->fds[i], sizes[i]))) {
			snprintf(err, errlen, "memfd %s: %s", names[i], strerror(errno));
			return -1;
		}
	}
	c->text = views[0];
	c->stack = views[1];
	c->data = views[2];
	return spawn(c, err, errlen);
}

static void kill_child(struct window_child *c)
{
	if (c->pid > 0) {
		kill(c->pid, SIGKILL);
		while (waitpid(c->pid, NULL, __WALL) < 0 && errno == EINTR)
			continue;
	}
	c->pid = 0;
}

void window_child_stop(struct window_child *c)
{
	kill_child(c);
	munmap(c->text, c->text_size);
	munmap(c->stack, SFI_STACK_SIZE);
	munmap(c->data, WINDOW_DATA_SIZE);
	for (int i = 0; i < 3; i++)
		close(c->fds[i]);
}

/* The child's page tables in KiB (VmPTE), or 0 when unknown. */
static unsigned long page_tables_kb(pid_t pid)
{
	char path[64], buf[4096];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	unsigned long kb = 0;
	if (!f)
		return 0;
	while (fgets(buf, sizeof(buf), f))
		if (sscanf(buf, "VmPTE: %lu kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* Between runs: a child whose page tables grew too much is replaced by a fresh one. */
static int keep_fit(struct window_child *c, char *err, size_t errlen)
{
	if (c->pid > 0 && (++c->runs % RUNS_BETWEEN_PAGE_TABLE_CHECKS ||
			   page_tables_kb(c->pid) < PAGE_TABLE_LIMIT_KB))
		return 0;
	kill_child(c);
	c->restarts++;
	return spawn(c, err, errlen);
}

static uint64_t *gpr_slot(struct user_regs_struct *r, unsigned n)
{
	uint64_t *slots[16] = {
		(uint64_t *)&r->rax, (uint64_t *)&r->rcx, (uint64_t *)&r->rdx, (uint64_t *)&r->rbx,
		(uint64_t *)&r->rsp, (uint64_t *)&r->rbp, (uint64_t *)&r->rsi, (uint64_t *)&r->rdi,
		(uint64_t *)&r->r8, (uint64_t *)&r->r9, (uint64_t *)&r->r10, (uint64_t *)&r->r11,
		(uint64_t *)&r->r12, (uint64_t *)&r->r13, (uint64_t *)&r->r14, (uint64_t *)&r->r15,
	};
	return slots[n & 15];
}

static bool canonical(uint64_t a)
{
	return (uint64_t)((int64_t)(a << 16) >> 16) == a;
}

/*
 * Whether the instruction at r->rip, which faulted where the CPU does
 * not say what it was doing (gp: a #GP; else a page fault outside the
 * part of the user half the child maps), stored through its explicit
 * memory operand. The only place the decoder's opinion is used (see
 * the opening paragraph). A #GP on a canonical address (a misaligned
 * cmpxchg16b) is not about the address: that store is no escape.
 */
static bool fault_is_a_store(const struct window_child *c, const struct user_regs_struct *r, bool gp)
{
	uint64_t off = r->rip - WINDOW_TEXT;
	struct insn in;

	if (off >= c->text_size ||
	    insn_decode(&in, c->text + off, c->text_size - off, r->rip) != INSN_OK)
		return true;	/* nothing to go on: assume the worst */
	/* A store by the decoder's reading of the operands or by the table's extent. */
	bool memory_operand = in.has_modrm && (in.modrm >> 6) != 3;
	bool extent = in.sfi_write == INSN_SFI_WRITE_OPERAND || in.sfi_write == INSN_SFI_WRITE_PAIR;
	if (!memory_operand || !(in.mem_write || extent))
		return false;
	if (!gp)
		return true;
	uint64_t ea = (uint64_t)in.disp;
	unsigned rex_b = (in.rex & 1) ? 8 : 0, rex_x = (in.rex & 2) ? 8 : 0;
	struct user_regs_struct regs = *r;
	if (in.rip_relative) {
		ea = in.target;
	} else if (in.has_sib) {
		unsigned base = in.sib & 7, index = ((in.sib >> 3) & 7) | rex_x;
		if (!(base == 5 && (in.modrm >> 6) == 0))
			ea += *gpr_slot(&regs, base | rex_b);
		if (index != 4)
			ea += *gpr_slot(&regs, index) << (in.sib >> 6);
	} else {
		ea += *gpr_slot(&regs, (in.modrm & 7) | rex_b);
	}
	if (in.address_size == 4)
		ea &= 0xffffffffu;
	return !canonical(ea) || !canonical(ea + 15);
}

static void describe(const struct window_child *c, const struct user_regs_struct *r,
		     struct window_result *res, const char *what)
{
	char where[3 * 8 + 32] = "outside the text";
	uint64_t off = r->rip - WINDOW_TEXT;

	if (off < c->text_size) {
		size_t n = (size_t)snprintf(where, sizeof(where), "text+0x%llx:", (unsigned long long)off);
		for (unsigned i = 0; i < 8 && off + i < c->text_size; i++)
			n += (size_t)snprintf(where + n, sizeof(where) - n, " %02x", c->text[off + i]);
	}
	snprintf(res->why, sizeof(res->why), "%s: rip 0x%llx (%s), fault 0x%llx, rsp 0x%llx, r14 0x%llx, "
		 "rax 0x%llx, rdi 0x%llx, rsi 0x%llx", what, (unsigned long long)r->rip, where,
		 (unsigned long long)res->fault_addr, (unsigned long long)r->rsp,
		 (unsigned long long)r->r14, (unsigned long long)r->rax, (unsigned long long)r->rdi,
		 (unsigned long long)r->rsi);
}

static void end(struct window_result *res, enum window_outcome o, const struct user_regs_struct *r)
{
	res->outcome = o;
	res->rip = r->rip;
}

/* A SIGSEGV or SIGBUS: the CPU's address decides, or fault_is_a_store where it cannot. */
static void classify_fault(const struct window_child *c, const struct user_regs_struct *r, int sig,
			   struct window_result *res)
{
	siginfo_t si;

	end(res, WINDOW_ESCAPE, r);
	if (ptrace(PTRACE_GETSIGINFO, c->pid, 0, &si)) {
		res->outcome = WINDOW_BROKEN;
		describe(c, r, res, "PTRACE_GETSIGINFO failed");
		return;
	}
	bool gp = sig == SIGSEGV && si.si_code == SI_KERNEL;
	uint64_t a = gp ? 0 : (uint64_t)(uintptr_t)si.si_addr;
	res->fault_addr = a;
	if (!gp && window_in_reserve(a)) {
		res->outcome = WINDOW_GUARD_FAULT;
		return;
	}
	if (sig == SIGSEGV && !gp && a >= WINDOW_USER_LO && a < WINDOW_USER_HI) {
		describe(c, r, res, "store (or fetch) outside the window faulted on a read-only page");
		return;
	}
	if (fault_is_a_store(c, r, gp)) {
		describe(c, r, res, gp ? "store to a non-canonical address (#GP)" :
			 sig == SIGBUS ? "store raised SIGBUS" : "store outside the user half faulted");
		return;
	}
	res->outcome = WINDOW_READ_FAULT;
}

/* The next instruction start after text offset off, as the verifier marked them. */
static uint64_t next_start(const struct window_child *c, const uint8_t *marks, uint64_t off)
{
	for (off++; off < c->text_size; off++)
		if (marks[off] & SFI_MARK_START)
			return off;
	return c->text_size;
}

/*
 * The emulated API: the trusted function returns to its caller's next
 * instruction through the return address the call pushed. Reached any
 * other way (a jmp, a call that did not push its own successor) it
 * would return through an address the graft wrote: an escape.
 */
static bool emulate_api(struct window_child *c, const struct window_run *run,
			struct user_regs_struct *r, const struct user_regs_struct *before)
{
	uint64_t ret;

	if (r->rsp != before->rsp - 8 || r->rsp < WINDOW_BASE || r->rsp + 8 > WINDOW_STACK_TOP)
		return false;
	memcpy(&ret, c->stack + (r->rsp - WINDOW_BASE), sizeof(ret));
	uint64_t off = before->rip - WINDOW_TEXT;
	if (off >= c->text_size)
		return false;
	/* Without marks, any address just past the call's first byte. */
	bool successor = run->marks ? ret == WINDOW_TEXT + next_start(c, run->marks, off) :
			 ret > before->rip && ret - before->rip <= INSN_MAX_LENGTH;
	if (!successor)
		return false;
	r->rip = ret;
	r->rsp += 8;
	static const unsigned caller_saved[] = {
		INSN_RAX, INSN_RCX, INSN_RDX, INSN_RSI, INSN_RDI, INSN_R8, INSN_R9, INSN_R10, INSN_R11,
	};
	for (unsigned i = 0; i < sizeof(caller_saved) / sizeof(caller_saved[0]); i++)
		*gpr_slot(r, caller_saved[i]) = window_rand(&c->rng);
	r->eflags = (r->eflags & ~RFLAGS_STATUS) | (window_rand(&c->rng) & RFLAGS_STATUS);
	return true;
}

/*
 * After a step from `before` to r: the sandbox's invariants. Returns
 * true to go on; false with res filled when the run ends.
 */
static bool check_step(struct window_child *c, const struct window_run *run,
		       struct user_regs_struct *r, const struct user_regs_struct *before,
		       struct window_result *res)
{
	if (r->r15 != WINDOW_BASE) {
		end(res, WINDOW_ESCAPE, r);
		describe(c, r, res, "%r15 changed");
		return false;
	}
	if (r->rsp < WINDOW_BASE || r->rsp > WINDOW_STACK_TOP) {
		end(res, WINDOW_ESCAPE, r);
		describe(c, r, res, "%rsp left the window's stack");
		return false;
	}
	if (r->rip == WINDOW_GATE || (run->end && r->rip == run->end)) {
		end(res, WINDOW_EXIT, r);
		return false;
	}
	if (r->rip == WINDOW_API) {
		if (!emulate_api(c, run, r, before)) {
			end(res, WINDOW_ESCAPE, r);
			describe(c, r, res, "reached the API entry other than by a call (it would return "
				 "through an address the graft wrote)");
			return false;
		}
		if (ptrace(PTRACE_SETREGS, c->pid, 0, r)) {
			end(res, WINDOW_BROKEN, r);
			describe(c, r, res, "PTRACE_SETREGS failed");
			return false;
		}
		if (run->end && r->rip == run->end) {
			end(res, WINDOW_EXIT, r);
			return false;
		}
	}
	uint64_t off = r->rip - WINDOW_TEXT, prev = before->rip - WINDOW_TEXT;
	const char *why = NULL;
	if (off >= c->text_size)
		why = "control left the graft";
	else if (run->marks && !(run->marks[off] & SFI_MARK_START))
		why = "control reached an offset the verifier did not decode as an instruction start";
	else if (run->marks && (run->marks[off] & SFI_MARK_GUARDED) &&
		 (prev >= c->text_size || next_start(c, run->marks, prev) != off))
		why = "control entered a guarded sequence past its check";
	if (why) {
		end(res, WINDOW_ESCAPE, r);
		describe(c, r, res, why);
		return false;
	}
	return true;
}

static void broken(const struct window_child *c, struct window_result *res,
		   const struct user_regs_struct *r, const char *what)
{
	char line[128];
	snprintf(line, sizeof(line), "%s: %s", what, strerror(errno));
	end(res, WINDOW_BROKEN, r);
	describe(c, r, res, line);
}

void window_child_run(struct window_child *c, const struct window_run *run, struct window_result *res)
{
	struct user_regs_struct r = c->initial, before;
	char err[200];

	memset(res, 0, sizeof(*res));
	if (keep_fit(c, err, sizeof(err))) {
		res->outcome = WINDOW_BROKEN;
		snprintf(res->why, sizeof(res->why), "%s", err);
		return;
	}
	for (unsigned n = 0; n < 16; n++)
		*gpr_slot(&r, n) = run->gpr[n];
	r.r15 = WINDOW_BASE;
	r.rip = run->entry;
	r.eflags = RFLAGS_FIXED | (run->rflags & RFLAGS_STATUS);
	if (ptrace(PTRACE_SETREGS, c->pid, 0, &r)) {
		broken(c, res, &r, "PTRACE_SETREGS");
		return;
	}
	for (;;) {
		int status;
		if (res->steps == run->step_limit) {
			end(res, WINDOW_STEP_LIMIT, &r);
			return;
		}
		before = r;
		if (ptrace(PTRACE_SYSEMU_SINGLESTEP, c->pid, 0, 0)) {
			broken(c, res, &r, "PTRACE_SYSEMU_SINGLESTEP");
			return;
		}
		pid_t got;
		while ((got = waitpid(c->pid, &status, __WALL)) < 0 && errno == EINTR)
			continue;	/* libFuzzer's timer */
		if (got != c->pid || !WIFSTOPPED(status)) {
			broken(c, res, &r, "the window child died");
			c->pid = 0;
			return;
		}
		res->steps++;
		c->steps++;
		if (ptrace(PTRACE_GETREGS, c->pid, 0, &r)) {
			broken(c, res, &before, "PTRACE_GETREGS");
			return;
		}
		int sig = WSTOPSIG(status);
		if (sig == (SIGTRAP | 0x80)) {
			end(res, WINDOW_ESCAPE, &before);
			describe(c, &before, res, "a system call (stopped before it ran)");
			return;
		}
		if (sig == SIGTRAP) {
			siginfo_t si;
			if (ptrace(PTRACE_GETSIGINFO, c->pid, 0, &si)) {
				broken(c, res, &r, "PTRACE_GETSIGINFO");
				return;
			}
			if (si.si_code != TRAP_TRACE) {
				end(res, WINDOW_TRAP, &before);
				return;
			}
			if (!check_step(c, run, &r, &before, res))
				return;
			continue;
		}
		if (sig == SIGSEGV || sig == SIGBUS)
			classify_fault(c, &r, sig, res);
		else if (sig == SIGILL)
			end(res, WINDOW_UD, &r);
		else if (sig == SIGFPE)
			end(res, WINDOW_DIVIDE, &r);
		else {
			end(res, WINDOW_BROKEN, &r);
			snprintf(res->why, sizeof(res->why), "unexpected signal %d at rip 0x%llx", sig,
				 (unsigned long long)r.rip);
		}
		return;
	}
}
