"""ktune from Python: tuning databases, lookups and the tuned kernels of
libktune_runtime on PyTorch tensors and CUDA arrays, through ktune's C ABI
(ctypes; no compiler needed). docs/python.md tells the whole of it."""

from ._lib import C_API_VERSION, library_path
from .database import Answer, Database, lookup, merge
from .errors import CallError, DatabaseError, Error, InputError, NoGpuError, NotFoundError
from .ops import configure, explain_matmul, fallbacks, matmul, reduce, rmsnorm, softmax
from .tensors import gemm_geometry
from .tune import tune

__version__ = "0.1.0"

try:
    import torch as _torch  # noqa: F401
except ImportError:
    ops_registered = False
else:
    from . import torch_ops  # registers torch.ops.ktune.matmul, .rmsnorm, .softmax

    ops_registered = True

__all__ = [
    "Answer", "C_API_VERSION", "CallError", "Database", "DatabaseError", "Error", "InputError",
    "NoGpuError", "NotFoundError", "configure", "explain_matmul", "fallbacks", "gemm_geometry",
    "library_path", "lookup", "matmul", "merge", "reduce", "rmsnorm", "softmax", "tune",
]
