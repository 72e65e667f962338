// SPDX-License-Identifier: BSD-2-Clause
/*
 * kernel/trace/trace_wire.c on the host, built as if the host were
 * big-endian (the job sparc64_wire.trace_layout compiles it with
 * __BYTE_ORDER__ set to big-endian, so CHAN_WIRE_SWAPS holds): sparc64
 * has no probe provider yet, so no D program runs there, and this is
 * where the trace conversion's choices are checked. On a little-endian
 * host the conversion is the mirror of a big-endian machine's: every
 * byte it turns is reversed here as there, so each integer member must
 * come out byte-reversed and each string byte untouched.
 *
 * A hand-made session: clause 0 records an integer, a string, a
 * two-frame stack() and exit()'s status and aggregates (no data);
 * clause 1 an integer; aggregation 0 has an integer, a string and a
 * stack key and two values, aggregation 1 no key and one value. Its
 * records, an error record and its entries are turned, then every field
 * is checked. Prints one line per failure, then `N passed, M failed`.
 */
#include <stdio.h>
#include <string.h>
#include <scion/chan_wire.h>
#include <scion/trace.h>
#include "trace/trace_internal.h"

static unsigned passed, failed;

static void check(int ok, const char *what)
{
	if (ok) {
		passed++;
	} else {
		failed++;
		printf("FAILED: %s\n", what);
	}
}

/* What ecb.c gives trace_wire.c: the clause's record size of an EPID. */
uint32_t trace_record_size(void *session, uint32_t epid)
{
	struct trace_session *s = session;
	return epid && epid <= s->necbs ? s->ecbs[epid - 1].clause->record_size : 0;
}

static uint64_t u64_at(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static uint32_t u32_at(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static uint16_t u16_at(const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return v;
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, 2);
}

static struct trace_session session;	/* large: static, zeroed */

int main(void)
{
	static const struct dif_prog int_prog = { .rtype = DIF_TYPE_INT };
	static const struct dif_prog str_prog = { .rtype = DIF_TYPE_STRING, .rsize = 16 };
	static const struct dif_prog *int_progs[] = { &int_prog }, *str_progs[] = { &str_prog };
	struct trace_action actions0[] = {
		{ .kind = DOF_ACT_RECORD, .nprogs = 1, .progs = int_progs, .offset = 16, .size = 8 },
		{ .kind = DOF_ACT_RECORD, .nprogs = 1, .progs = str_progs, .offset = 24, .size = 16 },
		{ .kind = DOF_ACT_STACK, .arg = 2, .offset = 40, .size = 16 },
		{ .kind = DOF_ACT_EXIT, .nprogs = 1, .progs = int_progs, .offset = 56, .size = 8 },
		{ .kind = DOF_ACT_AGGREGATE, .nprogs = 1, .progs = int_progs, .arg = 0 },
	};
	struct trace_action actions1[] = {
		{ .kind = DOF_ACT_RECORD, .nprogs = 1, .progs = int_progs, .offset = 16, .size = 8 },
	};
	struct trace_clause clauses[] = {
		{ .flags = DOF_CLAUSE_RECORD, .nactions = 5, .actions = actions0, .record_size = 64 },
		{ .flags = DOF_CLAUSE_RECORD, .nactions = 1, .actions = actions1, .record_size = 24 },
	};
	struct trace_ecb ecbs[] = { { .epid = 1, .clause = &clauses[0] },
				    { .epid = 2, .clause = &clauses[1] } };
	struct trace_agg aggs[] = {
		{ .func = DOF_AGG_AVG, .nkeys = 3, .key_type = { DIF_TYPE_INT, DIF_TYPE_STRING,
								 DOF_KEY_STACK },
		  .key_size = { 8, 12, 16 }, .keybytes = 40, .valbytes = 16 },
		{ .func = DOF_AGG_COUNT, .nkeys = 0, .valbytes = 8 },
	};
	struct trace_session *s = &session;
	s->necbs = 2;
	s->ecbs = ecbs;
	s->obj.naggs = 2;
	s->obj.aggs = aggs;

	/*
	 * Records: epid 1 (64 bytes), an error (16 + 24), epid 2 (24), back to
	 * back, then 8 bytes that are not a whole record header.
	 */
	uint8_t rec[64 + 40 + 24 + 8], orig[sizeof(rec)];
	memset(rec, 0, sizeof(rec));
	put32(rec, 1);
	put32(rec + 4, 0x11223344);
	put64(rec + 8, 0x0102030405060708ull);
	put64(rec + 16, 0xa1a2a3a4a5a6a7a8ull);
	memcpy(rec + 24, "abcdefghijklmno", 16);
	put64(rec + 40, 0xb1b2b3b4b5b6b7b8ull);
	put64(rec + 48, 0xc1c2c3c4c5c6c7c8ull);
	put64(rec + 56, 0xd1d2d3d4d5d6d7d8ull);
	put32(rec + 64, DOF_EPID_ERROR);
	put32(rec + 68, 7);
	put64(rec + 72, 0x1112131415161718ull);
	put32(rec + 80, 1);
	put32(rec + 84, 3);
	put32(rec + 88, 5);
	put32(rec + 92, 2);
	put64(rec + 96, 0xe1e2e3e4e5e6e7e8ull);
	put32(rec + 104, 2);
	put32(rec + 108, 9);
	put64(rec + 112, 0x2122232425262728ull);
	put64(rec + 120, 0xf1f2f3f4f5f6f7f8ull);
	put64(rec + 128, 0x9192939495969798ull);
	memcpy(orig, rec, sizeof(rec));
	trace_session_records_to_le(s, rec, sizeof(rec));
	check(__builtin_bswap32(u32_at(rec)) == 1 && __builtin_bswap32(u32_at(rec + 4)) == 0x11223344,
	      "record 1: epid and probe id turned");
	check(__builtin_bswap64(u64_at(rec + 8)) == 0x0102030405060708ull, "record 1: timestamp");
	check(__builtin_bswap64(u64_at(rec + 16)) == 0xa1a2a3a4a5a6a7a8ull, "record 1: integer datum");
	check(!memcmp(rec + 24, orig + 24, 16), "record 1: string datum untouched");
	check(__builtin_bswap64(u64_at(rec + 40)) == 0xb1b2b3b4b5b6b7b8ull &&
	      __builtin_bswap64(u64_at(rec + 48)) == 0xc1c2c3c4c5c6c7c8ull, "record 1: stack frames");
	check(__builtin_bswap64(u64_at(rec + 56)) == 0xd1d2d3d4d5d6d7d8ull, "record 1: exit status");
	check(__builtin_bswap32(u32_at(rec + 64)) == DOF_EPID_ERROR &&
	      __builtin_bswap32(u32_at(rec + 68)) == 7, "error record: header");
	check(__builtin_bswap32(u32_at(rec + 80)) == 1 && __builtin_bswap32(u32_at(rec + 84)) == 3 &&
	      __builtin_bswap32(u32_at(rec + 88)) == 5 && __builtin_bswap32(u32_at(rec + 92)) == 2 &&
	      __builtin_bswap64(u64_at(rec + 96)) == 0xe1e2e3e4e5e6e7e8ull,
	      "error record: struct dof_error");
	check(__builtin_bswap32(u32_at(rec + 104)) == 2 &&
	      __builtin_bswap64(u64_at(rec + 112)) == 0x2122232425262728ull &&
	      __builtin_bswap64(u64_at(rec + 120)) == 0xf1f2f3f4f5f6f7f8ull,
	      "record 2 (after the error): header and integer datum");
	check(u64_at(rec + 128) == 0x9192939495969798ull, "less than a record header at the end: untouched");

	/* Entries: agg 0 (8 + 40 + 16 bytes), agg 1 (8 + 0 + 8). */
	uint8_t ent[64 + 16], eorig[sizeof(ent)];
	memset(ent, 0, sizeof(ent));
	put32(ent, 0);
	put16(ent + 4, 40);
	put16(ent + 6, 16);
	put64(ent + 8, 0x3132333435363738ull);
	memcpy(ent + 16, "key-string!", 12);
	put64(ent + 32, 0x4142434445464748ull);
	put64(ent + 40, 0x5152535455565758ull);
	put64(ent + 48, 0x6162636465666768ull);
	put64(ent + 56, 0x7172737475767778ull);
	put32(ent + 64, 1);
	put16(ent + 68, 0);
	put16(ent + 70, 8);
	put64(ent + 72, 0x8182838485868788ull);
	memcpy(eorig, ent, sizeof(ent));
	trace_session_aggregations_to_le(s, ent, sizeof(ent));
	check(__builtin_bswap32(u32_at(ent)) == 0 && __builtin_bswap16(u16_at(ent + 4)) == 40 &&
	      __builtin_bswap16(u16_at(ent + 6)) == 16, "entry 0: struct dof_aggent");
	check(__builtin_bswap64(u64_at(ent + 8)) == 0x3132333435363738ull, "entry 0: integer key");
	check(!memcmp(ent + 16, eorig + 16, 16), "entry 0: string key (12 bytes, padded to 16) untouched");
	check(__builtin_bswap64(u64_at(ent + 32)) == 0x4142434445464748ull &&
	      __builtin_bswap64(u64_at(ent + 40)) == 0x5152535455565758ull, "entry 0: stack key");
	check(__builtin_bswap64(u64_at(ent + 48)) == 0x6162636465666768ull &&
	      __builtin_bswap64(u64_at(ent + 56)) == 0x7172737475767778ull, "entry 0: values");
	check(__builtin_bswap32(u32_at(ent + 64)) == 1 && __builtin_bswap16(u16_at(ent + 70)) == 8 &&
	      __builtin_bswap64(u64_at(ent + 72)) == 0x8182838485868788ull,
	      "entry 1: head and value");
	check(CHAN_WIRE_SWAPS, "built as a big-endian machine (CHAN_WIRE_SWAPS)");
	printf("%u passed, %u failed\n", passed, failed);
	return failed != 0;
}
