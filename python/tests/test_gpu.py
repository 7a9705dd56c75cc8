"""ktune on the GPU from PyTorch: every call checked against torch's own
result. Skipped without PyTorch or a CUDA device (run on the lent machine:
docs/python.md)."""

import unittest

try:
    import torch
except ImportError:
    torch = None

import ktune

HAVE_GPU = torch is not None and torch.cuda.is_available()


def close(test, got, want, rtol):
    err = (got.float() - want.float()).norm() / max(want.float().norm().item(), 1e-30)
    test.assertLess(err.item(), rtol, "relative L2 error %.3g" % err.item())


@unittest.skipUnless(HAVE_GPU, "needs PyTorch and a CUDA device")
class MatmulAgainstTorch(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)

    def operands(self, m, n, k, layout, dtype=None):
        dtype = dtype or torch.bfloat16
        a = torch.randn(m, k, device="cuda", dtype=dtype) if layout[0] == "n" else \
            torch.randn(k, m, device="cuda", dtype=dtype).t()
        b = torch.randn(k, n, device="cuda", dtype=dtype) if layout[1] == "n" else \
            torch.randn(n, k, device="cuda", dtype=dtype).t()
        return a, b

    def test_every_layout_and_dtype(self):
        for dtype, rtol in ((torch.bfloat16, 2e-2), (torch.float16, 5e-3), (torch.float32, 1e-4)):
            for layout in ("nn", "nt", "tn", "tt"):
                for m, n, k in ((256, 512, 128), (1, 4096, 4096), (77, 1000, 333)):
                    with self.subTest(dtype=dtype, layout=layout, shape=(m, n, k)):
                        a, b = self.operands(m, n, k, layout, dtype)
                        close(self, ktune.matmul(a, b), torch.matmul(a, b), rtol)

    def test_transposed_view_copies_nothing(self):
        a, w = torch.randn(64, 256, device="cuda", dtype=torch.bfloat16), \
            torch.randn(512, 256, device="cuda", dtype=torch.bfloat16)
        bt = w.t()
        self.assertEqual(bt.data_ptr(), w.data_ptr())
        self.assertEqual(ktune.explain_matmul(a, bt)["problem"].split("layout=")[1][:2], "nt")
        close(self, ktune.matmul(a, bt), a @ bt, 2e-2)

    def test_out_and_padded_leading_dimension(self):
        a = torch.randn(128, 300, device="cuda", dtype=torch.bfloat16)[:, :256]
        b = torch.randn(256, 192, device="cuda", dtype=torch.bfloat16)
        out = torch.empty(128, 256, device="cuda", dtype=torch.bfloat16)[:, :192]
        self.assertIs(ktune.matmul(a, b, out=out), out)
        close(self, out, a @ b, 2e-2)

    def test_current_stream_and_graph_capture(self):
        a, b = self.operands(512, 512, 512, "nt")
        s = torch.cuda.Stream()
        out = torch.empty(512, 512, device="cuda", dtype=torch.bfloat16)
        with torch.cuda.stream(s):
            ktune.matmul(a, b, out=out)  # the first call on a stream may allocate its workspace
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g, stream=s):
                ktune.matmul(a, b, out=out)
        out.zero_()
        g.replay()
        torch.cuda.synchronize()
        close(self, out, a @ b, 2e-2)

    def test_errors(self):
        a = torch.randn(64, 64, device="cuda", dtype=torch.bfloat16)
        with self.assertRaisesRegex(ktune.InputError, "unsupported dtype"):
            ktune.matmul(a.double(), a.double())
        with self.assertRaisesRegex(ktune.InputError, "host memory"):
            ktune.matmul(a.cpu(), a.cpu())
        with self.assertRaisesRegex(ktune.InputError, "no contiguous inner dimension"):
            ktune.matmul(a[:, ::2], a[:32])
        # fallback="torch": the answer, and a record of why.
        with self.assertWarns(RuntimeWarning):
            y = ktune.matmul(a.double(), a.double(), fallback="torch")
        close(self, y, a.double() @ a.double(), 1e-12)
        self.assertIn("unsupported dtype", ktune.fallbacks()[-1]["reason"])

    def test_cuda_array_interface_and_dlpack_objects(self):
        a, b = self.operands(128, 256, 64, "nn")
        want = a @ b

        class Cai:
            def __init__(self, t):
                self.__cuda_array_interface__ = t.__cuda_array_interface__

        # bf16 has no typestr: the array-interface path is checked in fp16.
        a16, b16 = a.half(), b.half()
        out = torch.empty(128, 256, device="cuda", dtype=torch.float16)
        ktune.matmul(Cai(a16), Cai(b16), out=Cai(out))
        torch.cuda.synchronize()
        close(self, out, a16 @ b16, 5e-3)

        class Dl:
            def __init__(self, t):
                self.t = t

            def __dlpack__(self, stream=None):
                return self.t.__dlpack__(stream=stream)

            def __dlpack_device__(self):
                return self.t.__dlpack_device__()

        out = torch.empty(128, 256, device="cuda", dtype=torch.bfloat16)
        ktune.matmul(Dl(a), Dl(b), out=Dl(out))
        torch.cuda.synchronize()
        close(self, out, want, 2e-2)


@unittest.skipUnless(HAVE_GPU, "needs PyTorch and a CUDA device")
class RowwiseAgainstTorch(unittest.TestCase):
    def test_rmsnorm_softmax_reduce(self):
        torch.manual_seed(0)
        for dtype, rtol in ((torch.bfloat16, 1e-2), (torch.float16, 2e-3), (torch.float32, 1e-5)):
            for rows, cols in ((1, 4096), (333, 1000), (4096, 8192)):
                x = torch.randn(rows, cols, device="cuda", dtype=dtype)
                w = torch.randn(cols, device="cuda", dtype=dtype)
                with self.subTest(dtype=dtype, shape=(rows, cols)):
                    xf = x.float()
                    want = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6) * w.float()
                    close(self, ktune.rmsnorm(x, w), want, rtol)
                    close(self, ktune.softmax(x), torch.softmax(xf, -1), rtol)
                    close(self, ktune.reduce(x, "sum"), xf.sum(-1), rtol)
                    close(self, ktune.reduce(x, "max", dim=0), xf.amax(0), rtol)


@unittest.skipUnless(HAVE_GPU, "needs PyTorch and a CUDA device")
class TorchCompile(unittest.TestCase):
    def test_custom_op_stays_in_the_graph(self):
        self.assertTrue(ktune.ops_registered)
        a = torch.randn(256, 128, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(128, 64, device="cuda", dtype=torch.bfloat16)

        def f(a, b):
            return torch.ops.ktune.matmul(a, b).relu()

        compiled = torch.compile(f, fullgraph=True)  # fullgraph: a graph break would raise
        close(self, compiled(a, b), (a @ b).relu(), 2e-2)
        torch.library.opcheck(torch.ops.ktune.matmul.default, (a, b))


if __name__ == "__main__":
    unittest.main()
