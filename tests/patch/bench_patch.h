/* SPDX-License-Identifier: BSD-2-Clause */
/* What the host patch benchmark's C (bench_patch.c) and assembly (bench_targets.S) share. */
#ifndef BENCH_PATCH_H
#define BENCH_PATCH_H

#define BENCH_REGION 8		/* bytes of bench_target a jump probe detours */

#endif
