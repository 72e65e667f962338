# SPDX-License-Identifier: BSD-2-Clause
"""A sweep as one Slurm array job: the batch script, its submission,
and what Slurm says of its tasks.

The script runs `scion sweep run-one FILE --index $SLURM_ARRAY_TASK_ID
--db DB` in every task of `--array=0-(N-1)%K`; each task writes its
run to the database itself (PostgreSQL when the tasks run on many
nodes; an SQLite file works on one node or a shared file system that
locks). Paths in the script are absolute, so a task runs in any
working directory. The job's id is kept in the database for `sweep
status`. Slurm's tools are asked only here; a missing one is a
one-line error.
"""

import os
import re
import shlex
import shutil
import subprocess
import sys

from .plan import SweepError
from .runner import SCION

JOB_ID = re.compile(r"^(\d+)")


def script(plan, db_spec, max_parallel, partition=None, time_limit_min=None):
    """The batch script's text."""
    n = len(plan.runs)
    out = os.path.join(plan.log_dir(), "slurm")
    limit = time_limit_min or max(1, 2 * plan.settings["timeout"] // 60 + 1)
    lines = ["#!/bin/sh",
             f"# Scion sweep {plan.name}: {n} runs of {plan.path}, one array task each.",
             f"#SBATCH --job-name=scion-sweep-{plan.name}",
             f"#SBATCH --array=0-{n - 1}" + (f"%{max_parallel}" if max_parallel else ""),
             f"#SBATCH --output={out}/%A_%a.out",
             # Two attempts of at most the sweep's timeout each, and the boots around them.
             f"#SBATCH --time={limit}",
             "#SBATCH --ntasks=1"]
    if partition:
        lines.append(f"#SBATCH --partition={partition}")
    argv = [sys.executable, SCION, "sweep", "run-one", os.path.abspath(plan.path), "--db",
            db_spec, "--index"]
    lines.append(f"exec {' '.join(shlex.quote(a) for a in argv)} \"$SLURM_ARRAY_TASK_ID\"")
    return "\n".join(lines) + "\n"


def tool(name):
    path = shutil.which(name)
    if not path:
        raise SweepError(f"{name} is not installed: Slurm's client tools are needed "
                         f"(apt-get install slurm-client, or run on a login node)")
    return path


def submit(plan, db_spec, max_parallel, partition=None):
    """Write the script beside the logs and sbatch it: (job id, script path)."""
    os.makedirs(os.path.join(plan.log_dir(), "slurm"), exist_ok=True)
    path = os.path.join(plan.log_dir(), f"{plan.name}.sbatch")
    with open(path, "w") as f:
        f.write(script(plan, db_spec, max_parallel, partition))
    proc = subprocess.run([tool("sbatch"), "--parsable", path], capture_output=True,
                          text=True, timeout=60)
    m = JOB_ID.match(proc.stdout.strip())
    if proc.returncode != 0 or not m:
        why = (proc.stderr.strip() or proc.stdout.strip() or "no output").splitlines()[-1]
        raise SweepError(f"sbatch {path} failed (exit status {proc.returncode}): {why}")
    return m.group(1), path


def task_states(job):
    """{array index: Slurm state} of the job's tasks Slurm still knows (squeue, then
    sacct when accounting is kept), and which tools answered."""
    states, asked = {}, []
    if shutil.which("squeue"):
        proc = subprocess.run(["squeue", "-h", "-r", "-j", job, "-o", "%K %T"],
                              capture_output=True, text=True, timeout=60)
        if proc.returncode == 0:
            asked.append("squeue")
            for line in proc.stdout.split("\n"):
                words = line.split()
                if len(words) == 2 and words[0].isdigit():
                    states[int(words[0])] = words[1]
    if shutil.which("sacct"):
        proc = subprocess.run(["sacct", "-n", "-X", "-P", "-j", job, "-o", "JobID,State"],
                              capture_output=True, text=True, timeout=60)
        if proc.returncode == 0:
            asked.append("sacct")
            for line in proc.stdout.split("\n"):
                m = re.match(rf"^{job}_(\d+)\|(\S+)", line)
                if m:
                    states.setdefault(int(m.group(1)), m.group(2))
    return states, asked
