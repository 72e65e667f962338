// SPDX-License-Identifier: BSD-2-Clause
/*
 * Line editing: printable ASCII is kept and echoed; backspace/DEL erase,
 * Ctrl-U erases the line, Ctrl-C cancels it; CR, LF and CR LF end it.
 * ANSI escape sequences (arrow keys) are consumed whole: up and down are
 * reported for history, the rest ignored. Every other byte is dropped,
 * and a line that grows past the buffer is discarded when it ends, so no
 * input can overflow, smuggle control bytes into a command, or wedge the
 * editor.
 */
#include "lineedit.h"
#include <scion/string.h>

enum { ESC_NONE, ESC_START, ESC_CSI, ESC_SS3 };

#define CTRL_C    0x03
#define BACKSPACE 0x08
#define CTRL_U    0x15
#define ESCAPE    0x1b
#define DELETE    0x7f

static void echo(struct line_editor *le, const char *s, size_t n)
{
	if (le->echo)
		le->echo(s, n, le->ctx);
}

void le_init(struct line_editor *le, void (*echo_fn)(const char *s, size_t n, void *ctx), void *ctx)
{
	memset(le, 0, sizeof(*le));
	le->echo = echo_fn;
	le->ctx = ctx;
}

static void erase_chars(struct line_editor *le, size_t n)
{
	while (n--)
		echo(le, "\b \b", 3);
}

static void reset(struct line_editor *le)
{
	le->len = 0;
	le->overflow = false;
	le->buf[0] = '\0';
}

void le_replace(struct line_editor *le, const char *s)
{
	erase_chars(le, le->len);
	reset(le);
	size_t n = strnlen(s, LINE_MAX - 1);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] >= 0x20 && (unsigned char)s[i] < 0x7f)
			le->buf[le->len++] = s[i];
	le->buf[le->len] = '\0';
	echo(le, le->buf, le->len);
}

/* Inside an escape sequence. Returns true when c was consumed by it. */
static bool escape_byte(struct line_editor *le, uint8_t c, enum le_event *ev)
{
	switch (le->escape) {
	case ESC_START:
		le->escape = c == '[' ? ESC_CSI : c == 'O' ? ESC_SS3 : ESC_NONE;
		return c == '[' || c == 'O' || (c >= 0x20 && c < 0x7f);
	case ESC_SS3:
		le->escape = ESC_NONE;
		return c >= 0x20 && c < 0x7f;
	case ESC_CSI:
		if (c < 0x20 || c >= 0x7f) {
			le->escape = ESC_NONE;	/* broken sequence: handle c normally */
			return false;
		}
		if (c >= 0x40) {		/* final byte */
			le->escape = ESC_NONE;
			if (c == 'A')
				*ev = LE_HISTORY_PREV;
			else if (c == 'B')
				*ev = LE_HISTORY_NEXT;
		}
		return true;
	}
	return false;
}

enum le_event le_feed(struct line_editor *le, uint8_t c)
{
	enum le_event ev = LE_NONE;
	bool was_cr = le->last_was_cr;

	le->last_was_cr = c == '\r';
	if (le->escape && escape_byte(le, c, &ev))
		return ev;
	switch (c) {
	case '\n':
		if (was_cr)
			return LE_NONE;	/* the LF of CR LF */
		/* fall through */
	case '\r':
		echo(le, "\n", 1);
		ev = le->overflow ? LE_OVERFLOW : LE_LINE;
		le->buf[le->len] = '\0';
		if (ev == LE_OVERFLOW)
			reset(le);
		else
			le->len = 0;	/* buf keeps the line for the caller */
		le->overflow = false;
		return ev;
	case BACKSPACE:
	case DELETE:
		if (le->len) {
			le->len--;
			erase_chars(le, 1);
		}
		return LE_NONE;
	case CTRL_U:
		erase_chars(le, le->len);
		reset(le);
		return LE_NONE;
	case CTRL_C:
		echo(le, "^C\n", 3);
		reset(le);
		return LE_CANCEL;
	case ESCAPE:
		le->escape = ESC_START;
		return LE_NONE;
	default:
		break;
	}
	if (c < 0x20 || c >= 0x7f)
		return LE_NONE;
	if (le->len + 1 >= LINE_MAX) {
		le->overflow = true;
		return LE_NONE;
	}
	le->buf[le->len++] = (char)c;
	echo(le, (const char *)&c, 1);
	return LE_NONE;
}
