// SPDX-License-Identifier: BSD-2-Clause
/*
 * In-kernel tests of fault handling: a thread that faults is reported
 * (with a backtrace naming the faulting function) and killed, and the
 * kernel goes on. The crash_* tests panic on purpose and run only when
 * named (tests/integration checks their reports).
 */
#include <scion/ktest.h>
#include <scion/fault.h>
#include <scion/thread.h>
#include <scion/spinlock.h>
#include <scion/string.h>
#include <scion/mm.h>
#include <scion/errno.h>
#include <arch/mmu.h>

#define FAULT_ADDRESS 0x10
#define VEC_DIVIDE 0
#define VEC_INVALID_OPCODE 6
#define VEC_PAGE_FAULT 14
#define PF_WRITE 0x2
#define PF_PRESENT 0x1
#define PF_FETCH 0x10

extern char poke_target[];
static uint8_t data_buffer[64];
static volatile int zero;
static volatile int hundred = 100;
/* Through a volatile pointer, so the compiler cannot see the address is bad. */
static int *volatile bad_pointer = (int *)FAULT_ADDRESS;

/* Thread bodies: each does one bad thing. Names matter: the tests look for them. */
__noinline void ktest_fault_victim(void *arg)
{
	(void)arg;
	*bad_pointer = 1;
}

__noinline void ktest_text_writer(void *arg)
{
	(void)arg;
	*(volatile uint8_t *)poke_target = 0;
}

__noinline void ktest_data_executor(void *arg)
{
	(void)arg;
	((void (*)(void))(uintptr_t)data_buffer)();
}

__noinline void ktest_divider(void *arg)
{
	*(volatile int *)arg = hundred / zero;
}

__noinline void ktest_undefined_opcode(void *arg)
{
	(void)arg;
	__builtin_trap();
}

/* Run fn in a thread, expect it killed by a fault, return the fault record. */
static bool run_victim(struct ktest_ctx *t, thread_fn fn, const char *name, struct fault_record *r)
{
	struct fault_record before;
	int result;

	fault_last(&before);
	struct thread *victim = thread_create(name, fn, &result, -1);
	if (!victim) {
		ktest_fail(t, __FILE__, __LINE__, "cannot create the victim thread");
		return false;
	}
	int code = thread_join(victim);
	fault_last(r);
	if (code != -EFAULT) {
		ktest_fail(t, __FILE__, __LINE__, "victim exited with %d, not killed by a fault", code);
		return false;
	}
	if (r->count != before.count + 1 || strcmp(r->thread, name)) {
		ktest_fail(t, __FILE__, __LINE__, "no new fault recorded for '%s'", name);
		return false;
	}
	return true;
}

KTEST(fault_page_fault_kills_thread, 1)
{
	struct fault_record r;

	if (!run_victim(t, ktest_fault_victim, "victim-pf", &r))
		return;
	KT_EXPECT(t, r.vector == VEC_PAGE_FAULT, "vector %u, expected a page fault", r.vector);
	KT_EXPECT(t, r.address == FAULT_ADDRESS, "fault address 0x%llx", (unsigned long long)r.address);
	KT_EXPECT(t, !strcmp(r.function, "ktest_fault_victim"), "fault located in '%s'", r.function);
	KT_EXPECT(t, (r.error_code & PF_WRITE) && !(r.error_code & PF_PRESENT),
		  "error code 0x%llx: expected a write to a missing page",
		  (unsigned long long)r.error_code);
	/* The kernel goes on: threads still run and memory still works. */
	void *p = kmalloc(128);
	KT_EXPECT(t, p != NULL, "heap broken after the fault");
	kfree(p);
}

KTEST(fault_text_is_read_only, 1)
{
	struct fault_record r;
	uint8_t first = *(volatile uint8_t *)poke_target;

	if (!run_victim(t, ktest_text_writer, "victim-textwrite", &r))
		return;
	KT_EXPECT(t, r.vector == VEC_PAGE_FAULT && r.address == (uintptr_t)poke_target,
		  "vector %u address 0x%llx", r.vector, (unsigned long long)r.address);
	KT_EXPECT(t, (r.error_code & (PF_WRITE | PF_PRESENT)) == (PF_WRITE | PF_PRESENT),
		  "error code 0x%llx: expected a write protection fault",
		  (unsigned long long)r.error_code);
	KT_EXPECT(t, !strcmp(r.function, "ktest_text_writer"), "fault located in '%s'", r.function);
	KT_EXPECT(t, *(volatile uint8_t *)poke_target == first, "text changed by a faulting write");
}

KTEST(fault_data_is_not_executable, 1)
{
	struct fault_record r;

	if (!run_victim(t, ktest_data_executor, "victim-nx", &r))
		return;
	KT_EXPECT(t, r.vector == VEC_PAGE_FAULT && (r.error_code & PF_FETCH),
		  "vector %u error 0x%llx: expected an instruction-fetch fault", r.vector,
		  (unsigned long long)r.error_code);
	KT_EXPECT(t, r.pc == (uintptr_t)data_buffer && r.address == (uintptr_t)data_buffer,
		  "pc 0x%llx", (unsigned long long)r.pc);
}

KTEST(fault_divide_error_kills_thread, 1)
{
	struct fault_record r;

	if (!run_victim(t, ktest_divider, "victim-divide", &r))
		return;
	KT_EXPECT(t, r.vector == VEC_DIVIDE, "vector %u, expected divide error", r.vector);
	KT_EXPECT(t, !strcmp(r.function, "ktest_divider"), "fault located in '%s'", r.function);
}

KTEST(fault_invalid_opcode_kills_thread, 1)
{
	struct fault_record r;

	if (!run_victim(t, ktest_undefined_opcode, "victim-ud", &r))
		return;
	KT_EXPECT(t, r.vector == VEC_INVALID_OPCODE, "vector %u, expected invalid opcode", r.vector);
	KT_EXPECT(t, !strcmp(r.function, "ktest_undefined_opcode"), "fault located in '%s'",
		  r.function);
}

static struct spinlock crash_lock = SPINLOCK_INIT("crash-test");

__noinline void crash_fault_holding_lock(void)
{
	irqflags_t f = spin_lock_irqsave(&crash_lock);
	*bad_pointer = 1;
	spin_unlock_irqrestore(&crash_lock, f);
}

KTEST_MANUAL(crash_fault_with_lock, 1)
{
	(void)t;
	crash_fault_holding_lock();
	ktest_fail(t, __FILE__, __LINE__, "a fault under a spinlock did not panic");
}

__noinline unsigned crash_recurse(unsigned depth)
{
	volatile char frame[512];
	frame[0] = (char)depth;
	if (depth > (1u << 30))	/* never: the stack's guard page stops it first */
		return 0;
	return crash_recurse(depth + 1) + frame[0];
}

KTEST_MANUAL(crash_stack_overflow, 1)
{
	crash_recurse(0);
	ktest_fail(t, __FILE__, __LINE__, "unbounded recursion did not fault");
}
