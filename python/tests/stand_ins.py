"""Device-array stand-ins for tests without a GPU: an object with
__cuda_array_interface__ (an address that is never dereferenced) and a
helper that builds one from numpy's strides."""

_TYPESTR = {"fp32": "<f4", "fp16": "<f2", "fp64": "<f8"}
_ITEMSIZE = {"fp32": 4, "fp16": 2, "fp64": 8}


class FakeCudaArray:
    """Shape and strides (in elements; None: C-contiguous) of a device array at a made-up address."""

    def __init__(self, shape, strides=None, dtype="fp16", ptr=0x7F0000000000, stream=None):
        item = _ITEMSIZE[dtype]
        self.__cuda_array_interface__ = {
            "shape": tuple(shape),
            "typestr": _TYPESTR[dtype],
            "data": (ptr, False),
            "strides": None if strides is None else tuple(s * item for s in strides),
            "version": 3,
            "stream": stream,
        }

    @property
    def T(self):
        i = self.__cuda_array_interface__
        item = int(i["typestr"][2:])
        shape = i["shape"]
        strides = i["strides"]
        if strides is None:
            strides = (shape[1] * item, item)
        dtype = {v: k for k, v in _TYPESTR.items()}[i["typestr"]]
        return FakeCudaArray(shape[::-1], [s // item for s in strides[::-1]], dtype,
                             i["data"][0], i["stream"])


def from_numpy(a):
    """A FakeCudaArray with numpy array `a`'s shape and strides (numpy stands in for the device tensor)."""
    dtype = {"float16": "fp16", "float32": "fp32", "float64": "fp64"}[a.dtype.name]
    return FakeCudaArray(a.shape, [s // a.itemsize for s in a.strides], dtype)
