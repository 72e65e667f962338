/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Shell-style patterns: * (any run), ? (any one character), [abc], [a-z]
 * and [!a-z]; \ quotes the next character. Used by `syms`, test and
 * benchmark selection, and probe names.
 */
#ifndef SCION_GLOB_H
#define SCION_GLOB_H

#include <scion/compiler.h>

/* True when the whole of s matches pattern. Runs in O(len(pattern) * len(s)). */
bool glob_match(const char *pattern, const char *s);

/*
 * glob_list_match - match against a comma-separated list of patterns,
 * where a pattern starting with '!' excludes. s is selected when it
 * matches some positive pattern (or the list has none) and no negative.
 */
bool glob_list_match(const char *list, const char *s);

#endif
