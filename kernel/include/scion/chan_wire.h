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
 * reads the wire headers (the Makefile's WIRE_HEADERS: scion/chan_proto.h,
 * chan_reply.h, monitor_rec.h, recfmt.h, dof.h, profile_config.h; headers
 * it reads for the host's scion_layouts.py too) and generates one
 * descriptor per structure, chan_wire_<struct name>
 * (build/gen/chan_wire_layouts.h, included below); CHAN_WIRE(name) names
 * it. A structure with a member it cannot describe stops the generation.
 *
 * Stream records are written natively by their producers (probe context,
 * the measurement thread, recording grafts) and some are read back by
 * the kernel, so they are turned where a chunk leaves: a stream source
 * with multi-byte integers in its records gives a to_wire hook
 * (scion/channel.h, CHAN_STREAM_SOURCE_WIRE) that the output thread calls
 * on each CPU's taken buffer on a big-endian machine, and its drain turns
 * its own chunks.
 *
 * CONVERTED: the frame header (frame.c, chan_put_le) and trailer (CRC);
 * RESPONSE/ERROR's status; the request header (op); STATUS, STATS; the
 * list requests and answers (chan_list_request, chan_list_head and the
 * records of PROBE_LIST, GRAFT_LIST, METRICS, EVENTS, ADAPT_DECISIONS,
 * ADAPT_ROWS); METRIC_ADD,
 * METRIC_REMOVE; BULK; STREAM_OPEN's reply, STREAM_CLOSE's request and
 * totals; every DATA frame's stream id and chunk header (stream.c);
 * SYMBOLIZE; TRACE_START's request and reply; REC_PUT's and REC_GET's
 * requests and replies; MONITOR's monitor_ctl_request and
 * monitor_ctl_status; and the records inside stream chunks:
 *   - trace records (struct dof_rechdr, each integer and stack datum as
 *     struct dof_word by its clause's layout, dof_error), aggregation
 *     entries (dof_aggent, integer and stack key items, values) and
 *     dof_status (kernel/trace/trace_wire.c, trace_stream.c);
 *   - the "record" source's records and headers, REC_GET's and REC_PUT's
 *     stream-file bytes (kernel/record/rec_wire.c: by record type;
 *     recordings stay native in the kernel's store);
 *   - monitor records and the monitor stream's status
 *     (kernel/monitor/monitor_stream.c);
 *   - PROFILE_CONFIG's file (and a boot module's): checked as sent,
 *     kept native (kernel/monitor/config_check.c, config.c);
 *   - bench records and the bench stream's status (kernel/test/bench_stream.c);
 *   - probe records (struct chan_probe_record, kernel/probe/probe_stream.c).
 *
 * NOT CONVERTED YET (native structures written by their producers, so
 * wrong on a big-endian machine; not built on sparc64 yet):
 * EXEC/EXEC_RESUME/SIGNAL with their output records (kernel/proc/,
 * chanout.c's "exec" source).
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
