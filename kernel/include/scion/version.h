/* SPDX-License-Identifier: BSD-2-Clause */
/* The kernel's version, generated at build time (build/version.c). */
#ifndef SCION_VERSION_H
#define SCION_VERSION_H

extern const char scion_version[];	/* git describe, e.g. "v0.1-12-gabcdef" */
extern const char scion_build_info[];	/* compiler and build date */

#endif
