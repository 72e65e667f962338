# SPDX-License-Identifier: BSD-2-Clause
"""A sweep file (TOML) read, checked and expanded into its runs.

The file (examples/sweeps/policies.toml is the documented example):

  [sweep]       name, kernel, disk, icount, timeout, out, db (all but name optional)
  [axes]        NAME = [values...]: the cross product of every axis is the plan
  [[exclude]]   AXIS = value or [values]: a run matching every key of one table is left out
  [policies.P]  modules = [grafts booted as modules], commands = [guest commands after boot]
  [workloads.W] commands = [guest commands, "{axis}" replaced by the run's value],
                bench = "selector" (the in-kernel benchmarks' figures, icount-exact)
  [collect]     monitor = [monitor sources whose growth over the workload is a figure],
                d = "a D program" enabled over the workload, its aggregations figures,
                record = "bcache" (a module or graft point) recorded over the workload,
                profile = true: the monitor stream over the workload, a profile collection

Built-in axes give the machine and the run: policy, workload, cpus,
mem, bootopts, seed. Any other axis (cache, ...) is a parameter and must
appear as "{name}" in some workload's or policy's commands.

Invariants: runs come in the order of the cross product (axes in file
order, the last axis varying fastest) with the excluded ones removed;
a run's index is its place in that list, and its id is a hash of
everything that decides what it does (its axis values, its policy's and
workload's definitions with the values filled in, the kernel and disk
(as paths inside the repository, so a checkout elsewhere gives the same
ids), icount and what is collected), so the same configuration has the
same id in any sweep file. Every problem in a file is a SweepError of
one line.
"""

import collections
import hashlib
import itertools
import json
import os
import string
import tomllib

from ..client import REPO, ScionError

BUILTIN_AXES = ("policy", "workload", "cpus", "mem", "bootopts", "seed")
DEFAULTS = {"policy": "default", "cpus": 1, "mem": "256M", "bootopts": "", "seed": 0}
SWEEP_KEYS = {"name": str, "kernel": str, "disk": str, "icount": (int, bool), "timeout": int,
              "out": str, "db": str}
SWEEP_DEFAULTS = {"kernel": "build/kernel32.elf", "disk": "build/disk.img", "icount": 0,
                  "timeout": 300, "out": "build/sweeps"}
TOP_KEYS = ("sweep", "axes", "exclude", "policies", "workloads", "collect")
RUN_ID_HEX = 12
IDENTITY_SETTINGS = ("kernel", "disk", "icount", "collect")


# An attempt's console log; its recording ([collect] record), a `scion record` folder;
# the database and the machine name its profile collection goes under ([collect] profile).
Destinations = collections.namedtuple("Destinations", "log record_dir db profile_machine")


def in_repo(value):
    """A path inside the repository as a path from its top; anything else as it is."""
    if isinstance(value, str) and value.startswith(REPO + os.sep):
        return os.path.relpath(value, REPO)
    return value


class SweepError(ScionError):
    """A bad sweep file or request: one line, exit status 2."""


class Run:
    """One run of a plan: its index, id and everything it needs."""

    def __init__(self, index, config, policy, workload, settings):
        self.index, self.config = index, config
        self.policy, self.workload = policy, workload      # definitions, values filled in
        self.settings = settings            # kernel, disk, icount, timeout, collect
        # What is collected is part of the run: probes enabled change what runs.
        identity = {"config": config, "policy": policy, "workload": workload,
                    **{k: in_repo(settings[k]) for k in IDENTITY_SETTINGS}}
        digest = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()
        self.run_id = digest[:RUN_ID_HEX]

    def label(self):
        return " ".join(f"{k}={v}" for k, v in self.config.items())


class Plan:
    def __init__(self, path, name, settings, axes, runs, excluded):
        self.path, self.name, self.settings = path, name, settings
        self.axes, self.runs, self.excluded = axes, runs, excluded

    def run_at(self, index):
        if not 0 <= index < len(self.runs):
            raise SweepError(f"{self.path}: no run {index}; the plan has {len(self.runs)} "
                             f"(indexes 0 to {len(self.runs) - 1})")
        return self.runs[index]

    def log_dir(self):
        return os.path.join(self.settings["out"], self.name)

    def destinations(self, run, attempt, db):
        """Where run's attempt leaves what it collects beside its figures."""
        return Destinations(
            os.path.join(self.log_dir(), "logs", f"{run.index}-{run.run_id}.{attempt}.log"),
            os.path.join(self.log_dir(), "records", f"{run.index}-{run.run_id}"),
            db, f"sweep {self.name} {run.run_id}")


def load(path):
    """Read and expand a sweep file: a Plan, or a SweepError naming the problem."""
    try:
        with open(path, "rb") as f:
            doc = tomllib.load(f)
    except OSError as e:
        raise SweepError(f"cannot read sweep file {path}: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise SweepError(f"{path}: not a valid TOML file: {e}") from None
    return expand(doc, path)


def fail(path, text):
    raise SweepError(f"{path}: {text}")


def is_scalar(value):
    return isinstance(value, (str, int, float, bool))


def settings_of(doc, path):
    sweep = doc.get("sweep")
    if not isinstance(sweep, dict) or not isinstance(sweep.get("name"), str):
        fail(path, "give the sweep a name: [sweep] name = \"...\"")
    for key, value in sweep.items():
        if key not in SWEEP_KEYS:
            fail(path, f"[sweep] has no key {key!r} (keys: {', '.join(SWEEP_KEYS)})")
        if not isinstance(value, SWEEP_KEYS[key]):
            fail(path, f"[sweep] {key} = {value!r} is not a "
                       f"{getattr(SWEEP_KEYS[key], '__name__', 'number')}")
    name = sweep["name"]
    if not name or not all(c.isalnum() or c in "-_." for c in name):
        fail(path, f"sweep name {name!r}: use letters, digits, '-', '_' and '.'")
    settings = dict(SWEEP_DEFAULTS, **{k: v for k, v in sweep.items() if k != "name"})
    for key in ("kernel", "disk", "out"):
        if settings[key] and not os.path.isabs(settings[key]):
            settings[key] = os.path.join(REPO, settings[key])
    db = settings.setdefault("db", os.path.join(settings["out"], name + ".db"))
    if not db.startswith(("postgresql://", "postgres://")) and not os.path.isabs(db):
        settings["db"] = os.path.join(REPO, db)
    if settings["icount"] is True:
        settings["icount"] = 0
    return name, settings


def axes_of(doc, path):
    axes = doc.get("axes")
    if not isinstance(axes, dict) or not axes:
        fail(path, "no axes: give [axes] with at least workload = [...]")
    for name, values in axes.items():
        if not isinstance(values, list) or not values:
            fail(path, f"axis {name}: give a non-empty list of values")
        bad = [v for v in values if not is_scalar(v)]
        if bad:
            fail(path, f"axis {name}: value {bad[0]!r} is not a string or a number")
        if len(set(map(repr, values))) != len(values):
            fail(path, f"axis {name}: a value is given twice")
    if "workload" not in axes:
        fail(path, "no workload axis: give [axes] workload = [names of [workloads.NAME]]")
    return axes


def definitions(doc, path, section, axis_values, keys):
    """[section.NAME] tables for every value of the axis, checked."""
    table = doc.get(section, {})
    if not isinstance(table, dict):
        fail(path, f"[{section}] must hold tables [{section}.NAME]")
    out = {}
    for value in axis_values:
        entry = table.get(str(value))
        if entry is None:
            if section == "policies" and value == DEFAULTS["policy"]:
                entry = {}
            else:
                fail(path, f"{section[:-1] if section != 'policies' else 'policy'} {value!r} "
                           f"has no [{section}.{value}] table (defined: "
                           f"{', '.join(table) or 'none'})")
        for key, want in entry.items():
            if key not in keys:
                fail(path, f"[{section}.{value}] has no key {key!r} (keys: {', '.join(keys)})")
            if keys[key] is list and not (isinstance(entry[key], list)
                                          and all(isinstance(c, str) for c in entry[key])):
                fail(path, f"[{section}.{value}] {key}: give a list of strings")
            if keys[key] is str and not isinstance(entry[key], str):
                fail(path, f"[{section}.{value}] {key}: give a string")
        out[str(value)] = entry
    return out


def collect_of(doc, path):
    """[collect]: monitor = [source names], d = "a D program", record = "a module",
    profile = true or false."""
    collect = doc.get("collect", {})
    kinds = {"monitor": list, "d": str, "record": str, "profile": bool}
    if not isinstance(collect, dict) or set(collect) - set(kinds) or not all(
            isinstance(collect[k], kinds[k]) for k in collect) or not all(
            isinstance(m, str) for m in collect.get("monitor", [])):
        fail(path, "[collect] takes monitor = [monitor source names, e.g. \"bcache.hits\"], "
                   "d = \"a D program\", record = \"a module or graft point\" and profile = "
                   "true or false")
    return {"monitor": collect.get("monitor", []), "d": collect.get("d"),
            "record": collect.get("record"), "profile": collect.get("profile", False)}


def placeholders(texts):
    names = set()
    for text in texts:
        for _, field, _, _ in string.Formatter().parse(text):
            if field is not None:
                names.add(field)
    return names


def fill(texts, config, where, path):
    try:
        return [t.format(**config) for t in texts]
    except (KeyError, IndexError, ValueError) as e:
        fail(path, f"{where}: cannot fill in {e} (the axes are {', '.join(config)})")


def check_excludes(doc, path, axes):
    excludes = doc.get("exclude", [])
    if not isinstance(excludes, list) or not all(isinstance(e, dict) and e for e in excludes):
        fail(path, "exclude: give [[exclude]] tables of AXIS = value or [values]")
    out = []
    for e in excludes:
        rule = {}
        for axis, value in e.items():
            if axis not in axes:
                fail(path, f"[[exclude]] names axis {axis!r}, which [axes] does not have "
                           f"(axes: {', '.join(axes)})")
            values = value if isinstance(value, list) else [value]
            unknown = [v for v in values if v not in axes[axis]]
            if unknown:
                fail(path, f"[[exclude]] {axis} = {unknown[0]!r} is not a value of axis {axis}")
            rule[axis] = values
        out.append(rule)
    return out


def expand(doc, path):
    unknown = [k for k in doc if k not in TOP_KEYS]
    if unknown:
        fail(path, f"unknown section [{unknown[0]}] (sections: {', '.join(TOP_KEYS)})")
    name, settings = settings_of(doc, path)
    axes = axes_of(doc, path)
    policies = definitions(doc, path, "policies", axes.get("policy", [DEFAULTS["policy"]]),
                           {"modules": list, "commands": list})
    workloads = definitions(doc, path, "workloads", axes["workload"],
                            {"commands": list, "bench": str})
    for wname, w in workloads.items():
        if not w.get("commands") and "bench" not in w:
            fail(path, f"[workloads.{wname}] does nothing: give commands or bench")
    settings["collect"] = collect_of(doc, path)
    used = placeholders(c for d in list(policies.values()) + list(workloads.values())
                        for c in d.get("commands", []))
    for axis in axes:
        if axis not in BUILTIN_AXES and axis not in used:
            fail(path, f"unknown axis {axis!r}: the built-in axes are "
                       f"{', '.join(BUILTIN_AXES)}; another must appear as {{{axis}}} in a "
                       f"workload's or policy's commands")
    excludes = check_excludes(doc, path, axes)
    runs, excluded = [], 0
    names = list(axes)
    for values in itertools.product(*(axes[n] for n in names)):
        config = dict(zip(names, values))
        if any(all(config[a] in vs for a, vs in rule.items()) for rule in excludes):
            excluded += 1
            continue
        full = dict(DEFAULTS, **config)
        policy = dict(policies[str(full["policy"])])
        workload = dict(workloads[str(full["workload"])])
        for what, d in (("policy", policy), ("workload", workload)):
            if "commands" in d:
                d["commands"] = fill(d["commands"], full, f"{what} {full[what]}", path)
        runs.append(Run(len(runs), config, policy, workload, settings))
    if not runs:
        fail(path, f"the plan is empty: the exclusions leave none of the {excluded} runs")
    return Plan(path, name, settings, axes, runs, excluded)
