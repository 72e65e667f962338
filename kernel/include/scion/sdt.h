/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Statically defined tracing: a named probe site compiled into the code.
 *
 *   SDT_PROBE2(thread__switch, prev->tid, next->tid);
 *
 * While disabled a site is one no-op instruction (the size of a jump, so
 * enabling it needs no analysis of the code around it) and its arguments
 * sit in registers; nothing else. Each site is recorded in a linker table;
 * the sdt provider names it sdt:kernel:<enclosing function>:<name>, with
 * a double underscore in name shown as '-' (thread__switch is
 * thread-switch), and all sites of one name in one function form one
 * probe. Enabling patches the no-op into a jump to a code patch that
 * calls the consumers; probe handlers read the arguments with
 * trap_frame_arg(hit->regs, n).
 *
 * A subsystem that is a provider of its own names its sites with the
 * _P forms: SDT_PROBE5_P(monitor, redflag, ...) is the probe
 * monitor:kernel:<enclosing function>:redflag (`monitor:::redflag` in
 * D); the site's table entry is named "monitor:redflag".
 */
#ifndef SCION_SDT_H
#define SCION_SDT_H

#include <scion/compiler.h>
#include <arch/sdt.h>

struct sdt_site {
	uint64_t addr;		/* the no-op */
	const char *name;	/* as written: thread__switch, or provider:name */
};

LINKER_TABLE_DECLARE(struct sdt_site, sdt_sites);

#define SDT_PROBE0(name)                 ARCH_SDT_PROBE0(#name)
#define SDT_PROBE1(name, a0)             ARCH_SDT_PROBE1(#name, a0)
#define SDT_PROBE2(name, a0, a1)         ARCH_SDT_PROBE2(#name, a0, a1)
#define SDT_PROBE3(name, a0, a1, a2)     ARCH_SDT_PROBE3(#name, a0, a1, a2)
#define SDT_PROBE0_P(provider, name) ARCH_SDT_PROBE0(#provider ":" #name)
#define SDT_PROBE1_P(provider, name, a0) ARCH_SDT_PROBE1(#provider ":" #name, a0)
#define SDT_PROBE2_P(provider, name, a0, a1) ARCH_SDT_PROBE2(#provider ":" #name, a0, a1)
#define SDT_PROBE5_P(provider, name, a0, a1, a2, a3, a4) \
	ARCH_SDT_PROBE5(#provider ":" #name, a0, a1, a2, a3, a4)
#define SDT_PROBE6_P(provider, name, a0, a1, a2, a3, a4, a5) \
	ARCH_SDT_PROBE6(#provider ":" #name, a0, a1, a2, a3, a4, a5)

#endif
