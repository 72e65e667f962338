// SPDX-License-Identifier: BSD-2-Clause
/*
 * bad_sigreturn: rt_sigreturn through frames a program made up, each in
 * a child. The frame is the program's to forge, so the kernel must take
 * nothing from it that lets the program out of ring 3 or breaks the
 * kernel's own return: a frame that cannot be read, a pc in the kernel
 * or not canonical, all end the child with SIGSEGV; a frame whose flags
 * ask for everything (IOPL 3, interrupts off, NT, VM) and whose segment
 * selectors are the user's lands where its pc says with only the flags a
 * program may set, and the child exits normally from there; the trap
 * flag, which a program may set, single-steps it into SIGTRAP. (The
 * selectors are Linux's user ones, 0x33 and 0x2b: Linux takes them from
 * the frame and kills for bad ones, Scion always puts its own.)
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <ucontext.h>
#include "check.h"

struct forged {
	uint64_t pretcode;
	ucontext_t uc;
};

static uint8_t landing_stack[16384] __attribute__((aligned(16)));

static void landed(void)
{
	unsigned long flags;
	__asm__ volatile("pushfq; popq %0" : "=r"(flags));
	/* IOPL (bits 12-13) and NT (14) must be clear, interrupts (9) on. */
	_exit((flags & 0x7000) == 0 && (flags & 0x200) ? 42 : 43);
}

static __attribute__((noreturn)) void sigreturn_through(void *frame_addr)
{
	__asm__ volatile("movq %0, %%rsp\n\tmovl $15, %%eax\n\tsyscall\n\tud2"
			 :: "r"((uintptr_t)frame_addr + 8) : "memory");
	__builtin_unreachable();
}

/* Run make(frame) then rt_sigreturn in a child; its wait status. */
static int in_child(void (*make)(struct forged *), void *where)
{
	pid_t c = fork();
	if (c == 0) {
		struct forged *f = where;
		if (make) {
			static struct forged frame;
			memset(&frame, 0, sizeof(frame));
			make(&frame);
			f = &frame;
		}
		sigreturn_through(f);
	}
	int st = 0;
	waitpid(c, &st, 0);
	return st;
}

static void to_landing(struct forged *f)
{
	f->uc.uc_mcontext.gregs[REG_RIP] = (uintptr_t)landed;
	f->uc.uc_mcontext.gregs[REG_RSP] = (uintptr_t)(landing_stack + sizeof(landing_stack) - 8);
	f->uc.uc_mcontext.gregs[REG_CSGSFS] = 0x33 | (0x2bull << 48);
}

static void everything_flags(struct forged *f)
{
	to_landing(f);
	f->uc.uc_mcontext.gregs[REG_EFL] = 0xffffffff & ~0x100;	/* all but TF: see single_step */
}

/* TF is the program's to set: the first instruction it lands on traps. */
static void single_step(struct forged *f)
{
	to_landing(f);
	f->uc.uc_mcontext.gregs[REG_EFL] = 0x100 | 0x2;
}

static void kernel_pc(struct forged *f)
{
	to_landing(f);
	f->uc.uc_mcontext.gregs[REG_RIP] = (greg_t)0xffffffff80100000ull;
}

static void noncanonical_pc(struct forged *f)
{
	to_landing(f);
	f->uc.uc_mcontext.gregs[REG_RIP] = (greg_t)0x8000000000001000ull;
}

static void killed_by_segv(int st, const char *what)
{
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "%s: status %#x, expected SIGSEGV", what, st);
}

int main(int argc, char **argv)
{
	check_start("bad_sigreturn", argc, argv);
	int st = in_child(everything_flags, NULL);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 42,
	      "a frame asking for every flag: status %#x, expected exit 42 (43: a privileged flag stuck)", st);
	st = in_child(to_landing, NULL);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 42, "a plain forged frame: status %#x", st);
	st = in_child(single_step, NULL);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTRAP, "a frame with TF: status %#x, expected SIGTRAP", st);
	void *none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	killed_by_segv(in_child(NULL, none), "a frame in an unreadable page");
	killed_by_segv(in_child(NULL, (void *)0xffffffff80100000ull), "a frame at a kernel address");
	killed_by_segv(in_child(kernel_pc, NULL), "a frame whose pc is in the kernel");
	killed_by_segv(in_child(noncanonical_pc, NULL), "a frame whose pc is not canonical");
	return check_done();
}
