"""Loads libktune_c (the C ABI, capi/ktune.h) with ctypes and declares its functions.

ctypes, not cffi: it is in every CPython, needs no compiler and no Python
headers, so one install serves every Python 3 (cffi is not on our machines)."""

import ctypes
import ctypes.util
import os

from .errors import InputError, error_for

C_API_VERSION = 1  # the KTUNE_C_API_VERSION this package speaks

_HERE = os.path.dirname(os.path.abspath(__file__))


def library_candidates():
    """Where libktune_c is looked for, first found wins."""
    env = os.environ.get("KTUNE_LIBRARY")
    if env:
        return [env]
    names = [
        os.path.join(_HERE, "libktune_c.so"),  # a copy beside the package
        os.path.join(_HERE, "..", "..", "libktune_c.so"),  # cmake --install: <prefix>/lib/python/ktune
        os.path.join(_HERE, "..", "..", "build", "lib", "libktune_c.so"),  # the source tree's build
    ]
    found = ctypes.util.find_library("ktune_c")
    if found:
        names.append(found)
    return [os.path.normpath(n) for n in names]


def prefix_of(library_path):
    """The install prefix (or build folder) a library path lies in: <prefix>/lib/libktune_c.so."""
    return os.path.dirname(os.path.dirname(os.path.abspath(library_path)))


class _GemmDesc(ctypes.Structure):
    _fields_ = [
        ("m", ctypes.c_longlong), ("n", ctypes.c_longlong), ("k", ctypes.c_longlong),
        ("lda", ctypes.c_longlong), ("ldb", ctypes.c_longlong), ("ldc", ctypes.c_longlong),
        ("dtype", ctypes.c_int), ("layout", ctypes.c_int), ("out_fp32", ctypes.c_int),
        ("epilogue", ctypes.c_int), ("alpha", ctypes.c_double), ("beta", ctypes.c_double),
    ]


class _RowwiseDesc(ctypes.Structure):
    _fields_ = [
        ("rows", ctypes.c_longlong), ("cols", ctypes.c_longlong), ("dtype", ctypes.c_int),
        ("eps", ctypes.c_double), ("op", ctypes.c_int), ("axis", ctypes.c_int),
    ]


class _RowwiseFamilyDesc(ctypes.Structure):
    _fields_ = [
        ("family", ctypes.c_char_p), ("rows", ctypes.c_longlong), ("cols", ctypes.c_longlong),
        ("dtype", ctypes.c_int), ("n_params", ctypes.c_int), ("params", ctypes.c_double * 4),
    ]


GemmDesc = _GemmDesc
RowwiseDesc = _RowwiseDesc
RowwiseFamilyDesc = _RowwiseFamilyDesc

_c = ctypes
_P = _c.c_void_p
_S = _c.c_char_p
_LL = _c.POINTER(_c.c_longlong)
_OUT = _c.POINTER(_c.c_void_p)  # char** read back as a pointer, freed with ktune_free

_SIGNATURES = {
    "ktune_c_api_version": ([], _c.c_int),
    "ktune_last_error": ([], _S),
    "ktune_free": ([_P], None),
    "ktune_db_query": ([_S, _S, _S, _c.c_int, _OUT], _c.c_int),
    "ktune_db_export": ([_S, _S, _S, _LL], _c.c_int),
    "ktune_db_import": ([_S, _S, _S, _LL, _LL], _c.c_int),
    "ktune_db_merge": ([_c.POINTER(_S), _c.c_int, _S, _LL, _LL, _LL], _c.c_int),
    "ktune_lookup": ([_c.POINTER(_S), _c.c_int, _S, _S, _S, _OUT], _c.c_int),
    "ktune_runtime_open": ([_S, _S, _S, _c.c_int, _c.POINTER(_P)], _c.c_int),
    "ktune_runtime_close": ([_P], None),
    "ktune_gemm": ([_P, _c.POINTER(_GemmDesc), _P, _P, _P, _P, _P], _c.c_int),
    "ktune_rmsnorm": ([_P, _c.POINTER(_RowwiseDesc), _P, _P, _P, _P], _c.c_int),
    "ktune_softmax": ([_P, _c.POINTER(_RowwiseDesc), _P, _P, _P], _c.c_int),
    "ktune_reduce": ([_P, _c.POINTER(_RowwiseDesc), _P, _P, _P], _c.c_int),
    "ktune_rowwise": ([_P, _c.POINTER(_RowwiseFamilyDesc), _P, _P, _P, _P], _c.c_int),
    "ktune_explain": ([_P, _S, _P, _OUT], _c.c_int),
    "ktune_explain_rowwise": ([_P, _c.POINTER(_RowwiseFamilyDesc), _OUT], _c.c_int),
}

_lib = None
_lib_path = None


def lib():
    """The loaded library (loaded on first use); raises ktune.Error when it cannot be found."""
    global _lib, _lib_path
    if _lib is not None:
        return _lib
    tried = []
    for path in library_candidates():
        if not os.path.exists(path) and os.sep in path:
            tried.append(path + " (missing)")
            continue
        try:
            handle = ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
            continue
        for name, (args, res) in _SIGNATURES.items():
            fn = getattr(handle, name)
            fn.argtypes = args
            fn.restype = res
        version = handle.ktune_c_api_version()
        if version != C_API_VERSION:
            raise error_for(4, "%s speaks C API version %d; this package needs %d"
                            % (path, version, C_API_VERSION))
        _lib, _lib_path = handle, path
        _default_kernel_dir(path)
        return _lib
    raise error_for(4, "libktune_c not found; set KTUNE_LIBRARY to its path. Tried: " + "; ".join(tried))


def library_path():
    lib()
    return _lib_path


def _default_kernel_dir(path):
    # The templates NVRTC compiles and whose hashes key the results: installed
    # under <prefix>/share/ktune beside the library.
    installed = os.path.join(prefix_of(path), "share", "ktune", "kernels_templated")
    if "KTUNE_KERNEL_DIR" not in os.environ and os.path.isfile(os.path.join(installed, "family.hpp")):
        os.environ["KTUNE_KERNEL_DIR"] = installed


def encode(text):
    """A str argument as the C ABI's UTF-8 char* (None stays null)."""
    if text is None:
        return None
    if not isinstance(text, str):
        raise InputError("expected a string, got %r" % (text,))
    return text.encode("utf-8")


def check(status):
    """Raises the exception for a failed status, with the library's message."""
    if status != 0:
        raise error_for(status, _lib.ktune_last_error().decode("utf-8", "replace"))


def take_string(pointer):
    """The text of a char* the library returned, freed."""
    try:
        return ctypes.string_at(pointer).decode("utf-8")
    finally:
        _lib.ktune_free(pointer)
