# SPDX-License-Identifier: BSD-2-Clause
"""The one-liner corpus: DTrace as people use it (Brendan Gregg's
one-liners, the DTrace guide's examples), adapted to Scion's probes and
run against a live two-CPU guest by tests/integration/test_oneliners.py.

Each entry is a OneLiner: the program as a user would type it (`-n`, or a
script in this folder for `-s`), the guest command that makes its probes
fire (`run`, traced until it finishes; without one the program ends
itself with exit()), guest shell commands to run before and after it
(`setup`, `teardown`; the grafts they install are named in `grafts`,
loaded once after boot), and checks of what it printed. Every entry also
gets the checks of dtrace_checks.py that apply to any program: the exit
status, no warnings on stderr (drops, errors) beyond those it allows,
and output in dtrace's layout with no byte dumps where keys belong.
Adding a one-liner is adding an entry to the part it belongs with
(corpus_by_key.py, corpus_functions.py, corpus_providers.py); its checks are built from
dtrace_checks.py's pieces or written beside it with @check. Each check
is one test result, named ONELINER/CHECK.

A program that ends itself with exit() while its probes fire on the
other CPU keeps its reference count in the same clause as what it checks:
exit() may stop the session between two clauses of one firing there (as
in dtrace, which checks the session's state per enabling), so counts kept
by separate clauses may differ by a firing in flight.

Values are checked against something independent of the tracer where
possible: the workloads are deterministic (tests/integration/bcache_model.py
gives the blocks `bcache run` reads and, after `bcache reset`, its hits,
misses and evictions; `sched run` and `testpoint` do fixed work), and
totals against a second aggregation counting the same events. The
conventions that make the output readable without guessing are in
dtrace_checks.py: labels `NAME: N` and sections `NAME:` in column 0,
dtrace's own rows indented.
"""

from oneliner import CORPUS  # noqa: F401  (the entries, in the order the parts add them)
import corpus_by_key  # noqa: F401,E402
import corpus_functions  # noqa: F401,E402
import corpus_providers  # noqa: F401,E402
