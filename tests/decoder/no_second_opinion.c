// SPDX-License-Identifier: BSD-2-Clause
/* check-decoder without a second decoder (Zydis is not installed). */
#include "second_opinion.h"

int second_opinion_length(const uint8_t *code, size_t avail)
{
	(void)code;
	(void)avail;
	return -1;
}

const char *second_opinion_name(void)
{
	return NULL;
}
