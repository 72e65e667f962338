// SPDX-License-Identifier: BSD-2-Clause
/*
 * Code shaped like a graft, for tests/reloc/check_relocs.py: calls to
 * functions it does not define (the kernel's exports), loads and stores
 * of data it does not define, addresses taken into its own data, a
 * string table, a function pointer table and static data of its own.
 * Compiled for each port and code model; every relocation the compiler
 * emits is applied by the port's loader and by GNU ld, and compared.
 */
#include <stdint.h>

extern int export_counter;
extern uint64_t export_table[16];
extern const char export_name[];
extern void export_log(const char *what, uint64_t v);
extern int export_lock(void *lock);
extern void export_unlock(void *lock);

static uint64_t own_counts[8];
static const char *const own_names[] = { "first", "second", "third", "fourth" };
static int own_state = 3;

static int step(int x);
static int (*const own_steps[])(int) = { step, step };

static int step(int x)
{
	return x * 3 + own_state;
}

uint64_t *own_pointers[] = { &own_counts[0], &own_counts[7], export_table, &export_table[15] };

int graft_method(int which, void *lock)
{
	if (export_lock(lock))
		return -1;
	export_counter++;
	own_counts[which & 7] += export_table[which & 15];
	export_log(own_names[which & 3], own_counts[which & 7]);
	export_log(export_name, (uint64_t)(uintptr_t)own_pointers[which & 3]);
	int r = own_steps[which & 1](which);
	export_unlock(lock);
	return r;
}

int graft_event(int v)
{
	switch (v) {
	case 0: return step(1);
	case 1: return export_counter;
	case 2: return (int)export_table[3];
	case 3: return own_state;
	case 4: return (int)own_counts[2];
	case 5: return export_name[2];
	default: return -v;
	}
}
