// SPDX-License-Identifier: BSD-2-Clause
/*
 * Host tests of pointer dereference in the D code generator: *(T *)addr
 * for every integer width, signed or not (sign- and zero-extension as C
 * converts), pointers to pointers, pointer variables, pointer
 * arithmetic scaled by the pointee's size, and the faults a bad load
 * becomes (NULL: invalid address; misaligned: invalid alignment; past
 * the end of readable memory: invalid address), with the faulting
 * address. The programs run in the fake kernel of d_cg_helpers.c over a
 * small block of test memory.
 */
#include <stdio.h>
#include <string.h>
#include "host_test.h"
#include "d_cg_helpers.h"

/* The memory D reads: word 0 has every sign bit set; word 2 points at word 1. */
static uint64_t memory[4];

static void memory_init(void)
{
	memory[0] = 0x80fffffffffffff0ull;
	memory[1] = 1236;
	memory[2] = (uint64_t)(uintptr_t)&memory[1];
	memory[3] = 0x0102030405060708ull;
}

/* What one load did: rc 0 with its value, or -1 with the fault (or a compile error). */
struct load_result {
	int rc;
	uint64_t value;
	struct dif_fault fault;
	char why[200];			/* the compile error or fault, for messages */
};

/* Run `BEGIN { trace(expr); }` with arg0 = the memory's address. */
static struct load_result run_load(const char *expr)
{
	struct load_result r = { .rc = -1 };
	char src[256];
	snprintf(src, sizeof(src), "BEGIN { trace(%s); }", expr);
	struct dt_program *p;
	struct dt_object *obj = d_generate(src, &p);
	if (!obj) {
		d_first_error(p, r.why, sizeof(r.why));
		dt_program_free(p);
		return r;
	}
	struct fake_kernel k;
	fake_kernel_init(&k);
	k.memory = memory;
	k.memory_size = sizeof(memory);
	k.builtin[DIF_VAR_ARG0] = (uint64_t)(uintptr_t)memory;
	r.rc = fake_fire(&k, obj, 0);
	r.value = k.nrecords ? k.records[0].value : 0;
	r.fault = k.fault;
	snprintf(r.why, sizeof(r.why), "%s", r.rc ? dif_fault_name(k.fault.kind) : "no fault");
	fake_kernel_reset(&k);
	dt_program_free(p);
	return r;
}

HOST_TEST(d_cg_deref_widths_and_signedness)
{
	static const struct {
		const char *expr;
		uint64_t want;
	} cases[] = {
		{ "*(int8_t *)arg0", (uint64_t)-16 },
		{ "*(char *)arg0", (uint64_t)-16 },
		{ "*(uint8_t *)arg0", 0xf0 },
		{ "*(unsigned char *)arg0", 0xf0 },
		{ "*(short *)arg0", (uint64_t)-16 },
		{ "*(uint16_t *)arg0", 0xfff0 },
		{ "*(int *)arg0", (uint64_t)-16 },
		{ "*(unsigned *)arg0", 0xfffffff0 },
		{ "*(int32_t *)(arg0 + 4)", 0xffffffff80ffffffull },
		{ "*(uint32_t *)(arg0 + 4)", 0x80ffffff },
		{ "*(int8_t *)(arg0 + 7)", (uint64_t)(int64_t)(int8_t)0x80 },
		{ "*(long *)arg0", 0x80fffffffffffff0ull },
		{ "*(unsigned long long *)arg0", 0x80fffffffffffff0ull },
		{ "*(uint64_t *)(arg0 + 24)", 0x0102030405060708ull },
		{ "*(uint16_t *)(arg0 + 24)", 0x0708 },
		/* a pointer to a pointer, and C's scaling of pointer arithmetic */
		{ "**(int64_t **)(arg0 + 16)", 1236 },
		{ "*((int64_t *)arg0 + 1)", 1236 },
		{ "*(1 + (int64_t *)arg0)", 1236 },
		{ "*((uint32_t *)(arg0 + 32) - 1)", 0x01020304 },
		{ "*((uint32_t *)(arg0 + 32) - 2)", 0x05060708 },
		{ "(int64_t *)arg0 + 3 - (int64_t *)arg0", 3 },
		{ "(char *)(arg0 + 5) - (char *)arg0", 5 },
		{ "(uintptr_t)((int16_t *)arg0 + 3) - arg0", 6 },
		/* a loaded narrow value converts as C's would */
		{ "(uint32_t)*(int8_t *)arg0", 0xfffffff0 },
		{ "*(int8_t *)arg0 < 0", 1 },
		{ "*(uint8_t *)arg0 < 0", 0 },
	};
	memory_init();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct load_result r = run_load(cases[i].expr);
		CHECK(t, r.rc == 0 && r.value == cases[i].want, "%s: %s, got %#llx, want %#llx",
		      cases[i].expr, r.why, (unsigned long long)r.value,
		      (unsigned long long)cases[i].want);
	}
}

HOST_TEST(d_cg_deref_bad_addresses_fault)
{
	static const struct {
		const char *expr;
		enum dif_fault_kind kind;
		bool relative;			/* addr is an offset into memory[] */
		uint64_t addr;			/* where the load faulted */
	} cases[] = {
		{ "*(int *)0", DIF_FAULT_BADADDR, false, 0 },
		{ "*(uint64_t *)(arg0 - arg0 + 8)", DIF_FAULT_BADADDR, false, 8 },
		{ "*(int *)(arg0 + 2)", DIF_FAULT_ALIGN, true, 2 },
		{ "*(uint64_t *)(arg0 + 4)", DIF_FAULT_ALIGN, true, 4 },
		{ "*(short *)(arg0 + 1)", DIF_FAULT_ALIGN, true, 1 },
		{ "*(uint64_t *)(arg0 + 32)", DIF_FAULT_BADADDR, true, 32 },
		{ "*(uint32_t *)(arg0 + 30)", DIF_FAULT_ALIGN, true, 30 },
		{ "**(int **)(arg0 + 8)", DIF_FAULT_BADADDR, false, 1236 },
	};
	memory_init();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct load_result r = run_load(cases[i].expr);
		uint64_t want = cases[i].addr + (cases[i].relative ? (uint64_t)(uintptr_t)memory : 0);
		CHECK(t, r.rc == -1 && r.fault.kind == cases[i].kind && r.fault.addr == want,
		      "%s: rc %d, %s at %#llx, want %s at %#llx", cases[i].expr, r.rc, r.why,
		      (unsigned long long)r.fault.addr, dif_fault_name(cases[i].kind),
		      (unsigned long long)want);
	}
}

HOST_TEST(d_cg_pointer_variables)
{
	memory_init();
	struct dt_program *p;
	struct dt_object *obj = d_generate(
		"int64_t *g; BEGIN { g = (int64_t *)arg0; self->p = g + 1; this->pp = "
		"(int64_t **)(arg0 + 16); trace(*g == (int64_t)0x80fffffffffffff0); "
		"trace(*self->p); trace(**this->pp); trace(*this->pp == self->p); "
		"trace(g != 0); trace(!g); }"
		"BEGIN /(int *)arg1/ { trace(1); }", &p);
	char why[200];
	REQUIRE(t, obj, "%s", d_first_error(p, why, sizeof(why)));
	struct fake_kernel k;
	fake_kernel_init(&k);
	k.memory = memory;
	k.memory_size = sizeof(memory);
	k.builtin[DIF_VAR_ARG0] = (uint64_t)(uintptr_t)memory;
	CHECK(t, fake_fire(&k, obj, 0) == 0, "fault %s", dif_fault_name(k.fault.kind));
	static const uint64_t want[] = { 1, 1236, 1236, 1, 1, 0 };
	CHECK(t, k.nrecords == 6, "%u records", k.nrecords);
	for (unsigned i = 0; i < k.nrecords && i < 6; i++)
		CHECK(t, k.records[i].value == want[i], "record %u: %llu, want %llu", i,
		      (unsigned long long)k.records[i].value, (unsigned long long)want[i]);
	k.builtin[DIF_VAR_ARG1] = 0;
	CHECK(t, fake_fire(&k, obj, 1) == 0 && !k.fired, "a NULL pointer predicate was true");
	k.builtin[DIF_VAR_ARG1] = 8;
	CHECK(t, fake_fire(&k, obj, 1) == 0 && k.fired, "a non-NULL pointer predicate was false");
	fake_kernel_reset(&k);
	dt_program_free(p);
}
