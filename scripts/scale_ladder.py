"""The scale ladder (``make bench-scale``): time and peak memory per stage.

For each data set (SecStr subsets; 50-dimensional Gaussian blobs) and each size n, every
stage runs in a process of its own (so its peak resident memory, ``ru_maxrss``, is its own;
the ``load`` stage, which only loads the data, is the baseline) with one BLAS thread:

========  =====================================  =============================================
stage     ours                                   floor (the same work by a bare library call)
========  =====================================  =============================================
graph     ``sskernels.graph.knn_graph`` (k = 10,  hnswlib: index build + one (k+1)-NN query of
          Hein-Maier weights, ties, recall)       every point, nothing else
spectrum  ``laplacian_spectrum(W, m)`` (m = 100,  ``eigsh(S, m, which="LA")`` on the same S
          residual checked)
solve     harmonic + consistency fits on the     Jacobi-preconditioned CG on ``L_UU`` and on
          precomputed graph (100 labels)          ``I - alpha S``, one column per class
peer      scikit-learn ``LabelSpreading``        (none: the peer builds its own k-NN graph)
          (kernel="knn", k = 10), graph included
========  =====================================  =============================================

Writes ``OUT.csv`` (one row per data set, n, stage, implementation: seconds, peak MB),
``OUT.md`` (the ladder, ours / floor per stage, and each stage's fitted exponent
``seconds ~ n^e`` over the sizes) and ``OUT.png`` (log-log).  Timings on this shared
machine are noisy: the ratios, taken in the same run, are what to read.  The solve stages,
ours and the floor alike, time a second call in their process after an untimed first one
(its seconds in the row's detail, ``cold_seconds``): see :func:`_warm`.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

K = 10
M = 100
N_LABELED = 100
ALPHA = 0.99
SEED = 0
#: scikit-learn's LabelSpreading (brute-force k-NN in every fit) is not run above this size
PEER_MAX_N = 200_000


# ---------------------------------------------------------------------------- one stage


def _data(name, n, cache=None):
    """The first n points of a fixed (seeded) permutation of the data set (secstr-extra: of
    SecStr's 83,679 points and its 1,189,472 extra ones, labels -1 for the extra ones; the
    subset is kept in ``cache`` by the ``load`` stage, so that the other stages' peak memory
    is theirs, not that of loading all 1.27 M points)."""
    if name == "secstr-extra":
        import scipy.sparse as sp

        from sskernels.data import load_dataset

        xfile, yfile = (
            (None, None)
            if cache is None
            else (Path(cache) / f"{name}_{n}_X.npz", Path(cache) / f"{name}_{n}_y.npy")
        )
        if xfile is not None and xfile.exists():
            return sp.load_npz(xfile), np.load(yfile)
        ds = load_dataset("secstr-extra-100")
        X = sp.vstack([ds.X, ds.X_extra], format="csr")
        y = np.r_[np.searchsorted(np.unique(ds.y), ds.y), np.full(ds.X_extra.shape[0], -1)]
        perm = np.random.default_rng(SEED).permutation(X.shape[0])[:n]
        X, y = X[perm], y[perm]
        if xfile is not None:
            sp.save_npz(xfile, X)
            np.save(yfile, y)
        return X, y
    if name == "secstr":
        from sskernels.data import load_dataset

        ds = load_dataset("secstr-100")
        X, y = ds.X, np.asarray(ds.y)
        perm = np.random.default_rng(SEED).permutation(X.shape[0])[:n]
        return X[perm], y[perm]
    rng = np.random.default_rng(SEED)
    centers = rng.normal(scale=2.0, size=(2, 50))
    y = rng.integers(0, 2, size=n)
    return centers[y] + rng.normal(size=(n, 50)), y


def _labels(y):
    """N_LABELED labels, half from each of the first two classes (never an extra point, -1)."""
    rng = np.random.default_rng(SEED + 1)
    yp = np.full(y.size, -1)
    classes = np.unique(y[y >= 0])
    idx = np.concatenate(
        [rng.choice(np.flatnonzero(y == c), N_LABELED // 2, replace=False) for c in classes[:2]]
    )
    yp[idx] = np.searchsorted(classes, y[idx])
    return yp


def _stage(stage, impl, name, n, cache):
    import scipy.sparse as sp
    from threadpoolctl import threadpool_limits

    X, y = _data(name, n, cache)
    wfile = Path(cache) / f"{name}_{n}_W.npz"
    info = {}
    with threadpool_limits(1):
        t0 = time.perf_counter()
        if stage == "load":
            pass
        elif (stage, impl) == ("graph", "ours") and name == "secstr-extra":
            from sskernels.graph.descent import descent_knn_graph

            W, _, _, knn = descent_knn_graph(X, K, weights="hein-maier")
            sp.save_npz(wfile, W)
            info.update(
                edges_per_row=W.nnz / n,
                recall=knn["recall"],
                recall_rows=knn["recall_rows"],
                search_seconds=knn["search_seconds"],
            )
        elif (stage, impl) == ("graph", "floor") and name == "secstr-extra":
            from pynndescent import NNDescent

            from sskernels.graph.descent import symbol_codes

            T = symbol_codes(X)
            t0 = time.perf_counter()  # the codes are ours; the floor is the index's pass
            _ = NNDescent(
                T,
                metric="hamming",
                n_neighbors=6 * K + 1,
                random_state=SEED,
                n_jobs=2,
                low_memory=True,
                compressed=True,
            ).neighbor_graph
        elif (stage, impl) == ("graph", "ours"):
            from sskernels.graph import knn_graph

            W = knn_graph(X, k=K)[0]
            sp.save_npz(wfile, W)
            info["edges_per_row"] = W.nnz / n
        elif (stage, impl) == ("graph", "floor"):
            import hnswlib

            Z = X.toarray() if sp.issparse(X) else X
            Z = np.ascontiguousarray(Z, dtype=np.float32)
            index = hnswlib.Index(space="l2", dim=Z.shape[1])
            index.init_index(max_elements=n, ef_construction=200, M=16, random_seed=SEED)
            index.set_num_threads(1)
            index.add_items(Z)
            index.set_ef(2 * (K + 1))
            index.knn_query(Z, k=K + 1)
        elif (stage, impl) == ("spectrum", "ours"):
            from sskernels.graph.laplacian import laplacian_spectrum

            spec = laplacian_spectrum(sp.load_npz(wfile), m=M)
            info["residual"] = spec.residual
        elif (stage, impl) == ("spectrum", "floor"):
            from scipy.sparse.linalg import eigsh

            from sskernels.graph.laplacian import normalized_adjacency

            S = normalized_adjacency(sp.load_npz(wfile))
            eigsh(S, k=M, which="LA", tol=1e-10, v0=np.random.default_rng(0).standard_normal(n))
        elif (stage, impl) == ("solve", "ours"):
            from sskernels.learners.propagation import Consistency, HarmonicFunction

            W = sp.load_npz(wfile)
            yp = _labels(y)

            def fits():
                for est in (
                    HarmonicFunction(graph="precomputed"),
                    Consistency(graph="precomputed", alpha=ALPHA),
                ):
                    est.fit(W, yp)
                return est

            t0 = _warm(fits, info)
            est = fits()
            info["solver"] = str(getattr(est, "fit_report_", ""))[:200]
        elif (stage, impl) == ("solve", "floor"):
            W, yp = sp.load_npz(wfile), _labels(y)
            t0 = _warm(lambda: _floor_solves(W, yp), info)
            _floor_solves(W, yp)
        elif (stage, impl) == ("peer", "ours"):
            from sklearn.semi_supervised import LabelSpreading

            peer_max = int(os.environ.get("SSKERNELS_LADDER_PEER_MAX_N", PEER_MAX_N))
            if n > peer_max:
                raise SystemExit(
                    f"not run above {peer_max:,} points: its brute-force k-NN "
                    f"search is quadratic (results/README.md)"
                )

            LabelSpreading(kernel="knn", n_neighbors=K, alpha=0.2).fit(X, _labels(y))
        else:
            raise ValueError(f"no stage {stage}/{impl}")
        seconds = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(json.dumps({"seconds": seconds, "peak_mb": peak, **info}, default=str))


def _warm(fn, info):
    """Run ``fn`` once untimed (its seconds kept as ``cold_seconds``) and return the time the
    timed run starts: the solve stages time a second, warm call, ours and the floor alike.
    A process's first fit pays one-time costs (lazy imports, first calls into scikit-learn's
    validation; ~0.2 s measured on SecStr 10,000, where the warm pair of fits takes 0.11 s)
    that are not part of a solve's cost and hid its growth at small n."""
    t = time.perf_counter()
    fn()
    info["cold_seconds"] = time.perf_counter() - t
    return time.perf_counter()


def _floor_solves(W, yp):
    """Jacobi-PCG on the harmonic system ``L_UU F_U = -L_UL Y_L`` and on ``(I - a S) F = Y``."""
    import scipy.sparse as sp
    from scipy.sparse.linalg import cg

    n = W.shape[0]
    d = np.asarray(W.sum(axis=1)).ravel()
    lab, unl = np.flatnonzero(yp >= 0), np.flatnonzero(yp < 0)
    Y = np.eye(yp.max() + 1)[yp[lab]]
    L = (sp.diags(d) - W).tocsr()
    LUU = L[unl][:, unl]
    B = -(L[unl][:, lab] @ Y)
    Mj = sp.diags(1.0 / LUU.diagonal())
    for j in range(Y.shape[1]):
        cg(LUU, B[:, j], rtol=1e-10, atol=0.0, M=Mj)
    dinv = np.where(d > 0, 1 / np.sqrt(d), 0.0)
    A = (sp.identity(n) - ALPHA * (sp.diags(dinv) @ W @ sp.diags(dinv))).tocsr()
    C = np.zeros((n, Y.shape[1]))
    C[lab] = Y
    Mj = sp.diags(1.0 / A.diagonal())
    for j in range(Y.shape[1]):
        cg(A, C[:, j], rtol=1e-10, atol=0.0, M=Mj)


# ---------------------------------------------------------------------------- the ladder

#: stages whose ours and floor ``--pairs`` runs at once (one BLAS thread each)
PAIRED = ("spectrum", "solve")
STAGES = [
    ("load", "ours"),
    ("graph", "ours"),
    ("graph", "floor"),
    ("spectrum", "ours"),
    ("spectrum", "floor"),
    ("solve", "ours"),
    ("solve", "floor"),
    ("peer", "ours"),
]


def _run(stage, impl, name, n, cache, timeout):
    cmd = [
        sys.executable,
        __file__,
        "--stage",
        stage,
        "--impl",
        impl,
        "--data",
        name,
        "--n",
        str(n),
        "--cache",
        cache,
    ]
    env = {
        **os.environ,
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"seconds": np.nan, "peak_mb": np.nan, "error": f"over {timeout:g} s"}
    if out.returncode != 0:
        last = (out.stderr.strip().splitlines() or ["?"])[-1]
        return {"seconds": np.nan, "peak_mb": np.nan, "error": last[:200]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def exponent(ns, secs):
    """Least-squares slope of log(seconds) on log(n) (NaN with fewer than two finite points)."""
    ns, secs = np.asarray(ns, float), np.asarray(secs, float)
    ok = np.isfinite(secs) & (secs > 0)
    if ok.sum() < 2:
        return np.nan
    return float(np.polyfit(np.log(ns[ok]), np.log(secs[ok]), 1)[0])


def _markdown(df, title):
    lines = [
        f"# {title}",
        "",
        "Seconds (one BLAS thread, each stage in a process of its own) and peak resident "
        "memory (MB, the process's; the `load` stage is the baseline). ours / floor: the "
        f"ratio in the same run. k = {K}, m = {M} eigenpairs, {N_LABELED} labels. "
        "Exponent: the least-squares slope of log seconds on log n. secstr-extra: the "
        "first n of a seeded permutation of SecStr's points and its 1,189,472 extra ones; "
        "its graph by NN-descent on two threads (ours: sskernels.graph.descent with the "
        "exact re-ranking and the recall on 2,000 points; floor: pynndescent's own pass "
        f"with the same {6 * K + 1} candidates), its spectrum and solve stages, ours and "
        "the floor, run at the same time on the two cores (--pairs); the peer is not run "
        f"above {PEER_MAX_N:,} points.",
        "",
    ]
    for name, g in df.groupby("data", sort=False):
        ns = sorted(g["n"].unique())
        lines += [
            f"## {name}",
            "",
            "| stage | " + " | ".join(f"n = {n:,}" for n in ns) + " | exponent |",
            "|---|" + "---|" * (len(ns) + 1),
        ]
        for (stage, impl), h in g.groupby(["stage", "impl"], sort=False):
            h = h.set_index("n")
            cells = []
            for n in ns:
                if n not in h.index:
                    cells.append("not run")
                    continue
                s, mb = h.at[n, "seconds"], h.at[n, "peak_mb"]
                cell = "—" if not np.isfinite(s) else f"{s:.2f} s, {mb:.0f} MB"
                if impl == "ours" and stage in ("graph", "spectrum", "solve"):
                    floor = g[(g.stage == stage) & (g.impl == "floor") & (g.n == n)]
                    if len(floor) and np.isfinite(floor.seconds.iloc[0]) and np.isfinite(s):
                        cell += f" ({s / floor.seconds.iloc[0]:.1f}× floor)"
                cells.append(cell)
            e = exponent(h.index, h["seconds"])
            lines.append(
                f"| {stage} ({impl}) | "
                + " | ".join(cells)
                + f" | {'' if not np.isfinite(e) else f'{e:.2f}'} |"
            )
        errs = g[g["error"].astype(str).str.len() > 0] if "error" in g else g.iloc[:0]
        for r in errs.itertuples():
            lines.append(f"\n- {r.stage} ({r.impl}) at n = {r.n:,}: {r.error}")
        lines.append("")
    return "\n".join(lines) + "\n"


def _plot(df, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(df["data"].unique())
    fig, axes = plt.subplots(1, len(names), figsize=(6 * len(names), 4.5), squeeze=False)
    for ax, name in zip(axes[0], names):
        g = df[(df["data"] == name) & (df["stage"] != "load")]
        for (stage, impl), h in g.groupby(["stage", "impl"], sort=False):
            ax.loglog(
                h["n"], h["seconds"], "o-" if impl == "ours" else "s--", label=f"{stage} ({impl})"
            )
        ax.set_title(name)
        ax.set_xlabel("n")
        ax.set_ylabel("seconds")
        if len(g):  # the load stage alone has nothing to plot
            ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--sizes",
        default="2000,5000,10000,20000,50000,83679",
        help="comma-separated n (SecStr has 83,679 points)",
    )
    ap.add_argument(
        "--data",
        default="secstr,blobs",
        help="comma-separated: secstr, blobs, secstr-extra (SecStr with its extra "
        "points: sizes up to 1,273,151, graph by NN-descent)",
    )
    ap.add_argument(
        "--pairs",
        action="store_true",
        help="run the one-thread spectrum and solve stages, ours and the floor, at "
        "the same time on two cores (the graph stages, two-threaded, alone)",
    )
    ap.add_argument(
        "--merge",
        action="store_true",
        help="keep the rows already in OUT.csv of other data sets, sizes and stages",
    )
    ap.add_argument(
        "--stages",
        default=None,
        help="comma-separated stages to run (default: all; the solve stage needs "
        "the graph stage of the same run)",
    )
    ap.add_argument(
        "--peer-max-n",
        type=int,
        default=PEER_MAX_N,
        help="the largest n the peer (LabelSpreading) is run at",
    )
    ap.add_argument("--out", default="results/scale/ladder", help="output stem")
    ap.add_argument("--timeout", type=float, default=900, help="seconds allowed per stage")
    ap.add_argument("--stage"), ap.add_argument("--impl"), ap.add_argument("--n", type=int)
    ap.add_argument("--cache")
    args = ap.parse_args(argv)
    if args.stage:
        return _stage(args.stage, args.impl, args.data, args.n, args.cache)

    import pandas as pd

    from sskernels.experiment.records import atomic_write_text

    from concurrent.futures import ThreadPoolExecutor

    rows = []

    def record(name, n, stage, impl, r):
        rows.append(
            {
                "data": name,
                "n": n,
                "stage": stage,
                "impl": impl,
                "seconds": r.get("seconds"),
                "peak_mb": r.get("peak_mb"),
                "error": r.get("error", ""),
                "detail": json.dumps(
                    {k: v for k, v in r.items() if k not in ("seconds", "peak_mb", "error")}
                ),
            }
        )
        print(
            f"{name:7} n={n:6} {stage:9} {impl:6} "
            f"{r.get('seconds', float('nan')):9.2f} s "
            f"{r.get('peak_mb', float('nan')):8.0f} MB {r.get('error', '')}",
            flush=True,
        )

    os.environ["SSKERNELS_LADDER_PEER_MAX_N"] = str(args.peer_max_n)
    wanted = None if args.stages is None else set(args.stages.split(","))
    with tempfile.TemporaryDirectory() as cache, ThreadPoolExecutor(2) as pool:
        for name in args.data.split(","):
            for n in [int(s) for s in args.sizes.split(",")]:
                for stage, impl in STAGES:
                    if wanted is not None and stage not in wanted:
                        continue
                    if args.pairs and stage in PAIRED:
                        if impl == "ours":  # ours and the floor at once, one core each
                            futs = {
                                i: pool.submit(_run, stage, i, name, n, cache, args.timeout)
                                for i in ("ours", "floor")
                            }
                            for i, fut in futs.items():
                                record(name, n, stage, i, fut.result())
                        continue
                    record(name, n, stage, impl, _run(stage, impl, name, n, cache, args.timeout))
    df = pd.DataFrame(rows)
    out = Path(args.out)
    if args.merge and Path(f"{out}.csv").exists():
        old = pd.read_csv(f"{out}.csv", keep_default_na=False, na_values=[""])
        ran = set(zip(df["data"], df["n"], df["stage"]))
        old = old[[(d, n, s) not in ran for d, n, s in zip(old["data"], old["n"], old["stage"])]]
        df = pd.concat([old, df], ignore_index=True)
        df["error"] = df["error"].fillna("")
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(f"{out}.csv", df.to_csv(index=False, float_format="%.4g"))
    atomic_write_text(f"{out}.md", _markdown(df, "Scale ladder"))
    _plot(df, f"{out}.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
