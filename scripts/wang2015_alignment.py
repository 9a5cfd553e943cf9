"""Wang et al. (2015), Fig. 3: the target alignment of each individual base kernel on the
unlabeled points, label-aware vectors vs the unsupervised eigenvectors.

For every base vector ``v`` the rank-one kernel ``v v^T`` is restricted to the unlabeled
points, and its centered alignment (Cortes et al. 2010) with the labels of those points is
recorded.  Per data set (Text, USPS, COIL, BCI of the SSL book, as in the figure):

* **label-aware** — ``u_k = D^{-1} K_nl y_k``, k = 1..c (Alg. 1 step 2,
  :func:`sskernels.learners.embedding.label_aware_vectors`), at the unlabeled points;
* **laplacian** — the 10 % n smoothest eigenvectors of the normalized graph Laplacian of the
  Gaussian kernel (the largest of ``S = D^{-1/2} K D^{-1/2}``), what Sec. 4.3.1 and its
  footnote 2 say the figure compares with;
* **kernel** — the 10 % n dominant eigenvectors of the Gaussian kernel matrix itself (the
  figure caption's "traditional kernel eigenvectors"; the basis of Table 2).

Eigenvectors are computed once per data set over all n points (exactly: the Nystrom method with
every row a landmark, :func:`sskernels.kernels.spectra.nystrom_spectrum`), ordered by
eigenvalue, and only restricted to each split's unlabeled rows.

Score ("alignment", what is plotted): as the caption says, the mean over the c classes of the
centered alignment of ``v v^T`` with ``y_k y_k^T`` (``y_k`` the 0/1 indicator of class k on the
unlabeled points), i.e. the mean squared correlation of v with the class indicators.  Also
recorded ("ideal_alignment"): the centered alignment with the ideal kernel
(:func:`sskernels.kernels.alignment.ideal_kernel`, simplex target); both are equal for c = 2.

Protocol chosen (the paper gives no Fig. 3 specifics): Gaussian kernel ``exp(-b ||x - z||^2)``
with ``b = b0`` (1 / mean squared pairwise distance, Sec. 4.1), raw features, Euclidean
distances; 50 labeled points per class (Sec. 4.1: BCI 100, COIL 300 in all); 30 seeded
per-class splits (Sec. 4.1's repetitions), mean and std over splits.

Writes ``results/wang2015/figure3_alignment.{png,csv}``.

    python scripts/wang2015_alignment.py [--splits 30] [--out results/wang2015] [--b-scale 1]
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

import numpy as np

from sskernels.data import load_dataset
from sskernels.experiment.splits import make_splits
from sskernels.kernels.alignment import alignment_terms, ideal_kernel
from sskernels.kernels.rbf import mean_squared_distance, squared_distances
from sskernels.kernels.spectra import nystrom_spectrum
from sskernels.learners.embedding import gaussian_width, label_aware_vectors

OUT = Path(__file__).resolve().parents[1] / "results" / "wang2015"

#: the figure's panels: (data set name, panel title)
DATASETS = (
    ("text-sslbook", "(a) Text"),
    ("usps-sslbook", "(b) USPS"),
    ("coil", "(c) COIL"),
    ("bci", "(d) BCI"),
)
BASES = ("label-aware", "laplacian", "kernel")
PER_CLASS = 50
N_SPLITS = 30
FRACTION = 0.1  # eigenvectors per basis: 10 % of n (Sec. 4.1)
SEED = 0
CSV_COLUMNS = (
    "dataset",
    "basis",
    "index",
    "eigenvalue",
    "alignment_mean",
    "alignment_std",
    "ideal_alignment_mean",
    "ideal_alignment_std",
    "n",
    "n_labeled",
    "n_classes",
    "b",
    "n_splits",
)


def vector_alignments(V, y_enc, n_classes):
    """Centered alignment of each rank-one kernel ``v v^T`` (the columns of V, (s, m)) with
    the labels y_enc (s,) of the same points.  Returns ``(per_class_mean, ideal)``, each (m,):
    the mean over classes k of ``A(v v^T, y_k y_k^T)`` (y_k the class indicator), and
    ``A(v v^T, T)`` with T the simplex ideal kernel.  A constant vector scores 0."""
    V = np.asarray(V, dtype=float)
    Vc = V - V.mean(axis=0)
    C = (np.asarray(y_enc)[:, None] == np.arange(n_classes)[None, :]).astype(float)
    Cc = C - C.mean(axis=0)
    vv = np.einsum("ij,ij->j", Vc, Vc)  # ||v_c||^2 = ||H v v^T H||_F
    cc = np.einsum("ij,ij->j", Cc, Cc)  # ||y_kc||^2 = ||H y_k y_k^T H||_F
    with np.errstate(divide="ignore", invalid="ignore"):
        per_class = (Cc.T @ Vc) ** 2 / (cc[:, None] * vv[None, :])
        # <v_c v_c^T, T> = v_c^T T v_c (= alignment_terms' a on centered vectors) over ||H T H||
        T = ideal_kernel(y_enc, n_classes)
        Tc = T - T.mean(axis=0) - T.mean(axis=1)[:, None] + T.mean()
        ideal = alignment_terms(Vc, C)[1] / (vv * np.linalg.norm(Tc))
    ok = vv > 1e-12 * max(vv.max(), 1e-300)
    return (
        np.where(ok, np.nan_to_num(per_class.mean(axis=0)), 0.0),
        np.where(ok, np.nan_to_num(ideal), 0.0),
    )


def eigenbases(X, b, k, metric="euclidean"):
    """``{basis: (eigenvalues (k,), V (n, k))}``: the exact top-k eigenpairs of the Gaussian
    kernel ``exp(-b d^2)`` over all rows ("kernel") and of ``D^{-1/2} K D^{-1/2}`` ("laplacian":
    the smallest of the normalized Laplacian), largest eigenvalue first."""
    every = np.arange(X.shape[0])
    out = {}
    for basis, normalized in (("laplacian", True), ("kernel", False)):
        spec, V = nystrom_spectrum(X, gaussian_width(b), every, k, metric, normalized=normalized)
        out[basis] = (spec.values, V)
    return out


def alignment_experiment(
    X,
    y,
    per_class=PER_CLASS,
    n_splits=N_SPLITS,
    fraction=FRACTION,
    b_scale=1.0,
    seed=SEED,
    metric="euclidean",
):
    """Fig. 3's numbers on one data set (X (n, d) dense or sparse, y (n,) any labels).

    Returns a dict: ``b``, ``n``, ``n_classes``, ``n_labeled``, ``splits`` (labeled indices),
    ``eigenvalues`` {basis: (k,)}, and ``alignment`` / ``ideal_alignment``
    {basis: (n_splits, m)} (m = c label-aware vectors, k eigenvectors), on the unlabeled points.
    """
    classes, y_enc = np.unique(np.asarray(y), return_inverse=True)
    y_enc = y_enc.ravel()
    c, n = classes.size, X.shape[0]
    b = b_scale / mean_squared_distance(X, metric)
    k = max(1, int(np.ceil(fraction * n)))
    eig = eigenbases(X, b, k, metric)  # label-independent: once per data set
    D2 = squared_distances(X, None, metric)  # (n, n), sliced per split
    splits = make_splits(y_enc, "per-class", n_splits, per_class=[per_class] * c, seed=seed)
    res = {basis: ([], []) for basis in BASES}
    for labeled in splits:
        unl = np.setdiff1d(np.arange(n), labeled)
        Y_L = (y_enc[labeled][:, None] == np.arange(c)[None, :]).astype(float)
        vectors = {"label-aware": label_aware_vectors(D2[np.ix_(unl, labeled)], Y_L, b)}
        vectors.update({basis: V[unl] for basis, (_, V) in eig.items()})
        for basis in BASES:
            a, t = vector_alignments(vectors[basis], y_enc[unl], c)
            res[basis][0].append(a)
            res[basis][1].append(t)
    return {
        "b": b,
        "n": n,
        "n_classes": c,
        "n_labeled": per_class * c,
        "splits": splits,
        "eigenvalues": {basis: eig[basis][0] for basis in eig},
        "alignment": {basis: np.array(res[basis][0]) for basis in BASES},
        "ideal_alignment": {basis: np.array(res[basis][1]) for basis in BASES},
    }


def csv_rows(name, r):
    """The plotted numbers of one data set, one row per (basis, vector): CSV_COLUMNS."""
    rows = []
    for basis in BASES:
        A, T = r["alignment"][basis], r["ideal_alignment"][basis]
        ev = r["eigenvalues"].get(basis)
        for j in range(A.shape[1]):
            rows.append(
                {
                    "dataset": name,
                    "basis": basis,
                    "index": j + 1,
                    "eigenvalue": "" if ev is None else f"{ev[j]:.6g}",
                    "alignment_mean": f"{A[:, j].mean():.6f}",
                    "alignment_std": f"{A[:, j].std():.6f}",
                    "ideal_alignment_mean": f"{T[:, j].mean():.6f}",
                    "ideal_alignment_std": f"{T[:, j].std():.6f}",
                    "n": r["n"],
                    "n_labeled": r["n_labeled"],
                    "n_classes": r["n_classes"],
                    "b": f"{r['b']:.6g}",
                    "n_splits": A.shape[0],
                }
            )
    return rows


def write_csv(path, rows):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CSV_COLUMNS)
        w.writeheader()
        w.writerows(rows)


STYLE = {
    "label-aware": dict(color="tab:blue", marker="o", ms=6, label="label-aware vectors"),
    "laplacian": dict(color="tab:red", marker="x", ms=4, label="normalized-Laplacian eigenvectors"),
    "kernel": dict(color="0.45", marker=".", ms=4, label="kernel-matrix eigenvectors"),
}


def plot(results, path, b_scale=1.0):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(11, 8))
    for ax, (name, title) in zip(axes.ravel(), DATASETS):
        r = results[name]
        for basis in ("kernel", "laplacian", "label-aware"):
            A = r["alignment"][basis]
            x = np.arange(1, A.shape[1] + 1)
            ax.errorbar(
                x,
                A.mean(axis=0),
                yerr=A.std(axis=0),
                ls="none",
                capsize=0,
                elinewidth=0.6,
                **STYLE[basis],
            )
        ax.set_title(f"{title} ({r['n_classes']} classes; n = {r['n']}, l = {r['n_labeled']})")
        ax.set_xlabel("base vector (eigenvectors by eigenvalue)")
        ax.set_ylabel("alignment on unlabeled points")
        top = max((r["alignment"][bs].mean(0) + r["alignment"][bs].std(0)).max() for bs in BASES)
        ax.set_ylim(0.0, 1.1 * top)
        ax.grid(alpha=0.3)
    axes[0, 0].legend(loc="upper right", fontsize=8)
    b = "b0" if b_scale == 1 else f"{b_scale:g} b0"
    n_splits = results[DATASETS[0][0]]["alignment"]["kernel"].shape[0]
    fig.suptitle(
        "Wang et al. 2015, Fig. 3: alignment of each rank-one base kernel with the "
        f"targets (mean over classes),\nb = {b}, 50 labeled per class, mean ± std over "
        f"{n_splits} splits; label-aware at x = 1..c",
        fontsize=11,
    )
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--splits", type=int, default=N_SPLITS)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument(
        "--b-scale",
        type=float,
        default=1.0,
        help="b = this x b0 (default 1; a sensitivity check, not the figure)",
    )
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    results, rows = {}, []
    for name, _ in DATASETS:
        t = time.perf_counter()
        ds = load_dataset(name, preprocess="none")
        r = results[name] = alignment_experiment(
            ds.X, ds.y, n_splits=args.splits, b_scale=args.b_scale
        )
        rows += csv_rows(name, r)
        A = r["alignment"]
        eig = "  ".join(
            f"{basis}: best {A[basis].mean(0).max():.3f}, mean {A[basis].mean():.3f}"
            for basis in ("laplacian", "kernel")
        )
        print(
            f"{name:13s} b = {r['b']:.3g}  label-aware {A['label-aware'].mean():.3f}  {eig}"
            f"  ({time.perf_counter() - t:.1f} s)"
        )
    write_csv(args.out / "figure3_alignment.csv", rows)
    plot(results, args.out / "figure3_alignment.png", args.b_scale)
    print(f"wrote {args.out / 'figure3_alignment.png'} and .csv ({time.perf_counter() - t0:.1f} s)")


if __name__ == "__main__":
    main()
