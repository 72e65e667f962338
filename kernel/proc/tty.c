// SPDX-License-Identifier: BSD-2-Clause
/*
 * The console as a process's terminal: writes go to the console as the
 * kernel's own output does; reads take one line (cooked mode, echoed,
 * backspace edits, Ctrl-D at the start of a line is end of file).
 * Ctrl-C never reaches a reader: the console's input path sends SIGINT
 * to the foreground process (proc_console_interrupt).
 */
#include <scion/console.h>
#include <scion/errno.h>
#include <scion/string.h>
#include "proc_internal.h"

#define TTY_CHUNK 256
#define CTRL_D 0x04

static int64_t tty_read(struct file *f, uintptr_t ubuf, size_t len)
{
	(void)f;
	char line[TTY_CHUNK];
	size_t n = 0;
	if (!len)
		return 0;
	while (n < len && n < sizeof(line)) {
		int got = console_getc_unless(proc_signal_pending);
		if (got < 0)
			return n ? (int64_t)n : -EINTR;
		char c = (char)got;
		if (c == '\r')
			c = '\n';
		if (c == CTRL_D) {
			if (n == 0)
				return 0;
			break;
		}
		if (c == '\b' || c == 0x7f) {
			if (n) {
				n--;
				console_write("\b \b", 3);
			}
			continue;
		}
		line[n++] = c;
		console_write(&c, 1);
		if (c == '\n')
			break;
	}
	return copyout(ubuf, line, n) ? -EFAULT : (int64_t)n;
}

static int64_t tty_write(struct file *f, uintptr_t ubuf, size_t len)
{
	(void)f;
	char chunk[TTY_CHUNK];
	size_t done = 0;
	while (done < len) {
		size_t n = len - done < sizeof(chunk) ? len - done : sizeof(chunk);
		if (copyin(chunk, ubuf + done, n))
			return done ? (int64_t)done : -EFAULT;
		console_write(chunk, n);
		done += n;
	}
	return (int64_t)done;
}

/*
 * A writev is gathered into chunks, so that a line a C library builds
 * from several entries (musl's printf: the buffered part, then the
 * rest) reaches the console as one write, whole among the shell's and
 * other processes' output, as on Linux, whose tty holds a write lock
 * for the whole call. Up to TTY_CHUNK bytes are whole, like write's.
 */
static int64_t tty_writev(struct file *f, struct iov_walk *w)
{
	(void)f;
	char chunk[TTY_CHUNK];
	size_t fill = 0;
	int64_t done = 0, r;
	uintptr_t base;
	size_t len;
	while ((r = iov_walk_next(w, &base, &len)) > 0) {
		for (size_t off = 0; off < len;) {
			size_t n = len - off < sizeof(chunk) - fill ? len - off : sizeof(chunk) - fill;
			if (copyin(chunk + fill, base + off, n)) {
				r = -EFAULT;
				goto flush;
			}
			fill += n;
			off += n;
			if (fill == sizeof(chunk)) {
				console_write(chunk, fill);
				done += (int64_t)fill;
				fill = 0;
			}
		}
	}
flush:
	if (fill) {
		console_write(chunk, fill);
		done += (int64_t)fill;
	}
	return done ? done : r;
}

static int tty_stat(struct file *f, struct linux_stat *st)
{
	(void)f;
	return chrdev_stat(st, 0620, 5, 1, 1024);	/* /dev/console */
}

/* Input waiting is POLLIN (a read may still wait for the rest of a line); output never waits. */
static unsigned tty_poll(struct file *f)
{
	(void)f;
	return (console_input_waiting() ? POLL_IN : 0) | POLL_OUT;
}

static const struct file_ops tty_ops = {
	.kind = "tty", .read = tty_read, .write = tty_write, .writev = tty_writev,
	.stat = tty_stat, .poll = tty_poll, .is_tty = true,
};

struct file *tty_open(unsigned flags)
{
	return file_new(&tty_ops, flags, NULL);
}
