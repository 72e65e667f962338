// SPDX-License-Identifier: BSD-2-Clause
/*
 * Versions from code objects (scion/codeadapt.h): the host compiles a
 * clone of a kernel function from the kernel's own source (with an
 * argument constant, or another body for one process) into an ELF
 * relocatable whose manifest's point names the function; this file
 * links it into the graft area (graft_code_load) and installs it. The
 * object's memory belongs to the adaptation and is freed once drained.
 */
#include <scion/codeadapt.h>
#include <scion/graft.h>
#include <scion/symtab.h>
#include <scion/mm.h>
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>

static void release_object(void *owner)
{
	struct graft_code *c = owner;
	graft_code_free(c);
	kfree(c);
}

int codeadapt_install_object(const void *image, size_t size, const char *function,
			     enum codeadapt_kind kind, int arg, unsigned arg_bytes, uint64_t value,
			     int pid, char *err, size_t errlen)
{
	struct graft_code *c = kzalloc(sizeof(*c));

	if (!c) {
		snprintf(err, errlen, "codeadapt: out of memory");
		return -ENOMEM;
	}
	int rc = graft_code_load(image, size, c, err, errlen);
	if (rc) {
		kfree(c);
		return rc;
	}
	if (strcmp(c->point, function)) {
		snprintf(err, errlen, "codeadapt: the object is a version of %s, not of %s",
			 c->point, function);
		release_object(c);
		return -EINVAL;
	}
	const struct ksym *fn = symtab_lookup_name(&kernel_symtab, c->point);
	if (!fn) {
		snprintf(err, errlen, "codeadapt: the object stands for %s, which is no kernel "
			 "function", c->point);
		release_object(c);
		return -ENOENT;
	}
	struct codeadapt_spec s = {
		.kind = kind, .function = fn->addr, .version = c->entry,
		.version_start = c->text, .version_end = c->text + c->text_size,
		.arg = arg, .arg_bytes = arg_bytes, .value = value, .pid = pid, .source = c->name,
		.release = release_object, .owner = c,
	};
	return codeadapt_install(&s, err, errlen);
}
