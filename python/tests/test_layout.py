"""Layouts and leading dimensions read from strides, and the arrays ktune takes (no GPU)."""

import unittest

import numpy as np

import ktune
from ktune import tensors
from stand_ins import FakeCudaArray, from_numpy


def geometry(a, b, c=None):
    va, vb = tensors.view(a), tensors.view(b)
    vc = tensors.view(c) if c is not None else None
    return ktune.gemm_geometry(va.shape, va.strides, vb.shape, vb.strides,
                               vc.shape if vc else None, vc.strides if vc else None)


class LayoutFromStrides(unittest.TestCase):
    def test_all_four_layouts_from_numpy_views(self):
        m, n, k = 48, 40, 24
        a_n = np.empty((m, k), np.float16)   # M x K row-major
        a_t = np.empty((k, m), np.float16).T  # stored K x M
        b_n = np.empty((k, n), np.float16)   # K x N row-major
        b_t = np.empty((n, k), np.float16).T  # stored N x K: matmul(a, b.t())
        cases = {("n", "n"): (a_n, b_n, k, n), ("n", "t"): (a_n, b_t, k, k),
                 ("t", "n"): (a_t, b_n, m, n), ("t", "t"): (a_t, b_t, m, k)}
        for (la, lb), (a, b, lda, ldb) in cases.items():
            with self.subTest(layout=la + lb):
                self.assertEqual(geometry(from_numpy(a), from_numpy(b)),
                                 (m, n, k, la + lb, lda, ldb, n))

    def test_leading_dimensions_of_padded_and_sliced_views(self):
        big = np.empty((64, 100), np.float16)
        a = big[:, :30]  # 64 x 30 with row pitch 100
        b = np.empty((50, 30), np.float16)[:, :].T  # 30 x 50, 't' with ld 30
        self.assertEqual(geometry(from_numpy(a), from_numpy(b)), (64, 50, 30, "nt", 100, 30, 50))
        out = np.empty((64, 80), np.float16)[:, :50]
        self.assertEqual(geometry(from_numpy(a), from_numpy(b), from_numpy(out))[6], 80)

    def test_size_one_dimensions_take_any_stride(self):
        # M = 1 (a decode step): the row stride of a 1 x K view means nothing.
        a = FakeCudaArray((1, 64), (7, 1))
        b = FakeCudaArray((64, 32))
        self.assertEqual(geometry(a, b), (1, 32, 64, "nn", 64, 32, 32))
        # N = 1: a K x 1 column with unit row stride is row-major with leading dimension 1.
        col = FakeCudaArray((64, 1), (1, 5))
        self.assertEqual(geometry(FakeCudaArray((8, 64)), col), (8, 1, 64, "nn", 64, 1, 1))

    def test_no_contiguous_inner_dimension_is_refused(self):
        a = from_numpy(np.empty((32, 64), np.float16)[:, ::2])  # every other column
        with self.assertRaisesRegex(ktune.InputError, "no contiguous inner dimension"):
            geometry(a, FakeCudaArray((32, 16)))

    def test_broadcast_and_negative_strides_are_refused(self):
        with self.assertRaises(ktune.InputError):
            geometry(FakeCudaArray((16, 16), (0, 1)), FakeCudaArray((16, 16)))
        with self.assertRaisesRegex(ktune.InputError, "negative stride"):
            geometry(from_numpy(np.empty((16, 16), np.float16)[::-1]), FakeCudaArray((16, 16)))

    def test_shape_errors(self):
        with self.assertRaisesRegex(ktune.InputError, "inner dimensions differ"):
            geometry(FakeCudaArray((8, 16)), FakeCudaArray((17, 8)))
        with self.assertRaisesRegex(ktune.InputError, "2-D"):
            geometry(FakeCudaArray((2, 8, 16)), FakeCudaArray((16, 8)))
        with self.assertRaisesRegex(ktune.InputError, "out has shape"):
            geometry(FakeCudaArray((8, 16)), FakeCudaArray((16, 8)), FakeCudaArray((8, 9)))
        with self.assertRaisesRegex(ktune.InputError, "row-major"):
            geometry(FakeCudaArray((8, 16)), FakeCudaArray((16, 8)), FakeCudaArray((8, 8)).T)

    def test_errors_are_value_errors(self):
        self.assertTrue(issubclass(ktune.InputError, ktune.Error))
        self.assertTrue(issubclass(ktune.InputError, ValueError))


class ArraysTaken(unittest.TestCase):
    def test_rows_of_dense_arrays(self):
        v = tensors.view(FakeCudaArray((4, 6, 32)))
        self.assertEqual(tensors.rows_geometry(v.shape, v.strides, "x"), (24, 32))
        v = tensors.view(from_numpy(np.empty((8, 64), np.float32)[:, :32]))
        with self.assertRaisesRegex(ktune.InputError, "not dense row-major"):
            tensors.rows_geometry(v.shape, v.strides, "x")

    def test_unsupported_dtype(self):
        with self.assertRaisesRegex(ktune.InputError, "unsupported dtype"):
            tensors.view(FakeCudaArray((8, 8), dtype="fp64"))

    def test_host_arrays_are_refused_by_calls(self):
        # numpy speaks __dlpack__ with a CPU device: described, then refused as host memory.
        a = np.zeros((8, 8), np.float16)
        v = tensors.view(a)
        self.assertFalse(v.cuda)
        self.assertEqual((v.shape, v.strides), ((8, 8), (8, 1)))
        with self.assertRaisesRegex(ktune.InputError, "host memory"):
            ktune.matmul(a, a, out=np.zeros((8, 8), np.float16))

    def test_not_an_array(self):
        with self.assertRaisesRegex(ktune.InputError, "is not an array"):
            ktune.matmul([[1.0]], [[1.0]])

    def test_mixed_dtypes_are_refused(self):
        with self.assertRaisesRegex(ktune.InputError, "one dtype"):
            ktune.matmul(FakeCudaArray((8, 8)), FakeCudaArray((8, 8), dtype="fp32"),
                         out=FakeCudaArray((8, 8)))

    def test_without_torch_an_output_is_required(self):
        try:
            import torch  # noqa: F401
            self.skipTest("PyTorch is here: it allocates the output")
        except ImportError:
            pass
        with self.assertRaisesRegex(ktune.InputError, "pass out="):
            ktune.matmul(FakeCudaArray((8, 8)), FakeCudaArray((8, 8)))

    def test_no_gpu_is_an_error_not_a_crash(self):
        # Valid device-array descriptions reach the runtime, which finds no device here.
        try:
            ktune.matmul(FakeCudaArray((64, 64)), FakeCudaArray((64, 64)).T,
                         out=FakeCudaArray((64, 64)))
        except ktune.NoGpuError as e:
            self.assertIn("no CUDA device", str(e))
            self.assertEqual(e.status, 3)
        else:
            self.skipTest("a GPU is present: tests/test_gpu.py covers the call")

    def test_rowwise_arguments_are_checked(self):
        x = FakeCudaArray((4, 64))
        with self.assertRaisesRegex(ktune.InputError, "needs 64 elements"):
            ktune.rmsnorm(x, FakeCudaArray((32,)), out=FakeCudaArray((4, 64)))
        with self.assertRaisesRegex(ktune.InputError, "weight .* not dense"):
            ktune.rmsnorm(x, FakeCudaArray((64,), (2,)), out=FakeCudaArray((4, 64)))
        with self.assertRaisesRegex(ktune.InputError, "out has shape"):
            ktune.softmax(x, out=FakeCudaArray((4, 32)))
        with self.assertRaisesRegex(ktune.InputError, "op is"):
            ktune.reduce(x, "mean")
        with self.assertRaisesRegex(ktune.InputError, "dim is"):
            ktune.reduce(x, "sum", dim=2)
        with self.assertRaisesRegex(ktune.InputError, "out has shape"):
            ktune.reduce(x, "sum", dim=0, out=FakeCudaArray((4,)))  # one per column: 64

    def test_fallback_choice_is_checked(self):
        with self.assertRaisesRegex(ktune.InputError, "fallback is"):
            ktune.matmul(FakeCudaArray((8, 8)), FakeCudaArray((8, 8)), fallback="silent")


if __name__ == "__main__":
    unittest.main()
