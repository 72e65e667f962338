/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Kernel messages: printk writes to the console and to an in-memory log;
 * panic stops every CPU with a report.
 */
#ifndef SCION_PRINTK_H
#define SCION_PRINTK_H

#include <stdarg.h>
#include <scion/compiler.h>

/* Format and print one message. Any context. Messages over 512 bytes are cut. */
void printk(const char *fmt, ...) __printf(1, 2);
void vprintk(const char *fmt, va_list ap);

/*
 * panic - report an unrecoverable kernel error with a backtrace of the
 * caller, stop every CPU, then halt or (boot option panic=exit) make
 * QEMU exit with the panic status. Any context.
 */
__noreturn void panic(const char *fmt, ...) __printf(1, 2);

/*
 * Where a thread's messages go instead of the console while it runs a
 * command for someone else (the control channel captures a shell
 * command's output): thread_set_output. Messages printed in interrupt
 * context, and during a panic, always go to the console.
 */
struct output_sink {
	void (*write)(struct output_sink *sink, const char *text, size_t n);
};

/* Send the calling thread's printk output to sink (NULL: the console again). Thread. */
void thread_set_output(struct output_sink *sink);

/* True once a panic has begun (other CPUs then stop). */
extern volatile bool panic_in_progress;

#define BUG_ON(cond) do { \
	if (unlikely(cond)) \
		panic("BUG_ON(%s) at %s:%d", #cond, __FILE__, __LINE__); \
} while (0)

#endif
