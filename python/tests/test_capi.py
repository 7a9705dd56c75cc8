"""The C ABI's own contract, called raw through ctypes: statuses, the
thread's last error, null arguments, no GPU (no device needed)."""

import ctypes
import threading
import unittest

from ktune import _lib
from test_database import SHIPPED


class CApi(unittest.TestCase):
    def setUp(self):
        self.lib = _lib.lib()

    def last_error(self):
        return self.lib.ktune_last_error().decode()

    def test_null_arguments_are_invalid_arguments(self):
        out = ctypes.c_void_p()
        self.assertEqual(self.lib.ktune_db_query(None, None, None, 1, ctypes.byref(out)), 1)
        self.assertIn("database path is empty", self.last_error())
        desc = _lib.GemmDesc(64, 64, 64, 0, 0, 0, 2, 1, 0, 0, 1.0, 0.0)
        self.assertEqual(self.lib.ktune_gemm(None, ctypes.byref(desc), None, None, None, None,
                                             None), 1)
        self.assertIn("runtime is null", self.last_error())
        family = _lib.RowwiseFamilyDesc(b"rmsnorm", 64, 4096, 2, 1, (ctypes.c_double * 4)(1e-5))
        self.assertEqual(self.lib.ktune_rowwise(None, ctypes.byref(family), None, None, None,
                                                None), 1)
        self.assertIn("runtime is null", self.last_error())
        self.assertEqual(self.lib.ktune_explain_rowwise(None, ctypes.byref(family),
                                                        ctypes.byref(out)), 1)
        self.assertIn("the runtime is null", self.last_error())
        paths = (ctypes.c_char_p * 1)(b"x.db")
        self.assertEqual(self.lib.ktune_lookup(paths, 1, b"gemm", b"m=1,n=1,k=1", None,
                                               ctypes.byref(out)), 1)
        self.assertIn("device is empty", self.last_error())
        self.assertEqual(self.lib.ktune_db_merge(None, 0, b"out.db", None, None, None), 1)

    def test_success_clears_the_last_error(self):
        self.lib.ktune_db_query(None, None, None, 1, None)
        self.assertNotEqual(self.last_error(), "")
        out = ctypes.c_void_p()
        self.assertEqual(self.lib.ktune_db_query(SHIPPED.encode(), b"gemm", b"sm_90", 1,
                                                 ctypes.byref(out)), 0)
        self.assertTrue(_lib.take_string(out).startswith("["))
        self.assertEqual(self.last_error(), "")

    def test_last_error_is_per_thread(self):
        self.lib.ktune_db_query(None, None, None, 1, None)
        seen = []
        t = threading.Thread(target=lambda: seen.append(self.last_error()))
        t.start()
        t.join()
        self.assertEqual(seen, [""])
        self.assertNotEqual(self.last_error(), "")

    def test_runtime_open_reports_databases_then_the_device(self):
        rt = ctypes.c_void_p()
        status = self.lib.ktune_runtime_open(None, b"/nonexistent/system.db", None, -1,
                                             ctypes.byref(rt))
        self.assertEqual(status, 2, self.last_error())
        self.assertIn("does not exist", self.last_error())
        status = self.lib.ktune_runtime_open(None, None, b"-", -1, ctypes.byref(rt))
        if status == 0:
            self.lib.ktune_runtime_close(rt)
            self.skipTest("a GPU is present")
        self.assertEqual(status, 3, self.last_error())
        self.assertIsNone(rt.value)

    def test_free_accepts_null(self):
        self.lib.ktune_free(None)


if __name__ == "__main__":
    unittest.main()
