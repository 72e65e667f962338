// SPDX-License-Identifier: BSD-2-Clause
/*
 * libFuzzer target: cpio newc archives through the kernel's parser
 * (kernel/lib/cpio.c, what kernel/fs/archive.c runs on a boot module
 * whose name ends in .cpio). The archive sits in a buffer of exactly its
 * size, so ASan catches any read past it. It is parsed twice, as the
 * kernel does: a counting pass, then a pass keeping the entries. A
 * refusal must be -EINVAL with one printable line "cpio: offset N: ...";
 * an accepted archive must give the same count both times, and every
 * kept entry must lie inside the archive, have a normalized name (no
 * leading or doubled '/', no "." or ".." component, printable), be a file
 * or a directory, and differ in name from every other.
 */
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"
#include <scion/cpio.h>
#include <scion/errno.h>

#define MSG_BYTES 200

static void check_line(const char *msg, size_t room)
{
	size_t len = strnlen(msg, room);
	FUZZ_ASSERT(len < room && !strncmp(msg, "cpio: offset ", 13), "refusal line '%.*s'",
		    (int)len, msg);
	for (size_t i = 0; i < len; i++)
		FUZZ_ASSERT(msg[i] >= ' ' && msg[i] < 0x7f, "byte 0x%02x in the line '%s'",
			    (uint8_t)msg[i], msg);
}

static void check_name(const struct cpio_entry *e)
{
	const char *n = e->name;
	size_t len = e->name_len, start = 0;
	for (size_t i = 0; i <= len; i++) {
		if (i < len) {
			FUZZ_ASSERT(n[i] >= ' ' && n[i] < 0x7f, "byte 0x%02x in a name", (uint8_t)n[i]);
			if (n[i] != '/')
				continue;
		}
		size_t c = i - start;
		if (len)
			FUZZ_ASSERT(c && !(c == 1 && n[start] == '.') &&
				    !(c == 2 && n[start] == '.' && n[start + 1] == '.'),
				    "name '%.*s' not normalized", (int)len, n);
		start = i + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char msg[MSG_BYTES];
	uint8_t *archive = malloc(size ? size : 1);
	memcpy(archive, data, size);

	memset(msg, 0x55, sizeof(msg));
	long counted = cpio_parse(archive, size, NULL, 0, NULL, msg, sizeof(msg));
	if (counted < 0) {
		FUZZ_ASSERT(counted == -EINVAL, "counting pass refused with %ld", counted);
		check_line(msg, sizeof(msg));
		free(archive);
		return 0;
	}
	struct cpio_entry *e = calloc((size_t)counted + 1, sizeof(*e));
	struct cpio_summary sum;
	memset(msg, 0x55, sizeof(msg));
	long kept = cpio_parse(archive, size, e, (size_t)counted, &sum, msg, sizeof(msg));
	if (kept < 0) {
		/* Only what the counting pass cannot see: duplicates, entries under a file. */
		FUZZ_ASSERT(kept == -EINVAL, "second pass refused with %ld", kept);
		check_line(msg, sizeof(msg));
		FUZZ_ASSERT(strstr(msg, "second entry") || strstr(msg, "not a directory"),
			    "second pass refused what the first accepted: %s", msg);
	} else {
		FUZZ_ASSERT(kept == counted && sum.entries == (size_t)kept && sum.end <= size,
			    "counts %ld and %ld", counted, kept);
		for (long i = 0; i < kept; i++) {
			const uint8_t *name = (const uint8_t *)e[i].name;
			FUZZ_ASSERT(name >= archive && name + e[i].name_len <= archive + size,
				    "entry %ld's name outside", i);
			uint32_t type = e[i].mode & CPIO_S_IFMT;
			FUZZ_ASSERT(type == CPIO_S_IFREG || type == CPIO_S_IFDIR, "type 0%o", type);
			if (type == CPIO_S_IFREG)
				FUZZ_ASSERT(e[i].data >= archive && e[i].size <= size &&
					    e[i].data + e[i].size <= archive + size,
					    "entry %ld's data outside", i);
			else
				FUZZ_ASSERT(!e[i].data && !e[i].size, "a directory with data");
			check_name(&e[i]);
			for (long j = 0; j < i; j++)
				FUZZ_ASSERT(e[j].name_len != e[i].name_len ||
					    memcmp(e[j].name, e[i].name, e[i].name_len),
					    "entries %ld and %ld share a name", j, i);
		}
	}
	free(e);
	free(archive);
	return 0;
}
