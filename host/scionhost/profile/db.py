# SPDX-License-Identifier: BSD-2-Clause
"""The profile database's access layer: one code path for SQLite and
PostgreSQL over schema.sql, the differences between the two kept in the
two Dialect classes (connecting, placeholders, the schema's two markers,
bulk loading, what a lock error looks like, how to list tables).

open_db(spec) takes a file path (SQLite, the default) or a
postgresql:// URL. Every failure is a ProfileError whose message is one
line: a file that is not a profile database or has another schema
version, a database another writer holds locked past the lock timeout,
a PostgreSQL server that cannot be reached. A reader never creates a
database; a writer (create=True) creates the schema in an empty one.

SampleWriter stores samples in batched transactions (SQLite in WAL
mode), each batch together with its collection's sample count and last
time, so what is committed is always consistent; a collection is marked
complete only by close(). A sample whose clock goes back within its
stream is refused: the samples before it are committed, the collection
stays incomplete, and the error names the stream and both times.
"""

import contextlib
import io
import json
import os
import sqlite3
import time

from ..client import ScionError

SCHEMA_NAME = "scion-profile"
SCHEMA_VERSION = 2            # 2: per-process resources and the processes table
SCHEMA_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "schema.sql")
DEFAULT_LOCK_TIMEOUT = 30.0
KINDS = ("counter", "gauge")
CACHE_KIB = 256 * 1024       # SQLite's page cache for a writer
SCOPES = ("global", "cpu", "thread", "process")


class ProfileError(ScionError):
    """A failure reported as one line, "scion: MESSAGE"."""


def one_line(text):
    """The first line of a driver's message (PostgreSQL's span several)."""
    return str(text).strip().splitlines()[0] if str(text).strip() else type(text).__name__


class SQLiteDialect:
    name = "sqlite"
    markers = {"ID_KEY": "INTEGER PRIMARY KEY", "CLUSTERED": "WITHOUT ROWID"}

    def __init__(self, path, create, lock_timeout):
        self.where = path
        if not create and not os.path.exists(path):
            raise ProfileError(f"{path}: no such profile database")
        if os.path.isdir(path):
            raise ProfileError(f"{path}: is a directory, not a profile database")
        # isolation_level=None: no implicit transactions, Database issues BEGIN itself.
        self.conn = sqlite3.connect(path if create else f"file:{path}?mode=rw", uri=not create,
                                    timeout=lock_timeout, isolation_level=None)
        self.module_error = sqlite3.Error

    def setup(self):
        # WAL: readers (the nightly analysis) never wait for the writer (collect).
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        # Samples arrive in time order but are stored by stream: each batch
        # lands in every stream's range, so the pages of all of them stay hot.
        self.conn.execute(f"PRAGMA cache_size=-{CACHE_KIB}")

    def sql(self, text):
        return text

    def begin(self, write):
        # IMMEDIATE takes the write lock at once: a locked database is
        # reported before any work, not in the middle of a batch.
        return "BEGIN IMMEDIATE" if write else "BEGIN"

    def table_names(self, db):
        return {r[0] for r in db.query("SELECT name FROM sqlite_master WHERE type = 'table'")}

    def is_lock_error(self, e):
        return isinstance(e, sqlite3.OperationalError) and "locked" in str(e)

    def not_a_database(self, e):
        return isinstance(e, sqlite3.DatabaseError) and ("not a database" in str(e)
                                                         or "malformed" in str(e))

    def bulk_insert(self, cur, table, columns, rows):
        marks = ", ".join("?" * len(columns))
        cur.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)


class PostgresDialect:
    name = "postgresql"
    markers = {"ID_KEY": "BIGSERIAL PRIMARY KEY", "CLUSTERED": ""}

    def __init__(self, url, create, lock_timeout):
        try:
            import psycopg2
        except ImportError:
            raise ProfileError("PostgreSQL needs psycopg2: apt-get install python3-psycopg2")
        self.where = url.split("?")[0]
        self.module_error = psycopg2.Error
        try:
            self.conn = psycopg2.connect(url, connect_timeout=max(1, int(lock_timeout)))
        except psycopg2.Error as e:
            raise ProfileError(f"{self.where}: cannot connect: {one_line(e)}")
        self.conn.autocommit = True     # Database issues BEGIN/COMMIT itself, as for SQLite
        with self.conn.cursor() as cur:
            cur.execute(f"SET lock_timeout = {int(lock_timeout * 1000)}")

    def setup(self):
        pass

    def sql(self, text):
        # The SQL is written with qmark placeholders and no literal '%' or '?'.
        return text.replace("?", "%s")

    def begin(self, write):
        return "BEGIN"

    def table_names(self, db):
        return {r[0] for r in db.query("SELECT table_name FROM information_schema.tables "
                                       "WHERE table_schema = current_schema()")}

    def is_lock_error(self, e):
        return getattr(e, "pgcode", None) in ("55P03", "40P01")   # lock timeout, deadlock

    def not_a_database(self, e):
        return False

    def bulk_insert(self, cur, table, columns, rows):
        # COPY is PostgreSQL's bulk path (execute_values is ~5x slower).
        buf = io.StringIO()
        for row in rows:
            buf.write("\t".join("\\N" if v is None else str(v) for v in row))
            buf.write("\n")
        buf.seek(0)
        cur.copy_expert(f"COPY {table} ({', '.join(columns)}) FROM STDIN", buf)


def open_db(spec, create=False, lock_timeout=DEFAULT_LOCK_TIMEOUT):
    """A Database on spec (a path or a postgresql:// URL), its schema checked."""
    if spec.startswith(("postgresql://", "postgres://")):
        dialect = PostgresDialect(spec, create, lock_timeout)
    else:
        dialect = SQLiteDialect(spec, create, lock_timeout)
    db = Database(dialect, lock_timeout)
    try:
        if create:
            try:
                dialect.setup()
            except dialect.module_error as e:
                raise db.error(e, "opening") from None
        db.check_schema(create)
    except BaseException:
        db.close()
        raise
    return db


class Database:
    """A connection with the schema checked; every statement goes through
    query/execute so that driver errors become one-line ProfileErrors."""

    def __init__(self, dialect, lock_timeout):
        self.dialect, self.lock_timeout = dialect, lock_timeout
        self.where, self.backend = dialect.where, dialect.name
        self.in_txn = False
        self._resources = None

    def close(self):
        with contextlib.suppress(Exception):
            self.dialect.conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def error(self, e, doing):
        if self.dialect.is_lock_error(e):
            return ProfileError(f"{self.where}: locked by another writer (waited "
                                f"{self.lock_timeout:g} s while {doing}); try again when it "
                                f"has finished, or give --lock-timeout more seconds")
        if self.dialect.not_a_database(e):
            return ProfileError(f"{self.where}: not a Scion profile database "
                                f"({one_line(e)})")
        return ProfileError(f"{self.where}: {doing}: {one_line(e)}")

    def execute(self, sql, params=(), doing="writing"):
        try:
            cur = self.dialect.conn.cursor()
            cur.execute(self.dialect.sql(sql), params)
            return cur
        except self.dialect.module_error as e:
            raise self.error(e, doing) from None

    def query(self, sql, params=(), doing="reading"):
        return self.execute(sql, params, doing).fetchall()

    def insert(self, table, row, key=None):
        """Insert one row (a dict); with key, return the key the database gave it."""
        cols = list(row)
        sql = (f"INSERT INTO {table} ({', '.join(cols)}) VALUES "
               f"({', '.join('?' * len(cols))})" + (f" RETURNING {key}" if key else ""))
        cur = self.execute(sql, [row[c] for c in cols])
        return cur.fetchone()[0] if key else None

    def insert_unique(self, table, row):
        """Insert one row (a dict) unless a row with its name is there: another
        writer (a sweep's run beside this one) may declare the same name between
        this one's lookup and its insert. The caller reads the row back."""
        cols = list(row)
        self.execute(f"INSERT INTO {table} ({', '.join(cols)}) VALUES "
                     f"({', '.join('?' * len(cols))}) ON CONFLICT (name) DO NOTHING",
                     [row[c] for c in cols])

    def insert_many(self, table, columns, rows):
        if not rows:
            return
        try:
            self.dialect.bulk_insert(self.dialect.conn.cursor(), table, columns, rows)
        except self.dialect.module_error as e:
            raise self.error(e, f"writing {table}") from None

    @contextlib.contextmanager
    def transaction(self, write=True, doing="writing"):
        """BEGIN ... COMMIT, or ROLLBACK when the body raises."""
        assert not self.in_txn, "transactions do not nest"
        self.execute(self.dialect.begin(write), doing=doing)
        self.in_txn = True
        try:
            yield
        except BaseException:
            self.in_txn = False
            with contextlib.suppress(Exception):
                self.dialect.conn.cursor().execute("ROLLBACK")
            raise
        self.in_txn = False
        self.execute("COMMIT", doing=doing)

    # ---- schema ---------------------------------------------------------

    def check_schema(self, create):
        tables = self.dialect.table_names(self)
        if not tables:
            if not create:
                raise ProfileError(f"{self.where}: empty database, no profiles in it yet "
                                   f"(`scion profile synth` or `scion profile collect` "
                                   f"write them)")
            self.create_schema()
            return
        if "meta" not in tables:
            names = ", ".join(sorted(tables)[:4]) + (", ..." if len(tables) > 4 else "")
            raise ProfileError(f"{self.where}: not a Scion profile database (no meta table; "
                               f"it holds {names})")
        meta = dict(self.query("SELECT key, value FROM meta"))
        if meta.get("schema") != SCHEMA_NAME:
            raise ProfileError(f"{self.where}: not a Scion profile database (meta says "
                               f"schema {meta.get('schema')!r})")
        if meta.get("schema_version") != str(SCHEMA_VERSION):
            raise ProfileError(f"{self.where}: profile schema version "
                               f"{meta.get('schema_version')}; this scion reads version "
                               f"{SCHEMA_VERSION} (use the scion that wrote it, or a new "
                               f"database)")

    def schema_statements(self, path=SCHEMA_FILE):
        """The statements of a schema file (this one's, or another's written the same
        way: sweep/schema.sql), its markers replaced for this backend."""
        with open(path) as f:
            text = "\n".join(line.split("--")[0] for line in f)
        for marker, words in self.dialect.markers.items():
            text = text.replace(marker, words)
        return [s.strip() for s in text.split(";") if s.strip()]

    def create_schema(self):
        with self.transaction(doing="creating the schema"):
            for statement in self.schema_statements():
                self.execute(statement, doing="creating the schema")
            self.insert("meta", {"key": "schema", "value": SCHEMA_NAME})
            self.insert("meta", {"key": "schema_version", "value": str(SCHEMA_VERSION)})

    # ---- machines, resources, collections --------------------------------

    def machine_id(self, name, cpus=None, create=False):
        rows = self.query("SELECT machine_id, cpus FROM machines WHERE name = ?", (name,))
        if rows:
            if cpus and rows[0][1] != cpus:
                self.execute("UPDATE machines SET cpus = ? WHERE machine_id = ?",
                             (cpus, rows[0][0]))
            return rows[0][0]
        if not create:
            known = [r[0] for r in self.query("SELECT name FROM machines ORDER BY name")]
            raise ProfileError(f"{self.where}: no machine {name!r} (machines: "
                               f"{', '.join(known) or 'none'}; --machine picks one)")
        self.insert_unique("machines", {"name": name, "cpus": cpus or 0})
        return self.query("SELECT machine_id FROM machines WHERE name = ?", (name,))[0][0]

    def default_machine(self):
        names = [r[0] for r in self.query("SELECT name FROM machines ORDER BY name")]
        if len(names) != 1:
            raise ProfileError(f"{self.where}: {len(names)} machines ({', '.join(names)}); "
                               f"name one with --machine" if names else
                               f"{self.where}: no machines, no profiles in it yet")
        return names[0]

    def resources(self):
        """name -> (resource_id, unit, kind, scope)."""
        if self._resources is None:
            self._resources = {r[1]: (r[0], r[2], r[3], r[4]) for r in self.query(
                "SELECT resource_id, name, unit, kind, scope FROM resources ORDER BY name")}
        return self._resources

    def resource_id(self, name, unit, kind, scope):
        """Declare a resource (or find it); a different unit, kind or scope is refused."""
        if kind not in KINDS or scope not in SCOPES:
            raise ProfileError(f"resource {name}: kind {kind!r} / scope {scope!r} (kinds: "
                               f"{', '.join(KINDS)}; scopes: {', '.join(SCOPES)})")
        known = self.resources().get(name)
        if not known:
            self.insert_unique("resources", {"name": name, "unit": unit, "kind": kind,
                                             "scope": scope})
            self._resources = None
            known = self.resources()[name]
        if known[1:] != (unit, kind, scope):
            raise ProfileError(f"{self.where}: resource {name} is {known[2]} {known[3]} in "
                               f"{known[1]}, not {kind} {scope} in {unit}")
        return known[0]

    def collections(self, machine_id, start_ns=None, end_ns=None):
        """Collections of a machine overlapping [start_ns, end_ns), oldest first, as dicts."""
        rows = self.query("SELECT collection_id, source, started_ns, ended_ns, complete, "
                          "samples FROM collections WHERE machine_id = ? ORDER BY started_ns, "
                          "collection_id", (machine_id,))
        out = []
        for cid, source, started, ended, complete, samples in rows:
            last = ended if ended is not None else started
            if start_ns is not None and (last < start_ns or started >= end_ns):
                continue
            out.append({"collection": cid, "source": source, "started_ns": started,
                        "ended_ns": ended, "complete": bool(complete), "samples": samples})
        return out

    def new_collection(self, machine_id, source, started_ns, params):
        with self.transaction(doing="starting a collection"):
            return self.insert("collections", {
                "machine_id": machine_id, "source": source, "started_ns": started_ns,
                "complete": 0, "samples": 0, "params": json.dumps(params, sort_keys=True)},
                key="collection_id")


class SampleWriter:
    """Batched sample storage for one collection.

    add_stream() takes one stream's samples (a resource, a scope id,
    normal or burst; sequences or numpy arrays) in time order. A batch
    is committed when it holds batch_rows rows or batch_seconds have
    passed, together with the collection's count and last time."""

    def __init__(self, db, collection_id, batch_rows=200000, batch_seconds=2.0):
        self.db, self.collection = db, collection_id
        self.batch_rows, self.batch_seconds = batch_rows, batch_seconds
        self.rows, self.threads, self.gaps, self.truth = [], [], [], []
        self.processes = []
        self.last = {}              # (resource, scope, burst) -> (mono_ns, wall_ns)
        self.committed = 0
        self.ended_ns = None
        self.flushed_at = time.monotonic()

    def add_stream(self, resource_id, scope_id, burst, wall_ns, mono_ns, values):
        key = (resource_id, scope_id, int(bool(burst)))
        n = len(wall_ns)
        if n == 0:
            return
        bad = self.first_backwards(key, wall_ns, mono_ns)
        if bad is not None:
            self.add_rows(key, wall_ns[:bad], mono_ns[:bad], values[:bad])
            self.flush()
            prev = (self.last[key] if bad == 0 else (mono_ns[bad - 1], wall_ns[bad - 1]))
            name = next((k for k, v in self.db.resources().items() if v[0] == resource_id),
                        resource_id)
            raise ProfileError(
                f"clock went backwards in {name} scope {scope_id}"
                f"{' (burst)' if burst else ''}: sample at monotonic {int(mono_ns[bad])} ns, "
                f"calendar {int(wall_ns[bad])} ns after monotonic {int(prev[0])} ns, calendar "
                f"{int(prev[1])} ns; refused, the {self.committed} samples before it are "
                f"committed and collection {self.collection} stays incomplete")
        self.add_rows(key, wall_ns, mono_ns, values)

    def first_backwards(self, key, wall, mono):
        """Index of the first sample whose clocks do not both advance, else None."""
        prev = self.last.get(key)
        if hasattr(wall, "dtype"):
            import numpy as np
            ok = (np.diff(np.asarray(mono)) > 0) & (np.diff(np.asarray(wall)) > 0)
            if prev is not None and not (mono[0] > prev[0] and wall[0] > prev[1]):
                return 0
            bad = np.flatnonzero(~ok)
            return int(bad[0]) + 1 if len(bad) else None
        for i in range(len(wall)):
            if prev is not None and not (mono[i] > prev[0] and wall[i] > prev[1]):
                return i
            prev = (mono[i], wall[i])
        return None

    def add_rows(self, key, wall, mono, values):
        if len(wall) == 0:
            return
        resource, scope, burst = key
        wall_l = wall.tolist() if hasattr(wall, "tolist") else list(wall)
        mono_l = mono.tolist() if hasattr(mono, "tolist") else list(mono)
        vals = values.tolist() if hasattr(values, "tolist") else list(values)
        self.last[key] = (mono_l[-1], wall_l[-1])
        n = len(wall_l)
        c = self.collection
        self.rows.extend(zip([c] * n, [resource] * n, [scope] * n, wall_l, [burst] * n, mono_l,
                             [int(v) for v in vals]))
        self.ended_ns = max(self.ended_ns or wall_l[-1], wall_l[-1])
        if (len(self.rows) >= self.batch_rows
                or time.monotonic() - self.flushed_at >= self.batch_seconds):
            self.flush()

    def add_thread(self, tid, name, pid=None):
        self.threads.append((self.collection, tid, name, pid))

    def add_process(self, pid, name):
        self.processes.append((self.collection, pid, name))

    def add_gap(self, cpu, start_ns, end_ns, lost, reason):
        self.gaps.append((self.collection, cpu, start_ns, end_ns, lost, reason))

    def add_truth(self, kind, start_ns, end_ns, size, threads, spec):
        self.truth.append((self.collection, kind, start_ns, end_ns, size, ",".join(threads), spec))

    def flush(self):
        """Commit what is pending, with the collection's count and last time."""
        if not (self.rows or self.threads or self.processes or self.gaps or self.truth):
            return
        db = self.db
        with db.transaction(doing=f"writing collection {self.collection}"):
            db.insert_many("threads", ("collection_id", "tid", "name", "pid"), self.threads)
            db.insert_many("processes", ("collection_id", "pid", "name"), self.processes)
            db.insert_many("samples", ("collection_id", "resource_id", "scope_id", "wall_ns",
                                       "burst", "mono_ns", "value"), self.rows)
            db.insert_many("gaps", ("collection_id", "cpu", "start_ns", "end_ns", "lost",
                                    "reason"), self.gaps)
            db.insert_many("synth_anomalies", ("collection_id", "kind", "start_ns", "end_ns",
                                               "size", "threads", "spec"), self.truth)
            db.execute("UPDATE collections SET samples = samples + ?, ended_ns = ? "
                       "WHERE collection_id = ?", (len(self.rows), self.ended_ns,
                                                   self.collection))
        self.committed += len(self.rows)
        self.rows, self.threads, self.gaps, self.truth = [], [], [], []
        self.processes = []
        self.flushed_at = time.monotonic()

    def close(self, complete=True):
        """Commit the rest; mark the collection complete (only on a clean finish)."""
        self.flush()
        if complete:
            with self.db.transaction(doing=f"finishing collection {self.collection}"):
                self.db.execute("UPDATE collections SET complete = 1 WHERE collection_id = ?",
                                (self.collection,))
