/* SPDX-License-Identifier: BSD-2-Clause */
/* Shared by the in-kernel tests that install built-in grafts (test_graft.c, test_bcache.c). */
#ifndef TESTS_GRAFT_TEST_H
#define TESTS_GRAFT_TEST_H

#include <scion/ktest.h>
#include <scion/graft.h>

/*
 * ktest_graft_install - the kernel function fn as a built-in graft named
 * name, installed at point for every thread (tid 0) or thread tid.
 * A point still at its default budget gets a budget of 1 s (a loaded
 * host must not abort what the test expects to commit); a test that set
 * a budget keeps it.
 * Return value: the graft, or NULL with the test failed (and nothing left
 * behind). The caller removes and destroys it.
 */
struct graft *ktest_graft_install(struct ktest_ctx *t, const char *name, const char *point,
				  void *fn, uint64_t tid);

#endif
