# SPDX-License-Identifier: BSD-2-Clause
"""Experiment sweeps (issue 29): policy x workload x configuration as
independent Scion runs, locally or as one Slurm array job, results in
the profile database. plan.py reads a sweep file, guest.py performs one
run, runner.py runs them and stores them (results.py), slurm.py submits
them, report.py summarises them; cli.py is `scion sweep`."""
