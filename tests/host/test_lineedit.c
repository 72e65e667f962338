// SPDX-License-Identifier: BSD-2-Clause
/* Host tests of the shell's line editor (kernel/shell/lineedit.c). */
#include <string.h>
#include "host_test.h"
#include "shell/lineedit.h"

/* Everything the editor echoed since the last reset. */
static struct {
	char out[8192];
	size_t len;
	bool overrun;
	bool control;	/* echoed a byte other than printable, \b or \n */
} echoed;

static void capture(const char *s, size_t n, void *ctx)
{
	(void)ctx;
	for (size_t i = 0; i < n; i++) {
		uint8_t c = (uint8_t)s[i];
		if (c != '\b' && c != '\n' && (c < 0x20 || c >= 0x7f))
			echoed.control = true;
	}
	if (echoed.len + n >= sizeof(echoed.out)) {
		echoed.overrun = true;
		return;
	}
	memcpy(echoed.out + echoed.len, s, n);
	echoed.len += n;
	echoed.out[echoed.len] = '\0';
}

static void start(struct line_editor *le)
{
	memset(&echoed, 0, sizeof(echoed));
	le_init(le, capture, NULL);
}

/* Feed n bytes; return the last event that was not LE_NONE (LE_NONE if none). */
static enum le_event feed(struct line_editor *le, const char *s, size_t n)
{
	enum le_event last = LE_NONE;
	for (size_t i = 0; i < n; i++) {
		enum le_event ev = le_feed(le, (uint8_t)s[i]);
		if (ev != LE_NONE)
			last = ev;
	}
	return last;
}

#define FEED(le, lit) feed((le), (lit), sizeof(lit) - 1)

/* Feed bytes and count each kind of event. */
static void feed_count(struct line_editor *le, const char *s, size_t n, int counts[6])
{
	memset(counts, 0, 6 * sizeof(int));
	for (size_t i = 0; i < n; i++)
		counts[le_feed(le, (uint8_t)s[i])]++;
}

HOST_TEST(lineedit_plain_line)
{
	struct line_editor le;
	start(&le);
	CHECK(t, le_feed(&le, 'l') == LE_NONE && le_feed(&le, 's') == LE_NONE, "letters are LE_NONE");
	CHECK(t, le_feed(&le, '\r') == LE_LINE, "CR ends the line");
	CHECK(t, !strcmp(le.buf, "ls"), "line is '%s'", le.buf);
	CHECK(t, !strcmp(echoed.out, "ls\n"), "echo is '%s'", echoed.out);

	CHECK(t, FEED(&le, "help me\n") == LE_LINE && !strcmp(le.buf, "help me"), "LF ends a line");
	CHECK(t, FEED(&le, "\r") == LE_LINE && !strcmp(le.buf, ""), "an empty line");
}

HOST_TEST(lineedit_line_ends)
{
	struct line_editor le;
	int n[6];

	start(&le);
	feed_count(&le, "a\r\nb\r\n", 6, n);
	CHECK(t, n[LE_LINE] == 2, "CR LF is one line end: %d lines", n[LE_LINE]);
	CHECK(t, !strcmp(le.buf, "b"), "last line '%s'", le.buf);

	feed_count(&le, "a\n\r", 3, n);
	CHECK(t, n[LE_LINE] == 2, "LF CR is two line ends: %d", n[LE_LINE]);

	feed_count(&le, "a\r\rb\n", 5, n);
	CHECK(t, n[LE_LINE] == 3, "CR CR is two line ends: %d", n[LE_LINE]);

	feed_count(&le, "x\n\n", 3, n);
	CHECK(t, n[LE_LINE] == 2, "LF LF is two line ends: %d", n[LE_LINE]);

	feed_count(&le, "\r", 1, n);
	feed_count(&le, "q\n", 2, n);
	CHECK(t, n[LE_LINE] == 1 && !strcmp(le.buf, "q"), "a CR pairs only with the next byte");
}

HOST_TEST(lineedit_erasing)
{
	struct line_editor le;

	start(&le);
	CHECK(t, FEED(&le, "abx\bc\r") == LE_LINE && !strcmp(le.buf, "abc"), "backspace: '%s'", le.buf);
	CHECK(t, FEED(&le, "abx\x7f" "c\r") == LE_LINE && !strcmp(le.buf, "abc"), "DEL: '%s'", le.buf);

	start(&le);
	FEED(&le, "\b\b\x7f");
	CHECK(t, echoed.len == 0, "backspace on an empty line echoes nothing");
	FEED(&le, "ab\b");
	CHECK(t, !strcmp(echoed.out, "ab\b \b"), "backspace echo '%s'", echoed.out);

	CHECK(t, FEED(&le, "\b\b\bz\r") == LE_LINE && !strcmp(le.buf, "z"), "erase past start");

	start(&le);
	FEED(&le, "rm -rf\x15");
	CHECK(t, !strcmp(echoed.out, "rm -rf\b \b\b \b\b \b\b \b\b \b\b \b"), "Ctrl-U echo '%s'",
	      echoed.out);
	CHECK(t, FEED(&le, "ls\r") == LE_LINE && !strcmp(le.buf, "ls"), "after Ctrl-U: '%s'", le.buf);
}

HOST_TEST(lineedit_ctrl_c_cancels)
{
	struct line_editor le;

	start(&le);
	CHECK(t, FEED(&le, "reboot\x03") == LE_CANCEL, "Ctrl-C gives LE_CANCEL");
	CHECK(t, le.len == 0, "line discarded");
	CHECK(t, strstr(echoed.out, "^C\n") != NULL, "echo '%s'", echoed.out);
	CHECK(t, FEED(&le, "ls\r") == LE_LINE && !strcmp(le.buf, "ls"), "next line '%s'", le.buf);
}

HOST_TEST(lineedit_escape_sequences)
{
	struct line_editor le;
	int n[6];

	start(&le);
	FEED(&le, "ab");
	CHECK(t, FEED(&le, "\x1b[A") == LE_HISTORY_PREV, "up arrow");
	CHECK(t, FEED(&le, "\x1b[B") == LE_HISTORY_NEXT, "down arrow");
	CHECK(t, le.len == 2, "arrows leave the line alone");

	/* Right, left, Ctrl-left, Delete, Home, F1 (SS3), Alt-x: all swallowed whole. */
	static const char others[] = "\x1b[C\x1b[D\x1b[1;5D\x1b[3~\x1b[H\x1bOP\x1bx";
	feed_count(&le, others, sizeof(others) - 1, n);
	CHECK(t, n[LE_NONE] == (int)sizeof(others) - 1, "other sequences give no event");
	CHECK(t, FEED(&le, "\r") == LE_LINE && !strcmp(le.buf, "ab"), "line is '%s'", le.buf);
	CHECK(t, !strcmp(echoed.out, "ab\n"), "sequences are not echoed: '%s'", echoed.out);

	CHECK(t, FEED(&le, "x\x1b[12;") == LE_NONE, "a sequence left open");
	CHECK(t, FEED(&le, "\r") == LE_LINE && !strcmp(le.buf, "x"), "broken CSI then CR: '%s'",
	      le.buf);
	CHECK(t, FEED(&le, "y\x1b[\n") == LE_LINE && !strcmp(le.buf, "y"), "broken CSI then LF");
	CHECK(t, FEED(&le, "z\x1b\r") == LE_LINE && !strcmp(le.buf, "z"), "lone ESC then CR");
	CHECK(t, FEED(&le, "w\x1bO\r") == LE_LINE && !strcmp(le.buf, "w"), "broken SS3 then CR");
	CHECK(t, FEED(&le, "v\x1b[1\x03") == LE_CANCEL, "Ctrl-C inside a sequence still cancels");
	CHECK(t, FEED(&le, "\x1b\x1b[A") == LE_HISTORY_PREV, "ESC ESC [ A is still an up arrow");
	CHECK(t, FEED(&le, "ok\r") == LE_LINE && !strcmp(le.buf, "ok"), "editor recovered");
}

HOST_TEST(lineedit_drops_control_and_non_ascii)
{
	struct line_editor le;

	start(&le);
	static const char in[] = "a\xc3\xa9" "b\x01\x00\tc\x80\xff\x1f" "d\r";
	CHECK(t, feed(&le, in, sizeof(in) - 1) == LE_LINE, "line ends");
	CHECK(t, !strcmp(le.buf, "abcd"), "line is '%s'", le.buf);
	CHECK(t, !strcmp(echoed.out, "abcd\n"), "echo '%s'", echoed.out);
}

HOST_TEST(lineedit_overflow_discards_line)
{
	struct line_editor le;
	char big[1000];

	start(&le);
	memset(big, 'x', sizeof(big));
	CHECK(t, feed(&le, big, sizeof(big)) == LE_NONE, "no event while typing");
	CHECK(t, le.len == LINE_MAX - 1, "len stops at %d: %zu", LINE_MAX - 1, le.len);
	CHECK(t, echoed.len == LINE_MAX - 1, "echo stops too: %zu", echoed.len);
	CHECK(t, FEED(&le, "\r") == LE_OVERFLOW, "LE_OVERFLOW at the end");
	CHECK(t, FEED(&le, "ls\r") == LE_LINE && !strcmp(le.buf, "ls"), "the next line works");

	/* A line that lost bytes stays discarded even when shortened. */
	feed(&le, big, 300);
	for (int i = 0; i < 100; i++)
		le_feed(&le, '\b');
	CHECK(t, le.len == LINE_MAX - 1 - 100, "backspaced to %zu", le.len);
	CHECK(t, FEED(&le, "\r") == LE_OVERFLOW, "shortened overflow still discarded");

	/* Exactly LINE_MAX - 1 characters fit; one more does not. */
	feed(&le, big, LINE_MAX - 1);
	CHECK(t, FEED(&le, "\r") == LE_LINE && strlen(le.buf) == LINE_MAX - 1, "longest line");
	feed(&le, big, LINE_MAX);
	CHECK(t, FEED(&le, "\r") == LE_OVERFLOW, "one byte too long");
	CHECK(t, feed(&le, big, 600) == LE_NONE && FEED(&le, "\x03") == LE_CANCEL,
	      "Ctrl-C during an overflow");
	CHECK(t, FEED(&le, "ok\r") == LE_LINE && !strcmp(le.buf, "ok"), "after cancel: '%s'", le.buf);
}

HOST_TEST(lineedit_replace_for_history)
{
	struct line_editor le;

	start(&le);
	FEED(&le, "abc");
	echoed.len = 0;
	le_replace(&le, "hello");
	CHECK(t, !strcmp(echoed.out, "\b \b\b \b\b \bhello"), "echo '%s'", echoed.out);
	CHECK(t, le.len == 5 && !strcmp(le.buf, "hello"), "buffer '%s'", le.buf);
	CHECK(t, FEED(&le, "!\r") == LE_LINE && !strcmp(le.buf, "hello!"), "edit after recall");

	le_replace(&le, "a\x1b[2Jb\x7f\tc");
	CHECK(t, !strcmp(le.buf, "a[2Jbc"), "control bytes filtered: '%s'", le.buf);

	char big[600];
	memset(big, 'y', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	le_replace(&le, big);
	CHECK(t, le.len == LINE_MAX - 1 && strlen(le.buf) == LINE_MAX - 1, "long recall clipped");
	CHECK(t, FEED(&le, "z") == LE_NONE && FEED(&le, "\r") == LE_OVERFLOW,
	      "typing past a full recall overflows");

	le_replace(&le, "");
	CHECK(t, le.len == 0 && FEED(&le, "\r") == LE_LINE && !strcmp(le.buf, ""), "empty recall");
}

static bool printable(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f)
			return false;
	return true;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* A byte that is often printable, sometimes special, sometimes anything. */
static uint8_t random_byte(void)
{
	static const uint8_t special[] = { '\r', '\n', 0x08, 0x7f, 0x15, 0x03, 0x1b, '[', 'O', 'A',
					   'B', ';', '0', 0x00, 0xff };
	uint64_t r = rng();
	switch (r % 8) {
	case 0:
	case 1:
		return (uint8_t)(r >> 8);
	case 2:
		return special[(r >> 8) % sizeof(special)];
	default:
		return (uint8_t)(0x20 + (r >> 8) % 0x5f);
	}
}

HOST_TEST(lineedit_random_bytes_keep_invariants)
{
	struct line_editor le;
	int lines = 0, overflows = 0;

	start(&le);
	rng_state = 0x9e3779b97f4a7c15ull;
	for (size_t i = 0; i < (1u << 20) && !t->failed; i++) {
		if (echoed.len > 4096)
			echoed.len = 0;
		/* Now and then a burst far longer than a line. */
		if (i % 65536 == 0)
			for (int k = 0; k < 400; k++)
				le_feed(&le, 'x');
		enum le_event ev = le_feed(&le, random_byte());
		REQUIRE(t, le.len < LINE_MAX, "len %zu after byte %zu", le.len, i);
		REQUIRE(t, printable(le.buf, le.len), "control byte in the line after byte %zu", i);
		if (ev == LE_LINE) {
			size_t n = strnlen(le.buf, LINE_MAX);
			REQUIRE(t, n < LINE_MAX, "line not terminated after byte %zu", i);
			REQUIRE(t, printable(le.buf, n), "control byte in a finished line");
			lines++;
		} else if (ev == LE_OVERFLOW) {
			overflows++;
		}
		REQUIRE(t, ev <= LE_HISTORY_NEXT, "bad event %d", (int)ev);
	}
	CHECK(t, !echoed.overrun, "echo buffer overrun");
	CHECK(t, lines > 1000, "only %d lines: the input is not exercising much", lines);
	CHECK(t, overflows > 0, "no line overflowed");
	CHECK(t, !echoed.control, "a control byte was echoed");

	/* Whatever state the garbage left, Ctrl-C and a line work. */
	FEED(&le, "\x03");
	CHECK(t, FEED(&le, "echo ok\r") == LE_LINE && !strcmp(le.buf, "echo ok"), "recovered: '%s'",
	      le.buf);
}
