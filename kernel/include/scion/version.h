/* SPDX-License-Identifier: BSD-2-Clause */
/* The kernel's version, generated at build time (build/version.c). */
#ifndef SCION_VERSION_H
#define SCION_VERSION_H

#include <stdint.h>

extern const char scion_version[];	/* git describe, e.g. "v0.1-12-gabcdef" */
extern const char scion_build_info[];	/* compiler and build date */
/* The id of this build's C types (kernel.ctf, tools/gen_ctf_id.py): trace programs carry it. */
extern const uint64_t kernel_ctf_id;

#endif
