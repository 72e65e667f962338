// SPDX-License-Identifier: BSD-2-Clause
/*
 * The definitions behind scion/sdt_types.h: one empty function per
 * probe, whose parameter types reach kernel.ctf for dtc's args[]. The
 * final link discards them. The structs the parameters point to are
 * only declared here; the CTF link resolves each to its one definition
 * in the units that define it.
 */
#include <scion/sdt.h>

#define SDT_TYPES_DEFINE_X_(provider, name, ...) SDT_TYPES_DEFINE(provider, name, __VA_ARGS__)
SDT_KERNEL_PROBES(SDT_TYPES_DEFINE_X_)
