// SPDX-License-Identifier: BSD-2-Clause
/* libFuzzer target: arbitrary console bytes into the shell's line editor. */
#include <string.h>
#include "fuzz.h"
#include "shell/lineedit.h"

static bool printable(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f)
			return false;
	return true;
}

/* The terminal may only ever see text, backspaces and newlines. */
static void echo(const char *s, size_t n, void *ctx)
{
	(void)ctx;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		FUZZ_ASSERT(c == '\b' || c == '\n' || (c >= 0x20 && c < 0x7f), "echoed byte 0x%02x", c);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct line_editor le;
	char last_line[LINE_MAX] = "";

	le_init(&le, echo, NULL);
	for (size_t i = 0; i < size; i++) {
		enum le_event ev = le_feed(&le, data[i]);
		FUZZ_ASSERT(le.len < LINE_MAX, "len %zu", le.len);
		FUZZ_ASSERT(printable(le.buf, le.len), "control byte in the line being edited");
		switch (ev) {
		case LE_LINE: {
			size_t n = strnlen(le.buf, LINE_MAX);
			FUZZ_ASSERT(n < LINE_MAX, "finished line not terminated");
			FUZZ_ASSERT(printable(le.buf, n), "control byte in a finished line");
			memcpy(last_line, le.buf, n + 1);
			break;
		}
		case LE_HISTORY_PREV:
			/* What the shell does: recall a line. */
			le_replace(&le, last_line);
			FUZZ_ASSERT(le.len == strlen(last_line) && !strcmp(le.buf, last_line),
				    "recall did not restore the line");
			break;
		case LE_HISTORY_NEXT:
			le_replace(&le, "");
			FUZZ_ASSERT(le.len == 0, "empty recall left %zu bytes", le.len);
			break;
		case LE_NONE:
		case LE_OVERFLOW:
		case LE_CANCEL:
			break;
		default:
			FUZZ_ASSERT(0, "unknown event %d", (int)ev);
		}
	}
	/* Whatever state the input left, Ctrl-C and a line still work. */
	le_feed(&le, 0x03);
	static const char probe[] = "ok\r";
	enum le_event ev = LE_NONE;
	for (size_t i = 0; probe[i]; i++)
		ev = le_feed(&le, (uint8_t)probe[i]);
	FUZZ_ASSERT(ev == LE_LINE && !strcmp(le.buf, "ok"), "editor wedged (event %d)", (int)ev);
	return 0;
}
