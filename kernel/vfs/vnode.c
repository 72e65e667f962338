// SPDX-License-Identifier: BSD-2-Clause
/*
 * The inode cache: vnodes by (file system, inode number) in a hash
 * table. A vnode whose last hold is dropped stays in the table, on the
 * unused list in the order it was dropped (unless no name is left for
 * it: then the file system's inactive frees it on the disk at once), and a later vnode_get finds
 * it without reading the disk; when the cache holds VNODE_CACHE_MAX
 * vnodes, the oldest unused one is freed to make room (held vnodes are
 * never freed, so the cache may grow past its size while they are).
 *
 * A miss reads the inode without the lock; two threads missing on one
 * inode may both read it, and the second to finish frees its copy and
 * takes the first's. Lock: cache_lock (a spinlock, interrupts masked)
 * guards the table, the unused list, every vnode's refs and links, and
 * the counters; nothing sleeps under it.
 */
#include <scion/errno.h>
#include <scion/mm.h>
#include <scion/spinlock.h>
#include <scion/string.h>
#include <scion/vfs.h>

#define VNODE_HASH_SIZE 1024
#define VNODE_CACHE_MAX 2048

static struct spinlock cache_lock = SPINLOCK_INIT("vnode-cache");
static struct vnode *table[VNODE_HASH_SIZE];	/* cache_lock */
static LIST_HEAD(unused);			/* cache_lock: oldest first */
static struct vfs_cache_stats stats;		/* cache_lock */

static unsigned bucket(const struct vfs_fs *fs, uint64_t ino)
{
	return (unsigned)((ino * 0x9e3779b97f4a7c15ull + fs->id) >> 40) % VNODE_HASH_SIZE;
}

static struct vnode *find(struct vfs_fs *fs, uint64_t ino)
{
	for (struct vnode *v = table[bucket(fs, ino)]; v; v = v->hash_next)
		if (v->fs == fs && v->ino == ino)
			return v;
	return NULL;
}

static void unhash(struct vnode *v)
{
	struct vnode **link = &table[bucket(v->fs, v->ino)];
	while (*link != v)
		link = &(*link)->hash_next;
	*link = v->hash_next;
}

static void destroy(struct vnode *v)
{
	if (v->fs->ops->release)
		v->fs->ops->release(v);
	kfree(v);
}

/* Take v (found in the table) for a caller; cache_lock held. */
static void take(struct vnode *v)
{
	if (v->refs++ == 0) {
		list_remove(&v->unused);
		stats.held++;
	}
}

/* The oldest unused vnode out of the table when the cache is full; cache_lock held. */
static struct vnode *evict_one(void)
{
	if (stats.cached < VNODE_CACHE_MAX || list_empty(&unused))
		return NULL;
	struct vnode *v = list_first(&unused, struct vnode, unused);
	list_remove(&v->unused);
	unhash(v);
	stats.cached--;
	stats.evictions++;
	return v;
}

int vnode_get(struct vfs_fs *fs, uint64_t ino, struct vnode **out)
{
	irqflags_t f = spin_lock_irqsave(&cache_lock);
	stats.gets++;
	struct vnode *v = find(fs, ino);
	if (v) {
		stats.hits++;
		take(v);
		spin_unlock_irqrestore(&cache_lock, f);
		*out = v;
		return 0;
	}
	stats.reads++;
	spin_unlock_irqrestore(&cache_lock, f);

	struct vnode *fresh = kzalloc(fs->ops->vnode_size);
	if (!fresh)
		return -ENOMEM;
	fresh->fs = fs;
	fresh->ino = ino;
	int err = fs->ops->read_inode(fresh);
	if (err) {
		kfree(fresh);
		return err;
	}
	struct vnode *victim = NULL;
	f = spin_lock_irqsave(&cache_lock);
	v = find(fs, ino);
	if (v) {
		take(v);	/* another thread read it meanwhile */
	} else {
		victim = evict_one();
		v = fresh;
		fresh = NULL;
		v->refs = 1;
		list_init(&v->unused);
		unsigned b = bucket(fs, ino);
		v->hash_next = table[b];
		table[b] = v;
		stats.cached++;
		stats.held++;
	}
	spin_unlock_irqrestore(&cache_lock, f);
	if (fresh)
		destroy(fresh);
	if (victim)
		destroy(victim);
	*out = v;
	return 0;
}

void vnode_hold(struct vnode *v)
{
	irqflags_t f = spin_lock_irqsave(&cache_lock);
	take(v);
	spin_unlock_irqrestore(&cache_lock, f);
}

struct vnode *vnode_peek(struct vfs_fs *fs, uint64_t ino)
{
	irqflags_t f = spin_lock_irqsave(&cache_lock);
	struct vnode *v = find(fs, ino);
	if (v)
		take(v);
	spin_unlock_irqrestore(&cache_lock, f);
	return v;
}

void vnode_put(struct vnode *v)
{
	if (!v)
		return;
	struct vnode *dying = NULL;
	irqflags_t f = spin_lock_irqsave(&cache_lock);
	if (--v->refs == 0) {
		stats.held--;
		if (READ_ONCE(v->nlink) == 0 && v->fs->ops->inactive) {
			/* Nothing names it and no one has it: it goes, on the disk too. */
			unhash(v);
			stats.cached--;
			dying = v;
		} else {
			list_add_tail(&unused, &v->unused);
		}
	}
	struct vnode *victim = evict_one();
	spin_unlock_irqrestore(&cache_lock, f);
	if (dying) {
		dying->fs->ops->inactive(dying);
		destroy(dying);
	}
	if (victim)
		destroy(victim);
}

void vfs_cache_stats(struct vfs_cache_stats *s)
{
	irqflags_t f = spin_lock_irqsave(&cache_lock);
	*s = stats;
	spin_unlock_irqrestore(&cache_lock, f);
	s->capacity = VNODE_CACHE_MAX;
}
