/* SPDX-License-Identifier: BSD-2-Clause */
/* Sequentially consistent atomic operations on plain integers (GCC builtins). */
#ifndef SCION_ATOMIC_H
#define SCION_ATOMIC_H

#define atomic_load(p)          __atomic_load_n((p), __ATOMIC_SEQ_CST)
#define atomic_store(p, v)      __atomic_store_n((p), (v), __ATOMIC_SEQ_CST)
#define atomic_add(p, v)        __atomic_add_fetch((p), (v), __ATOMIC_SEQ_CST)
#define atomic_sub(p, v)        __atomic_sub_fetch((p), (v), __ATOMIC_SEQ_CST)
#define atomic_fetch_add(p, v)  __atomic_fetch_add((p), (v), __ATOMIC_SEQ_CST)
#define atomic_xchg(p, v)       __atomic_exchange_n((p), (v), __ATOMIC_SEQ_CST)
#define atomic_cmpxchg(p, expected_ptr, desired) \
	__atomic_compare_exchange_n((p), (expected_ptr), (desired), false, \
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)

#endif
