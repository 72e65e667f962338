-- SPDX-License-Identifier: BSD-2-Clause
--
-- Experiment sweeps' tables in the profile database (profile/schema.sql
-- is the rest of it): sweep/results.py creates them, IF NOT EXISTS, in a
-- database of either backend, with the same markers as profile/schema.sql.
-- meta's 'sweep_schema_version' says which version of this file they follow.
--
-- Invariants results.py keeps:
--   * a run is a row of sweep_runs only once it is over, done or failed,
--     keyed by the sweep's name and the run's id (a hash of its
--     configuration), written in one transaction with its figures: a run
--     interrupted half-way leaves no row and is run again on resume;
--   * every attempt at a run (a retry, a run on another node) is a row of
--     sweep_attempts, so nothing ran twice unnoticed;
--   * figures (sweep_results) are what the kernel reported: bench figures
--     and monitor sources' growth over the workload; host timings are
--     columns of sweep_runs, never figures, so two runs of one
--     configuration under icount have equal figures.

CREATE TABLE IF NOT EXISTS sweeps (
    sweep      TEXT PRIMARY KEY,     -- [sweep] name
    file       TEXT NOT NULL,        -- the sweep file, as last given
    runs       INTEGER NOT NULL,     -- runs in its plan
    slurm_job  TEXT,                 -- the array job's id of the last `sweep submit`
    updated_ns BIGINT NOT NULL
);

CREATE TABLE IF NOT EXISTS sweep_runs (
    sweep          TEXT NOT NULL,
    run_id         TEXT NOT NULL,    -- hash of the configuration (plan.py)
    run_index      INTEGER NOT NULL, -- its place in the plan
    config         TEXT NOT NULL,    -- JSON: the axis values
    spec           TEXT NOT NULL,    -- JSON: policy and workload as run, kernel, disk
    status         TEXT NOT NULL CHECK (status IN ('done', 'failed')),
    attempts       INTEGER NOT NULL,
    git_commit     TEXT NOT NULL,    -- the repository's HEAD ('+dirty' when changed)
    qemu_version   TEXT NOT NULL,
    icount         TEXT NOT NULL,    -- 'shift=N,sleep=off' or 'off'
    kernel_version TEXT,
    host           TEXT NOT NULL,    -- the machine that ran it
    started_ns     BIGINT NOT NULL,
    seconds        DOUBLE PRECISION NOT NULL, -- host time of the last attempt
    boot_seconds   DOUBLE PRECISION,
    work_seconds   DOUBLE PRECISION,
    error          TEXT,             -- the failure's one line
    log_path       TEXT NOT NULL,
    log_tail       TEXT,             -- the end of a failed run's console log
    collection_id  BIGINT,           -- its profile collection ([collect] profile), machine
                                     -- 'sweep NAME RUN_ID'
    PRIMARY KEY (sweep, run_id)
);

CREATE TABLE IF NOT EXISTS sweep_attempts (
    sweep      TEXT NOT NULL,
    run_id     TEXT NOT NULL,
    attempt    INTEGER NOT NULL,     -- 1, or 2 for the retry
    host       TEXT NOT NULL,
    pid        INTEGER NOT NULL,
    started_ns BIGINT NOT NULL,
    seconds    DOUBLE PRECISION NOT NULL,
    status     TEXT NOT NULL,        -- 'done' | 'failed'
    error      TEXT
);
CREATE INDEX IF NOT EXISTS sweep_attempts_by_run ON sweep_attempts (sweep, run_id);

CREATE TABLE IF NOT EXISTS sweep_results (
    sweep  TEXT NOT NULL,
    run_id TEXT NOT NULL,
    name   TEXT NOT NULL,            -- 'bcache.hits', 'bench.bcache.read.hit', ...
    value  DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (sweep, run_id, name)
);
