// SPDX-License-Identifier: BSD-2-Clause
/*
 * The booted text image (see scion/textimage.h) and `text verify`.
 *
 * The build hashes the final image's .text into .text_hash
 * (tools/text_hash.py). At boot, before anything can patch text, the
 * kernel hashes its live text, compares, and keeps a copy. Later, the
 * copy is what probes restore from and what the analysis decodes.
 */
#include <scion/textimage.h>
#include <scion/mm.h>
#include <scion/string.h>
#include <scion/printk.h>
#include <scion/shell.h>
#include <scion/symtab.h>
#include <scion/errno.h>

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME  0x100000001b3ull

extern char __text_start[], __init_text_end[];
extern const uint64_t __text_hash[];

static uint8_t *image;		/* set once at boot */

uint64_t fnv1a64(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint64_t h = FNV_OFFSET;

	while (len--)
		h = (h ^ *p++) * FNV_PRIME;
	return h;
}

static size_t text_size(void)
{
	return (size_t)(__init_text_end - __text_start);
}

int text_image_init(void)
{
	uint64_t live = fnv1a64(__text_start, text_size());

	if (live != __text_hash[0]) {
		printk("text: the live text (hash 0x%016llx) is not the image that was built "
		       "(hash 0x%016llx)\n", (unsigned long long)live,
		       (unsigned long long)__text_hash[0]);
		return -EIO;
	}
	image = kmalloc(text_size());
	if (!image)
		return -ENOMEM;
	memcpy(image, __text_start, text_size());
	return 0;
}

bool text_image_ready(void)
{
	return image != NULL;
}

const uint8_t *text_image_bytes(uint64_t addr)
{
	return image + (addr - (uintptr_t)__text_start);
}

unsigned text_image_compare(void (*fn)(uint64_t start, uint64_t end, void *arg), void *arg)
{
	const uint8_t *live = (const uint8_t *)__text_start;
	size_t n = text_size();
	unsigned ranges = 0;

	for (size_t i = 0; i < n;) {
		if (live[i] == image[i]) {
			i++;
			continue;
		}
		size_t start = i;
		while (i < n && live[i] != image[i])
			i++;
		ranges++;
		if (fn)
			fn((uintptr_t)__text_start + start, (uintptr_t)__text_start + i, arg);
	}
	return ranges;
}

static void print_range(uint64_t start, uint64_t end, void *arg)
{
	char sym[96];
	(void)arg;
	printk("  0x%llx-0x%llx (%llu bytes) %s\n", (unsigned long long)start,
	       (unsigned long long)end, (unsigned long long)(end - start),
	       ksym_format(start, sym, sizeof(sym)));
}

static int cmd_text(int argc, char **argv)
{
	if (argc != 2 || strcmp(argv[1], "verify")) {
		printk("text: usage: text verify\n");
		return -EINVAL;
	}
	if (!image) {
		printk("text: no copy of the booted image (boot check failed)\n");
		return -EIO;
	}
	if (fnv1a64(image, text_size()) != __text_hash[0]) {
		printk("text: the copy of the booted image is damaged\n");
		return -EIO;
	}
	unsigned n = text_image_compare(NULL, NULL);
	if (n == 0) {
		printk("text: identical\n");
		return 0;
	}
	printk("text: %u range%s differ from the booted image:\n", n, n == 1 ? "" : "s");
	text_image_compare(print_range, NULL);
	return -EIO;
}
SHELL_COMMAND(text, "verify", "compare the live kernel text with the image it booted from", cmd_text);
