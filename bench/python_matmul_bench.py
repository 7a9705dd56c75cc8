#!/usr/bin/env python3
"""ktune.matmul against torch.matmul (in turns, same tensors, one process) and
against a Triton matmul autotuned the way Triton's tutorial does it, on the LLM
shape set of bench/hopper-llm-sweep.json, shapes nobody tuned (M = 1..64, odd
and misaligned sizes) and all four layouts; then the per-call overhead at
128x128x128. Every output is checked against torch's. Rows are printed (and
flushed) as they are measured, as tab-separated values; the run stops adding
shapes before --seconds (default 220) so it ends within 4 minutes, and names
the shapes it left out. A shape's first call compiles its kernel (NVRTC) unless
the cubin cache has it: a second run measures more shapes in the same time.

  PYTHONPATH=python KTUNE_LIBRARY=build/lib/libktune_c.so python3 bench/python_matmul_bench.py
"""

import argparse
import json
import math
import os
import statistics
import sys
import time

import torch

import ktune

HERE = os.path.dirname(os.path.abspath(__file__))
START = time.perf_counter()


def row(*cells):
    print("\t".join(str(c) for c in cells), flush=True)


def llm_shapes():
    with open(os.path.join(HERE, "hopper-llm-sweep.json")) as f:
        sweep = json.load(f)
    shapes = []
    for run in sweep["runs"]:
        for p in run["problems"]:
            kv = dict(item.split("=") for item in p.split(","))
            if kv.get("dtype") == "bf16" and "lda" not in kv:  # padded rows: not a tensor shape
                shapes.append((int(kv["m"]), int(kv["n"]), int(kv["k"]), kv.get("layout", "nt")))
    return list(dict.fromkeys(shapes))


# Shapes no sweep measured: decode-sized M, odd sizes, sizes that break 16-byte alignment.
UNTUNED = [(1, 4096, 4096), (7, 4096, 4096), (16, 11008, 4096), (33, 4096, 11008),
           (64, 14336, 4096), (1000, 1000, 1000), (777, 3001, 513), (4095, 4097, 4093),
           (2048, 4096, 4100)]


def operands(m, n, k, layout, dtype=torch.bfloat16):
    a = torch.randn(m, k, device="cuda", dtype=dtype) if layout[0] == "n" else \
        torch.randn(k, m, device="cuda", dtype=dtype).t()
    b = torch.randn(k, n, device="cuda", dtype=dtype) if layout[1] == "n" else \
        torch.randn(n, k, device="cuda", dtype=dtype).t()
    return a, b


def rel_err(got, want):
    return ((got.float() - want.float()).norm() / want.float().norm().clamp_min(1e-30)).item()


def time_ms(fn, iters):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iters):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / iters


def in_turns(fns, turns=7):
    """Median ms of each function, timed in alternation over `turns` rounds."""
    iters = []
    for fn in fns:  # warm-up, and enough iterations for ~2 ms a round
        fn()
        torch.cuda.synchronize()
        t = time_ms(fn, 3)
        iters.append(max(3, min(200, int(2.0 / max(t, 1e-3)))))
    samples = [[] for _ in fns]
    for _ in range(turns):
        for i, fn in enumerate(fns):
            samples[i].append(time_ms(fn, iters[i]))
    return [statistics.median(s) for s in samples]


def triton_matmul_factory():
    """A Triton matmul in the tutorial's style (grouped tile order, tl.dot, an
    autotune list over tile sizes, stages and warps, keyed by M, N, K), written
    from that description. Returns (matmul, None) or (None, reason)."""
    try:
        import triton
        import triton.language as tl
    except ImportError as e:
        return None, "no triton (%s)" % e

    def cfg(bm, bn, bk, g, stages, warps):
        return triton.Config({"BM": bm, "BN": bn, "BK": bk, "GROUP": g}, num_stages=stages,
                             num_warps=warps)

    configs = [cfg(128, 256, 64, 8, 3, 8), cfg(64, 256, 32, 8, 4, 4), cfg(128, 128, 32, 8, 4, 4),
               cfg(128, 64, 32, 8, 4, 4), cfg(64, 128, 32, 8, 4, 4), cfg(128, 32, 32, 8, 4, 4),
               cfg(64, 32, 32, 8, 5, 2), cfg(32, 64, 32, 8, 5, 2), cfg(128, 128, 64, 8, 3, 8),
               cfg(256, 128, 64, 8, 3, 8)]

    @triton.autotune(configs=configs, key=["M", "N", "K"])
    @triton.jit
    def kernel(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr):
        pid = tl.program_id(0)
        tiles_m, tiles_n = tl.cdiv(M, BM), tl.cdiv(N, BN)
        # Tiles in groups of GROUP rows, so neighbouring programs share A and B tiles in L2.
        per_group = GROUP * tiles_n
        first_m = (pid // per_group) * GROUP
        rows_in_group = min(tiles_m - first_m, GROUP)
        tm = first_m + (pid % per_group) % rows_in_group
        tn = (pid % per_group) // rows_in_group
        offs_m = tm * BM + tl.arange(0, BM)
        offs_n = tn * BN + tl.arange(0, BN)
        offs_k = tl.arange(0, BK)
        pa = a + offs_m[:, None] * sam + offs_k[None, :] * sak
        pb = b + offs_k[:, None] * sbk + offs_n[None, :] * sbn
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for kk in range(0, tl.cdiv(K, BK)):
            k_left = K - kk * BK
            ta = tl.load(pa, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
            tb = tl.load(pb, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
            acc = tl.dot(ta, tb, acc)
            pa += BK * sak
            pb += BK * sbk
        pc = c + offs_m[:, None] * scm + offs_n[None, :] * scn
        tl.store(pc, acc.to(c.dtype.element_ty), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))

    def matmul(a, b, out):
        M, K = a.shape
        N = b.shape[1]
        grid = lambda meta: (triton.cdiv(M, meta["BM"]) * triton.cdiv(N, meta["BN"]),)  # noqa: E731
        kernel[grid](a, b, out, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                     out.stride(0), out.stride(1))
        return out

    return matmul, None


def bench_shape(kind, m, n, k, layout, triton_mm, with_triton):
    a, b = operands(m, n, k, layout)
    want = torch.matmul(a, b)
    out_k = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    out_t = torch.empty_like(out_k)
    t0 = time.perf_counter()
    ktune.matmul(a, b, out=out_k)  # the first call compiles (or reads the cubin cache)
    torch.cuda.synchronize()
    first_s = time.perf_counter() - t0
    err = rel_err(out_k, want)
    source = ktune.explain_matmul(a, b)["how"]
    fns = [lambda: ktune.matmul(a, b, out=out_k), lambda: torch.matmul(a, b, out=out_t)]
    tri_auto_s, tri_err = "-", "-"
    if with_triton:
        out_x = torch.empty_like(out_k)
        t0 = time.perf_counter()
        triton_mm(a, b, out_x)  # autotunes: compiles and times every configuration
        torch.cuda.synchronize()
        tri_auto_s = "%.2f" % (time.perf_counter() - t0)
        tri_err = "%.2e" % rel_err(out_x, want)
        fns.append(lambda: triton_mm(a, b, out_x))
    times = in_turns(fns)
    flop = 2.0 * m * n * k
    tri_ratio = "%.3f" % (times[2] / times[0]) if with_triton else "-"
    row(kind, m, n, k, layout, source, "%.4f" % times[0], "%.4f" % times[1],
        "%.1f" % (flop / times[0] / 1e9), "%.3f" % (times[1] / times[0]), "%.2e" % err,
        "%.2f" % first_s, tri_ratio, tri_auto_s, tri_err)
    return times[1] / times[0], source, err


def overhead_us(fn, n=2000):
    """Host time per call of a tiny problem: the launch path, not the kernel."""
    for _ in range(50):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        samples.append((time.perf_counter() - t0) / n * 1e6)
        torch.cuda.synchronize()
    return min(samples)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=220, help="stop adding shapes after this")
    p.add_argument("--triton-shapes", type=int, default=6,
                   help="shapes that also run the Triton matmul (its autotuning costs seconds each)")
    args = p.parse_args()
    assert torch.cuda.is_available(), "needs a CUDA device"
    row("# device", torch.cuda.get_device_name(), "torch", torch.__version__,
        "ktune library", ktune.library_path())
    triton_mm, why = triton_matmul_factory()
    if triton_mm is None:
        row("# triton skipped:", why)
    row("kind", "m", "n", "k", "layout", "ktune_source", "ktune_ms", "torch_ms", "ktune_tflops",
        "speedup_vs_torch", "rel_err", "ktune_first_call_s", "triton_ms_over_ktune_ms",
        "triton_autotune_s", "triton_rel_err")

    # Overhead first: it needs seconds and is the figure least tied to shapes.
    a, b = operands(128, 128, 128, "nt")
    out = torch.empty(128, 128, device="cuda", dtype=torch.bfloat16)
    ov_k = overhead_us(lambda: ktune.matmul(a, b, out=out))
    ov_t = overhead_us(lambda: torch.matmul(a, b, out=out))
    row("# overhead 128^3 nt bf16 (us per call, host):", "ktune %.2f" % ov_k, "torch %.2f" % ov_t,
        "difference %.2f" % (ov_k - ov_t))

    plan = [("llm", m, n, k, lay) for m, n, k, lay in llm_shapes()]
    plan += [("untuned", m, n, k, "nt") for m, n, k in UNTUNED]
    plan += [("layout", 4096, 4096, 4096, lay) for lay in ("nn", "tn", "tt")]
    plan += [("layout", 100, 4096, 4096, lay) for lay in ("nn", "nt", "tn", "tt")]
    ratios, measured, worst, skipped = [], [], (math.inf, None), []
    triton_left = args.triton_shapes if triton_mm else 0
    for i, (kind, m, n, k, lay) in enumerate(plan):
        if time.perf_counter() - START > args.seconds:
            skipped = plan[i:]
            break
        # Triton on an even spread of the plan, not only its first shapes.
        with_triton = triton_left > 0 and i % max(1, len(plan) // max(args.triton_shapes, 1)) == 0
        triton_left -= with_triton
        ratio, source, err = bench_shape(kind, m, n, k, lay, triton_mm, with_triton)
        ratios.append(ratio)
        if source == "exact":
            measured.append(ratio)
            worst = min(worst, (ratio, (m, n, k, lay)))
    geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    row("# shapes", len(ratios), "geomean ktune/torch speed %.3f" % geo,
        "measured-answer shapes %d, lowest %.3f at %s" % (len(measured), worst[0], worst[1])
        if measured else "no shape had a measured (exact) answer")
    if skipped:
        row("# not run (time limit):", " ".join("%s:%dx%dx%d:%s" % s for s in skipped))
    row("# wall %.1f s" % (time.perf_counter() - START))


if __name__ == "__main__":
    sys.exit(main())
