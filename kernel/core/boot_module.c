// SPDX-License-Identifier: BSD-2-Clause
/*
 * What a boot module is (scion/boot.h): its name, and whose it is. The
 * loader's command line for a module is its path and, after a space,
 * words for whoever loads it ("clock.graft trusted"); a name ending in
 * ".cfg" is a profile configuration, one ending in ".cpio" the program
 * archive (kernel/fs/archive.c), anything else a graft.
 */
#include <scion/boot.h>
#include <scion/string.h>

#define PROFILE_CONFIG_SUFFIX ".cfg"
#define PROGRAM_ARCHIVE_SUFFIX ".cpio"
#define ANONYMOUS_TRACE_SUFFIX ".anon"

void boot_module_name(const struct boot_module *m, char *buf, size_t size)
{
	const char *name = m->cmdline, *end = m->cmdline;
	for (; *end && *end != ' '; end++)
		if (*end == '/')
			name = end + 1;
	size_t n = (size_t)(end - name);
	if (!size)
		return;
	if (n >= size)
		n = size - 1;
	memcpy(buf, name, n);
	buf[n] = '\0';
}

static bool name_ends_in(const struct boot_module *m, const char *suffix)
{
	char name[sizeof(m->cmdline)];
	boot_module_name(m, name, sizeof(name));
	size_t n = strlen(name), k = strlen(suffix);
	return n > k && !strcmp(name + n - k, suffix);
}

bool boot_module_is_profile_config(const struct boot_module *m)
{
	return name_ends_in(m, PROFILE_CONFIG_SUFFIX);
}

bool boot_module_is_program_archive(const struct boot_module *m)
{
	return name_ends_in(m, PROGRAM_ARCHIVE_SUFFIX);
}

bool boot_module_is_anonymous_trace(const struct boot_module *m)
{
	return name_ends_in(m, ANONYMOUS_TRACE_SUFFIX);
}
