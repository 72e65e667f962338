/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The control channel's byte order. Records and frames are little-endian
 * on the wire (scion/chan_proto.h); the kernel builds its replies and
 * reads its requests as native structures, so on a big-endian machine
 * (sparc64) each structure crosses the wire through chan_wire_to_le
 * (a reply, just before it is sent) or chan_wire_from_le (a request,
 * just after it is copied out of the frame). Both are no-ops that
 * compile away on a little-endian machine: the test is the compiler's
 * __BYTE_ORDER__, not the architecture.
 *
 * Which bytes to turn is not written here: tools/gen_layouts.py --c-wire
 * reads scion/chan_proto.h, scion/chan_reply.h and scion/monitor_rec.h
 * (headers it reads for the host's scion_layouts.py too) and generates
 * one descriptor per
 * structure, chan_wire_<struct name> (build/gen/chan_wire_layouts.h,
 * included below); CHAN_WIRE(name) names it.
 *
 * CONVERTED: the frame header (frame.c, chan_put_le) and trailer (CRC);
 * RESPONSE/ERROR's status; the request header (op); STATUS, STATS; the
 * list requests and answers (chan_list_request, chan_list_head and the
 * records of PROBE_LIST, GRAFT_LIST, METRICS, EVENTS); METRIC_ADD,
 * METRIC_REMOVE; BULK; STREAM_OPEN's reply, STREAM_CLOSE's request and
 * totals; every DATA frame's stream id and chunk header (stream.c);
 * SYMBOLIZE; TRACE_START's request and reply; REC_PUT's and REC_GET's
 * requests and replies (their heads); the bench stream's status chunk;
 * MONITOR's monitor_ctl_request and monitor_ctl_status; the monitor
 * stream's status chunk (struct monitor_stream_status).
 *
 * NOT CONVERTED YET (native structures written by their producers, so
 * wrong on a big-endian machine): the records inside stream chunks —
 * trace records, aggregations and dof_status (kernel/trace/: the
 * session's per-CPU buffers, trace_stream.c's drain), the "record"
 * source's and recordings' records (scion/recfmt.h: kernel/record/,
 * and REC_GET/REC_PUT's stream-file bytes), monitor records
 * (scion/monitor_rec.h: kernel/monitor/monitor_stream.c),
 * PROFILE_CONFIG's binary file (kernel/monitor/config_op.c), bench
 * records (struct chan_bench_record, kernel/test/bench_stream.c), probe
 * records (struct chan_probe_record, kernel/probe/probe_stream.c), and
 * EXEC/EXEC_RESUME/SIGNAL with their output records (kernel/proc/: not
 * built on sparc64). A record stored in a trace buffer is read back by
 * the kernel itself, so it must be turned where the chunk leaves, with
 * the source's own layout: the next step.
 */
#ifndef SCION_CHAN_WIRE_H
#define SCION_CHAN_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One multi-byte integer member (or array of them) of a structure. */
struct chan_wire_field {
	uint16_t offset;	/* from the structure's start */
	uint8_t size;		/* bytes of one element: 2, 4 or 8 */
	uint8_t count;		/* elements (1: not an array) */
};

/* A structure's descriptor: what chan_wire_swap turns in each record. */
struct chan_wire_layout {
	const char *name;	/* the C structure's tag */
	uint32_t size;		/* sizeof the structure: the stride between records */
	uint32_t nfields;
	const struct chan_wire_field *fields;
};

/* True when this machine is big-endian: its structures must be converted. */
#define CHAN_WIRE_SWAPS (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)

/* The generated descriptor of struct NAME (a const struct chan_wire_layout *). */
#define CHAN_WIRE(NAME) (&chan_wire_##NAME)

/*
 * chan_wire_swap - Overview: reverse the bytes of every member the
 *   descriptor lists, in n consecutive records of layout->size bytes
 *   (unconditionally: the portable routine the two below call on a
 *   big-endian machine; the host's test calls it directly).
 * Arguments: layout, the generated descriptor; records, the first
 *   record (any alignment); n, the number of records.
 * Return value: none.
 * Caller's context: any; touches only the records.
 */
void chan_wire_swap(const struct chan_wire_layout *layout, void *records, size_t n);

/*
 * chan_wire_to_le - Overview: native records -> wire (little-endian)
 *   order, in place, just before they are sent; chan_wire_from_le - the
 *   wire's records -> native order, in place, just after a request's
 *   body is copied out of the frame. The same reversal both ways.
 * Arguments, return value and caller's context: as chan_wire_swap's.
 */
static inline void chan_wire_to_le(const struct chan_wire_layout *layout, void *records, size_t n)
{
	if (CHAN_WIRE_SWAPS)
		chan_wire_swap(layout, records, n);
}

static inline void chan_wire_from_le(const struct chan_wire_layout *layout, void *records,
				     size_t n)
{
	if (CHAN_WIRE_SWAPS)
		chan_wire_swap(layout, records, n);
}

#include <chan_wire_layouts.h>

#endif
