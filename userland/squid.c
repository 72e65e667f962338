// SPDX-License-Identifier: BSD-2-Clause
/*
 * squid: a Squid-like caching proxy and its load, for redoing KernInst's
 * Squid study on Scion (the same binary runs on Linux). One process is
 * the proxy: it multiplexes its clients and the origin server with poll
 * over non-blocking pipes, keeps an in-memory cache of recent objects
 * and an on-disk cache of one file per object in a three-level directory
 * hierarchy (DIR/L1/L2/oNNNNNNNN, 16 x 16 directories, as Squid's
 * cache_dir), and when the disk cache is full it
 * ejects the least recently used object and reuses its file for the new
 * one: opened with O_TRUNC (Squid's way, the study's second bottleneck),
 * or with --no-trunc opened without it and truncated to the size written
 * before close (the study's fix 2). Forked clients and an origin server
 * drive it as the Wisconsin Proxy Benchmark does: a first stage of
 * requests never repeated, then a stage that reuses objects; sizes of 3
 * to 40 KB for 99% of objects and about 1 MB for 1%.
 *
 *   squid [--clients N] [--requests R] [--disk-files F] [--mem-objects M]
 *         [--dir DIR] [--no-trunc] [--seed S] [--json]
 *
 * R requests per client, half in each stage. Prints one line of results:
 *   squid: R requests, H memory hits, D disk hits, M misses, O opens, T truncating opens,
 *   E ejections, F files, K KiB served, MS ms
 * or with --json the same figures as one JSON object, for programs
 * (tools/squid_study.py): requests, memory_hits, disk_hits, misses,
 * opens, truncating_opens, ejections, files, kib, ms, bad_clients.
 * Messages: a request is a 4-byte object id; a response is the id, the
 * size (4 bytes each) and the bytes. Exit status 0 when every response
 * carried the right bytes.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CLIENTS 64
#define BIG_OBJECT (1000 * 1000)
#define OBJECT_MAX (BIG_OBJECT + 64)

static int clients = 30, requests = 100, disk_files = 6000, mem_objects = 64;
static const char *dir = "/squid-cache";
static int no_trunc, json;
static unsigned seed = 1;

static uint32_t object_size(uint32_t id)
{
	uint32_t h = id * 2654435761u;
	return h % 100 == 0 ? BIG_OBJECT + h % 64 : 3000 + h % 37000;
}

static uint8_t object_byte(uint32_t id, uint32_t i)
{
	return (uint8_t)(id * 131 + i * 7 + (i >> 10));
}

static void die(const char *what)
{
	perror(what);
	exit(2);
}

/* ---- The origin server: one request at a time, blocking. ---- */
static void origin(int in, int out)
{
	static uint8_t buf[OBJECT_MAX + 8];
	uint32_t id;
	while (read(in, &id, 4) == 4) {
		uint32_t size = object_size(id);
		memcpy(buf, &id, 4);
		memcpy(buf + 4, &size, 4);
		for (uint32_t i = 0; i < size; i++)
			buf[8 + i] = object_byte(id, i);
		size_t done = 0;
		while (done < size + 8) {
			ssize_t w = write(out, buf + done, size + 8 - done);
			if (w <= 0)
				exit(1);
			done += (size_t)w;
		}
	}
	exit(0);
}

static int read_full(int fd, void *buf, size_t n)
{
	size_t done = 0;
	while (done < n) {
		ssize_t r = read(fd, (uint8_t *)buf + done, n - done);
		if (r <= 0)
			return -1;
		done += (size_t)r;
	}
	return 0;
}

/* ---- A client: stage 1 asks for new objects, stage 2 reuses them. ---- */
static void client(int index, int in, int out)
{
	static uint8_t buf[OBJECT_MAX];
	unsigned s = seed * 7919u + (unsigned)index;
	int bad = 0;
	for (int r = 0; r < requests; r++) {
		uint32_t id;
		if (r < requests / 2) {
			id = (uint32_t)(index * requests + r);	/* never asked before */
		} else {
			s = s * 1103515245u + 12345u;
			/* Reuse: mostly objects of the first stage, some recent ones. */
			uint32_t pool = (uint32_t)(clients * (requests / 2));
			id = (s >> 8) % (pool ? pool : 1);
		}
		if (write(out, &id, 4) != 4)
			exit(1);
		uint32_t hdr[2];
		if (read_full(in, hdr, 8) || hdr[0] != id || hdr[1] != object_size(id) ||
		    read_full(in, buf, hdr[1]))
			exit(1);
		for (uint32_t i = 0; i < hdr[1]; i += 97)
			bad += buf[i] != object_byte(id, i);
	}
	exit(bad ? 1 : 0);
}

/* ---- The proxy. ---- */
struct conn {
	int in, out;			/* from the client, to the client */
	uint8_t req[4];
	int req_have;
	uint8_t *pending;		/* a response being written */
	size_t pending_len, pending_done;
	bool waiting;			/* a request is being served */
	uint32_t want;
};

struct disk_entry {			/* the on-disk cache, LRU by last use */
	uint32_t id;
	uint32_t size;
	uint64_t used;
	int slot;			/* the file's number: reused after ejection */
	bool valid;
};

struct mem_entry {
	uint32_t id;
	uint32_t size;
	uint64_t used;
	uint8_t *data;
};

static struct conn conn[MAX_CLIENTS];
static struct disk_entry *disk;
static struct mem_entry *mem;
static int disk_used;
static uint64_t tick;
static unsigned long long n_req, n_mem, n_disk, n_miss, n_open, n_trunc, n_eject, kib;

static void slot_path(char *p, size_t n, int slot)
{
	snprintf(p, n, "%s/%02X/%02X/o%08d", dir, slot % 16, (slot / 16) % 16, slot);
}

static void make_dirs(void)
{
	char p[256];
	mkdir(dir, 0755);
	for (int a = 0; a < 16; a++) {
		snprintf(p, sizeof(p), "%s/%02X", dir, a);
		mkdir(p, 0755);
		for (int b = 0; b < 16; b++) {
			snprintf(p, sizeof(p), "%s/%02X/%02X", dir, a, b);
			mkdir(p, 0755);
		}
	}
}

static struct mem_entry *mem_find(uint32_t id)
{
	for (int i = 0; i < mem_objects; i++)
		if (mem[i].data && mem[i].id == id)
			return &mem[i];
	return NULL;
}

static void mem_put(uint32_t id, const uint8_t *data, uint32_t size)
{
	if (size > 64 * 1024)
		return;		/* big objects stay on disk only, as Squid's memory cache does */
	int victim = 0;
	for (int i = 0; i < mem_objects; i++) {
		if (!mem[i].data) {
			victim = i;
			break;
		}
		if (mem[i].used < mem[victim].used)
			victim = i;
	}
	free(mem[victim].data);
	mem[victim] = (struct mem_entry){ .id = id, .size = size, .used = ++tick, .data = malloc(size) };
	memcpy(mem[victim].data, data, size);
}

static struct disk_entry *disk_find(uint32_t id)
{
	for (int i = 0; i < disk_used; i++)
		if (disk[i].valid && disk[i].id == id)
			return &disk[i];
	return NULL;
}

/* Store a fetched object: a new file while there is room, else the LRU one's file reused. */
static void disk_store(uint32_t id, const uint8_t *data, uint32_t size)
{
	struct disk_entry *e;
	if (disk_used < disk_files) {
		e = &disk[disk_used];
		e->slot = disk_used++;
	} else {
		e = &disk[0];
		for (int i = 1; i < disk_used; i++)
			if (disk[i].used < e->used)
				e = &disk[i];
		n_eject++;
	}
	char p[256];
	slot_path(p, sizeof(p), e->slot);
	int flags = O_WRONLY | O_CREAT | (no_trunc ? 0 : O_TRUNC);
	n_open++;
	n_trunc += !no_trunc;
	int fd = open(p, flags, 0644);
	if (fd < 0)
		die(p);
	size_t done = 0;
	while (done < size) {
		ssize_t w = write(fd, data + done, size - done);
		if (w <= 0)
			die("cache write");
		done += (size_t)w;
	}
	if (no_trunc && ftruncate(fd, size))
		die("ftruncate");
	close(fd);
	*e = (struct disk_entry){ .id = id, .size = size, .used = ++tick, .slot = e->slot,
				  .valid = true };
}

static uint8_t *disk_load(struct disk_entry *e)
{
	char p[256];
	slot_path(p, sizeof(p), e->slot);
	n_open++;
	int fd = open(p, O_RDONLY);
	if (fd < 0)
		die(p);
	uint8_t *data = malloc(e->size + 8);
	if (read_full(fd, data + 8, e->size))
		die("cache read");
	close(fd);
	e->used = ++tick;
	return data;
}

static void respond(struct conn *c, uint8_t *msg, uint32_t id, uint32_t size)
{
	memcpy(msg, &id, 4);
	memcpy(msg + 4, &size, 4);
	c->pending = msg;
	c->pending_len = size + 8;
	c->pending_done = 0;
	kib += size / 1024;
}

static int proxy(int origin_in, int origin_out, int nclients)
{
	static uint8_t fetch[OBJECT_MAX + 8];
	size_t fetch_have = 0;
	int fetching = -1;		/* the client whose miss the origin serves */
	int queue[MAX_CLIENTS], qhead = 0, qlen = 0, finished = 0;
	struct pollfd fds[2 * MAX_CLIENTS + 1];
	fcntl(origin_in, F_SETFL, O_NONBLOCK);
	for (int i = 0; i < nclients; i++) {
		fcntl(conn[i].in, F_SETFL, O_NONBLOCK);
		fcntl(conn[i].out, F_SETFL, O_NONBLOCK);
	}
	while (finished < nclients) {
		if (fetching < 0 && qlen) {
			fetching = queue[qhead];
			qhead = (qhead + 1) % MAX_CLIENTS;
			qlen--;
			if (write(origin_out, &conn[fetching].want, 4) != 4)
				die("origin request");
			fetch_have = 0;
		}
		int n = 0;
		for (int i = 0; i < nclients; i++) {
			if (conn[i].in >= 0 && !conn[i].waiting)
				fds[n++] = (struct pollfd){ .fd = conn[i].in, .events = POLLIN };
			if (conn[i].pending)
				fds[n++] = (struct pollfd){ .fd = conn[i].out, .events = POLLOUT };
		}
		if (fetching >= 0)
			fds[n++] = (struct pollfd){ .fd = origin_in, .events = POLLIN };
		if (poll(fds, (nfds_t)n, 10000) <= 0)
			die("poll");
		for (int k = 0; k < n; k++) {
			if (!fds[k].revents)
				continue;
			int fd = fds[k].fd;
			if (fd == origin_in) {
				ssize_t r = read(origin_in, fetch + fetch_have, sizeof(fetch) - fetch_have);
				if (r > 0)
					fetch_have += (size_t)r;
				uint32_t size;
				memcpy(&size, fetch + 4, 4);
				if (fetch_have >= 8 && fetch_have == size + 8) {
					struct conn *c = &conn[fetching];
					disk_store(c->want, fetch + 8, size);
					mem_put(c->want, fetch + 8, size);
					uint8_t *msg = malloc(size + 8);
					memcpy(msg + 8, fetch + 8, size);
					respond(c, msg, c->want, size);
					fetching = -1;
				}
				continue;
			}
			for (int i = 0; i < nclients; i++) {
				struct conn *c = &conn[i];
				if (fd == c->out && c->pending && (fds[k].revents & POLLOUT)) {
					ssize_t w = write(c->out, c->pending + c->pending_done,
							  c->pending_len - c->pending_done);
					if (w > 0)
						c->pending_done += (size_t)w;
					if (c->pending_done == c->pending_len) {
						free(c->pending);
						c->pending = NULL;
						c->waiting = false;
					}
				} else if (fd == c->in && c->in >= 0) {
					ssize_t r = read(c->in, c->req + c->req_have, 4 - (size_t)c->req_have);
					if (r == 0) {
						close(c->in);
						c->in = -1;
						finished++;
						continue;
					}
					if (r < 0)
						continue;
					c->req_have += (int)r;
					if (c->req_have < 4)
						continue;
					c->req_have = 0;
					memcpy(&c->want, c->req, 4);
					c->waiting = true;
					n_req++;
					struct mem_entry *m = mem_find(c->want);
					struct disk_entry *d = m ? NULL : disk_find(c->want);
					if (m) {
						n_mem++;
						m->used = ++tick;
						uint8_t *msg = malloc(m->size + 8);
						memcpy(msg + 8, m->data, m->size);
						respond(c, msg, m->id, m->size);
					} else if (d) {
						n_disk++;
						uint8_t *msg = disk_load(d);
						mem_put(d->id, msg + 8, d->size);
						respond(c, msg, d->id, d->size);
					} else {
						n_miss++;
						queue[(qhead + qlen++) % MAX_CLIENTS] = i;
					}
				}
			}
		}
	}
	return 0;
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ll + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--no-trunc")) {
			no_trunc = 1;
			continue;
		}
		if (!strcmp(a, "--json")) {
			json = 1;
			continue;
		}
		if (!v) {
			fprintf(stderr, "squid: %s needs a value (see the usage in squid.c)\n", a);
			return 2;
		}
		i++;
		if (!strcmp(a, "--clients"))
			clients = atoi(v);
		else if (!strcmp(a, "--requests"))
			requests = atoi(v);
		else if (!strcmp(a, "--disk-files"))
			disk_files = atoi(v);
		else if (!strcmp(a, "--mem-objects"))
			mem_objects = atoi(v);
		else if (!strcmp(a, "--dir"))
			dir = v;
		else if (!strcmp(a, "--seed"))
			seed = (unsigned)atoi(v);
		else {
			fprintf(stderr, "squid: unknown option %s\n", a);
			return 2;
		}
	}
	if (clients < 1 || clients > MAX_CLIENTS || requests < 2 || disk_files < 1 ||
	    mem_objects < 1) {
		fprintf(stderr, "squid: --clients 1..%d, --requests >= 2, --disk-files and "
			"--mem-objects >= 1\n", MAX_CLIENTS);
		return 2;
	}
	disk = calloc((size_t)disk_files, sizeof(*disk));
	mem = calloc((size_t)mem_objects, sizeof(*mem));
	make_dirs();
	int to_origin[2], from_origin[2];
	if (pipe(to_origin) || pipe(from_origin))
		die("pipe");
	pid_t origin_pid = fork();
	if (origin_pid == 0) {
		close(to_origin[1]);
		close(from_origin[0]);
		origin(to_origin[0], from_origin[1]);
	}
	close(to_origin[0]);
	close(from_origin[1]);
	pid_t pids[MAX_CLIENTS];
	for (int i = 0; i < clients; i++) {
		int req[2], resp[2];
		if (pipe(req) || pipe(resp))
			die("pipe");
		pids[i] = fork();
		if (pids[i] == 0) {
			close(req[0]);
			close(resp[1]);
			close(to_origin[1]);
			close(from_origin[0]);
			for (int j = 0; j < i; j++) {
				close(conn[j].in);
				close(conn[j].out);
			}
			client(i, resp[0], req[1]);
		}
		close(req[1]);
		close(resp[0]);
		conn[i] = (struct conn){ .in = req[0], .out = resp[1] };
	}
	long long start = now_ms();
	proxy(from_origin[0], to_origin[1], clients);
	long long ms = now_ms() - start;
	close(to_origin[1]);
	int bad = 0, status;
	for (int i = 0; i < clients; i++)
		if (waitpid(pids[i], &status, 0) != pids[i] || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			bad++;
	waitpid(origin_pid, NULL, 0);
	if (json) {
		printf("{\"requests\": %llu, \"memory_hits\": %llu, \"disk_hits\": %llu, "
		       "\"misses\": %llu, \"opens\": %llu, \"truncating_opens\": %llu, "
		       "\"ejections\": %llu, \"files\": %d, \"kib\": %llu, \"ms\": %lld, "
		       "\"bad_clients\": %d}\n", n_req, n_mem, n_disk, n_miss, n_open, n_trunc,
		       n_eject, disk_used, kib, ms, bad);
		return bad ? 1 : 0;
	}
	printf("squid: %llu requests, %llu memory hits, %llu disk hits, %llu misses, %llu opens, "
	       "%llu truncating opens, %llu ejections, %d files, %llu KiB served, %lld ms\n", n_req,
	       n_mem, n_disk, n_miss, n_open, n_trunc, n_eject, disk_used, kib, ms);
	if (bad)
		printf("squid: %d clients got wrong bytes or failed\n", bad);
	return bad ? 1 : 0;
}
