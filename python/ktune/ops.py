"""The tuned calls on device arrays: matmul and the row-wise families
(rmsnorm, softmax, reduce), through libktune_runtime on the caller's stream."""

import ctypes
import os
import threading
import warnings

from . import _lib, tensors
from .database import default_db_path, default_system_db_path
from .errors import Error, InputError

_options = {"db": None, "system_db": None, "cache_dir": None}
_runtimes = {}
_runtimes_lock = threading.Lock()
_fallbacks = []


def configure(db=None, system_db=None, cache_dir=None):
    """Chooses the databases and the cubin cache of the calls (before the first
    call; later calls reopen). db: the user's database (default $KTUNE_DB, else
    ./ktune.db where it exists); system_db: the shipped one (default
    $KTUNE_SYSTEM_DB, else share/ktune/ktune.db of the install); cache_dir:
    where compiled kernels are kept ("-": nowhere)."""
    with _runtimes_lock:
        _options.update(db=db, system_db=system_db, cache_dir=cache_dir)
        for handle in _runtimes.values():
            _lib.lib().ktune_runtime_close(handle)
        _runtimes.clear()


def _existing(path):
    return os.fspath(path) if path is not None and os.path.exists(path) else None


def _runtime(device):
    handle = _runtimes.get(device)
    if handle is not None:
        return handle
    with _runtimes_lock:
        if device not in _runtimes:
            lib = _lib.lib()
            user = _existing(_options["db"] if _options["db"] is not None else default_db_path())
            system = _existing(_options["system_db"] if _options["system_db"] is not None
                               else default_system_db_path())
            out = ctypes.c_void_p()
            _lib.check(lib.ktune_runtime_open(_lib.encode(user), _lib.encode(system),
                                              _lib.encode(_options["cache_dir"]), device,
                                              ctypes.byref(out)))
            _runtimes[device] = out
        return _runtimes[device]


def fallbacks():
    """The calls that fell back (fallback="torch"): a list of dicts
    {"op", "reason"}, oldest first."""
    return list(_fallbacks)


_torch_module = []  # [torch or None], filled at the first call: a failed import is not cached by Python


def _torch():
    if not _torch_module:
        try:
            import torch
        except ImportError:
            torch = None
        _torch_module.append(torch)
    return _torch_module[0]


def _stream_and_device(v):
    """The stream handle the call runs on and the device ordinal whose runtime serves it."""
    torch = _torch()
    if torch is not None and tensors._is_torch(v.keep):
        current = torch.cuda.current_device()
        if v.device != current:
            raise InputError("the tensor is on cuda:%d but the current device is cuda:%d: call "
                             "under torch.cuda.device(%d)" % (v.device, current, v.device))
        return torch.cuda.current_stream().cuda_stream, v.device
    # __cuda_array_interface__: 1 is the legacy default stream, 2 the per-thread one.
    s = v.stream
    return (0 if s in (None, 1) else s), -1


def _same(views, names):
    first = views[0]
    for v, name in zip(views, names):
        tensors.require_cuda(v, name)
        if v.dtype != first.dtype:
            raise InputError("%s is %s but %s is %s: ktune calls take one dtype"
                             % (names[0], tensors.DTYPE_NAMES[first.dtype], name,
                                tensors.DTYPE_NAMES[v.dtype]))
        if v.device != first.device:
            raise InputError("%s is on device %d, %s on device %d" % (names[0], first.device, name,
                                                                     v.device))


def _empty_like_dtype(v, shape):
    torch = _torch()
    if torch is None or not tensors._is_torch(v.keep):
        raise InputError("pass out=: without PyTorch, ktune allocates no output")
    return torch.empty(shape, dtype=v.keep.dtype, device=v.keep.device)


_gemm_descs = {}


def _gemm_desc(va, vb, vc):
    key = (va.shape, va.strides, vb.shape, vb.strides, va.dtype,
           vc.shape if vc else None, vc.strides if vc else None)
    desc = _gemm_descs.get(key)
    if desc is None:
        m, n, k, layout, lda, ldb, ldc = tensors.gemm_geometry(
            va.shape, va.strides, vb.shape, vb.strides, vc.shape if vc else None,
            vc.strides if vc else None)
        desc = _lib.GemmDesc(m, n, k, lda, ldb, ldc, va.dtype, tensors.LAYOUTS[layout], 0, 0, 1.0,
                             0.0)
        if len(_gemm_descs) > 4096:
            _gemm_descs.clear()
        _gemm_descs[key] = desc
    return desc


def _run(op, fallback, call, torch_call):
    if fallback not in ("raise", "torch"):
        raise InputError("fallback is 'raise' or 'torch', got %r" % (fallback,))
    try:
        return call()
    except Error as e:
        if fallback == "raise" or _torch() is None:
            raise
        _fallbacks.append({"op": op, "reason": str(e)})
        warnings.warn("ktune.%s fell back to PyTorch: %s" % (op, e), RuntimeWarning, stacklevel=3)
        return torch_call()


_torch_plans = {}


def _raw_stream_getter(torch):
    # The current stream's handle without building a torch.cuda.Stream object
    # (the private call Triton's launcher uses too), else the public API.
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return raw
    return lambda device: torch.cuda.current_stream(device).cuda_stream


def _matmul_torch(torch, a, b, out):
    """matmul of PyTorch tensors: the plan (descriptor, device, output shape) of
    these shapes, strides, dtypes and devices is made once by the general path,
    which checks everything; later calls only read addresses and the stream."""
    key = (a.shape, a.stride(), b.shape, b.stride(), a.dtype, b.dtype, a.get_device(),
           b.get_device(), None if out is None else (out.shape, out.stride(), out.dtype,
                                                     out.get_device()))
    plan = _torch_plans.get(key)
    if plan is None:
        result = _matmul(a, b, out)  # checks, and makes the descriptor
        va, vb = tensors.view(a), tensors.view(b)
        vc = tensors.view(result) if out is not None else None
        if len(_torch_plans) > 4096:
            _torch_plans.clear()
        _torch_plans[key] = (_gemm_desc(va, vb, vc), va.device, _raw_stream_getter(torch))
        return result
    desc, device, stream_of = plan
    if torch.cuda.current_device() != device:
        _stream_and_device(tensors.view(a))  # raises the wrong-device error
    result = out if out is not None else torch.empty((desc.m, desc.n), dtype=a.dtype,
                                                     device=a.device)
    _lib.check(_lib._lib.ktune_gemm(_runtime(device), ctypes.byref(desc), a.data_ptr(),
                                    b.data_ptr(), result.data_ptr(), None, stream_of(device)))
    return result


def _matmul(a, b, out):
    va, vb = tensors.view(a), tensors.view(b)
    _same((va, vb), ("A", "B"))
    stream, device = _stream_and_device(va)
    if out is None:
        desc = _gemm_desc(va, vb, None)  # checked before anything is allocated
        result = _empty_like_dtype(va, (desc.m, desc.n))  # dense: ldc = n, as desc says
        vc = tensors.view(result)
    else:
        result, vc = out, tensors.view(out)
        _same((va, vc), ("A", "out"))
        desc = _gemm_desc(va, vb, vc)
    _lib.check(_lib.lib().ktune_gemm(_runtime(device), ctypes.byref(desc), va.ptr, vb.ptr, vc.ptr,
                                     None, stream))
    return result


def matmul(a, b, out=None, fallback="raise"):
    """out = a @ b for 2-D device arrays of one dtype (float32, bfloat16,
    float16). The layout (nn, nt, tn, tt) and leading dimensions come from the
    strides: matmul(a, b.t()) copies nothing. Runs on the current stream
    (PyTorch's, else the array interface's); no synchronization, and once a
    shape has run on a stream, no allocation but `out` (CUDA-graph capturable).
    fallback="raise" (default) raises ktune.Error; "torch" calls torch.matmul
    instead and records it (ktune.fallbacks(), and a RuntimeWarning)."""
    if fallback == "raise":  # the hot path: no closures
        torch = _torch()
        if torch is not None and isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and \
                (out is None or isinstance(out, torch.Tensor)):
            return _matmul_torch(torch, a, b, out)
        return _matmul(a, b, out)
    return _run("matmul", fallback, lambda: _matmul(a, b, out),
                lambda: _torch().matmul(a, b, out=out))


def _rowwise(x, extra=None):
    vx = tensors.view(x)
    views, names = [vx], ["x"]
    if extra is not None:
        views.append(tensors.view(extra))
        names.append("weight")
    _same(views, names)
    stream, device = _stream_and_device(vx)
    rows, cols = tensors.rows_geometry(vx.shape, vx.strides, "x")
    return vx, views, stream, device, rows, cols


def rmsnorm(x, weight, eps=1e-6, out=None, fallback="raise"):
    """out = x / sqrt(mean(x^2) + eps) * weight over the last dimension of a
    dense row-major x; weight has x.shape[-1] elements."""

    def call():
        vx, views, stream, device, rows, cols = _rowwise(x, weight)
        vw = views[1]
        if len(vw.shape) != 1 or vw.shape[0] != cols:
            raise InputError("weight has shape %r; it needs %d elements" % (vw.shape, cols))
        tensors.rows_geometry(vw.shape, vw.strides, "weight")  # dense
        result = out if out is not None else _empty_like_dtype(vx, vx.shape)
        vy = _check_out(vx, result, vx.shape)
        desc = _lib.RowwiseDesc(rows, cols, vx.dtype, float(eps), 0, 0)
        _lib.check(_lib.lib().ktune_rmsnorm(_runtime(device), ctypes.byref(desc), vx.ptr, vw.ptr,
                                            vy.ptr, stream))
        return result

    def torch_call():
        torch = _torch()
        xf = x.float()
        y = (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * weight.float()).to(x.dtype)
        return out.copy_(y) if out is not None else y

    return _run("rmsnorm", fallback, call, torch_call)


def softmax(x, out=None, fallback="raise"):
    """Softmax over the last dimension of a dense row-major x."""

    def call():
        vx, _, stream, device, rows, cols = _rowwise(x)
        result = out if out is not None else _empty_like_dtype(vx, vx.shape)
        vy = _check_out(vx, result, vx.shape)
        desc = _lib.RowwiseDesc(rows, cols, vx.dtype, 0.0, 0, 0)
        _lib.check(_lib.lib().ktune_softmax(_runtime(device), ctypes.byref(desc), vx.ptr, vy.ptr,
                                            stream))
        return result

    def torch_call():
        y = _torch().softmax(x, dim=-1)
        return out.copy_(y) if out is not None else y

    return _run("softmax", fallback, call, torch_call)


_REDUCE_OPS = {"sum": 0, "max": 1}


def reduce(x, op="sum", dim=-1, out=None, fallback="raise"):
    """Sum or max of a dense row-major 2-D x over its last dimension (dim=-1
    or 1: one value per row) or over its rows (dim=0: one per column)."""
    if op not in _REDUCE_OPS:
        raise InputError("op is 'sum' or 'max', got %r" % (op,))
    if dim not in (-1, 0, 1):
        raise InputError("dim is -1, 1 (per row) or 0 (per column), got %r" % (dim,))

    def call():
        vx, _, stream, device, rows, cols = _rowwise(x)
        if len(vx.shape) != 2:
            raise InputError("reduce takes a 2-D x, got shape %r" % (vx.shape,))
        axis = 1 if dim == 0 else 0
        shape = (cols,) if axis == 1 else (rows,)
        result = out if out is not None else _empty_like_dtype(vx, shape)
        vy = _check_out(vx, result, shape)
        desc = _lib.RowwiseDesc(rows, cols, vx.dtype, 0.0, _REDUCE_OPS[op], axis)
        _lib.check(_lib.lib().ktune_reduce(_runtime(device), ctypes.byref(desc), vx.ptr, vy.ptr,
                                           stream))
        return result

    def torch_call():
        torch = _torch()
        d = 0 if dim == 0 else -1
        y = x.sum(dim=d) if op == "sum" else torch.amax(x, dim=d)
        return out.copy_(y) if out is not None else y

    return _run("reduce", fallback, call, torch_call)


def _check_out(vx, result, shape):
    vy = tensors.view(result)
    _same((vx, vy), ("x", "out"))
    if tuple(vy.shape) != tuple(shape):
        raise InputError("out has shape %r, expected %r" % (tuple(vy.shape), tuple(shape)))
    tensors.rows_geometry(vy.shape, vy.strides, "out")
    return vy


def explain_matmul(a, b):
    """Which configuration matmul(a, b) runs and why: {"family", "problem", "config", "how"}."""
    import json

    va, vb = tensors.view(a), tensors.view(b)
    _same((va, vb), ("A", "B"))
    _, device = _stream_and_device(va)
    desc = _gemm_desc(va, vb, None)
    out = ctypes.c_void_p()
    _lib.check(_lib.lib().ktune_explain(_runtime(device), b"gemm", ctypes.byref(desc),
                                        ctypes.byref(out)))
    return json.loads(_lib.take_string(out))
