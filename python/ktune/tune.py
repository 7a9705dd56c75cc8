"""ktune.tune: the CLI's tuning engine, run as the `ktune` binary (the tuner
is not in libktune_c: it compiles, runs isolated workers and owns the GPU for
the run, which a subprocess does best)."""

import os
import shutil
import subprocess

from . import _lib
from .database import Database, _path, problem_key
from .errors import Error, InputError


def ktune_binary():
    """The `ktune` binary: $KTUNE_BINARY, else bin/ktune of the install (or
    build) libktune_c came from, else `ktune` on PATH."""
    env = os.environ.get("KTUNE_BINARY")
    if env:
        return env
    beside = os.path.join(_lib.prefix_of(_lib.library_path()), "bin", "ktune")
    if os.path.isfile(beside):
        return beside
    found = shutil.which("ktune")
    if found:
        return found
    raise Error("the ktune binary was not found: set KTUNE_BINARY")


def tune_command(family, problem, db=None, budget=None, strategy=None, device=None, replay=None,
                 extra=()):
    """The `ktune tune` command line tune() runs (a list of arguments)."""
    if not isinstance(family, str) or not family:
        raise InputError("the family is a name such as 'gemm', got %r" % (family,))
    cmd = [ktune_binary(), "tune", "--kernel", family, "--problem", problem_key(problem)]
    if db is not None:
        cmd += ["--db", _path(db)]
    if budget is not None:
        if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
            raise InputError("budget is a positive number of configurations, got %r" % (budget,))
        cmd += ["--budget", str(budget)]
    if strategy is not None:
        cmd += ["--strategy", strategy]
    if device is not None:
        cmd += ["--device", str(device)]
    if replay is not None:
        cmd += ["--replay", os.fspath(replay)]
    return cmd + [str(a) for a in extra]


def tune(family, problem, db=None, budget=None, strategy=None, device=None, replay=None, extra=(),
         quiet=False):
    """Tunes one problem with `ktune tune` (the same engine as the CLI) into
    `db` (default $KTUNE_DB, else ./ktune.db) and returns that ktune.Database
    (ktune.lookup then answers from it). replay: a recorded space
    (tuning_db/recorded/) that answers the measurements instead of a GPU;
    extra: more `ktune tune` arguments. Bad input (exit code 2) raises ktune.InputError; a failed
    run, ktune.Error with the binary's message."""
    cmd = tune_command(family, problem, db, budget, strategy, device, replay, extra)
    done = subprocess.run(cmd, stdout=subprocess.PIPE if quiet else None,
                          stderr=subprocess.PIPE, text=True)
    if done.returncode == 2:
        raise InputError(done.stderr.strip() or "ktune tune: bad input")
    if done.returncode != 0:
        raise Error("ktune tune exited %d: %s" % (done.returncode, done.stderr.strip()))
    if not quiet and done.stderr:
        print(done.stderr, end="")
    return Database(cmd[cmd.index("--db") + 1] if "--db" in cmd else
                    (os.environ.get("KTUNE_DB") or "ktune.db"))
