/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Executable memory for the DIF compiler in host processes (unit tests,
 * the D oracle, fuzz targets): scion/dif_jit.h's dif_jit_code_alloc and
 * dif_jit_code_free over mmap (tests/host/host_jit_mem.c).
 */
#ifndef HOST_JIT_H
#define HOST_JIT_H

#include <stdbool.h>
#include <stddef.h>

/* false: dif_jit_code_alloc gives nothing, so every program runs interpreted. */
extern bool host_jit_enabled;

/* Native programs allocated and not yet freed; allocated since the process started. */
size_t host_jit_live(void);
size_t host_jit_compiled(void);

#endif
