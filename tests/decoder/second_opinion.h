/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A second decoder for check-decoder and the decode benchmark: Zydis
 * (zydis_glue.c) when the machine has it, nothing (no_second_opinion.c)
 * otherwise. The Makefile links one of the two.
 */
#ifndef SECOND_OPINION_H
#define SECOND_OPINION_H

#include <stddef.h>
#include <stdint.h>

/* Length of the instruction at code[0..avail-1], or -1 (invalid, or no second decoder). */
int second_opinion_length(const uint8_t *code, size_t avail);

/* Its name, or NULL when there is none. */
const char *second_opinion_name(void);

#endif
