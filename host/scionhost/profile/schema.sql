-- SPDX-License-Identifier: BSD-2-Clause
--
-- The Scion profile database (VINO self-monitoring): what the kernel's
-- measurement thread samples, as `scion profile collect` (or `scion
-- profile synth`) stores it, and what `scion analyze nightly` derives
-- from it. One schema for SQLite (the default: one file, nothing to
-- start) and PostgreSQL (many machines reporting to one server): db.py
-- runs this file on both. The only words that differ are the two
-- markers below, which db.py replaces per backend:
--   ID_KEY         an integer key the database assigns
--                  (SQLite: INTEGER PRIMARY KEY; PostgreSQL: BIGSERIAL PRIMARY KEY)
--   CLUSTERED      after a table whose rows are stored in key order
--                  (SQLite: WITHOUT ROWID; PostgreSQL: nothing)
--
-- Invariants the writer (db.py's SampleWriter) keeps:
--   * Times are integers in nanoseconds: mono_ns is the kernel's
--     monotonic clock since boot, wall_ns its calendar clock (the RTC's
--     calendar, or the simulated one under a time scale) as nanoseconds
--     since 1970-01-01 00:00. A day is a calendar day of wall_ns.
--   * Within one stream (collection, resource, scope, burst) both
--     clocks strictly increase; a sample that goes back is refused.
--   * A counter's value is its cumulative count as the kernel read it
--     (rates are differences over mono_ns, so a lost sample loses no
--     count); a gauge's value is its level. Values are integers, in the
--     resource's unit (the kernel has no floating point).
--   * Samples the kernel could not deliver are rows of `gaps`, never
--     silently missing; a collection is complete only when its writer
--     finished cleanly: one that was interrupted keeps complete = 0, and
--     everything it committed is consistent (a batch of samples and the
--     collection's counts are committed together).
--
-- Change the schema only together with SCHEMA_VERSION in db.py: a
-- database of another version is refused, never reinterpreted.

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,          -- 'schema' = 'scion-profile', 'schema_version' = '2'
    value TEXT NOT NULL
);

CREATE TABLE machines (
    machine_id ID_KEY,
    name       TEXT NOT NULL UNIQUE, -- --machine NAME (default: the host name)
    cpus       INTEGER NOT NULL DEFAULT 0
);

-- One run of a writer: a `collect` session or a `synth` history.
CREATE TABLE collections (
    collection_id ID_KEY,
    machine_id    BIGINT NOT NULL REFERENCES machines (machine_id),
    source        TEXT NOT NULL,     -- 'collect' | 'synth' | 'api'
    started_ns    BIGINT NOT NULL,   -- wall_ns of the first sample (or the start asked for)
    ended_ns      BIGINT,            -- wall_ns of the last committed sample
    complete      INTEGER NOT NULL DEFAULT 0, -- 1 once the writer finished cleanly
    samples       BIGINT NOT NULL DEFAULT 0,  -- rows committed to samples
    params        TEXT NOT NULL DEFAULT '{}'  -- JSON: how it was produced
);
CREATE INDEX collections_by_machine ON collections (machine_id, started_ns);

-- What the kernel publishes (its statistics sources' linker table).
CREATE TABLE resources (
    resource_id ID_KEY,
    name        TEXT NOT NULL UNIQUE,  -- 'cpu.busy', 'bcache.reads', 'thread.cpu', 'process.cpu', ...
    unit        TEXT NOT NULL,         -- 'ns', 'ops', 'bytes', 'threads', ...
    kind        TEXT NOT NULL CHECK (kind IN ('counter', 'gauge')),
    scope       TEXT NOT NULL CHECK (scope IN ('global', 'cpu', 'thread', 'process'))
);

-- Threads of a collection; scope_id of a thread-scope sample is the tid.
CREATE TABLE threads (
    collection_id BIGINT NOT NULL REFERENCES collections (collection_id),
    tid           BIGINT NOT NULL,
    name          TEXT NOT NULL,
    pid           BIGINT,            -- NULL until processes exist
    PRIMARY KEY (collection_id, tid)
);

-- User processes of a collection, as threads are (the same columns);
-- scope_id of a process-scope sample is the pid. A process-scope
-- resource ('process.cpu', ...) is its thread-scope twin ('thread.cpu')
-- summed over the process's threads, those that exited included.
CREATE TABLE processes (
    collection_id BIGINT NOT NULL REFERENCES collections (collection_id),
    pid           BIGINT NOT NULL,
    name          TEXT NOT NULL,
    PRIMARY KEY (collection_id, pid)
);

-- One row per sample. scope_id: 0 for a global resource, the CPU for a
-- per-CPU one, the tid for a per-thread one, the pid for a per-process one. burst = 1 for the 1 ms
-- samples of a burst, 0 for the samples at the resource's interval.
-- Stored in key order, so one resource's day is one range read.
CREATE TABLE samples (
    collection_id BIGINT NOT NULL,
    resource_id   BIGINT NOT NULL,
    scope_id      BIGINT NOT NULL,
    wall_ns       BIGINT NOT NULL,
    burst         INTEGER NOT NULL,
    mono_ns       BIGINT NOT NULL,
    value         BIGINT NOT NULL,
    PRIMARY KEY (collection_id, resource_id, scope_id, wall_ns, burst)
) CLUSTERED;

-- Samples lost between the kernel and the database (buffer drops, a
-- channel that closed): the span and how many, per CPU buffer.
CREATE TABLE gaps (
    collection_id BIGINT NOT NULL REFERENCES collections (collection_id),
    cpu           INTEGER NOT NULL,  -- the kernel buffer that dropped (-1: all)
    start_ns      BIGINT NOT NULL,   -- wall_ns of the last sample before
    end_ns        BIGINT NOT NULL,   -- wall_ns of the first sample after
    lost          BIGINT NOT NULL,   -- samples the kernel counted as dropped
    reason        TEXT NOT NULL
);
CREATE INDEX gaps_by_collection ON gaps (collection_id, start_ns);

-- Ground truth beside a synthetic history: the anomalies synth injected.
CREATE TABLE synth_anomalies (
    collection_id BIGINT NOT NULL REFERENCES collections (collection_id),
    kind          TEXT NOT NULL,     -- 'process' | 'group' | 'load'
    start_ns      BIGINT NOT NULL,
    end_ns        BIGINT NOT NULL,
    size          DOUBLE PRECISION NOT NULL, -- extra CPUs (process, group) or load factor
    threads       TEXT NOT NULL,     -- comma-separated names of the threads that misbehave
    spec          TEXT NOT NULL      -- the --anomaly argument it came from
);

-- ---- results of `scion analyze nightly` -------------------------------

CREATE TABLE analysis_runs (
    run_id      ID_KEY,
    machine_id  BIGINT NOT NULL REFERENCES machines (machine_id),
    day         TEXT NOT NULL,       -- 'YYYY-MM-DD', the day analysed
    created_ns  BIGINT NOT NULL,     -- when the analysis ran (host clock)
    params      TEXT NOT NULL,       -- JSON: every parameter it used
    summary     TEXT NOT NULL        -- JSON: counts, missing references, gaps
);
CREATE INDEX runs_by_day ON analysis_runs (machine_id, day);

CREATE TABLE interval_results (
    run_id         BIGINT NOT NULL REFERENCES analysis_runs (run_id),
    resource_id    BIGINT NOT NULL REFERENCES resources (resource_id),
    current_ms     DOUBLE PRECISION,
    recommended_ms DOUBLE PRECISION,
    decision       TEXT NOT NULL,    -- 'shorter' | 'longer' | 'keep' | 'no data'
    evidence       TEXT NOT NULL     -- JSON: burst and normal-sample figures behind it
);

CREATE TABLE reference_days (
    run_id    BIGINT NOT NULL REFERENCES analysis_runs (run_id),
    target    TEXT NOT NULL,         -- the day the reference is for (the day, or the next)
    role      TEXT NOT NULL,         -- 'previous day' | 'previous week' | 'previous month'
    day       TEXT NOT NULL,
    weight    DOUBLE PRECISION NOT NULL,
    coverage  DOUBLE PRECISION NOT NULL  -- share of the day's windows with data (0: missing)
);

-- The day's expected value and band per resource and time-of-day bucket.
CREATE TABLE reference_buckets (
    run_id      BIGINT NOT NULL REFERENCES analysis_runs (run_id),
    resource_id BIGINT NOT NULL REFERENCES resources (resource_id),
    bucket      INTEGER NOT NULL,
    expected    DOUBLE PRECISION,
    low         DOUBLE PRECISION,
    high        DOUBLE PRECISION,
    observed    DOUBLE PRECISION     -- the day's mean in the bucket
);

CREATE TABLE anomalies (
    anomaly_id  ID_KEY,
    run_id      BIGINT NOT NULL REFERENCES analysis_runs (run_id),
    resource_id BIGINT NOT NULL REFERENCES resources (resource_id),
    start_ns    BIGINT NOT NULL,
    end_ns      BIGINT NOT NULL,
    direction   TEXT NOT NULL,       -- 'high' | 'low'
    mean_excess DOUBLE PRECISION NOT NULL, -- mean of observed - expected (rate or level)
    peak_excess DOUBLE PRECISION NOT NULL,
    relative    DOUBLE PRECISION,    -- mean_excess / expected
    band_units  DOUBLE PRECISION NOT NULL, -- mean_excess / band half-width
    kind        TEXT NOT NULL,       -- 'process' | 'group' | 'load' | 'unexplained' | 'not decomposed'
    threads     TEXT NOT NULL        -- comma-separated names the decomposition names
);

CREATE TABLE anomaly_threads (
    anomaly_id   BIGINT NOT NULL REFERENCES anomalies (anomaly_id),
    thread       TEXT NOT NULL,
    observed     DOUBLE PRECISION NOT NULL,
    expected     DOUBLE PRECISION NOT NULL,
    contribution DOUBLE PRECISION NOT NULL,
    named        INTEGER NOT NULL    -- 1 when the classification names it
);

-- The next day's profile configuration as written to DIR (the binary
-- file of kernel/include/scion/profile_config.h), row by row.
CREATE TABLE configs (
    config_id ID_KEY,
    run_id    BIGINT NOT NULL REFERENCES analysis_runs (run_id),
    valid_day TEXT NOT NULL,
    file      TEXT NOT NULL,
    bytes     BIGINT NOT NULL,
    crc32     BIGINT NOT NULL
);

CREATE TABLE config_resources (
    config_id   BIGINT NOT NULL REFERENCES configs (config_id),
    resource    TEXT NOT NULL,
    interval_ms BIGINT NOT NULL,
    window_ms   BIGINT NOT NULL,
    duration_ms BIGINT NOT NULL,
    banded      INTEGER NOT NULL
);

CREATE TABLE config_buckets (
    config_id BIGINT NOT NULL REFERENCES configs (config_id),
    resource  TEXT NOT NULL,
    bucket    INTEGER NOT NULL,
    expected  BIGINT NOT NULL,       -- scaled as the file: thousandths of the unit (per second)
    low       BIGINT NOT NULL,
    high      BIGINT NOT NULL
);
