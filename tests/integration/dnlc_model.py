# SPDX-License-Identifier: BSD-2-Clause
"""An independent model of the DNLC under `dnlc run` workloads: which
names a workload looks up (kernel/dnlc/cmd_dnlc.c's contract: k loops
over start .. start + size - 1, or is xorshift64 from the seed modulo
range; name k is "wK", or "nK", negative, when k % neg == 0; each miss
entered), and what the replacement policies keep: LRU (the
default), FIFO (grafts/dnlc_fifo.c) and CLOCK (grafts/dnlc_clock.c,
whose hand walks slots in index order; slots fill from 0 after a
resize and a new entry takes its victim's slot).

Written from the policies' definitions, not from the kernel's code."""

import re
from collections import OrderedDict

MASK = (1 << 64) - 1


def xorshift64(state):
    x = state
    x ^= (x << 13) & MASK
    x ^= x >> 7
    x ^= (x << 17) & MASK
    return x


def workload_keys(command):
    """The names (as numbers k) `dnlc run PATTERN key=value ...` looks up, in order."""
    words = command.split()
    assert words[:2] == ["dnlc", "run"], command
    pattern = words[2]
    kv = dict(n=1000, range=6000, seed=1, size=16, rounds=4, start=0, neg=0)
    for word in words[3:]:
        key, value = word.split("=")
        kv[key] = int(value)
    if pattern == "loop":
        return [kv["start"] + s % kv["size"] for s in range(kv["size"] * kv["rounds"])], kv["neg"]
    state, keys = kv["seed"], []
    for _ in range(kv["n"]):
        state = xorshift64(state)
        keys.append(state % kv["range"])
    return keys, kv["neg"]


# DNLC_OUTCOME_* (grafts/include/graft/dnlc.h); cmd_dnlc.c's workload file system and directory.
OUTCOME_HIT, OUTCOME_NEGATIVE, OUTCOME_MISS, OUTCOME_TOO_LONG = 1, 2, 3, 4
WORKLOAD_FS, WORKLOAD_DIR = 0xfffffff0, 1


class Dnlc:
    """A cache of `size` entries under policy "lru", "fifo" or "clock"."""

    def __init__(self, size, policy="lru"):
        self.size, self.policy = size, policy
        self.order = OrderedDict()      # lru/fifo: key -> None, first = next victim
        self.slots = [None] * size      # clock: key per slot
        self.referenced = [False] * size
        self.where = {}                 # clock: key -> slot
        self.hand = 0

    def lookup(self, key):
        """True on a hit (and the policy's bookkeeping for it)."""
        if self.policy == "clock":
            if key not in self.where:
                return False
            self.referenced[self.where[key]] = True
            return True
        if key not in self.order:
            return False
        if self.policy == "lru":
            self.order.move_to_end(key)
        return True

    def enter(self, key):
        """Insert key (not cached); True when something was evicted."""
        if self.policy == "clock":
            if len(self.where) < self.size:
                slot = len(self.where)
                evicted = False
            else:
                while self.referenced[self.hand]:
                    self.referenced[self.hand] = False
                    self.hand = (self.hand + 1) % self.size
                slot, evicted = self.hand, True
                del self.where[self.slots[slot]]
                self.hand = (self.hand + 1) % self.size
            self.slots[slot], self.referenced[slot] = key, False
            self.where[key] = slot
            return evicted
        evicted = len(self.order) == self.size
        if evicted:
            self.order.popitem(last=False)
        self.order[key] = None
        return evicted

    def run(self, command, lookups=None):
        """The counts `dnlc run` prints for command; lookups, a list, gets
        (name, outcome) per lookup (outcomes as dnlc.lookup reports them)."""
        keys, neg = workload_keys(command)
        out = dict(lookups=len(keys), hits=0, negative=0, misses=0, evictions=0, wrong=0)
        for k in keys:
            negative = bool(neg) and k % neg == 0
            name = ("n" if negative else "w") + str(k)
            if self.lookup(name):
                out["negative" if negative else "hits"] += 1
                outcome = OUTCOME_NEGATIVE if negative else OUTCOME_HIT
            else:
                out["misses"] += 1
                out["evictions"] += self.enter(name)
                outcome = OUTCOME_MISS
            if lookups is not None:
                lookups.append((name, outcome))
        return out


def fnv1a(data):
    """dnlc_name_hash: 64-bit FNV-1a."""
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & MASK
    return h


RUN = re.compile(r"dnlc run (?:loop|random): (\d+) lookups, (\d+) hits, (\d+) negative hits, "
                 r"(\d+) misses, (\d+) evictions, (\d+) wrong[^\n]*\r?\n")
RUN_FIELDS = ("lookups", "hits", "negative", "misses", "evictions", "wrong")


if __name__ == "__main__":
    import sys
    m = Dnlc(int(sys.argv[1]), sys.argv[2])
    for c in sys.argv[3:]:
        print(c, m.run(c))
