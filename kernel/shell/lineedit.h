/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The shell's line editor: turns a stream of untrusted console bytes into
 * lines. Pure code (no kernel services), so the host tests feed it
 * garbage directly.
 */
#ifndef KERNEL_SHELL_LINEEDIT_H
#define KERNEL_SHELL_LINEEDIT_H

#include <scion/compiler.h>

#define LINE_MAX 256

enum le_event {
	LE_NONE,		/* byte consumed, line not finished */
	LE_LINE,		/* le->buf holds a complete line */
	LE_OVERFLOW,		/* a line longer than LINE_MAX - 1 ended; discarded */
	LE_CANCEL,		/* Ctrl-C: line discarded */
	LE_HISTORY_PREV,	/* up arrow */
	LE_HISTORY_NEXT,	/* down arrow */
};

struct line_editor {
	char buf[LINE_MAX];
	size_t len;
	bool overflow;
	bool last_was_cr;
	uint8_t escape;		/* 0, or where in an escape sequence we are */
	void (*echo)(const char *s, size_t n, void *ctx);
	void *ctx;
};

void le_init(struct line_editor *le, void (*echo)(const char *s, size_t n, void *ctx), void *ctx);

/* Feed one byte. Any byte value is accepted. */
enum le_event le_feed(struct line_editor *le, uint8_t c);

/* Replace the line being edited with s (history recall), echoing the change. */
void le_replace(struct line_editor *le, const char *s);

#endif
