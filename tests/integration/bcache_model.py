# SPDX-License-Identifier: BSD-2-Clause
"""An independent model of Scion's block cache (kernel/bcache/) and of the
example policies in grafts/, for the tests: given the same workloads it
predicts the counters `bcache run` reports and the text `bcache dump`
prints. Written from the contracts in grafts/include/graft/bcache.h and
the comments of kernel/bcache/, not from the C code's structure.

Workloads run "settled" (the kernel's default): after every demand read
the prefetches it started have landed, so the only buffers ever not
evictable are those a read-ahead plan is filling right now.
"""

from scionhost.layouts import C

# The contract's constants (graft/bcache.h), as the build generated them.
NO_BLOCK = C.BCACHE_NO_BLOCK
MASK64 = (1 << 64) - 1
POLICY_WORDS = C.BCACHE_POLICY_WORDS
PREFETCH_MAX = C.BCACHE_PREFETCH_MAX
DISK_BLOCKS = 8192


class Buffer:
    def __init__(self, block, clock, demand):
        self.block = block
        self.loading = True
        self.referenced = demand
        self.prefetched = not demand
        self.accesses = 1 if demand else 0
        self.inserted = self.last = clock
        self.tag = 0


class Cache:
    def __init__(self, nbuffers=64, evict="lru", readahead="sequential", blocks=DISK_BLOCKS):
        self.blocks = blocks
        self.evict_policy = evict
        self.readahead_policy = readahead
        self.recorded = {}  # the recorded-order graft's table (kept across resets)
        self.reset(nbuffers)

    def reset(self, nbuffers):
        self.n = nbuffers
        self.buf = [None] * nbuffers
        self.lru = []  # buffer indexes, least recently used first
        self.clock = 0
        self.previous = NO_BLOCK
        self.policy = [0] * POLICY_WORDS
        self.stats = dict(reads=0, hits=0, misses=0, evictions=0, prefetches=0, used=0,
                          cached=0, dropped=0, disk_reads=0)

    # --- mechanism ------------------------------------------------------
    def find(self, block):
        for i, b in enumerate(self.buf):
            if b is not None and b.block == block:
                return i
        return None

    def evictable(self, i):
        return i < self.n and self.buf[i] is not None and not self.buf[i].loading

    def insert(self, i, block, demand):
        self.clock += 1
        self.buf[i] = Buffer(block, self.clock, demand)
        self.lru.append(i)

    def allocate(self):
        for i in range(self.n):
            if self.buf[i] is None:
                return i
        if not any(self.evictable(i) for i in self.lru):
            return None
        victim = self.choose_victim()
        assert self.evictable(victim), f"policy {self.evict_policy} chose {victim}"
        self.buf[victim] = None
        self.lru.remove(victim)
        self.stats["evictions"] += 1
        return victim

    def read(self, block):
        s = self.stats
        s["reads"] += 1
        i = self.find(block)
        hit = i is not None
        if hit:
            s["hits"] += 1
            b = self.buf[i]
            self.clock += 1
            b.referenced, b.accesses, b.last = True, b.accesses + 1, self.clock
            if b.prefetched:
                b.prefetched = False
                s["used"] += 1
            self.lru.remove(i)
            self.lru.append(i)
        else:
            s["misses"] += 1
            i = self.allocate()
            self.insert(i, block, True)
            s["disk_reads"] += 1
            self.buf[i].loading = False
        previous, self.previous = self.previous, block
        plan = self.plan(block, previous, hit)[:PREFETCH_MAX]
        for p in plan:
            if self.find(p) is not None:
                s["cached"] += 1
                continue
            j = self.allocate()
            if j is None:
                s["dropped"] += 1
                continue
            self.insert(j, p, False)
            s["prefetches"] += 1
            s["disk_reads"] += 1
        for b in self.buf:  # settled: every prefetch has landed
            if b is not None:
                b.loading = False
        return hit

    def run(self, blocks):
        before = dict(self.stats)
        for block in blocks:
            self.read(block)
        return {k: self.stats[k] - before[k] for k in self.stats}

    # --- eviction policies ----------------------------------------------
    def choose_victim(self):
        return getattr(self, "evict_" + self.evict_policy)()

    def evict_lru(self):
        return next(i for i in self.lru if self.evictable(i))

    def evict_clock(self):
        hand = self.policy[0] % self.n
        for _ in range(2 * self.n):
            if self.evictable(hand):
                if self.buf[hand].referenced:
                    self.buf[hand].referenced = False
                else:
                    self.policy[0] = (hand + 1) % self.n
                    return hand
            hand = (hand + 1) % self.n
        raise AssertionError("clock found nothing")

    def evict_2q(self):
        occupied = [i for i in range(self.n) if self.buf[i] is not None]
        a1 = [i for i in occupied if self.buf[i].accesses <= 1]
        candidates_a1 = [i for i in a1 if self.evictable(i)]
        candidates_am = [i for i in occupied if i not in a1 and self.evictable(i)]
        threshold = max(self.n // 4, 1)
        if candidates_a1 and (len(a1) > threshold or not candidates_am):
            return min(candidates_a1, key=lambda i: (self.buf[i].inserted, i))
        return min(candidates_am, key=lambda i: (self.buf[i].last, i))

    # --- read-ahead policies --------------------------------------------
    def plan(self, block, previous, hit):
        return getattr(self, "readahead_" + self.readahead_policy)(block, previous, hit)

    def readahead_none(self, block, previous, hit):
        return []

    def readahead_sequential(self, block, previous, hit):
        if previous != NO_BLOCK and block == previous + 1 and block + 1 < self.blocks:
            return [block + 1]
        return []

    def readahead_stride(self, block, previous, hit):
        if previous == NO_BLOCK:
            return []
        stride = (block - previous) & MASK64
        last = self.policy[4]
        self.policy[4] = stride
        if stride == 0 or stride != last:
            return []
        nxt = (block + stride) & MASK64
        return [nxt] if nxt < self.blocks else []

    def readahead_recorded(self, block, previous, hit):
        if previous != NO_BLOCK:
            self.recorded[previous] = block
        nxt = self.recorded.get(block)
        return [nxt] if nxt is not None and nxt != block else []

    # --- what `bcache dump` prints --------------------------------------
    def dump(self):
        occupied = sum(b is not None for b in self.buf)
        prev = -1 if self.previous == NO_BLOCK else self.previous
        lines = [f"cache vda: {self.blocks} blocks, {self.n} buffers, {occupied} occupied, "
                 f"0 loading, clock {self.clock}, previous {prev}",
                 "policy " + " ".join(str(w) for w in self.policy)]
        for i, b in enumerate(self.buf):
            if b is None:
                continue
            lines.append(f"buf {i} block {b.block} valid ref {int(b.referenced)} acc {b.accesses} "
                         f"ins {b.inserted} last {b.last} tag {b.tag}"
                         + (" prefetched" if b.prefetched else ""))
        lines.append("lru " + " ".join(str(i) for i in self.lru))
        return lines


# --- workloads, as kernel/bcache/workload.c generates them ----------------

def xorshift64(state):
    state ^= (state << 13) & MASK64
    state ^= state >> 7
    state ^= (state << 17) & MASK64
    return state


def workload(pattern, start=0, n=100, stride=2, range_=DISK_BLOCKS, seed=1, size=16, rounds=4,
             blocks=DISK_BLOCKS, n_given=True):
    if pattern == "loop" and not n_given:
        n = size * rounds
    state = seed or 1
    out = []
    for k in range(n):
        if pattern == "seq":
            off = k
        elif pattern == "stride":
            off = k * stride
        elif pattern == "random":
            state = xorshift64(state)
            off = state % range_
        else:
            off = k % size
        out.append((start + off) % blocks)
    return out


def command_workload(command):
    """The blocks of a shell `bcache run PATTERN key=value ...` command."""
    words = command.split()
    assert words[:2] == ["bcache", "run"], command
    kw = {}
    for w in words[3:]:
        k, _, v = w.partition("=")
        kw["range_" if k == "range" else k] = int(v)
    kw.pop("overlap", None)
    n_given = "n" in kw
    return workload(words[2], n_given=n_given, **kw)
