// SPDX-License-Identifier: BSD-2-Clause
/*
 * Guarded versions from the shell: a version already in memory (a kernel
 * function compiled as another function's clone, or one an object load
 * brought, object.c) installed behind a guard on an argument, a thread
 * or a process:
 *   codeadapt specialize FUNC argN=K VERSION [tid=T | pid=P]
 *   codeadapt version FUNC VERSION [tid=T | pid=P]
 * VERSION is a kernel symbol; its memory is the kernel's, so nothing is
 * released when the adaptation goes. The version must take the
 * function's arguments in the same registers and return what it returns
 * for every call the guard lets through (a clone compiled from the
 * function's own source with the argument constant does: the host's
 * `scion specialize` builds those).
 */
#include <scion/codeadapt.h>
#include <scion/symtab.h>
#include <scion/printk.h>
#include <scion/string.h>
#include <scion/errno.h>

/* The kernel function called name: its entry and end; false (and a line) when none. */
static bool kernel_function(const char *name, uint64_t *addr, uint64_t *end)
{
	const struct ksym *s = symtab_lookup_name(&kernel_symtab, name);

	if (!s || !s->size) {
		printk("codeadapt: no kernel function %s\n", name);
		return false;
	}
	*addr = s->addr;
	*end = s->addr + s->size;
	return true;
}

/* argN=K: the argument and its value. */
static bool parse_arg_guard(const char *word, int *arg, uint64_t *value)
{
	uint64_t n;
	const char *eq = strchr(word, '=');

	if (strncmp(word, "arg", 3) || !eq || eq == word + 3 || eq - word > 5)
		return false;
	char digits[3] = { 0 };
	memcpy(digits, word + 3, (size_t)(eq - word - 3));
	if (parse_u64(digits, &n, false) || n > 9)
		return false;
	*arg = (int)n;
	/* A negative value is the two's complement word the register holds. */
	if (eq[1] == '-') {
		if (parse_u64(eq + 2, value, false))
			return false;
		*value = (uint64_t)-(int64_t)*value;
		return true;
	}
	return !parse_u64(eq + 1, value, false);
}

/* tid=T or pid=P: the thread or process whose calls the guard lets through. */
static bool parse_scope(const char *word, uint64_t *tid, int *pid)
{
	uint64_t n;

	if (!strncmp(word, "tid=", 4) && !parse_u64(word + 4, &n, false) && n) {
		*tid = n;
		return true;
	}
	if (!strncmp(word, "pid=", 4) && !parse_u64(word + 4, &n, false) && n && n <= INT32_MAX) {
		*pid = (int)n;
		return true;
	}
	printk("codeadapt: '%s' is neither tid=T nor pid=P\n", word);
	return false;
}

static int install(enum codeadapt_kind kind, const char *function, const char *version, int arg,
		   uint64_t value, uint64_t tid, int pid)
{
	struct codeadapt_spec s = { .kind = kind, .arg = arg, .value = value, .tid = tid,
				    .pid = pid, .source = version };
	uint64_t fn_end;
	char err[160];

	if (!kernel_function(function, &s.function, &fn_end) ||
	    !kernel_function(version, &s.version_start, &s.version_end))
		return -ENOENT;
	s.version = s.version_start;
	if (s.version == s.function) {
		printk("codeadapt: %s cannot be its own version\n", function);
		return -EINVAL;
	}
	int id = codeadapt_install(&s, err, sizeof(err));
	if (id < 0) {
		printk("%s\n", err);
		return id;
	}
	printk("codeadapt: %d: %s -> %s installed\n", id, function, version);
	return 0;
}

static int cmd_specialize(int argc, char **argv)
{
	int arg, pid = 0;
	uint64_t value, tid = 0;

	if (argc < 4 || argc > 5) {
		printk("codeadapt: usage: codeadapt specialize FUNC argN=K VERSION "
		       "[tid=T|pid=P]\n");
		return -EINVAL;
	}
	if (!parse_arg_guard(argv[2], &arg, &value)) {
		printk("codeadapt: '%s' is not argN=K\n", argv[2]);
		return -EINVAL;
	}
	if (argc == 5 && !parse_scope(argv[4], &tid, &pid))
		return -EINVAL;
	return install(CODEADAPT_SPECIALIZE, argv[1], argv[3], arg, value, tid, pid);
}
CODEADAPT_COMMAND(specialize, "FUNC argN=K VERSION [tid=T|pid=P]", cmd_specialize);

static int cmd_version(int argc, char **argv)
{
	uint64_t tid = 0;
	int pid = 0;

	if (argc < 3 || argc > 4) {
		printk("codeadapt: usage: codeadapt version FUNC VERSION [tid=T|pid=P]\n");
		return -EINVAL;
	}
	if (argc == 4 && !parse_scope(argv[3], &tid, &pid))
		return -EINVAL;
	return install(CODEADAPT_VERSION, argv[1], argv[2], -1, 0, tid, pid);
}
CODEADAPT_COMMAND(version, "FUNC VERSION [tid=T|pid=P]", cmd_version);
