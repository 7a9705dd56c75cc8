"""torch.library registrations (only where PyTorch is importable): ktune::matmul,
ktune::rmsnorm, ktune::softmax as custom ops, so torch.compile keeps a ktune
call in its graph as one opaque node instead of breaking the graph at it.

Under torch.compile, the fake (meta) implementations give the output's shape
and dtype for tracing; the real call runs the ktune kernel at run time, on the
current stream, with whatever strides the graph hands it (a layout ktune
cannot take raises ktune.Error as in eager). Inductor does not fuse into or
through the node, and CUDA-graph modes ("reduce-overhead") capture it."""

import torch

from . import ops


@torch.library.custom_op("ktune::matmul", mutates_args=())
def matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return ops.matmul(a, b)


@matmul.register_fake
def _(a, b):
    return a.new_empty((a.shape[0], b.shape[1]))


@torch.library.custom_op("ktune::rmsnorm", mutates_args=())
def rmsnorm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    return ops.rmsnorm(x, weight, eps)


@rmsnorm.register_fake
def _(x, weight, eps):
    return torch.empty_like(x, memory_format=torch.contiguous_format)


@torch.library.custom_op("ktune::softmax", mutates_args=())
def softmax(x: torch.Tensor) -> torch.Tensor:
    return ops.softmax(x)


@softmax.register_fake
def _(x):
    return torch.empty_like(x, memory_format=torch.contiguous_format)
