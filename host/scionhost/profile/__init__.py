# SPDX-License-Identifier: BSD-2-Clause
"""Profiles (VINO self-monitoring) on the host: the profile database
(schema.sql, db.py), synthetic histories (synth.py), the nightly
off-line analysis (series.py reads a day, intervals.py, reference.py,
anomalies.py, nightly.py runs them, report.py), the profile
configuration file for the kernel (config.py, as
kernel/include/scion/profile_config.h lays it out), scoring against
ground truth (evaluate.py) and the commands (cli.py). All but cli.py,
db.py and config.py need numpy (Debian's python3-numpy and friends).
"""
