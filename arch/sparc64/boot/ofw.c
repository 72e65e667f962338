// SPDX-License-Identifier: BSD-2-Clause
/*
 * The Open Firmware client interface, used only while booting: the boot
 * arguments (the `bootargs` property of /chosen, which QEMU's -append
 * fills in) and the RAM regions (/memory's `reg`). Every call goes
 * through the cif pointer OpenBIOS passed in
 * %o4: one array of 64-bit cells (service name, number of arguments,
 * number of returns, the arguments, then room for the returns).
 * Invariant: called before sparc64_trap_init replaces OpenBIOS's trap
 * table, never after (the firmware relies on its own TLB miss and
 * window handlers).
 */
#include <scion/compiler.h>
#include <scion/string.h>

#include "../sparc64_internal.h"

typedef int (*ofw_entry_t)(uint64_t *args);

static uint64_t ofw_call(void *cif, const char *service, int nargs, int nret,
			 const uint64_t *in, uint64_t *out)
{
	uint64_t cells[3 + 8] = { (uint64_t)(uintptr_t)service, (uint64_t)nargs, (uint64_t)nret };

	for (int i = 0; i < nargs; i++)
		cells[3 + i] = in[i];
	if (((ofw_entry_t)cif)(cells) != 0)
		return (uint64_t)-1;
	for (int i = 0; i < nret; i++)
		out[i] = cells[3 + nargs + i];
	return 0;
}

int ofw_bootargs(void *cif, char *buf, size_t size)
{
	uint64_t in[4], out[1];

	buf[0] = '\0';
	if (!cif || size < 2)
		return -1;
	in[0] = (uint64_t)(uintptr_t)"/chosen";
	if (ofw_call(cif, "finddevice", 1, 1, in, out) || out[0] == 0 || out[0] == (uint64_t)-1 ||
	    (uint32_t)out[0] == 0xffffffffu)
		return -1;
	in[0] = out[0];
	in[1] = (uint64_t)(uintptr_t)"bootargs";
	in[2] = (uint64_t)(uintptr_t)buf;
	in[3] = size - 1;
	if (ofw_call(cif, "getprop", 4, 1, in, out))
		return -1;
	int64_t len = (int64_t)out[0];
	if (len < 0 || (uint32_t)len == 0xffffffffu)
		len = 0;
	if ((uint64_t)len > size - 1)
		len = (int64_t)size - 1;
	buf[len] = '\0';
	return (int)strlen(buf);
}

/*
 * ofw_memory - the physical RAM regions: /memory's `reg` property, pairs
 * of (address, size) in two cells each (sun4u's root node has
 * #address-cells = #size-cells = 2), which on this big-endian machine
 * read directly as 64-bit words. The whole of RAM, OpenBIOS's own pages
 * included: the kernel never calls the firmware after trap_init.
 * Return value: the number of regions stored (at most max), or -1.
 */
int ofw_memory(void *cif, uint64_t (*regions)[2], int max)
{
	static uint64_t reg[16];
	uint64_t in[4], out[1];

	if (!cif)
		return -1;
	in[0] = (uint64_t)(uintptr_t)"/memory";
	if (ofw_call(cif, "finddevice", 1, 1, in, out) || out[0] == 0 || out[0] == (uint64_t)-1 ||
	    (uint32_t)out[0] == 0xffffffffu)
		return -1;
	in[0] = out[0];
	in[1] = (uint64_t)(uintptr_t)"reg";
	in[2] = (uint64_t)(uintptr_t)reg;
	in[3] = sizeof(reg);
	if (ofw_call(cif, "getprop", 4, 1, in, out))
		return -1;
	int64_t len = (int64_t)out[0];
	if (len <= 0 || (uint32_t)len == 0xffffffffu || len > (int64_t)sizeof(reg))
		return -1;
	int n = 0;
	for (int i = 0; i + 1 < (int)(len / 8) && n < max; i += 2, n++) {
		regions[n][0] = reg[i];
		regions[n][1] = reg[i + 1];
	}
	return n;
}
