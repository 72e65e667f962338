# SPDX-License-Identifier: BSD-2-Clause
"""A throw-away single-node Slurm cluster for the sweep tests and
benchmarks: Debian's munged, slurmctld and slurmd (packages munge and
slurm-wlm) started as root on this machine with a configuration, a
munge key and every state, spool and log file in a temporary directory,
stopped and removed on exit. Nothing outside that directory is read or
written: the daemons and the client tools find the configuration through
$SLURM_CONF, which env() gives, and munge through the socket the
configuration names.

    with SlurmCluster() as slurm:
        subprocess.run(["sbatch", ...], env=slurm.env())

Why the configuration is what it is (a container or a VM without
systemd and with cgroups it may not delegate):
  * ProctrackType=proctrack/linuxproc, TaskPlugin=task/none and
    JobAcctGatherType=jobacct_gather/none: no plugin that needs cgroups
    (proctrack/cgroup and task/cgroup would need a writable cgroup tree);
  * AccountingStorageType=accounting_storage/none: no slurmdbd, so
    `sacct` has nothing; squeue and the sweep database say the rest;
  * SlurmUser=root and SlurmdUser=root: the test runs as root and the
    daemons need no user of their own;
  * the node is this host's name at 127.0.0.1 with CPUs=2 (the machine's
    cores) and select/cons_tres by CPU, so two one-CPU tasks run at once;
  * ports are free ones picked at start, so a cluster already running
    here (or a second test) is not disturbed.
"""

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

START_SECONDS = 30


class SlurmUnavailable(Exception):
    pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def config(d, host, ctld_port, slurmd_port, cpus):
    return f"""# A single-node test cluster (tests/integration/slurm_cluster.py says why).
ClusterName=scion-test
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={d}/munge/munge.socket
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldLogFile={d}/slurmctld.log
SlurmdLogFile={d}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SchedulerType=sched/backfill
MinJobAge=600
NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN
PartitionName=test Nodes={host} Default=YES MaxTime=INFINITE State=UP
"""


class SlurmCluster:
    def __init__(self, cpus=2):
        self.cpus = cpus
        self.dir = None
        self.procs = []

    def env(self):
        return dict(os.environ, SLURM_CONF=self.conf)

    def __enter__(self):
        missing = [t for t in ("munged", "slurmctld", "slurmd", "sbatch", "squeue")
                   if not shutil.which(t) and not os.path.exists(f"/usr/sbin/{t}")]
        if missing:
            raise SlurmUnavailable(f"{', '.join(missing)} not installed (apt-get install "
                                   f"slurm-wlm munge)")
        if os.geteuid() != 0:
            raise SlurmUnavailable("the test cluster's daemons run as root")
        self.dir = d = tempfile.mkdtemp(prefix="scion-slurm-")
        try:
            for sub in ("munge", "state", "spool"):
                os.makedirs(os.path.join(d, sub), mode=0o700)
            key = os.path.join(d, "munge", "munge.key")
            with open(key, "wb") as f:
                f.write(os.urandom(1024))
            os.chmod(key, 0o400)
            self.host = socket.gethostname().split(".")[0]
            self.conf = os.path.join(d, "slurm.conf")
            with open(self.conf, "w") as f:
                f.write(config(d, self.host, free_port(), free_port(), self.cpus))
            # --force: munged otherwise refuses a socket in a folder others cannot search
            # ("Socket is inaccessible: execute permissions for all required"); ours is 0700.
            self.start(["munged", "--foreground", "--force", f"--key-file={key}",
                        f"--socket={d}/munge/munge.socket", f"--pid-file={d}/munge/munged.pid",
                        f"--log-file={d}/munge/munged.log", f"--seed-file={d}/munge/seed"],
                       "munged")
            self.wait_for(lambda: os.path.exists(f"{d}/munge/munge.socket"), "munged's socket")
            self.start(["slurmctld", "-D", "-i", "-f", self.conf], "slurmctld")
            self.start(["slurmd", "-D", "-f", self.conf, "-N", self.host], "slurmd")
            self.wait_for(self.node_idle, "the node to be idle in sinfo")
        except BaseException:
            self.__exit__()
            raise
        return self

    def start(self, argv, name):
        log = open(os.path.join(self.dir, name + ".out"), "w")
        self.procs.append((name, subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                                  env=self.env() if self.dir else None,
                                                  start_new_session=True)))

    def log_tail(self):
        out = []
        for name in ("munge/munged.log", "slurmctld.log", "slurmd.log", "munged.out",
                     "slurmctld.out", "slurmd.out"):
            path = os.path.join(self.dir, name)
            if os.path.exists(path):
                with open(path, errors="replace") as f:
                    lines = f.read().strip().splitlines()[-4:]
                out.append(f"{name}: " + " | ".join(lines))
        return "; ".join(out)

    def wait_for(self, ready, what):
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            dead = [n for n, p in self.procs if p.poll() is not None]
            if dead:
                raise SlurmUnavailable(f"{dead[0]} exited while waiting for {what}: "
                                       f"{self.log_tail()}")
            if ready():
                return
            time.sleep(0.3)
        raise SlurmUnavailable(f"no {what} in {START_SECONDS} s: {self.log_tail()}")

    def node_idle(self):
        proc = subprocess.run(["sinfo", "-h", "-N", "-o", "%T"], capture_output=True,
                              text=True, env=self.env(), timeout=30)
        return proc.returncode == 0 and proc.stdout.strip().startswith("idle")

    def __exit__(self, *exc):
        for name, proc in reversed(self.procs):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
        self.procs = []
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
