# SPDX-License-Identifier: BSD-2-Clause
"""A throw-away PostgreSQL server for the profile database's tests and
benchmarks: Debian's initdb and pg_ctl (package postgresql) in a
temporary directory, listening on a UNIX socket there only (no TCP
port), stopped and removed on exit. PostgreSQL refuses to run as root,
so as root the server runs as the unprivileged user `nobody` (runuser),
which owns the directory.

    with PostgresServer() as pg:
        url = pg.database("profiles")     # postgresql:///profiles?host=...&user=scion
"""

import glob
import os
import shutil
import subprocess
import tempfile

SUPERUSER = "scion"


class PostgresUnavailable(Exception):
    pass


def bindir():
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        raise PostgresUnavailable("no /usr/lib/postgresql/*/bin/initdb (apt-get install "
                                  "postgresql)")
    return os.path.dirname(found[-1])


class PostgresServer:
    def __init__(self, fast=True):
        self.fast = fast          # fsync off: for tests, not for benchmark figures
        self.dir = None

    def run(self, argv):
        if os.geteuid() == 0:
            argv = ["runuser", "-u", "nobody", "--"] + argv
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        if proc.returncode != 0:
            raise PostgresUnavailable(f"{' '.join(argv)}: {(proc.stderr or proc.stdout)[-500:]}")
        return proc

    def __enter__(self):
        bins = bindir()
        self.dir = tempfile.mkdtemp(prefix="scion-pg-")
        if os.geteuid() == 0:
            shutil.chown(self.dir, "nobody")
        self.data = os.path.join(self.dir, "data")
        self.pg_ctl = os.path.join(bins, "pg_ctl")
        try:
            self.run([os.path.join(bins, "initdb"), "-D", self.data, "--auth=trust", "-U",
                      SUPERUSER, "-E", "UTF8", "--locale=C"])
            options = f"-k {self.dir} -c listen_addresses=''" + (
                " -c fsync=off -c synchronous_commit=off" if self.fast else "")
            self.run([self.pg_ctl, "-D", self.data, "-o", options, "-l",
                      os.path.join(self.dir, "log"), "-w", "start"])
        except BaseException:
            shutil.rmtree(self.dir, ignore_errors=True)
            raise
        return self

    def url(self, name):
        return f"postgresql:///{name}?host={self.dir}&user={SUPERUSER}"

    def database(self, name):
        """Create a database; its URL."""
        import psycopg2
        conn = psycopg2.connect(self.url("postgres"))
        conn.autocommit = True
        with conn.cursor() as cur:
            cur.execute(f"CREATE DATABASE {name}")
        conn.close()
        return self.url(name)

    def __exit__(self, *exc):
        try:
            self.run([self.pg_ctl, "-D", self.data, "-m", "fast", "-w", "stop"])
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)
