/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the kernel does when the CPU reports a fault in kernel code
 * (kernel/core/fault.c): report it with registers and a symbolized
 * backtrace, then kill the faulting thread when that is safe, or panic.
 */
#ifndef SCION_FAULT_H
#define SCION_FAULT_H

#include <scion/compiler.h>
#include <arch/trap.h>

struct fault_info {
	const char *what;	/* "page fault", "general protection", ... */
	unsigned vector;
	uint64_t error_code;
	bool has_address;
	uint64_t address;	/* faulting data address (page faults) */
	char detail[64];	/* decoded error code, e.g. "write, not present" */
};

/* The most recent fault that killed a thread; for tests and `faults`. */
struct fault_record {
	uint64_t count;		/* faults that killed a thread since boot */
	uint64_t tid;
	char thread[24];
	unsigned vector;
	uint64_t error_code;
	uint64_t address;
	uint64_t pc;
	char function[48];	/* the function containing pc, or "" */
};

/*
 * fault_handle - report a fault in kernel mode and recover if possible.
 * The faulting thread is killed when it is an ordinary thread that held
 * no spinlock and was not in an interrupt handler; anything else panics.
 * Caller's context: the arch trap handler, interrupts masked.
 */
void fault_handle(struct trap_frame *frame, const struct fault_info *info);

/* Copy of the last fault record (taken under its lock). */
void fault_last(struct fault_record *out);

/*
 * backtrace_print - print the frame-pointer chain from (pc, fp), one
 * "  #N 0xADDR name+0xoff" line per frame, stopping at a frame outside
 * the current stack. Return value: the number of frames printed.
 */
unsigned backtrace_print(uintptr_t pc, uintptr_t fp);

/*
 * code_format - "name+0xoff" for a code address, or for code in a probe
 * patch "name+0xoff (in a probe patch)" naming the text it stands for.
 * Return value: buf.
 */
const char *code_format(uintptr_t pc, char *buf, size_t size);

#endif
