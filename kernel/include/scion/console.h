/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The console: ordered output for printk, and a bounded input queue fed
 * by the console device's interrupt and read by the shell.
 */
#ifndef SCION_CONSOLE_H
#define SCION_CONSOLE_H

#include <scion/compiler.h>

/* Write n bytes with '\n' sent as CR LF. Any context; whole calls never interleave. */
void console_write(const char *s, size_t n);

/* Write without taking the console lock (panic, after other CPUs stopped). */
void console_write_unlocked(const char *s, size_t n);

/*
 * console_input_byte - queue one received byte. When the queue is full
 * the byte is dropped and counted. Caller's context: the device's
 * interrupt handler.
 */
void console_input_byte(uint8_t c);

/* Next input byte, sleeping until one arrives. Caller's context: thread. */
uint8_t console_getc(void);

/* Bytes dropped because the input queue was full. */
uint64_t console_input_dropped(void);

/*
 * console_getc_unless - as console_getc, but give up with -EINTR when
 *   stop() holds (checked before each sleep, and after each wake).
 * Caller's context: thread, may sleep.
 */
int console_getc_unless(bool (*stop)(void));

/* Whether input bytes wait to be read (poll's POLLIN for the terminal). Any context. */
bool console_input_waiting(void);

#endif
