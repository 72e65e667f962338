// SPDX-License-Identifier: BSD-2-Clause
/*
 * Channel output: the files a process the host started (`scion exec`,
 * the EXEC op of exec_op.c) has as stdout and stderr. Each write
 * becomes records of the control channel stream "exec" (struct
 * chan_exec_output, then the bytes; scion/chan_proto.h), in the order
 * written, whichever of the two files and whichever of the process's
 * children wrote them. Writers wait while the buffer is full, so no
 * output is dropped; the channel's output thread sends the buffer every
 * switch interval (the source's drain), and once the process has ended
 * and every byte it wrote before has gone out, one status chunk
 * (struct chan_exec_status) says how it ended.
 *
 * Also here: the null file (reads end of file, writes are discarded),
 * the stdin of such a process and every fd of a detached one.
 *
 * A chanout lives while the stream or one of its files does (refs).
 * Once the stream is closed (the host went away) or the status has
 * been sent, writes are discarded; a process still running then is
 * disowned (freed at its exit), and one still suspended is killed.
 *
 * Lock order: write_lock -> wq.lock. The stream's drain lock (held
 * around drain and release) serializes the drain's fields.
 */
#include <scion/channel.h>
#include <scion/chan_proto.h>
#include <scion/errno.h>
#include <scion/format.h>
#include <scion/mm.h>
#include <scion/mutex.h>
#include <scion/string.h>
#include <scion/tbuf.h>
#include "proc_internal.h"

#define OUT_BUF_BYTES   (32 * 1024)	/* records waiting for the next send */
#define OUT_PIECE_MAX   2048		/* output bytes of one record at most */
#define OUT_RECORD_MAX  (sizeof(struct chan_exec_output) + OUT_PIECE_MAX)
#define OUT_WAIT_TICKS  10		/* a waiting writer looks at its signals this often */

struct chanout {
	unsigned refs;			/* atomic: the stream, each file, the creator until it
					   hands its reference to the stream */
	int pid;			/* set before the process runs */
	struct waitq wq;		/* lock guards buf, used, records, bytes, closed;
					   writers wait here for room */
	uint8_t *buf;			/* wq.lock: records to send, used bytes of it */
	size_t used;
	uint32_t records;		/* wq.lock: in buf */
	uint64_t bytes;			/* wq.lock: output bytes in buf */
	bool closed;			/* wq.lock: writes are discarded from now on */
	struct mutex write_lock;	/* one writer fills stage at a time */
	uint8_t *stage;			/* write_lock: the piece being copied in */
	uint8_t *sending;		/* drain: the records being sent */
	uint64_t sent_bytes;		/* drain: output bytes sent */
	bool ended;			/* drain: the status chunk went out */
};

static void chanout_get(struct chanout *c)
{
	__atomic_fetch_add(&c->refs, 1, __ATOMIC_RELAXED);
}

void chanout_put(struct chanout *c)
{
	if (!c || __atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL))
		return;
	kfree(c->buf);
	kfree(c->sending);
	kfree(c->stage);
	kfree(c);
}

struct chanout *chanout_create(void)
{
	struct chanout *c = kzalloc(sizeof(*c));
	if (!c)
		return NULL;
	c->refs = 1;
	waitq_init(&c->wq, "chanout");
	c->write_lock = (struct mutex)MUTEX_INIT(c->write_lock, "chanout-write");
	c->buf = kmalloc(OUT_BUF_BYTES);
	c->sending = kmalloc(OUT_BUF_BYTES);
	c->stage = kmalloc(OUT_RECORD_MAX);
	if (!c->buf || !c->sending || !c->stage) {
		chanout_put(c);
		return NULL;
	}
	return c;
}

void chanout_set_pid(struct chanout *c, int pid)
{
	c->pid = pid;
}

/* Append the staged record of size bytes (n of output) when it fits; false when not. */
static bool append_locked(struct chanout *c, size_t size, size_t n)
{
	if (c->used + size > OUT_BUF_BYTES)
		return false;
	memcpy(c->buf + c->used, c->stage, size);
	c->used += size;
	c->records++;
	c->bytes += n;
	return true;
}

static int64_t chanout_write(struct file *f, uintptr_t ubuf, size_t len, uint16_t fd)
{
	struct chanout *c = f->priv;
	size_t done = 0;
	int64_t err = 0;
	mutex_lock(&c->write_lock);
	while (done < len) {
		size_t n = len - done < OUT_PIECE_MAX ? len - done : OUT_PIECE_MAX;
		size_t size = (sizeof(struct chan_exec_output) + n + 7) & ~(size_t)7;
		if (copyin(c->stage + sizeof(struct chan_exec_output), ubuf + done, n)) {
			err = -EFAULT;
			break;
		}
		struct chan_exec_output head = { .bytes = (uint32_t)n, .fd = fd, .size = (uint16_t)size };
		memcpy(c->stage, &head, sizeof(head));
		memset(c->stage + sizeof(head) + n, 0, size - sizeof(head) - n);
		irqflags_t fl = spin_lock_irqsave(&c->wq.lock);
		bool taken;	/* appended, or discarded (closed) as if written */
		while (!(taken = c->closed || append_locked(c, size, n)) && !proc_signal_pending())
			waitq_sleep(&c->wq, OUT_WAIT_TICKS);
		spin_unlock_irqrestore(&c->wq.lock, fl);
		if (!taken) {
			err = -EINTR;
			break;
		}
		done += n;
	}
	mutex_unlock(&c->write_lock);
	return done ? (int64_t)done : err;
}

static int64_t chanout_write_stdout(struct file *f, uintptr_t ubuf, size_t len)
{
	return chanout_write(f, ubuf, len, 1);
}

static int64_t chanout_write_stderr(struct file *f, uintptr_t ubuf, size_t len)
{
	return chanout_write(f, ubuf, len, 2);
}

/* What fstat says of every file here: a pipe (programs buffer their output as into one). */
static int chanout_stat(struct file *f, struct linux_stat *st)
{
	return fifo_stat(f, st, OUT_PIECE_MAX);
}

static void chanout_release(struct file *f)
{
	chanout_put(f->priv);
}

static const struct file_ops chanout_ops[2] = {
	{ .kind = "channel", .write = chanout_write_stdout, .stat = chanout_stat,
	  .release = chanout_release },
	{ .kind = "channel", .write = chanout_write_stderr, .stat = chanout_stat,
	  .release = chanout_release },
};

struct file *chanout_file(struct chanout *c, int fd)
{
	struct file *f = file_new(&chanout_ops[fd == 2], LINUX_O_WRONLY, c);
	if (f)
		chanout_get(c);
	return f;
}

static int64_t null_read(struct file *f, uintptr_t ubuf, size_t len)
{
	(void)f, (void)ubuf, (void)len;
	return 0;
}

static int64_t null_write(struct file *f, uintptr_t ubuf, size_t len)
{
	(void)f, (void)ubuf;
	return (int64_t)len;
}

static int null_stat(struct file *f, struct linux_stat *st)
{
	(void)f;
	return chrdev_stat(st, 0666, 1, 3, 4096);	/* /dev/null */
}

static const struct file_ops null_ops = {
	.kind = "null", .read = null_read, .write = null_write, .stat = null_stat,
};

struct file *null_file(unsigned flags)
{
	return file_new(&null_ops, flags, NULL);
}

/* The stream source. Only the EXEC op opens it, with its chanout as *priv. */
static int exec_open(struct tbuf_set *bufs, const char *args, void **priv, char *why,
		     size_t whylen)
{
	(void)bufs, (void)args;
	if (!*priv) {
		snprintf(why, whylen, "exec streams start with an EXEC request (scion exec)");
		return -EINVAL;
	}
	return 0;
}

static void exec_close(void *priv)
{
	(void)priv;	/* nothing writes the per-CPU buffers */
}

/*
 * Send what the buffer holds, then, when the process has been reaped,
 * the status. The reaping comes first: everything the process wrote is
 * in the buffer by then, so its output goes out before its status.
 */
static void exec_drain(void *priv, struct chan_stream_sink *sink)
{
	struct chanout *c = priv;
	int wait_status = 0;
	if (c->ended)
		return;
	bool reaped = proc_reap_kernel_child(c->pid, &wait_status) == 0;

	irqflags_t fl = spin_lock_irqsave(&c->wq.lock);
	uint8_t *taken = c->buf;
	size_t used = c->used;
	uint32_t records = c->records;
	uint64_t bytes = c->bytes;
	c->buf = c->sending;
	c->used = 0;
	c->records = 0;
	c->bytes = 0;
	if (reaped)
		c->closed = true;	/* what the process's children write now is discarded */
	spin_unlock_irqrestore(&c->wq.lock, fl);
	c->sending = taken;
	waitq_wake_all(&c->wq);
	if (used)
		chan_stream_send(sink, 0, records, 0, taken, used);
	c->sent_bytes += bytes;
	if (!reaped)
		return;
	int sig = wait_status & 0x7f;
	struct chan_exec_status st = {
		.pid = c->pid, .wait_status = wait_status,
		.how = sig ? CHAN_EXEC_KILLED : CHAN_EXEC_EXITED,
		.code = sig ? (uint32_t)sig : (uint32_t)(wait_status >> 8) & 0xff,
		.output_bytes = c->sent_bytes,
	};
	chan_stream_send(sink, CHAN_CHUNK_STATUS, 1, 0, &st, sizeof(st));
	c->ended = true;
}

/* The stream is gone: discard further output; let a live process go, end a suspended one. */
static void exec_release(void *priv)
{
	struct chanout *c = priv;
	irqflags_t fl = spin_lock_irqsave(&c->wq.lock);
	c->closed = true;
	spin_unlock_irqrestore(&c->wq.lock, fl);
	waitq_wake_all(&c->wq);
	if (!c->ended) {
		proc_disown(c->pid);
		if (proc_is_suspended(c->pid) && proc_kill(c->pid, SIGKILL) == 0)
			proc_resume(c->pid);
	}
	chanout_put(c);
}

CHAN_STREAM_SOURCE_FULL(exec_source, "exec", "(opened by EXEC)", exec_open, exec_close,
			exec_drain, exec_release);

int chanout_stream_start(struct chanout *c, uint32_t switch_ms, uint32_t *id, char *why,
			 size_t whylen)
{
	return channel_stream_start(&exec_source, c, TBUF_MIN_SIZE, switch_ms, "", id, why, whylen);
}
