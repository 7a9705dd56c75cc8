"""Databases, lookups and tuning through the C ABI, each checked against the
CLI, with no GPU: a recorded space is replayed by `ktune tune`, and one
problem's measurements of the shipped database make a small one."""

import json
import os
import shutil
import subprocess
import tempfile
import unittest

import ktune
from ktune.tune import ktune_binary

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SHIPPED = os.path.join(ROOT, "tuning_db", "ktune.db")
RECORDING = os.path.join(ROOT, "tuning_db", "recorded", "gemm_bf16_nt_128x4096x4096_h200.json")
RECORDED_PROBLEM = {"m": 128, "n": 4096, "k": 4096, "dtype": "bf16", "layout": "nt"}
PROBLEM = RECORDED_PROBLEM
PROBLEM_KEY = "m=128,n=4096,k=4096,dtype=bf16,layout=nt"


def cli(*args):
    done = subprocess.run([ktune_binary(), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
    return done.returncode, done.stdout, done.stderr


class Tuning(unittest.TestCase):
    def test_tune_drives_the_cli_engine(self):
        with tempfile.TemporaryDirectory() as d:
            db = ktune.tune("gemm", RECORDED_PROBLEM, db=os.path.join(d, "t.db"), budget=6,
                            replay=RECORDING, quiet=True)
            self.assertEqual(db.path, os.path.join(d, "t.db"))
            # Six configurations evaluated, each stored (replayed: under the recording's
            # template version, which the current templates have moved past).
            self.assertEqual(db.export(os.path.join(d, "t.jsonl")), 6)

    def test_cli_bad_input_reaches_python_as_input_error(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(ktune.InputError):
                ktune.tune("gemm", "m=1,n=1", db=os.path.join(d, "t.db"), replay=RECORDING,
                           quiet=True)
            with self.assertRaises(ktune.InputError):
                ktune.tune("gemm", PROBLEM, db=os.path.join(d, "t.db"), budget=0)


class SmallDatabase(unittest.TestCase):
    """One problem's H200 measurements, exported from the shipped database and imported into a new one."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="ktune-py-")
        everything = os.path.join(cls.dir, "shipped.jsonl")
        cls.shipped_count = ktune.Database(SHIPPED).export(everything)
        cls.small = os.path.join(cls.dir, "small.jsonl")
        cls.kept = 0
        with open(everything) as f, open(cls.small, "w") as out:
            for line in f:
                row = json.loads(line)
                p = row["problem"]
                key = tuple(p.get(k) for k in ("m", "n", "k", "layout", "lda"))
                if key == (128, 4096, 4096, "nt", 4096) and row["device"]["name"] == "NVIDIA H200":
                    out.write(line)
                    cls.kept += 1
        cls.db_path = os.path.join(cls.dir, "small.db")
        cls.db = ktune.Database(cls.db_path)
        cls.imported = cls.db.import_(cls.small)
        # A system database that does not exist: answers come from the small one only.
        cls.none = os.path.join(cls.dir, "absent-system.db")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)

    def test_import_read_everything(self):
        self.assertGreater(self.kept, 3)
        self.assertEqual(self.imported, {"read": self.kept, "added": self.kept})
        rows = self.db.query(family="gemm")
        self.assertEqual([r["problem_key"] for r in rows],
                         ["alpha=1.0,beta=0.0,dtype=bf16,epilogue=none,k=4096,layout=nt,lda=4096,"
                          "ldb=4096,ldc=4096,m=128,n=4096,out=same"])
        self.assertGreater(rows[0]["median_s"], 0)

    def test_query_matches_the_cli(self):
        code, out, err = cli("db", "query", "--db", self.db_path, "--json", "--top", "3")
        self.assertEqual(code, 0, err)
        cli_rows = json.loads(out)
        rows = self.db.query(top=3)
        self.assertEqual([r["config_key"] for r in rows], [r["config_key"] for r in cli_rows])
        self.assertEqual([r["rank"] for r in rows], [1, 2, 3])
        # Records are plain Python values, one dict per row (pandas.DataFrame(rows) reads them).
        for r in rows:
            self.assertIsInstance(r, dict)
            self.assertIsInstance(r["config"], dict)

    def test_lookup_config_is_what_the_cli_prints(self):
        for device in ("sm_90", "h200", "NVIDIA H200"):
            with self.subTest(device=device):
                answer = ktune.lookup("gemm", PROBLEM, device=device, db=self.db,
                                      system_db=self.none)
                code, out, err = cli("lookup", "--kernel", "gemm", "--problem", PROBLEM_KEY,
                                     "--device", device, "--db", self.db_path, "--system-db",
                                     self.none)
                self.assertEqual(code, 0, err)
                self.assertEqual(out.split()[0], answer.config)
                self.assertEqual(answer.source, "exact")
                self.assertEqual(answer.record["database"], self.db_path)
                self.assertGreater(answer.measured["time"]["median_s"], 0)

    def test_lookup_of_an_untuned_shape(self):
        answer = ktune.lookup("gemm", "m=100,n=4096,k=4096,dtype=bf16,layout=nt", device="sm_90",
                              db=self.db, system_db=self.none)
        code, out, err = cli("lookup", "--kernel", "gemm", "--problem",
                             "m=100,n=4096,k=4096,dtype=bf16,layout=nt", "--device", "sm_90",
                             "--db", self.db_path, "--system-db", self.none)
        self.assertEqual(code, 0, err)
        self.assertEqual(out.split()[0], answer.config)
        self.assertNotEqual(answer.source, "exact")

    def test_export_import_merge_round_trip(self):
        exported = os.path.join(self.dir, "all.jsonl")
        n = self.db.export(exported)
        self.assertEqual(n, self.kept)
        with open(exported) as f:
            self.assertEqual(sum(1 for _ in f), n)
        copy = ktune.Database(os.path.join(self.dir, "copy.db"))
        self.assertEqual(copy.import_(exported), {"read": n, "added": n})
        self.assertEqual(getattr(copy, "import")(exported), {"read": n, "added": 0})
        merged = os.path.join(self.dir, "merged.db")
        summary = ktune.merge([self.db, copy], merged)
        self.assertEqual(summary, {"read": 2 * n, "added": n, "total": n})
        self.assertEqual(ktune.Database(merged).query(), self.db.query())
        self.assertEqual(copy.merge(self.db), {"read": n, "added": 0, "total": n})

    def test_malformed_import_changes_nothing(self):
        bad = os.path.join(self.dir, "bad.jsonl")
        with open(bad, "w") as f:
            f.write('{"family": "gemm"}\n')
        before = self.db.query(top=5)
        with self.assertRaisesRegex(ktune.InputError, "line 1.*nothing imported"):
            self.db.import_(bad)
        self.assertEqual(self.db.query(top=5), before)
        with self.assertRaisesRegex(ktune.InputError, "jsonl"):
            self.db.export(os.path.join(self.dir, "x.unknown"))

    def test_query_takes_a_short_gpu_name(self):
        full = self.db.query(device="NVIDIA H200")
        self.assertTrue(full)
        self.assertEqual(self.db.query(device="h200"), full)
        self.assertEqual(self.db.query(device="SM_90"), full)
        with self.assertRaisesRegex(ktune.InputError, "unknown GPU 'h2x'"):
            self.db.query(device="h2x")

    def test_bad_input_raises_value_errors(self):
        with self.assertRaises(ValueError):
            ktune.lookup("gemm", "m=abc", device="sm_90", db=self.db)
        with self.assertRaisesRegex(ktune.InputError, "gemm"):
            ktune.lookup("no_such_family", PROBLEM, device="sm_90", db=self.db)
        with self.assertRaisesRegex(ktune.InputError, "device="):
            ktune.lookup("gemm", PROBLEM, device="", db=self.db)
        with self.assertRaises(ktune.InputError):
            self.db.query(top=0)


class MissingAndForeignDatabases(unittest.TestCase):
    def test_missing_database(self):
        with self.assertRaises(ktune.DatabaseError):
            ktune.Database("/nonexistent/ktune.db").query()
        with self.assertRaisesRegex(ktune.DatabaseError, "no tuning database"):
            ktune.lookup("gemm", PROBLEM, device="sm_90", db="/nonexistent/a.db",
                         system_db="/nonexistent/b.db")

    def test_foreign_file(self):
        with tempfile.NamedTemporaryFile(suffix=".db") as f:
            f.write(b"not a database at all" * 100)
            f.flush()
            with self.assertRaises(ktune.DatabaseError):
                ktune.Database(f.name).query()

    def test_shipped_database_answers_the_readme_problem(self):
        shipped = SHIPPED
        problem = {"m": 4096, "n": 4096, "k": 4096, "dtype": "bf16", "layout": "nt"}
        answer = ktune.lookup("gemm", problem, device="sm_90", db=ktune.Database(shipped),
                              system_db=shipped)
        code, out, err = cli("lookup", "--kernel", "gemm", "--problem",
                             "m=4096,n=4096,k=4096,dtype=bf16,layout=nt", "--device", "sm_90",
                             "--db", shipped, "--system-db", shipped)
        self.assertEqual(code, 0, err)
        self.assertEqual(out.split()[0], answer.config)

    def test_api_version(self):
        self.assertEqual(ktune._lib.lib().ktune_c_api_version(), ktune.C_API_VERSION)


if __name__ == "__main__":
    unittest.main()
