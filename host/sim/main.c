// SPDX-License-Identifier: BSD-2-Clause
/*
 * scion-sim: replay a recorded block cache or scheduler trace against
 * policies on the host (`scion sim replay` runs it). The replay is the
 * kernel's own (kernel/insitu/bcache_replay.c over an instance of the kernel's
 * cache, kernel/bcache/cache.c; for the scheduler kernel/insitu/sched_replay.c
 * over an instance of its run queue, driven by sched.c here), so a log
 * written here equals, byte for byte, the one `sim run` writes in the
 * kernel for the same trace, policies and model.
 *
 *   scion-sim policies
 *   scion-sim replay TRACE --policy P [--policy Q ...] [--log LOG]
 *                    [--model HIT_NS,MISS_NS] [--follow] [--out DIR]
 *                    [--progress] [-v]
 *
 * TRACE is a recording directory (its trace.bin and log.bin) or a
 * trace file; its header's module chooses the replay (--model is the
 * block cache's only, --follow the scheduler's). The recorded log, when
 * there is one, calibrates the latency model and is the reference each
 * policy's log is compared with. --follow replays a sched recording's
 * trace and log together, asking each policy at each recorded pick
 * (kernel/insitu/sched_follow.h) instead of the open-loop model; it needs
 * the log (the directory's log.bin, or --log LOG). Files are read whole and checked before anything is replayed;
 * a truncated or corrupt one is refused with one line, and no log of a
 * failed replay is left looking complete (written to NAME.part, renamed
 * at the end).
 *
 * An incomplete recording (its directory's meta.json says "complete":
 * false: records dropped, or the channel lost mid-recording, with a
 * "reason") is replayed after one line saying so. A block cache trace
 * replays every request that arrived. A scheduler's trace and log share
 * one run of sequence numbers, so a record that never arrived is a gap,
 * after which no history can be rebuilt: the sched replays take both
 * streams up to the first gap (the records that arrived after it are
 * left out, and the line says how many).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "sim_host.h"

#define MAX_POLICIES 16
/*
 * How far ahead of a walk over a stream its bytes are asked for: each
 * record's place depends on the size read from the one before, and the
 * hardware's prefetcher stops at every page, so a walk over a trace just
 * mapped waits on memory at each record without it.
 */
#define PREFETCH_AHEAD 2048

bool sim_verbose;

int fail(const char *fmt, ...)
{
	va_list ap;
	fputs("scion-sim: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

/*
 * The bytes of the file at path, whole: mapped from the page cache (no copy,
 * no fresh pages to fault in: the bulk of a replay's start when read), else
 * read (a pipe, a file system that cannot map). Never written through.
 */
static int file_bytes(const char *path, const uint8_t **data, size_t *size)
{
	struct stat st;
	int fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st))
		return fd < 0 ? -1 : (close(fd), -1);
	*size = 0;
	*data = NULL;
	if (S_ISREG(st.st_mode) && st.st_size > 0) {
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
		if (p != MAP_FAILED) {
			close(fd);
			*data = p;
			*size = (size_t)st.st_size;
			return 0;
		}
	}
	size_t cap = 1 << 20;
	uint8_t *buf = malloc(cap);
	for (ssize_t n = 1; buf && n > 0;) {
		if (*size == cap) {
			uint8_t *more = realloc(buf, cap *= 2);
			if (!more)
				break;
			buf = more;
		}
		n = read(fd, buf + *size, cap - *size);
		*size += n > 0 ? (size_t)n : 0;
	}
	close(fd);
	*data = buf;
	return buf ? 0 : (errno = ENOMEM, -1);
}

int load(struct stream_file *f, enum rec_stream stream)
{
	char why[200];
	if (file_bytes(f->path, &f->data, &f->size))
		return fail("%s: %s", f->path, strerror(errno));
	if (f->size < sizeof(f->header))
		return fail("%s: %zu bytes, shorter than a recording header", f->path, f->size);
	memcpy(&f->header, f->data, sizeof(f->header));
	if (sim_check_format(&f->header, stream, why, sizeof(why)))
		return fail("%s: %s", f->path, why);
	uint64_t records = 0;
	size_t off = sizeof(f->header);
	const char *bad;
	while (sim_walk(f->data, f->size, &off, &bad)) {
		__builtin_prefetch(f->data + off + PREFETCH_AHEAD);
		records++;
	}
	if (bad)
		return fail("%s: record %llu at byte %zu: %s (truncated file?)", f->path,
			    (unsigned long long)records + 1, off, bad);
	if (records != f->header.records)
		return fail("%s: %llu records, its header says %llu (truncated?)", f->path,
			    (unsigned long long)records, (unsigned long long)f->header.records);
	f->offset = sizeof(f->header);
	return 0;
}

const struct rec_head *next_record(void *ctx)
{
	struct stream_file *f = ctx;
	const char *bad;
	const struct rec_head *h = sim_walk(f->data, f->size, &f->offset, &bad);
	__builtin_prefetch(f->data + f->offset + PREFETCH_AHEAD);
	f->index += h != NULL;
	return h;
}

struct sim_reader reader(struct stream_file *f)
{
	f->offset = sizeof(f->header);
	f->index = 0;
	return (struct sim_reader){ next_record, f };
}

FILE *log_open(struct log_file *lf, const struct stream_file *trace, const char *policy,
	       const char *path)
{
	snprintf(lf->path, sizeof(lf->path), "%s", path);
	snprintf(lf->part, sizeof(lf->part), "%s.part", path);
	lf->trace = trace;
	lf->header = trace->header;
	lf->header.stream = REC_STREAM_LOG;
	lf->header.drops = 0;
	lf->header.records = 0;
	memset(lf->header.policy, 0, sizeof(lf->header.policy));	/* as the kernel's */
	snprintf(lf->header.policy, sizeof(lf->header.policy), "%s", policy);
	lf->fp = fopen(lf->part, "wb");
	if (!lf->fp) {
		fail("%s: %s", lf->part, strerror(errno));
		return NULL;
	}
	/* A log is tens of bytes a record and millions of records: few, big writes. */
	lf->buffer = malloc(LOG_BUFFER_BYTES);
	lf->used = 0;
	lf->failed = fwrite(&lf->header, sizeof(lf->header), 1, lf->fp) != 1;
	return lf->fp;
}

int log_flush(struct log_file *lf)
{
	if (lf->used && fwrite(lf->buffer, lf->used, 1, lf->fp) != 1)
		lf->failed = true;
	lf->used = 0;
	return lf->failed ? -EIO : 0;
}

int log_close(struct log_file *lf, uint64_t records, int err, const char *why)
{
	lf->header.records = records;
	if (!err && log_flush(lf))
		err = -EIO;
	if (!err && (fseek(lf->fp, 0, SEEK_SET) || fwrite(&lf->header, sizeof(lf->header), 1,
							   lf->fp) != 1))
		err = -EIO;
	if (fclose(lf->fp) && !err)
		err = -EIO;
	free(lf->buffer);
	if (err) {
		unlink(lf->part);
		return fail("%s: %s: %s", lf->trace->path, lf->header.policy,
			    err == -EIO || !why ? strerror(err == -EIO ? errno : -err) : why);
	}
	/*
	 * The last log of this name goes first: a rename over an existing file makes
	 * ext4 (auto_da_alloc) start writing the new one out at once, within the
	 * rename, which cost more than the whole replay of a million requests.
	 */
	unlink(lf->path);
	if (rename(lf->part, lf->path))
		return fail("%s: %s", lf->path, strerror(errno));
	return 0;
}

void log_discard(struct log_file *lf)
{
	fclose(lf->fp);
	free(lf->buffer);
	unlink(lf->part);
}

struct log_out {
	struct log_file *lf;
	struct stream_file *reference;	/* the recorded log, or NULL */
	const struct rec_head *ref_next;
	struct sim_summary *sum;
	struct stream_file *trace;	/* for progress */
	bool progress;
	unsigned last_percent;
	const char *label;
};

static int emit(void *ctx, const struct rec_head *rec)
{
	struct log_out *o = ctx;
	uint64_t seq = rec_seq(rec);

	while (o->ref_next && rec_seq(o->ref_next) < seq)
		o->ref_next = next_record(o->reference);
	if (o->ref_next && rec_seq(o->ref_next) == seq &&
	    sim_same_decision((const void *)o->ref_next, (const void *)rec))
		o->sum->agree++;
	if (o->progress && o->trace->header.records >= 100) {
		unsigned pct = (unsigned)(o->trace->index * 100 / o->trace->header.records);
		if (pct != o->last_percent) {
			o->last_percent = pct;
			fprintf(stderr, "\rreplaying %s: %u%% (%llu of %llu)", o->label, pct,
				(unsigned long long)o->trace->index,
				(unsigned long long)o->trace->header.records);
		}
	}
	return log_put(o->lf, rec, rec->size);
}

static void print_row(const char *label, const struct sim_summary *s, uint64_t requests,
		      bool agree_known, const char *log)
{
	char line[512];
	sim_format_row(line, sizeof(line), label, s, requests, agree_known, log);
	printf("%s\n", line);
}

/* One policy: an instance, the replay into OUT/NAME.log.bin, one row. */
static int simulate(struct stream_file *trace, struct stream_file *log, const char *spec,
		    const struct sim_model *model, const char *out_dir, bool progress)
{
	struct sim_policy_names names;
	char why[300], policy[REC_POLICY_MAX], path[4300];
	static struct bcache_cache c;

	if (sim_policy_parse(spec, trace->header.policy, sim_host_kind_of, &names, why,
			     sizeof(why)))
		return fail("%s", why);
	cache_init(&c, (unsigned)trace->header.config[REC_BCACHE_CONFIG_BUFFERS],
		   trace->header.config[REC_BCACHE_CONFIG_BLOCKS]);
	c.start_io = sim_start_io;
	if (!sim_host_use(&c, &names, why, sizeof(why)))
		return fail("%s", why);
	struct sim_oracle *oracle = NULL;
	if (sim_policy_needs_oracle(&names) && !(oracle = sim_host_oracle(trace, why, sizeof(why))))
		return fail("%s: %s", trace->path, why);
	sim_host_use_oracle(oracle);
	sim_policy_format(&names, policy, sizeof(policy));
	snprintf(path, sizeof(path), "%s/%s+%s.log.bin", out_dir, names.name[SIM_EVICT],
		 names.name[SIM_READAHEAD]);
	struct log_file lf;
	FILE *fp = log_open(&lf, trace, policy, path);
	if (!fp)
		return 1;

	struct sim_summary sum = { 0 };
	struct log_out o = { .lf = &lf, .reference = log, .sum = &sum, .trace = trace,
			     .progress = progress, .last_percent = 101, .label = policy };
	if (log) {
		reader(log);
		o.ref_next = next_record(log);
	}
	int err = sim_replay(&c, &trace->header, reader(trace), model, emit, &o, &sum, why,
			     sizeof(why));
	if (progress && trace->header.records >= 100)
		fputc('\n', stderr);
	if (log_close(&lf, sum.requests, err, err ? why : NULL))
		return 1;
	print_row(policy, &sum, trace->header.records, log != NULL, path);
	sim_host_table_add(policy, &sum);
	if (sim_host_aborts())
		printf("scion-sim: %s: %llu graft invocations aborted (their default answered, as "
		       "live)\n", policy, (unsigned long long)sim_host_aborts());
	return 0;
}

static bool is_dir(const char *p)
{
	struct stat st;
	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

/* --- An incomplete recording: its meta.json, and the sched streams' whole prefix -- */

static const char *json_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* The JSON string at p (at its '"') into out (escapes decoded; a code point beyond
 * ASCII as '?'); the byte after it, or NULL when it is not a whole string. */
static const char *json_string(const char *p, const char *end, char *out, size_t n)
{
	size_t k = 0;
	if (p >= end || *p++ != '"')
		return NULL;
	while (p < end && *p != '"') {
		char c = *p++;
		if (c == '\\') {
			if (p >= end)
				return NULL;
			c = *p++;
			switch (c) {
			case 'n': case 't': case 'r': case 'b': case 'f':
				c = ' ';	/* one line */
				break;
			case 'u': {
				unsigned v = 0;
				for (int i = 0; i < 4; i++, p++) {
					if (p >= end || !*p || !strchr("0123456789abcdefABCDEF", *p))
						return NULL;
					v = v * 16 + (unsigned)(*p <= '9' ? *p - '0' : (*p | 0x20) - 'a' + 10);
				}
				c = v >= 0x20 && v < 0x7f ? (char)v : '?';
				break;
			}
			default:
				break;		/* \" \\ \/ are themselves */
			}
		}
		if (out && k + 1 < n)
			out[k++] = c;
	}
	if (out && n)
		out[k] = 0;
	return p < end ? p + 1 : NULL;
}

/* Past the JSON value at p (any: nested ones whole); NULL when it is cut short. */
static const char *json_skip(const char *p, const char *end)
{
	if (p < end && *p == '"')
		return json_string(p, end, NULL, 0);
	if (p < end && (*p == '{' || *p == '[')) {
		int depth = 0;
		while (p < end) {
			if (*p == '"') {
				if (!(p = json_string(p, end, NULL, 0)))
					return NULL;
				continue;
			}
			depth += (*p == '{' || *p == '[') - (*p == '}' || *p == ']');
			p++;
			if (!depth)
				return p;
		}
		return NULL;
	}
	const char *start = p;
	while (p < end && (strchr("+-.eE", *p) || (*p >= '0' && *p <= '9') ||
			   (*p >= 'a' && *p <= 'z')))
		p++;
	return p > start ? p : NULL;
}

/*
 * meta_incomplete - whether the meta.json at path says its recording is
 *   incomplete ("complete": false at its top level), with its "reason" in
 *   reason (or "records were dropped" when it gives none). A meta.json that
 *   is missing or not a JSON object says nothing: 0.
 */
static int meta_incomplete(const char *path, char *reason, size_t n)
{
	static char buf[1 << 16];
	char key[32];
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return 0;
	size_t len = fread(buf, 1, sizeof(buf), fp);
	fclose(fp);
	const char *p = json_ws(buf, buf + len), *end = buf + len;
	bool incomplete = false;
	snprintf(reason, n, "records were dropped");
	if (p >= end || *p++ != '{')
		return 0;
	for (;;) {
		p = json_ws(p, end);
		if (p < end && *p == '}')
			break;
		if (!(p = json_string(p, end, key, sizeof(key))))
			return 0;
		p = json_ws(p, end);
		if (p >= end || *p++ != ':')
			return 0;
		p = json_ws(p, end);
		if (!strcmp(key, "complete") && end - p >= 5 && !memcmp(p, "false", 5))
			incomplete = true;
		const char *value = p;
		if (!(p = json_skip(p, end)))
			return 0;
		if (!strcmp(key, "reason") && *value == '"')
			json_string(value, end, reason, n);
		p = json_ws(p, end);
		if (p < end && *p == ',') {
			p++;
			continue;
		}
		if (p < end && *p == '}')
			break;
		return 0;
	}
	return incomplete;
}

/* The sequence number of the first record missing from the merged run of trace
 * and log (each sorted), or 0 when none is. */
static uint64_t first_missing(const struct stream_file *trace, const struct stream_file *log)
{
	size_t ot = sizeof(trace->header), ol = sizeof(log->header);
	const char *bad;
	const struct rec_head *a = sim_walk(trace->data, trace->size, &ot, &bad);
	const struct rec_head *b = sim_walk(log->data, log->size, &ol, &bad);
	uint64_t expect = 0;
	for (bool first = true; a || b; first = false) {
		bool take_a = a && (!b || rec_seq(a) < rec_seq(b));
		uint64_t seq = rec_seq(take_a ? a : b);
		if (!first && seq != expect)
			return expect;
		expect = seq + 1;
		if (take_a)
			a = sim_walk(trace->data, trace->size, &ot, &bad);
		else
			b = sim_walk(log->data, log->size, &ol, &bad);
	}
	return 0;
}

/* Keep f's records before sequence number seq; returns how many it left out. */
static uint64_t cut_at(struct stream_file *f, uint64_t seq)
{
	size_t off = sizeof(f->header), keep = off;
	uint64_t kept = 0;
	const char *bad;
	for (const struct rec_head *h; (h = sim_walk(f->data, f->size, &off, &bad));) {
		if (rec_seq(h) >= seq)
			break;
		keep = off;
		kept++;
	}
	uint64_t left = f->header.records - kept;
	f->size = keep;
	f->header.records = kept;
	return left;
}

/*
 * incomplete - say that the recording trace_arg (meta.json beside its trace) is
 *   incomplete, when its meta.json says so, and for a sched recording with its
 *   log keep both streams' records before the first that did not arrive.
 *   Return value: whether it is incomplete (then its drops are said too).
 */
static bool incomplete(const char *trace_arg, const char *dir, struct stream_file *trace,
		       struct stream_file *log, bool sched, bool follow)
{
	char meta[4200], reason[1024];
	const char *base = strrchr(trace_arg, '/');
	base = base ? base + 1 : trace_arg;
	if (!is_dir(trace_arg) && strcmp(base, "trace.bin"))
		return false;		/* a trace file of its own: no meta.json of its */
	snprintf(meta, sizeof(meta), "%s/meta.json", dir);
	if (!meta_incomplete(meta, reason, sizeof(reason)))
		return false;
	const char *verb = follow ? "following" : "replaying";
	uint64_t gap = sched && log ? first_missing(trace, log) : 0;
	if (!sched) {
		fprintf(stderr, "scion-sim: %s: an incomplete recording (%s): %s the %llu requests "
			"that arrived\n", trace_arg, reason, verb,
			(unsigned long long)trace->header.records);
	} else if (!gap) {
		fprintf(stderr, "scion-sim: %s: an incomplete recording (%s): %s the %llu events "
			"%sthat arrived\n", trace_arg, reason, verb,
			(unsigned long long)trace->header.records, log ? "and their picks " : "");
	} else {
		uint64_t left = cut_at(trace, gap) + cut_at(log, gap);
		fprintf(stderr, "scion-sim: %s: an incomplete recording (%s): %s the %llu events and "
			"%llu picks before seq %llu, the first that did not arrive (%llu records "
			"after it left out)\n", trace_arg, reason, verb,
			(unsigned long long)trace->header.records,
			(unsigned long long)log->header.records, (unsigned long long)gap,
			(unsigned long long)left);
	}
	return true;
}

static int usage(void)
{
	fprintf(stderr, "usage: scion-sim policies\n"
			"       scion-sim replay TRACE --policy P [--policy Q ...] [--log LOG] "
			"[--model HIT_NS,MISS_NS] [--follow] [--out DIR] [--progress] [-v]\n");
	return 2;
}

/* Where the logs go: out, else DIR/sim (made). Return value: 0, or 1 (said why). */
static int out_directory(const char *out, const char *dir, char *out_dir, size_t n)
{
	snprintf(out_dir, n, "%s", out ? out : dir);
	if (!out) {
		strncat(out_dir, "/sim", n - strlen(out_dir) - 1);
		mkdir(out_dir, 0777);
	}
	return is_dir(out_dir) ? 0 : fail("%s: not a directory", out_dir);
}

static int replay(int argc, char **argv)
{
	const char *policies[MAX_POLICIES], *trace_arg = NULL, *log_arg = NULL, *out = NULL;
	struct sim_model model = { 0 };
	bool model_given = false, follow = false, progress = isatty(2);
	int npolicies = 0;

	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--policy") && i + 1 < argc && npolicies < MAX_POLICIES)
			policies[npolicies++] = argv[++i];
		else if (!strcmp(a, "--log") && i + 1 < argc)
			log_arg = argv[++i];
		else if (!strcmp(a, "--out") && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(a, "--model") && i + 1 < argc) {
			char tail;
			if (sscanf(argv[++i], "%lu,%lu%c", &model.hit_ns, &model.miss_ns, &tail) != 2)
				return fail("--model %s: give HIT_NS,MISS_NS", argv[i]);
			model_given = true;
		} else if (!strcmp(a, "--follow"))
			follow = true;
		else if (!strcmp(a, "--progress"))
			progress = true;
		else if (!strcmp(a, "--no-progress"))
			progress = false;
		else if (!strcmp(a, "-v"))
			sim_verbose = true;
		else if (a[0] != '-' && !trace_arg)
			trace_arg = a;
		else
			return usage();
	}
	if (!trace_arg || !npolicies)
		return usage();
	static struct stream_file trace, log;
	bool have_log = false;
	char dir[4096];
	if (is_dir(trace_arg)) {
		snprintf(dir, sizeof(dir), "%s", trace_arg);
		snprintf(trace.path, sizeof(trace.path), "%s/trace.bin", trace_arg);
		snprintf(log.path, sizeof(log.path), "%s/log.bin", trace_arg);
		have_log = !log_arg && access(log.path, F_OK) == 0;
	} else {
		snprintf(trace.path, sizeof(trace.path), "%s", trace_arg);
		const char *slash = strrchr(trace_arg, '/');
		snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - trace_arg) : 1,
			 slash ? trace_arg : ".");
	}
	if (log_arg) {
		snprintf(log.path, sizeof(log.path), "%s", log_arg);
		have_log = true;
	}
	if (load(&trace, REC_STREAM_TRACE) || (have_log && load(&log, REC_STREAM_LOG)))
		return 1;
	char why[200], out_dir[4200];
	bool sched = !strncmp(trace.header.module, "sched", sizeof(trace.header.module));
	if (!incomplete(trace_arg, dir, &trace, have_log ? &log : NULL, sched, follow) &&
	    trace.header.drops)
		fprintf(stderr, "scion-sim: %s: the recording dropped %llu records: this replays an "
			"incomplete trace\n", trace.path, (unsigned long long)trace.header.drops);
	if (!sched && strncmp(trace.header.module, "bcache", sizeof(trace.header.module)))
		return fail("%s: a trace of module '%.*s'; scion-sim replays bcache and sched",
			    trace.path, (int)sizeof(trace.header.module), trace.header.module);
	if (sched && model_given)
		return fail("%s: a sched trace: --model is the block cache's", trace.path);
	if (!sched && follow)
		return fail("%s: a bcache trace: --follow is the scheduler's (a block cache replay "
			    "always follows its trace)", trace.path);
	if (sched)
		return out_directory(out, dir, out_dir, sizeof(out_dir)) ||
		       sim_sched_replay(&trace, have_log ? &log : NULL, policies, npolicies, out_dir,
					progress, follow);
	if (sim_check_header(&trace.header, REC_STREAM_TRACE, why, sizeof(why)))
		return fail("%s: %s", trace.path, why);
	if (have_log && sim_check_header(&log.header, REC_STREAM_LOG, why, sizeof(why)))
		return fail("%s: %s", log.path, why);
	struct sim_summary live = { 0 };
	if (have_log) {
		struct sim_reader r = reader(&log);
		for (const struct rec_head *h; (h = r.next(r.ctx));)
			if (h->type == REC_BCACHE_RESULT)
				sim_summary_add(&live, (const void *)h);
		if (!model_given && !sim_model_calibrate(reader(&log), &model))
			return fail("%s has no hit and miss to calibrate the latency model; give "
				    "--model HIT_NS,MISS_NS", log.path);
	} else if (!model_given) {
		return fail("%s: no recorded log to calibrate the latency model; give --log LOG "
			    "or --model HIT_NS,MISS_NS", trace.path);
	}
	if (out_directory(out, dir, out_dir, sizeof(out_dir)))
		return 1;
	printf("sim: %s: %llu requests, %llu buffers, %llu blocks; model: hit %llu ns, miss %llu "
	       "ns (%s)\n", trace.path, (unsigned long long)trace.header.records,
	       (unsigned long long)trace.header.config[REC_BCACHE_CONFIG_BUFFERS],
	       (unsigned long long)trace.header.config[REC_BCACHE_CONFIG_BLOCKS],
	       (unsigned long long)model.hit_ns, (unsigned long long)model.miss_ns,
	       model_given ? "given" : "measured in its log");
	char head[160];
	sim_format_header(head, sizeof(head));
	printf("%s\n", head);
	if (have_log) {
		char label[REC_POLICY_MAX + 8];
		snprintf(label, sizeof(label), "live %s", log.header.policy);
		print_row(label, &live, trace.header.records, false, "(measured)");
		sim_host_table_add(label, &live);
	}
	for (int k = 0; k < npolicies; k++) {
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (simulate(&trace, have_log ? &log : NULL, policies[k], &model, out_dir, progress))
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
		if (sim_verbose || getenv("SCION_SIM_RATE"))
			fprintf(stderr, "scion-sim: %s: %.0f requests per second\n", policies[k],
				s > 0 ? (double)trace.header.records / s : 0.0);
	}
	sim_host_print_gap();
	return 0;
}

int main(int argc, char **argv)
{
	sim_env_init();
	if (argc == 2 && !strcmp(argv[1], "policies")) {
		sim_host_list();
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "replay"))
		return replay(argc, argv);
	return usage();
}
