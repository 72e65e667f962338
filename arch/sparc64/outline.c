// SPDX-License-Identifier: BSD-2-Clause
/*
 * Outlining on sparc64 (scion/outline_arch.h): not built yet. A copy of
 * a SPARC function would have to re-target its delay-slot branches and
 * keep call's %o7 pointing into the copy; until that exists every
 * function is refused, with the one line the shell prints.
 */
#include <scion/outline_arch.h>
#include <scion/errno.h>

int arch_outline_build(const struct cfg_function *f, const uint32_t *order,
		       struct outline_emit *e, const char **why)
{
	(void)f;
	(void)order;
	(void)e;
	*why = "outlining is not built for sparc64 yet";
	return -ENOSYS;
}
