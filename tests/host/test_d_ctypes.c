// SPDX-License-Identifier: BSD-2-Clause
/*
 * Host tests of D's C types (dt_ctf.c, dt_check_ctype.c, dt_cg_field.c):
 * a D program declares the same struct as this file does in C, and
 *   - sizeof and offsetof of every member agree with gcc's (the layout
 *     rules: alignment, bit-fields packed into their units, unions,
 *     arrays, nested structs, tail padding);
 *   - reading every member through a pointer (->, ., [] with constant and
 *     variable indexes, bit-fields signed and unsigned, a char array as a
 *     string, a pointer member followed, a union, an enum) gives what C
 *     stored, run in the fake kernel over this file's memory;
 *   - storing into every kind of member of alloca's memory (and bcopy
 *     into it) writes what C would, and memory that is only readable is
 *     never written;
 *   - fixed-size array and struct variables keep (globals) or drop
 *     (clause-locals) their contents between firings, and an index one
 *     past the end faults;
 *   - a member that is not there is an error naming the type, and each
 *     declaration error has dtrace's tag.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "host_test.h"
#include "d_cg_helpers.h"

/* The C declarations, and below the same in D: the two must stay one text. */
#define DECLS \
	"enum colour { RED, GREEN = 5, BLUE };\n" \
	"struct inner { short s; unsigned char b[3]; };\n" \
	"union word { unsigned int u; unsigned char bytes[4]; };\n" \
	"struct outer {\n" \
	"	char c;\n" \
	"	long l;\n" \
	"	unsigned int f3 : 3;\n" \
	"	int sf5 : 5;\n" \
	"	unsigned int f20 : 20;\n" \
	"	unsigned char tail;\n" \
	"	struct inner in;\n" \
	"	int arr[4];\n" \
	"	char name[12];\n" \
	"	union word w;\n" \
	"	enum colour col;\n" \
	"	unsigned long long wide : 40;\n" \
	"	unsigned int : 0;\n" \
	"	short after;\n" \
	"	float fl;\n" \
	"	double db;\n" \
	"	struct outer *next;\n" \
	"};\n"

enum colour { RED, GREEN = 5, BLUE };
struct inner { short s; unsigned char b[3]; };
union word { unsigned int u; unsigned char bytes[4]; };
struct outer {
	char c;
	long l;
	unsigned int f3 : 3;
	int sf5 : 5;
	unsigned int f20 : 20;
	unsigned char tail;
	struct inner in;
	int arr[4];
	char name[12];
	union word w;
	enum colour col;
	unsigned long long wide : 40;
	unsigned int : 0;
	short after;
	float fl;
	double db;
	struct outer *next;
};

/* D's value of expr (a BEGIN clause after DECLS, arg0 = &o); false with why. */
static bool eval(const char *expr, struct outer *o, uint64_t *value, char *why, size_t size)
{
	char src[4096];
	snprintf(src, sizeof(src), DECLS "BEGIN { trace(%s); }", expr);
	struct dt_program *p;
	struct dt_object *obj = d_generate(src, &p);
	if (!obj) {
		d_first_error(p, why, size);
		dt_program_free(p);
		return false;
	}
	struct fake_kernel k;
	fake_kernel_init(&k);
	k.memory = o;
	k.memory_size = 2 * sizeof(*o);
	k.builtin[DIF_VAR_ARG0] = (uint64_t)(uintptr_t)o;
	int rc = fake_fire(&k, obj, 0);
	*value = k.nrecords ? k.records[0].value : 0;
	if (k.nrecords && k.records[0].is_string)
		snprintf(why, size, "%s", k.records[0].str);
	else
		snprintf(why, size, "%s", rc ? dif_fault_name(k.fault.kind) : "ok");
	fake_kernel_reset(&k);
	dt_program_free(p);
	return rc == 0 && k.nrecords == 1;
}

HOST_TEST(d_ctypes_layout_is_gccs)
{
	static const struct {
		const char *expr;
		uint64_t c;
	} sizes[] = {
		{ "sizeof(struct outer)", sizeof(struct outer) },
		{ "sizeof(struct inner)", sizeof(struct inner) },
		{ "sizeof(union word)", sizeof(union word) },
		{ "sizeof(enum colour)", sizeof(enum colour) },
		{ "offsetof(struct outer, c)", offsetof(struct outer, c) },
		{ "offsetof(struct outer, l)", offsetof(struct outer, l) },
		{ "offsetof(struct outer, tail)", offsetof(struct outer, tail) },
		{ "offsetof(struct outer, in)", offsetof(struct outer, in) },
		{ "offsetof(struct outer, arr)", offsetof(struct outer, arr) },
		{ "offsetof(struct outer, name)", offsetof(struct outer, name) },
		{ "offsetof(struct outer, w)", offsetof(struct outer, w) },
		{ "offsetof(struct outer, col)", offsetof(struct outer, col) },
		{ "offsetof(struct outer, after)", offsetof(struct outer, after) },
		{ "offsetof(struct outer, fl)", offsetof(struct outer, fl) },
		{ "offsetof(struct outer, db)", offsetof(struct outer, db) },
		{ "offsetof(struct outer, next)", offsetof(struct outer, next) },
		{ "offsetof(struct inner, b)", offsetof(struct inner, b) },
		{ "sizeof(((struct outer *)arg0)->name)", sizeof(((struct outer *)0)->name) },
		{ "sizeof(((struct outer *)arg0)->in)", sizeof(struct inner) },
		{ "sizeof(*(struct outer *)arg0)", sizeof(struct outer) },
	};
	struct outer o = { 0 };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint64_t v;
		char why[200];
		bool ok = eval(sizes[i].expr, &o, &v, why, sizeof(why));
		CHECK(t, ok && v == sizes[i].c, "%s: D %llu, gcc %llu (%s)", sizes[i].expr,
		      (unsigned long long)v, (unsigned long long)sizes[i].c, why);
	}
}

HOST_TEST(d_ctypes_members_read_what_c_stored)
{
	struct outer o[2];
	memset(o, 0, sizeof(o));
	o[0] = (struct outer){ .c = -3, .l = -123456789012345, .f3 = 5, .sf5 = -7, .f20 = 0xabcde,
			       .tail = 200, .in = { .s = -2, .b = { 7, 8, 9 } },
			       .arr = { 10, -20, 30, 40 }, .name = "scion", .w.u = 0x11223344,
			       .col = BLUE, .wide = 0x12345678ffull, .after = 77, .fl = -2.5f,
			       .db = 3.14159, .next = &o[1] };
	o[1].arr[2] = 999;
	o[1].sf5 = 15;
	static const struct {
		const char *expr;
		int64_t c;
	} reads[] = {
		{ "((struct outer *)arg0)->c", -3 },
		{ "((struct outer *)arg0)->l", -123456789012345 },
		{ "((struct outer *)arg0)->f3", 5 },
		{ "((struct outer *)arg0)->sf5", -7 },
		{ "((struct outer *)arg0)->f20", 0xabcde },
		{ "((struct outer *)arg0)->tail", 200 },
		{ "((struct outer *)arg0)->in.s", -2 },
		{ "((struct outer *)arg0)->in.b[2]", 9 },
		{ "(*(struct outer *)arg0).in.b[1]", 8 },
		{ "((struct outer *)arg0)->arr[1]", -20 },
		{ "((struct outer *)arg0)->arr[arg1 - arg1 + 3]", 40 },
		{ "((struct outer *)arg0)->w.bytes[0]", 0x44 },
		{ "((struct outer *)arg0)->w.u", 0x11223344 },
		{ "((struct outer *)arg0)->col", BLUE },
		{ "((struct outer *)arg0)->col == BLUE", 1 },
		{ "((struct outer *)arg0)->wide", 0x12345678ff },
		{ "((struct outer *)arg0)->after", 77 },
		{ "((struct outer *)arg0)->next->arr[2]", 999 },
		{ "((struct outer *)arg0)->next->sf5", 15 },
		{ "((struct outer *)arg0)[1].arr[2]", 999 },
		{ "&((struct outer *)arg0)->arr[2] - &((struct outer *)arg0)->arr[0]", 2 },
		{ "(uint64_t)&((struct outer *)arg0)->after - arg0", offsetof(struct outer, after) },
	};
	for (size_t i = 0; i < sizeof(reads) / sizeof(reads[0]); i++) {
		uint64_t v;
		char why[200];
		bool ok = eval(reads[i].expr, o, &v, why, sizeof(why));
		CHECK(t, ok && (int64_t)v == reads[i].c, "%s: D %lld, C %lld (%s)", reads[i].expr,
		      (long long)v, (long long)reads[i].c, why);
	}
	uint64_t v, dbits = 0;
	uint32_t fbits = 0;
	char str[200];
	memcpy(&dbits, &o[0].db, sizeof(dbits));
	memcpy(&fbits, &o[0].fl, sizeof(fbits));
	bool ok = eval("((struct outer *)arg0)->db", o, &v, str, sizeof(str));
	CHECK(t, ok && v == dbits, "a double traces as its bits: %llx, want %llx (%s)",
	      (unsigned long long)v, (unsigned long long)dbits, str);
	ok = eval("*(float *)&((struct outer *)arg0)->fl", o, &v, str, sizeof(str));
	CHECK(t, ok && v == fbits, "a float through a pointer: %llx, want %x (%s)",
	      (unsigned long long)v, fbits, str);
	ok = eval("((struct outer *)arg0)->name", o, &v, str, sizeof(str));
	CHECK(t, ok && !strcmp(str, "scion"), "a char array traces as a string: %s", str);
	struct fake_value recs[4];
	unsigned n = 0;
	char src[4096];
	snprintf(src, sizeof(src), DECLS "BEGIN { this->o = (struct outer *)%llu; printf(\"%%s %%d "
		 "%%s\\n\", this->o->name, this->o->arr[3], this->o->in.b); }",
		 (unsigned long long)(uintptr_t)o);
	int rc = d_fire_once(src, recs, 4, &n, str, sizeof(str));
	CHECK(t, rc == 0 && n == 3 && !strcmp(recs[0].str, "scion") && recs[1].value == 40,
	      "printf of a char array keeps the arguments after it: rc %d, %u records (%s)", rc, n,
	      str);
	ok = eval("((struct outer *)arg0)->next->next->c", o, &v, str, sizeof(str));
	CHECK(t, !ok && !strcmp(str, "invalid address"), "through NULL: %s", str);
}

/*
 * Stores into alloca's memory through every kind of member, narrowed to
 * the member's type as C converts; bcopy of a C struct into it, then
 * read back through D; a store or bcopy into memory that is only
 * readable (this file's struct) faults and leaves it as it was.
 */
HOST_TEST(d_ctypes_stores_write_alloca_memory)
{
	struct outer o;
	memset(&o, 0, sizeof(o));
	o.arr[2] = 31;
	o.l = 5;
	struct fake_value recs[16];
	unsigned n = 0;
	char src[4096], why[200];
	snprintf(src, sizeof(src), DECLS "BEGIN {\n"
		 "	this->o = (struct outer *)alloca(sizeof (struct outer));\n"
		 "	this->o->c = 130; this->o->tail = 300; this->o->in.s = 70000;\n"
		 "	this->o->in.b[2] = 9; this->o->arr[1] = -20; this->o->arr[1] *= 3;\n"
		 "	this->o->w.u = 0x11223344; this->o->w.bytes[0] = 0x55; this->o->col = BLUE;\n"
		 "	this->o->after = -1; this->o->after++; this->o->next = this->o;\n"
		 "	this->o->next->next->l = 1L << 40;\n"
		 "	this->c = (struct outer *)alloca(sizeof (struct outer));\n"
		 "	bcopy((struct outer *)%llu, this->c, sizeof (struct outer));\n"
		 "	this->c->arr[2] += 1;\n"
		 "	trace(this->o->c); trace(this->o->tail); trace(this->o->in.s);\n"
		 "	trace(this->o->in.b[2]); trace(this->o->arr[1]); trace(this->o->w.u);\n"
		 "	trace(this->o->col); trace(this->o->after); trace(this->o->l);\n"
		 "	trace(this->c->arr[2]); trace(this->c->l); trace(this->o->arr[0]);\n"
		 "}", (unsigned long long)(uintptr_t)&o);
	int rc = d_fire_over(src, &o, sizeof(o), recs, 16, &n, why, sizeof(why));
	static const int64_t want[] = {
		-126, 44, 4464, 9, -60, 0x11223355, BLUE, 0, 1ll << 40, 32, 5, 0,
	};
	CHECK(t, rc == 0 && n == sizeof(want) / sizeof(want[0]), "rc %d, %u records (%s)", rc, n,
	      why);
	for (unsigned i = 0; rc == 0 && i < n && i < sizeof(want) / sizeof(want[0]); i++)
		CHECK(t, (int64_t)recs[i].value == want[i], "record %u: %lld, want %lld", i,
		      (long long)recs[i].value, (long long)want[i]);

	struct outer before = o;
	snprintf(src, sizeof(src), DECLS "BEGIN { ((struct outer *)%llu)->arr[2] = 7; }",
		 (unsigned long long)(uintptr_t)&o);
	rc = d_fire_over(src, &o, sizeof(o), recs, 16, &n, why, sizeof(why));
	CHECK(t, rc != 0 && strstr(why, "invalid address") && !memcmp(&o, &before, sizeof(o)),
	      "a store to readable memory: rc %d (%s)", rc, why);
	snprintf(src, sizeof(src), DECLS "BEGIN { this->o = (struct outer *)%llu; "
		 "bcopy(this->o->next, &this->o->arr[0], 4); }", (unsigned long long)(uintptr_t)&o);
	o.next = &o;
	before = o;
	rc = d_fire_over(src, &o, sizeof(o), recs, 16, &n, why, sizeof(why));
	CHECK(t, rc != 0 && strstr(why, "invalid address") && !memcmp(&o, &before, sizeof(o)),
	      "a bcopy into readable memory: rc %d (%s)", rc, why);
}

/* The 8 records of a firing against want. */
static void check_records(struct host_test_ctx *t, const struct fake_kernel *k,
			  const int64_t want[8], const char *what)
{
	for (unsigned i = 0; i < 8; i++)
		CHECK(t, i < k->nrecords && (int64_t)k->records[i].value == want[i],
		      "%s, record %u: %lld, want %lld", what, i, (long long)k->records[i].value,
		      (long long)want[i]);
}

/*
 * src compiled (a failure checked, and freed), and a fresh fake kernel in
 * *k to fire it in; NULL when it did not compile.
 */
static struct dt_object *compile_for_firings(struct host_test_ctx *t, const char *src,
					    struct dt_program **p, struct fake_kernel **k)
{
	struct dt_object *obj = d_generate(src, p);
	char why[300] = "";
	if (!obj)
		d_first_error(*p, why, sizeof(why));
	CHECK(t, obj != NULL, "%s", why);
	if (!obj) {
		dt_program_free(*p);
		return NULL;
	}
	*k = calloc(1, sizeof(**k));
	if (!*k)
		abort();
	fake_kernel_init(*k);
	return obj;
}

/*
 * Fixed-size array and struct variables: globals keep their contents from
 * one firing to the next, clause-locals start zeroed at each; elements are
 * read and written through constant and variable indexes, a variable one
 * past the end is "index out of bounds" and writes nothing.
 */
HOST_TEST(d_ctypes_array_and_struct_variables)
{
	static const char src[] =
		"struct sample { int count; long values[4]; };\n"
		"int hist[4]; long matrix[2][3]; struct sample last; this int local[2];\n"
		"BEGIN {\n"
		"	hist[arg0]++; hist[1] += 10; matrix[1][2] = hist[arg0] + 100;\n"
		"	last.values[last.count++] = arg1; this->local[1] += 5;\n"
		"	trace(hist[arg0]); trace(hist[1]); trace(matrix[1][arg0 - arg0 + 2]);\n"
		"	trace(last.count); trace(last.values[0]); trace(last.values[1]);\n"
		"	trace(this->local[1]); trace(sizeof (matrix));\n"
		"}\n";
	struct dt_program *p;
	struct fake_kernel *k;
	struct dt_object *obj = compile_for_firings(t, src, &p, &k);
	if (!obj)
		return;
	k->builtin[DIF_VAR_ARG0] = 3;
	k->builtin[DIF_VAR_ARG1] = 70;
	CHECK(t, fake_fire(k, obj, 0) == 0, "first firing: %s", dif_fault_name(k->fault.kind));
	static const int64_t first[] = { 1, 10, 101, 1, 70, 0, 5, 48 };
	check_records(t, k, first, "first firing");
	k->nrecords = 0;
	k->builtin[DIF_VAR_ARG1] = 71;
	CHECK(t, fake_fire(k, obj, 0) == 0, "second firing: %s", dif_fault_name(k->fault.kind));
	static const int64_t second[] = { 2, 20, 102, 2, 70, 71, 5, 48 };
	check_records(t, k, second, "second firing");
	k->nrecords = 0;
	k->builtin[DIF_VAR_ARG0] = 4;	/* hist[4] of hist[4] */
	CHECK(t, fake_fire(k, obj, 0) == -1 && k->fault.kind == DIF_FAULT_BADINDEX &&
	      k->fault.addr == 4, "hist[4]: %s (%llu)", dif_fault_name(k->fault.kind),
	      (unsigned long long)k->fault.addr);
	k->nrecords = 0;
	k->builtin[DIF_VAR_ARG0] = 3;
	CHECK(t, fake_fire(k, obj, 0) == 0 && k->nrecords == 8 && k->records[0].value == 3 &&
	      k->records[1].value == 30, "after the fault: hist[3] %llu, hist[1] %llu",
	      (unsigned long long)k->records[0].value, (unsigned long long)k->records[1].value);
	fake_kernel_reset(k);
	free(k);
	dt_program_free(p);
}

/*
 * Struct values of an associative array and a thread-local struct: each
 * element's storage is made zeroed on first use and keeps its contents
 * from one firing to the next, per key and per thread; an index past a
 * member array faults, and so does a store through an element's address
 * one byte past its storage.
 */
HOST_TEST(d_ctypes_struct_elements_and_thread_locals)
{
	static const char src[] =
		"struct callinfo { long calls; long maxbytes; long v[2]; };\n"
		"struct callinfo info[long]; self struct callinfo mine;\n"
		"BEGIN {\n"
		"	info[arg0].calls++;\n"
		"	info[arg0].maxbytes = arg1 > info[arg0].maxbytes ? arg1 : info[arg0].maxbytes;\n"
		"	self->mine.calls += 2; self->mine.v[arg2] = arg1;\n"
		"	trace(info[arg0].calls); trace(info[arg0].maxbytes); trace(info[7].calls);\n"
		"	trace(self->mine.calls); trace(self->mine.v[1]); trace(sizeof (info[0]));\n"
		"	trace(info[arg0].v[0]); trace(self->mine.maxbytes);\n"
		"}\n"
		"END { *(char *)((char *)&info[1] + sizeof (struct callinfo) - arg0) = 1; }\n";
	struct dt_program *p;
	struct fake_kernel *k;
	struct dt_object *obj = compile_for_firings(t, src, &p, &k);
	if (!obj)
		return;
	static const struct {
		uint64_t thread, arg0, arg1;
		int64_t want[8];
	} firings[] = {
		{ 1, 1, 50, { 1, 50, 0, 2, 50, 32, 0, 0 } },
		{ 1, 1, 30, { 2, 50, 0, 4, 30, 32, 0, 0 } },
		{ 1, 2, 99, { 1, 99, 0, 6, 99, 32, 0, 0 } },
		{ 2, 1, 10, { 3, 50, 0, 2, 10, 32, 0, 0 } },	/* another thread's mine */
	};
	char what[64];
	for (size_t i = 0; i < sizeof(firings) / sizeof(firings[0]); i++) {
		k->nrecords = 0;
		k->thread = firings[i].thread;
		k->builtin[DIF_VAR_ARG0] = firings[i].arg0;
		k->builtin[DIF_VAR_ARG1] = firings[i].arg1;
		k->builtin[DIF_VAR_ARG2] = 1;
		snprintf(what, sizeof(what), "firing %zu", i + 1);
		CHECK(t, fake_fire(k, obj, 0) == 0, "%s: %s", what, dif_fault_name(k->fault.kind));
		check_records(t, k, firings[i].want, what);
	}
	k->nrecords = 0;
	k->builtin[DIF_VAR_ARG2] = 2;	/* mine.v[2] of v[2] */
	CHECK(t, fake_fire(k, obj, 0) == -1 && k->fault.kind == DIF_FAULT_BADINDEX,
	      "self->mine.v[2]: %s", dif_fault_name(k->fault.kind));
	k->builtin[DIF_VAR_ARG0] = 1;	/* the last byte of info[1]: its own */
	CHECK(t, fake_fire(k, obj, 1) == 0, "a store in the element: %s",
	      dif_fault_name(k->fault.kind));
	k->builtin[DIF_VAR_ARG0] = 0;	/* one past it */
	CHECK(t, fake_fire(k, obj, 1) == -1 && k->fault.kind == DIF_FAULT_BADADDR,
	      "a store past the element: %s", dif_fault_name(k->fault.kind));
	fake_kernel_reset(k);
	free(k);
	dt_program_free(p);
}

/* trace() of a struct, a member struct and an array records their bytes as C laid them out. */
HOST_TEST(d_ctypes_trace_whole_objects)
{
	struct outer o;
	memset(&o, 0, sizeof(o));
	o.in = (struct inner){ .s = -2, .b = { 7, 8, 9 } };
	o.arr[3] = 40;
	o.l = 77;
	struct fake_value recs[4];
	unsigned n = 0;
	char src[4096], why[200];
	snprintf(src, sizeof(src), DECLS "BEGIN { this->o = (struct outer *)%llu; trace(*this->o); "
		 "trace(this->o->in); trace(this->o->arr); trace(this->o->name); }",
		 (unsigned long long)(uintptr_t)&o);
	int rc = d_fire_over(src, &o, sizeof(o), recs, 4, &n, why, sizeof(why));
	CHECK(t, rc == 0 && n == 4, "rc %d, %u records (%s)", rc, n, why);
	if (rc || n != 4)
		return;
	CHECK(t, recs[0].nbytes == sizeof(o) && !memcmp(recs[0].str, &o, sizeof(o)),
	      "the struct: %u bytes", recs[0].nbytes);
	CHECK(t, recs[1].nbytes == sizeof(o.in) && !memcmp(recs[1].str, &o.in, sizeof(o.in)),
	      "the member struct: %u bytes", recs[1].nbytes);
	CHECK(t, recs[2].nbytes == sizeof(o.arr) && !memcmp(recs[2].str, o.arr, sizeof(o.arr)),
	      "the int array: %u bytes", recs[2].nbytes);
	CHECK(t, recs[3].is_string && recs[3].nbytes == 0, "a char array is still a string");
	snprintf(src, sizeof(src), DECLS "BEGIN { trace(*(struct outer *)8); }");
	rc = d_fire_over(src, &o, sizeof(o), recs, 4, &n, why, sizeof(why));
	CHECK(t, rc != 0, "a struct at an address that does not read: rc %d", rc);
}

HOST_TEST(d_ctypes_errors_have_dtraces_tags)
{
	static const struct {
		const char *src, *error;
	} bad[] = {
		{ "struct s { int a; }; struct s { int b; }; BEGIN { }",
		  "D_DECL_TYPERED: type redeclared: struct s" },
		{ "struct s { char a : 9; }; BEGIN { }", "D_DECL_BFSIZE: bit-field too big for type: a" },
		{ "struct s { string x : 3; }; BEGIN { }", "D_DECL_BFTYPE" },
		{ "struct t; struct s { struct t in; }; BEGIN { }",
		  "D_DECL_INCOMPLETE: incomplete struct/union/enum struct t: in" },
		{ "struct s { int a; int a; }; BEGIN { }", "D_DECL_IDRED: identifier redeclared: a" },
		{ "enum e { A = 2147483648 }; BEGIN { }", "D_DECL_ENOFLOW" },
		{ "struct s { int a; }; BEGIN { trace(((struct s *)arg0)->b); }",
		  "D_TYPE_MEMBER: b is not a member of struct s" },
		{ "struct s { int a; }; BEGIN { trace(arg0->a); }", "D_OP_PTR" },
		{ "struct s { int a; }; BEGIN { trace(((struct s *)arg0).a); }", "D_OP_SOU" },
		{ "struct s { int a; }; BEGIN { this->x = *(struct s *)arg0; }", "D_OP_SOU" },
		{ "struct s { int a : 3; }; BEGIN { trace(&((struct s *)arg0)->a); }",
		  "D_ADDROF_BITFIELD" },
		{ "struct s { int a : 3; }; BEGIN { trace(sizeof(((struct s *)arg0)->a)); }",
		  "D_SIZEOF_BITFIELD" },
		{ "BEGIN { trace(offsetof(int, a)); }", "D_OFFSETOF_TYPE" },
		{ "struct s { int a : 3; }; BEGIN { trace(offsetof(struct s, a)); }",
		  "D_OFFSETOF_BITFIELD" },
		{ "struct t; BEGIN { trace(((struct t *)arg0)->a); }", "D_OP_INCOMPLETE" },
		{ "BEGIN { x = 1; trace(&x); }", "D_ADDROF_VAR" },
		{ "BEGIN { trace(&(arg0 + 1)); }", "D_ADDROF_LVAL" },
		{ "typedef int myint; typedef long myint; BEGIN { }", "D_DECL_IDRED" },
		{ "struct s { int a[0]; }; BEGIN { }", "D_DECL_ARRBIG" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct dt_program *p;
		char first[300];
		struct dt_object *obj = d_generate(bad[i].src, &p);
		d_first_error(p, first, sizeof(first));
		CHECK(t, !obj && strstr(first, bad[i].error), "%s: %s", bad[i].src, first);
		dt_program_free(p);
	}
}
