// SPDX-License-Identifier: BSD-2-Clause
/*
 * Console output and input queues, and the kernel log.
 *
 * Output: console_lock orders whole writes from all CPUs; every write is
 * also appended to log_ring so `dmesg` can show it again. Input: the
 * device interrupt appends to input_ring under input_wq.lock and wakes
 * the reader; a full ring drops the byte and counts it.
 */
#include <scion/console.h>
#include <scion/spinlock.h>
#include <scion/wait.h>
#include <scion/shell.h>
#include <scion/printk.h>
#include <scion/mm.h>
#include <scion/errno.h>
#include <scion/proc.h>
#include <arch/console.h>

#define INPUT_RING_SIZE 4096
#define LOG_RING_SIZE   32768

static struct spinlock console_lock = SPINLOCK_INIT("console");
static char log_ring[LOG_RING_SIZE];	/* console_lock */
static uint64_t log_written;		/* console_lock: bytes ever logged */

static struct waitq input_wq = WAITQ_INIT(input_wq, "console-input");
static uint8_t input_ring[INPUT_RING_SIZE];	/* input_wq.lock */
static uint32_t input_head, input_tail;		/* input_wq.lock */
static uint64_t input_dropped;			/* input_wq.lock */

void console_write_unlocked(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			arch_console_putc('\r');
		arch_console_putc(s[i]);
		log_ring[log_written++ % LOG_RING_SIZE] = s[i];
	}
}

void console_write(const char *s, size_t n)
{
	if (panic_in_progress) {
		console_write_unlocked(s, n);
		return;
	}
	irqflags_t f = spin_lock_irqsave(&console_lock);
	console_write_unlocked(s, n);
	spin_unlock_irqrestore(&console_lock, f);
}

#define CTRL_C 0x03

void console_input_byte(uint8_t c)
{
	/* Ctrl-C interrupts the foreground process, if one runs, instead of being read. */
	if (c == CTRL_C && proc_console_interrupt())
		return;
	irqflags_t f = spin_lock_irqsave(&input_wq.lock);
	if (input_tail - input_head == INPUT_RING_SIZE) {
		input_dropped++;
	} else {
		input_ring[input_tail++ % INPUT_RING_SIZE] = c;
	}
	spin_unlock_irqrestore(&input_wq.lock, f);
	waitq_wake_all(&input_wq);
	proc_poll_notify();
}

bool console_input_waiting(void)
{
	irqflags_t f = spin_lock_irqsave(&input_wq.lock);
	bool waiting = input_head != input_tail;
	spin_unlock_irqrestore(&input_wq.lock, f);
	return waiting;
}

uint8_t console_getc(void)
{
	irqflags_t f = spin_lock_irqsave(&input_wq.lock);
	while (input_head == input_tail)
		waitq_sleep(&input_wq, 0);
	uint8_t c = input_ring[input_head++ % INPUT_RING_SIZE];
	spin_unlock_irqrestore(&input_wq.lock, f);
	return c;
}

int console_getc_unless(bool (*stop)(void))
{
	irqflags_t f = spin_lock_irqsave(&input_wq.lock);
	while (input_head == input_tail) {
		if (stop()) {
			spin_unlock_irqrestore(&input_wq.lock, f);
			return -EINTR;
		}
		waitq_sleep(&input_wq, 0);
	}
	uint8_t c = input_ring[input_head++ % INPUT_RING_SIZE];
	spin_unlock_irqrestore(&input_wq.lock, f);
	return c;
}

uint64_t console_input_dropped(void)
{
	return READ_ONCE(input_dropped);
}

static int cmd_dmesg(int argc, char **argv)
{
	(void)argv;
	if (argc > 1) {
		printk("dmesg: takes no arguments\n");
		return -EINVAL;
	}
	/* Snapshot under the lock, print outside it (printing logs again). */
	char *copy = kmalloc(LOG_RING_SIZE);
	if (!copy) {
		printk("dmesg: out of memory for a copy of the log\n");
		return -ENOMEM;
	}
	irqflags_t f = spin_lock_irqsave(&console_lock);
	uint64_t end = log_written;
	uint64_t start = end > LOG_RING_SIZE ? end - LOG_RING_SIZE : 0;
	size_t n = (size_t)(end - start);
	for (size_t i = 0; i < n; i++)
		copy[i] = log_ring[(start + i) % LOG_RING_SIZE];
	spin_unlock_irqrestore(&console_lock, f);
	console_write(copy, n);
	kfree(copy);
	return 0;
}
SHELL_COMMAND(dmesg, "", "print the kernel log kept in memory", cmd_dmesg);
