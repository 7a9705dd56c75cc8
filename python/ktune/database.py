"""Tuning databases and lookups through the C ABI: ktune.Database, ktune.lookup."""

import ctypes
import json
import os

from . import _lib
from .errors import InputError


def default_db_path():
    """The user's database, as the CLI chooses it: $KTUNE_DB, else ./ktune.db."""
    return os.environ.get("KTUNE_DB") or "ktune.db"


def default_system_db_path():
    """The shipped database: $KTUNE_SYSTEM_DB, else share/ktune/ktune.db beside the library's folder."""
    env = os.environ.get("KTUNE_SYSTEM_DB")
    if env:
        return env
    return os.path.join(_lib.prefix_of(_lib.library_path()), "share", "ktune", "ktune.db")


def _path(p):
    if isinstance(p, Database):
        return p.path
    if isinstance(p, (str, os.PathLike)):
        return os.fspath(p)
    raise InputError("expected a database path or ktune.Database, got %r" % (p,))


class Database:
    """One tuning database file. Nothing is opened until an operation runs;
    each operation opens, works and closes, as the CLI's `ktune db` does."""

    def __init__(self, path):
        self.path = _path(path)

    def __repr__(self):
        return "ktune.Database(%r)" % self.path

    def query(self, family=None, device=None, top=1):
        """The best verified configurations per (family, device, problem): a
        list of dicts (pandas.DataFrame(records) makes a table), as `ktune db
        query --json` prints them. device: a GPU name, a short one ("h200") or
        an arch ("sm_90"); a name nothing holds raises InputError."""
        if not isinstance(top, int) or isinstance(top, bool) or top < 1:
            raise InputError("top must be an integer >= 1, got %r" % (top,))
        lib = _lib.lib()
        out = ctypes.c_void_p()
        _lib.check(lib.ktune_db_query(_lib.encode(self.path), _lib.encode(family),
                                      _lib.encode(device), top, ctypes.byref(out)))
        return json.loads(_lib.take_string(out))

    def export(self, path, format=None):
        """Writes every measurement to `path` (jsonl, csv or t4; default from
        the file name). Returns how many."""
        lib = _lib.lib()
        n = ctypes.c_longlong()
        _lib.check(lib.ktune_db_export(_lib.encode(self.path), _lib.encode(os.fspath(path)),
                                       _lib.encode(format), ctypes.byref(n)))
        return n.value

    def import_(self, path, format=None):
        """Adds the measurements of `path` (all or nothing). Returns {"read": n, "added": n}."""
        lib = _lib.lib()
        read, added = ctypes.c_longlong(), ctypes.c_longlong()
        _lib.check(lib.ktune_db_import(_lib.encode(self.path), _lib.encode(os.fspath(path)),
                                       _lib.encode(format), ctypes.byref(read), ctypes.byref(added)))
        return {"read": read.value, "added": added.value}

    def merge(self, *others):
        """Adds every measurement of the databases `others` to this one
        (created if absent). Returns {"read", "added", "total"}."""
        return merge(others, self)


# `import` is a keyword: Database.import_ is its name, and this alias reads as the CLI's.
setattr(Database, "import", Database.import_)


def merge(inputs, output):
    """The union of the databases `inputs` into `output` (created if absent, else added to)."""
    paths = [_path(p) for p in inputs]
    if not paths:
        raise InputError("merge needs at least one input database")
    lib = _lib.lib()
    arr = (ctypes.c_char_p * len(paths))(*[_lib.encode(p) for p in paths])
    read, added, total = ctypes.c_longlong(), ctypes.c_longlong(), ctypes.c_longlong()
    _lib.check(lib.ktune_db_merge(arr, len(paths), _lib.encode(_path(output)), ctypes.byref(read),
                                  ctypes.byref(added), ctypes.byref(total)))
    return {"read": read.value, "added": added.value, "total": total.value}


class Answer:
    """A lookup's answer. `config` is the configuration key `ktune lookup`
    prints; `params` its parameters; `source` where it came from (exact,
    nearest, predicted, arch_fallback, default_config); `record` the whole
    answer as `ktune lookup --json` prints it (plain Python objects)."""

    __slots__ = ("config", "params", "source", "record")

    def __init__(self, record):
        self.record = record
        self.config = record["config_key"]
        self.params = record["config"]
        self.source = record["source"]

    @property
    def measured(self):
        """The measured result behind the answer (None for the family's default)."""
        return self.record.get("measured")

    def __repr__(self):
        return "ktune.Answer(config=%r, source=%r)" % (self.config, self.source)


def problem_key(problem):
    """A problem as the CLI's problem key: a dict {"m": 4096, ...} or the key text itself."""
    if isinstance(problem, str):
        return problem
    if isinstance(problem, dict):
        parts = []
        for k, v in problem.items():
            if not isinstance(k, str) or "," in k or "=" in k:
                raise InputError("bad problem key %r" % (k,))
            if isinstance(v, bool) or not isinstance(v, (int, float, str)):
                raise InputError("problem value %s=%r is not a number or a word" % (k, v))
            parts.append("%s=%s" % (k, v))
        return ",".join(parts)
    raise InputError("a problem is a dict or a problem key string, got %r" % (problem,))


def lookup(family, problem, device, db=None, system_db=None):
    """The configuration `ktune lookup --kernel FAMILY --problem P --device D`
    answers. device: a GPU name ("NVIDIA H200"), short name ("h200") or arch
    ("sm_90"). db: the user's database (path or Database; default $KTUNE_DB,
    else ./ktune.db), over system_db (default: the shipped one); missing
    files are skipped."""
    if not isinstance(family, str) or not family:
        raise InputError("the family is a name such as 'gemm', got %r" % (family,))
    if not isinstance(device, str) or not device:
        raise InputError("give device=, a GPU name or an arch such as 'sm_90'")
    lib = _lib.lib()
    layers = [_path(db) if db is not None else default_db_path(),
              _path(system_db) if system_db is not None else default_system_db_path()]
    arr = (ctypes.c_char_p * len(layers))(*[_lib.encode(p) for p in layers])
    out = ctypes.c_void_p()
    _lib.check(lib.ktune_lookup(arr, len(layers), _lib.encode(family),
                                _lib.encode(problem_key(problem)), _lib.encode(device),
                                ctypes.byref(out)))
    return Answer(json.loads(_lib.take_string(out)))
