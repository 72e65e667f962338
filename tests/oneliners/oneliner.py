# SPDX-License-Identifier: BSD-2-Clause
"""One entry of the one-liner corpus (oneliner_corpus.py), the list they
join in order, and the deterministic workloads their checks compare with."""

import os
import re

from dtrace_checks import need

HERE = os.path.dirname(os.path.abspath(__file__))
from bcache_model import Cache, command_workload


class OneLiner:
    def __init__(self, name, program=None, script=None, run=None, flags=("-q",), setup=(),
                 teardown=(), status=0, allow=(), checks=(), known=None, grafts=()):
        self.name, self.script, self.run = name, script, run
        self.grafts = list(grafts)  # build/grafts/NAME.graft files the runner loads after boot
        # A program given over several lines of this file is one line, as typed.
        self.program = re.sub(r"\n\s*", " ", program.strip()) if program else None
        self.flags, self.setup, self.teardown = list(flags), list(setup), list(teardown)
        self.status, self.allow, self.checks = status, list(allow), list(checks)
        self.known = known          # a failure already reported: its cause, shown when it fails
        self.quiet = "-q" in self.flags


def blocks(command):
    """The blocks a `bcache run ...` command reads, in order."""
    return command_workload(command)


def model(command, nbuffers=32, evict="lru"):
    """What `bcache reset NBUFFERS` then COMMAND count: hits, misses, evictions, disk_reads..."""
    return Cache(nbuffers, evict=evict).run(blocks(command))


def equal(what, got, want):
    need(got == want, f"{what}: got {got}, expected {want}")


SEQ40 = "bcache run seq n=40 start=100"
RAND60 = "bcache run random n=60 range=200 seed=4"
RAND100 = "bcache run random n=100 range=200 seed=9"
RAND80 = "bcache run random n=80 range=64 seed=7"
SCHED = "sched run n=4 rounds=3 compute=1 sleep=1"
RESET = "bcache reset 32"

CORPUS = []


def add(*args, **kw):
    CORPUS.append(OneLiner(*args, **kw))
