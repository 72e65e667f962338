/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Host unit tests. Each test registers itself in the host_tests linker
 * section; main.c runs them all (or those named on the command line) and
 * prints `host NAME: OK` / `host NAME: FAILED: why`, then
 * `N passed, M failed`.
 *
 *   HOST_TEST(glob_star) { CHECK(t, glob_match("a*", "abc"), "a* vs abc"); }
 *
 * Kernel panics in code under test longjmp back to EXPECT_PANIC.
 */
#ifndef HOST_TEST_H
#define HOST_TEST_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct host_test_ctx {
	const char *name;
	bool failed;
	char why[256];
};

struct host_test {
	const char *name;
	void (*fn)(struct host_test_ctx *t);
};

#define HOST_TEST(tname) \
	static void tname(struct host_test_ctx *t); \
	static const struct host_test host_test_##tname \
		__attribute__((section("host_tests"), used, aligned(16))) = { #tname, tname }; \
	static void tname(struct host_test_ctx *t)

void host_fail(struct host_test_ctx *t, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Record a failure (the first one is reported) and go on. */
#define CHECK(t, cond, ...) do { \
	if (!(cond)) \
		host_fail((t), __FILE__, __LINE__, __VA_ARGS__); \
} while (0)

/* Record a failure and leave the test. */
#define REQUIRE(t, cond, ...) do { \
	if (!(cond)) { \
		host_fail((t), __FILE__, __LINE__, __VA_ARGS__); \
		return; \
	} \
} while (0)

/* Panics in kernel code land here while armed. */
extern jmp_buf *host_panic_target;
extern char host_last_panic[512];

/* Run stmt; true if it called panic(). */
#define EXPECT_PANIC(stmt) ({ \
	jmp_buf jb_; \
	jmp_buf *prev_ = host_panic_target; \
	bool panicked_ = false; \
	host_panic_target = &jb_; \
	if (setjmp(jb_) == 0) { \
		stmt; \
	} else { \
		panicked_ = true; \
	} \
	host_panic_target = prev_; \
	panicked_; \
})

/* Messages kernel code printed with printk since the last call (cleared on read). */
const char *host_printk_take(void);

/*
 * A fresh physical-memory arena of size bytes for pmm/kmalloc/multiboot
 * tests; frees the previous one.
 */
void host_arena_reset(size_t size);

/* A fresh arena of npages frames with the page allocator and kmalloc over it (frame 0 reserved). */
void host_heap_reset(uint64_t npages);

#endif
