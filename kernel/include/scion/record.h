/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Recording a module's boundaries (kernel/record/), VINO's
 * self-monitoring: recording grafts on a module's input and output
 * events write its trace and its log (formats: scion/recfmt.h) into
 * per-CPU buffers, from where they go either to the host (the "record"
 * stream source, `scion record`) or into a recording kept in the
 * kernel (`record start` / `record stop` in the shell), which
 * simulations replay (`sim run`, kernel/insitu/).
 *
 * Lock order: store_lock (recordings) -> session_lock -> graft locks.
 */
#ifndef SCION_RECORD_H
#define SCION_RECORD_H

#include <scion/compiler.h>
#include <scion/list.h>
#include <scion/tbuf.h>
#include <scion/recfmt.h>

/*
 * A recordable module, from a linker table (REC_MODULE). Its two
 * recording grafts are kernel functions with the signatures of its
 * input and output event points; they write records into *bufs (NULL
 * while no session records the module) with tbuf_reserve.
 */
struct rec_module {
	const char *name;		/* "bcache" */
	const char *input_point;	/* an event point: "bcache.request" */
	const char *output_point;	/* an event point: "bcache.result" */
	const char *trace_what, *log_what;	/* what the streams hold: "requests", "results" */
	void *input_graft, *output_graft;	/* kernel functions, registered as grafts */
	struct tbuf_set **bufs;		/* where the grafts write: set by the session */
	/*
	 * available - Overview: whether the module exists on this machine.
	 * Caller's context: thread.
	 */
	bool (*available)(void);
	/*
	 * describe - Overview: fill a header's module, policy and config
	 *   fields with the module's configuration and the policies now in
	 *   force. Caller's context: thread, may sleep.
	 */
	void (*describe)(struct rec_file_header *h);
	/*
	 * begin / end - Overview: optional. A module whose trace and log
	 *   must hold one closed stretch of its history (the scheduler's: a
	 *   replay rebuilds its state from them) starts both streams at
	 *   one instant and ends them at one: begin, called once both
	 *   recording grafts are installed, writes the module's state into
	 *   bufs and then lets the grafts write (until then they write
	 *   nothing: *bufs stays NULL); end, called before they are
	 *   removed, stops them. A module without them is recorded from
	 *   the first graft's installation to the last one's removal.
	 * Caller's context: thread, may sleep; the session's lock held.
	 */
	void (*begin)(struct tbuf_set *bufs);
	void (*end)(void);
};
LINKER_TABLE_DECLARE(struct rec_module, rec_modules);
#define REC_MODULE(var, ...) \
	static const struct rec_module var LINKER_TABLE_ENTRY(rec_modules) = { __VA_ARGS__ }

/* The recordable module named name, or NULL. Any context. */
const struct rec_module *rec_module_find(const char *name);

/* Fill a header for stream s of module m (records and drops 0). Thread. */
void rec_header_init(struct rec_file_header *h, const struct rec_module *m, enum rec_stream s);

/*
 * Byte order (kernel/record/rec_wire.c): records and headers are native
 * in the kernel, little-endian on the wire and in the host's files.
 * rec_record_to_le / rec_record_from_le turn one record in place (its
 * type and size read before / after its head is turned);
 * rec_records_to_le turns bytes of whole records, back to back (a
 * stream chunk); rec_header_to_le / _from_le turn n file headers. All
 * do nothing on a little-endian machine. Any context.
 */
void rec_record_to_le(struct rec_head *h);
void rec_record_from_le(struct rec_head *h);
void rec_records_to_le(uint8_t *records, size_t bytes);
void rec_header_to_le(struct rec_file_header *h, unsigned n);
void rec_header_from_le(struct rec_file_header *h, unsigned n);

/* --- Record data: an ordered list of records in chunks ------------------- */

struct rec_chunk;
struct rec_data {
	struct rec_chunk *head, *tail;	/* the owner's lock */
	uint64_t bytes, records;	/* the owner's lock */
};

/*
 * rec_data_append - copy one record (bytes long, a multiple of 8, at
 *   most REC_RECORD_MAX) to the end of d.
 * Return value: 0, or -ENOMEM (the store's limit or the allocator).
 * Caller's context: thread, may sleep.
 */
#define REC_RECORD_MAX 1024
int rec_data_append(struct rec_data *d, const void *rec, uint32_t bytes);
void rec_data_free(struct rec_data *d);

/* Walks a rec_data's records in order. */
struct rec_cursor {
	const struct rec_chunk *chunk;
	uint32_t offset;
};
void rec_cursor_init(struct rec_cursor *cur, const struct rec_data *d);
/* The next record, or NULL at the end. */
const struct rec_head *rec_cursor_next(struct rec_cursor *cur);

/* Copy up to n bytes of d's records from byte offset; returns the count. */
size_t rec_data_read(const struct rec_data *d, uint64_t offset, void *buf, size_t n);
/* The same bytes as the wire carries them: each record little-endian (REC_GET). */
size_t rec_data_read_le(const struct rec_data *d, uint64_t offset, void *buf, size_t n);

/*
 * rec_data_merge - move the records of from[0..n) (n <= MAX_CPUS), each
 *   in sequence order, into out in sequence order; from[] end up empty.
 * Return value: the records that did not fit the store (lost).
 */
uint64_t rec_data_merge(struct rec_data *out, struct rec_data *from, unsigned n);

/* --- Recordings kept in the kernel --------------------------------------- */

#define REC_ORIGIN_MAX 80

struct recording {
	unsigned id;				/* set once: `rec<id>` */
	char origin[REC_ORIGIN_MAX];		/* set once: how it was made */
	struct rec_file_header header[2];	/* [0] trace, [1] log; set before complete */
	struct rec_data stream[2];		/* [0] trace, [1] log; set before complete */
	bool complete;				/* store_lock: no more records come */
	unsigned users;				/* store_lock: readers; delete waits for 0 */
	struct list_node node;			/* store_lock */
};

/*
 * rec_store_create - a new, incomplete recording, numbered.
 * Return value: the recording (one user: the creator), or NULL.
 * Caller's context: thread.
 */
struct recording *rec_store_create(const char *origin);

/* Make r complete (its headers and streams final). Thread. */
void rec_store_complete(struct recording *r);

/*
 * rec_store_get - recording id (a complete one, unless any is true)
 *   with one more user, or NULL. rec_store_put drops the user.
 */
struct recording *rec_store_get(unsigned id, bool any);
void rec_store_put(struct recording *r);

/* Delete recording id once no one uses it. Return value: 0, -ENOENT, -EBUSY (in use). */
int rec_store_delete(unsigned id);

/* Drop the caller's user of r and delete it (rec_store_delete's result). */
int rec_store_discard(struct recording *r);

/* Call fn for each recording, oldest first, under the store lock (fn may not sleep long). */
void rec_store_foreach(void (*fn)(const struct recording *r, void *arg), void *arg);

/* Bytes the store's records take, and its limit. */
uint64_t rec_store_bytes(void);
uint64_t rec_store_limit(void);

/* Parse "rec7" or "7" into 7; false when it is neither. */
bool rec_parse_id(const char *s, unsigned *id);

/*
 * record_put_request / record_get_request - the REC_PUT and REC_GET ops
 *   (scion/chan_proto.h): an upload into the store, a stream of a
 *   recording as its file. Caller's context: the channel thread.
 */
int record_put_request(uint32_t seq, const uint8_t *body, uint32_t len);
int record_get_request(uint32_t seq, const uint8_t *body, uint32_t len);

/* --- Sessions: recording grafts installed on a module -------------------- */

/*
 * rec_point_start / rec_point_stop - record graft point name on its own
 *   into bufs (point_record.c): one point at a time; stop waits until no
 *   CPU writes bufs. rec_point_header fills a header for it.
 * Return value: 0, -ENOENT (no such point, why filled), -EBUSY.
 * Caller's context: thread, may sleep.
 */
int rec_point_start(const char *name, struct tbuf_set *bufs, char *why, size_t whylen);
void rec_point_stop(void);
void rec_point_header(struct rec_file_header *h, const char *point, enum rec_stream s);

/*
 * record_kernel_start / record_kernel_stop - record module (or a graft
 *   point) into a new
 *   recording kept in the kernel (one at a time); stop hands back the
 *   completed recording with one user for the caller to put, and fills
 *   why with a warning when records were lost (empty otherwise).
 * Return value: 0 or -errno with why filled.
 * Caller's context: thread, may sleep.
 */
int record_kernel_start(const char *module, char *why, size_t whylen);
int record_kernel_stop(struct recording **out, char *why, size_t whylen);
/* The id of the recording being made, or 0. */
unsigned record_kernel_active(void);

struct rec_session;

/*
 * rec_session_start - install m's recording grafts, writing into bufs.
 * Return value: the session, or NULL with why filled (module busy or
 *   absent, grafts not installable).
 * Caller's context: thread, may sleep.
 */
struct rec_session *rec_session_start(const struct rec_module *m, struct tbuf_set *bufs,
				      char *why, size_t whylen);

/*
 * rec_session_stop - remove the grafts and wait until no CPU runs them,
 *   then free the session (not bufs).
 * Caller's context: thread, no spinlocks held, may sleep.
 */
void rec_session_stop(struct rec_session *s);

#endif
