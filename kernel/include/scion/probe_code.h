/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Memory for another version of a kernel function (a code adaptation's,
 * scion/codeadapt.h): a patch in the probe patch arenas, so it lies
 * within call reach of the kernel text (its calls stay rel32 calls) and
 * is freed by the patch heap's rule (only once no CPU's pc and no stack
 * word points into it). Its header maps each piece of code back to the
 * original instruction it stands for, so probe_patch_origin, fault
 * reports and backtraces inside the copy name the function's own lines.
 * (kernel/probe/patch_copy.c.)
 */
#ifndef SCION_PROBE_CODE_H
#define SCION_PROBE_CODE_H

#include <scion/probe_arch.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most bytes of code a copy may hold (its header and map take the rest of its patch). */
#define PROBE_CODE_MAX 12288u

struct probe_code;

/* Whether code_bytes of code and nmap origins fit one copy's patch. */
bool probe_code_fits(size_t code_bytes, unsigned nmap);

/*
 * probe_code_alloc - Overview: reserve room for a copy of the function
 *   at `function`: code_bytes of code after a header with nmap origins.
 * Arguments: function, the original's entry (map offsets count from it);
 *   runs_at, set to the address the code's first byte will run at.
 * Return value: the reservation; NULL when there is no room or the code
 *   and its map would not fit a patch (PROBE_CODE_MAX and below).
 * Caller's context: thread, may sleep; takes probe_mutex.
 */
struct probe_code *probe_code_alloc(uint64_t function, size_t code_bytes, unsigned nmap,
				    uint64_t *runs_at);

/*
 * probe_code_fill - Overview: write the code and its map into c, before
 *   anything can jump to it (the caller publishes the entry after).
 * Arguments: code, len bytes (at most what was reserved); map[0 .. nmap-1]
 *   in code order: map[i].code is an offset from runs_at, map[i].orig
 *   one from the function's entry.
 * Caller's context: thread, may sleep; takes probe_mutex.
 */
void probe_code_fill(struct probe_code *c, const void *code, size_t len,
		     const struct probe_patch_origin *map, unsigned nmap);

/*
 * probe_code_free - give c back: retired, and freed once nothing runs in
 *   it. Caller's context: thread, may sleep; takes probe_mutex.
 */
void probe_code_free(struct probe_code *c);

#endif
