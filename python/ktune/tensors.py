"""Reading arrays without copying them: PyTorch tensors, objects with
__cuda_array_interface__ or __dlpack__ (and, for describing only, host arrays
with __array_interface__), and the GEMM layout and leading dimensions their
strides imply."""

import ctypes

from .errors import InputError

# The C ABI's ktune_dtype values.
FP32, TF32, BF16, FP16 = 0, 1, 2, 3
DTYPE_NAMES = {FP32: "fp32", TF32: "tf32", BF16: "bf16", FP16: "fp16"}
_ITEMSIZE = {FP32: 4, BF16: 2, FP16: 2}
# typestr (array interfaces) -> dtype; bf16 has no typestr of its own: "<V2" is
# how producers spell it, and it is read as bf16 only where the producer says so.
_TYPESTR = {"<f4": FP32, "<f2": FP16}
# DLPack (code, bits): 2 = float, 4 = bfloat.
_DLPACK = {(2, 32): FP32, (2, 16): FP16, (4, 16): BF16}
LAYOUTS = {"nn": 0, "nt": 1, "tn": 2, "tt": 3}


class View:
    """What a call needs of an array: its address, shape, strides in
    elements, ktune dtype, whether it is on a CUDA device (and which), and the
    stream its producer uses (None: no preference). `keep` holds what must
    stay alive while the address is used (a DLPack capsule)."""

    __slots__ = ("ptr", "shape", "strides", "dtype", "cuda", "device", "stream", "keep")

    def __init__(self, ptr, shape, strides, dtype, cuda, device=0, stream=None, keep=None):
        self.ptr, self.shape, self.strides, self.dtype = ptr, tuple(shape), tuple(strides), dtype
        self.cuda, self.device, self.stream, self.keep = cuda, device, stream, keep


_torch_dtypes = {}


def _torch_dtype(t):
    if not _torch_dtypes:
        import torch

        _torch_dtypes.update({torch.float32: FP32, torch.bfloat16: BF16, torch.float16: FP16})
    d = _torch_dtypes.get(t.dtype)
    if d is None:
        raise InputError("unsupported dtype %s (ktune runs float32, bfloat16, float16)" % t.dtype)
    return d


def _is_torch(x):
    return type(x).__module__.startswith("torch") and hasattr(x, "data_ptr")


def _from_interface(x, iface, cuda):
    typestr = iface["typestr"]
    dtype = _TYPESTR.get(typestr)
    if dtype is None:
        raise InputError("unsupported dtype %r (ktune runs float32, bfloat16, float16)" % typestr)
    shape = tuple(iface["shape"])
    item = _ITEMSIZE[dtype]
    strides = iface.get("strides")
    if strides is None:  # C-contiguous
        strides, acc = [], 1
        for s in reversed(shape):
            strides.insert(0, acc)
            acc *= s
    else:
        if any(s % item for s in strides):
            raise InputError("strides %r are not whole elements of %d bytes" % (tuple(strides), item))
        strides = [s // item for s in strides]
    ptr = iface["data"][0] or 0
    stream = iface.get("stream") if cuda else None
    return View(ptr, shape, strides, dtype, cuda, 0, stream, keep=x)


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_DL_CUDA = 2
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _from_dlpack(x, stream):
    # The capsule is kept (View.keep) and never consumed: its destructor
    # releases the producer's tensor when the view goes.
    capsule = x.__dlpack__(stream=stream) if stream is not None else x.__dlpack__()
    t = _DLTensor.from_address(_capsule_pointer(capsule, b"dltensor"))
    dtype = _DLPACK.get((t.dtype.code, t.dtype.bits)) if t.dtype.lanes == 1 else None
    if dtype is None:
        raise InputError("unsupported DLPack dtype (code %d, %d bits, %d lanes)"
                         % (t.dtype.code, t.dtype.bits, t.dtype.lanes))
    shape = tuple(t.shape[i] for i in range(t.ndim))
    if t.strides:
        strides = tuple(t.strides[i] for i in range(t.ndim))
    else:
        strides, acc = [], 1
        for s in reversed(shape):
            strides.insert(0, acc)
            acc *= s
    ptr = (t.data or 0) + t.byte_offset
    cuda = t.device.device_type == _DL_CUDA
    return View(ptr, shape, strides, dtype, cuda, t.device.device_id, None, keep=capsule)


def view(x, stream=None):
    """The View of `x`. stream: the stream the call will run on (passed to a
    __dlpack__ producer so it orders its work before ours)."""
    if isinstance(x, View):
        return x
    if _is_torch(x):
        return View(x.data_ptr(), x.shape, x.stride(), _torch_dtype(x), x.is_cuda,
                    x.device.index if x.is_cuda else 0, None, keep=x)
    iface = getattr(x, "__cuda_array_interface__", None)
    if iface is not None:
        return _from_interface(x, iface, True)
    if hasattr(x, "__dlpack__"):
        return _from_dlpack(x, stream)
    iface = getattr(x, "__array_interface__", None)
    if iface is not None:
        return _from_interface(x, iface, False)
    raise InputError("%s is not an array: ktune takes PyTorch tensors and objects with "
                     "__cuda_array_interface__ or __dlpack__" % type(x).__name__)


def require_cuda(v, what):
    if not v.cuda:
        raise InputError("%s is in host memory: ktune calls take CUDA device arrays" % what)


def _operand(shape, strides, what):
    """('n' or 't', leading dimension) of a 2-D operand stored row-major
    (rows x cols) or transposed. A dimension of size 1 has no meaningful stride."""
    rows, cols = shape
    s0, s1 = strides
    if min(s0, s1) < 0:
        raise InputError("%s has a negative stride %r" % (what, (s0, s1)))
    if (s1 == 1 or cols == 1) and (rows == 1 or s0 >= max(cols, 1)):
        return "n", (s0 if rows > 1 else cols)
    if (s0 == 1 or rows == 1) and (cols == 1 or s1 >= max(rows, 1)):
        return "t", (s1 if cols > 1 else rows)
    raise InputError("%s (shape %r, strides %r in elements) has no contiguous inner dimension: "
                     "pass it or its transpose with unit stride (x.contiguous())"
                     % (what, (rows, cols), (s0, s1)))


def gemm_geometry(a_shape, a_strides, b_shape, b_strides, c_shape=None, c_strides=None):
    """For C = A @ B with A (M x K) and B (K x N): (m, n, k, layout, lda, ldb,
    ldc), the layout ("nn", "nt", "tn", "tt") and leading dimensions read off
    the strides (in elements), so a transposed view is passed as it is.
    C, when given, must be M x N with a unit inner stride."""
    if len(a_shape) != 2 or len(b_shape) != 2:
        raise InputError("matmul takes 2-D operands, got shapes %r and %r"
                         % (tuple(a_shape), tuple(b_shape)))
    m, k = a_shape
    k2, n = b_shape
    if k != k2:
        raise InputError("inner dimensions differ: A is %dx%d, B is %dx%d" % (m, k, k2, n))
    if min(m, n, k) < 1:
        raise InputError("empty operand: m=%d, n=%d, k=%d" % (m, n, k))
    la, lda = _operand(a_shape, a_strides, "A")
    lb, ldb = _operand(b_shape, b_strides, "B")
    ldc = n
    if c_shape is not None:
        if tuple(c_shape) != (m, n):
            raise InputError("out has shape %r, the product is %dx%d" % (tuple(c_shape), m, n))
        lc, ldc = _operand(c_shape, c_strides, "out")
        if lc != "n":
            raise InputError("out must be row-major (unit stride along its last dimension)")
    return m, n, k, la + lb, lda, ldb, ldc


def rows_geometry(shape, strides, what):
    """(rows, cols) of a dense row-major array: every leading dimension folds into rows."""
    if len(shape) < 1:
        raise InputError("%s is a scalar" % what)
    expect = 1
    for size, stride in zip(reversed(shape), reversed(strides)):
        if size != 1 and stride != expect:
            raise InputError("%s (shape %r, strides %r in elements) is not dense row-major: "
                             "pass x.contiguous()" % (what, tuple(shape), tuple(strides)))
        expect *= size
    cols = shape[-1]
    rows = 1
    for s in shape[:-1]:
        rows *= s
    if rows < 1 or cols < 1:
        raise InputError("%s is empty (shape %r)" % (what, tuple(shape)))
    return rows, cols
