/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Compiler helpers shared by every kernel file: attributes, section
 * placement for boot-only code and linker tables, and the READ_ONCE /
 * WRITE_ONCE accessors used for data shared between CPUs without a lock.
 */
#ifndef SCION_COMPILER_H
#define SCION_COMPILER_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#ifndef __used
#define __used          __attribute__((used))
#endif
#ifndef __unused
#define __unused        __attribute__((unused))
#endif
#ifndef __noreturn
#define __noreturn      __attribute__((noreturn))
#endif
#ifndef __packed
#define __packed        __attribute__((packed))
#endif
#ifndef __aligned
#define __aligned(n)    __attribute__((aligned(n)))
#endif
#ifndef __section
#define __section(s)    __attribute__((section(s)))
#endif
#ifndef __noinline
#define __noinline      __attribute__((noinline))
#define __cold          __attribute__((cold))
#endif
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#ifndef __printf
#define __printf(a, b)  __attribute__((format(printf, a, b)))
#endif
#ifndef __weak
#define __weak          __attribute__((weak))
#endif

/*
 * Code the probe machinery runs while handling a probe hit (trap entry,
 * the breakpoint path, dispatch): probes there would recurse, so they are
 * refused. Whole directories (kernel/probe, kernel/poke) and the arch's
 * probe files (ARCH_NOPROBE_SRCS in arch/<arch>/arch.mk) are moved into
 * this section by the Makefile; single functions elsewhere use __noprobe.
 */
#define __noprobe       __section(".text.noprobe") __noinline

/* Code and data used only while booting; see the linker script. */
#define __init          __section(".init.text") __noinline
#define __initdata      __section(".init.data")

#define likely(x)       __builtin_expect(!!(x), 1)
#define unlikely(x)     __builtin_expect(!!(x), 0)

#define ARRAY_SIZE(a)   (sizeof(a) / sizeof((a)[0]))
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#define ALIGN_UP(x, a)   (((x) + ((a) - 1)) & ~((__typeof__(x))(a) - 1))
#define ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a) - 1))
#define MIN(a, b)       ((a) < (b) ? (a) : (b))
#define MAX(a, b)       ((a) > (b) ? (a) : (b))

#define barrier()       __asm__ __volatile__("" ::: "memory")
#define READ_ONCE(x)    (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))

#define STRINGIFY_(x)   #x
#define STRINGIFY(x)    STRINGIFY_(x)
#define CONCAT_(a, b)   a##b
#define CONCAT(a, b)    CONCAT_(a, b)
#define UNIQUE(prefix)  CONCAT(prefix, __COUNTER__)

/*
 * Linker tables: an entry is a static const object placed in a named
 * section; the linker script brackets each section with start and end
 * symbols, so tables of tests, commands and boot options are never kept
 * by hand.
 */
#define LINKER_TABLE_ENTRY(table) \
	__used __section("table." #table) __aligned(8)
#define LINKER_TABLE_DECLARE(type, table) \
	extern const type __start_table_##table[]; \
	extern const type __stop_table_##table[]
#define LINKER_TABLE_FOREACH(type, table, it) \
	for (const type *it = __start_table_##table; it < __stop_table_##table; it++)
#define LINKER_TABLE_COUNT(table) \
	((size_t)(__stop_table_##table - __start_table_##table))

#endif
