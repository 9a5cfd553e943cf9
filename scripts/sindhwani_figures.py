"""Figures 11.4, 11.6 and 11.8 of Sindhwani, Belkin & Niyogi, "The geometric basis of
semi-supervised learning", on the seeded toy data of :mod:`sskernels.data.synthetic`.

Writes, under ``results/sindhwani/``:

* ``fig11_4_lapsvm_moons.png`` — LapSVM on two moons with one labeled point per
  class, ``gamma_A = 1e-6`` and increasing ``gamma_I`` (0 = the supervised SVM).
* ``fig11_6_regularized_clustering.png`` — regularized spectral clustering,
  eq. (11.12)-(11.13), on two moons: cluster colours and the zero level set of the
  out-of-sample eigenfunction ``f`` for increasing ``gamma_A`` (``gamma_I = 1``).
* ``fig11_8_deformed_kernel.png`` — two circles with one labeled point per circle:
  top row the Gaussian kernel ``K(x_l, .)`` at each labeled point and the RLS
  boundary with it; bottom row the deformed kernel ``K~(x_l, .)`` of eq. (11.15)
  (:func:`sskernels.kernels.deformed.deformed_kernel`) and the RLS boundary with
  ``K~`` (= LapRLS, eq. (11.16)), with the LapSVM boundary dashed.

The numbers the figures show (accuracies on the unlabeled points, ARI) are printed.
The ``*_experiment`` functions compute everything without plotting (tested in
``tests/test_synthetic.py``).

    python scripts/sindhwani_figures.py
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from sklearn.metrics import adjusted_rand_score

from sskernels.data.synthetic import two_circles, two_moons
from sskernels.graph import KNNGraph
from sskernels.kernels.deformed import deformed_kernel, intrinsic_matrix
from sskernels.kernels.rbf import rbf, squared_distances
from sskernels.learners.manifold import LapRLS, LapSVM
from sskernels.learners.spectral_clustering import RegularizedSpectralClustering

OUT = Path(__file__).resolve().parents[1] / "results" / "sindhwani"

#: Fig. 11.4 settings: the chapter's gamma_I values; gamma_A small (the package's
#: graph term is gamma_I / (u+l)^2 f^T L f, so only gamma_I / (gamma_A (u+l)^2) matters)
MOONS_GAMMA_A = 1e-6
MOONS_GAMMA_I = (0.0, 0.01, 1.0)
MOONS_WIDTH = 0.25
#: Fig. 11.6 settings
CLUSTER_WIDTH = 0.5
CLUSTER_NEIGHBORS = 6
CLUSTER_GAMMA_A = (1e-6, 1e-2, 1.0)
#: Fig. 11.8 settings
CIRCLES_WIDTH = 0.25
CIRCLES_GAMMA_A = 1e-6
CIRCLES_GAMMA_I = 1.0


# ----------------------------------------------------------------------------- helpers


def nearest_of_class(X, y, cls, target):
    """Index of the point of class ``cls`` nearest to ``target``."""
    d = np.linalg.norm(X - np.asarray(target, dtype=float), axis=1)
    d[y != cls] = np.inf
    return int(np.argmin(d))


def partial_labels(y, labeled):
    """``y`` with every point but ``labeled`` set to -1 (the package's 'unlabeled')."""
    yp = -np.ones_like(y)
    yp[labeled] = y[labeled]
    return yp


def unlabeled_accuracy(pred, y, labeled):
    mask = np.ones(y.size, bool)
    mask[labeled] = False
    return float(np.mean(pred[mask] == y[mask]))


def make_grid(X, steps=150, margin=0.3):
    """A ``steps x steps`` grid around ``X``: ``(xx, yy, points)``."""
    lo, hi = X.min(axis=0) - margin, X.max(axis=0) + margin
    xx, yy = np.meshgrid(np.linspace(lo[0], hi[0], steps), np.linspace(lo[1], hi[1], steps))
    return xx, yy, np.column_stack([xx.ravel(), yy.ravel()])


# ----------------------------------------------------------------------------- experiments


def lapsvm_moons_experiment(
    gamma_Is=MOONS_GAMMA_I, gamma_A=MOONS_GAMMA_A, kernel_width=MOONS_WIDTH, grid_steps=150, seed=0
):
    """LapSVM on two moons with one label per class (middle of each moon), per ``gamma_I``.

    Returns a dict: ``X, y, labeled, grid`` (xx, yy, points) and ``runs``, a list of
    dicts ``gamma_I, model, accuracy`` (on the unlabeled points), ``F`` (f on the grid).
    """
    X, y = two_moons(seed=seed)
    labeled = np.array(
        [nearest_of_class(X, y, 0, (0.0, 1.0)), nearest_of_class(X, y, 1, (1.0, -0.5))]
    )
    yp = partial_labels(y, labeled)
    xx, yy, G = make_grid(X, grid_steps) if grid_steps is not None else (None, None, None)
    runs = []
    for gI in gamma_Is:
        m = LapSVM(gamma_A=gamma_A, gamma_I=gI, kernel_width=kernel_width).fit(X, yp)
        runs.append(
            {
                "gamma_I": gI,
                "model": m,
                "accuracy": unlabeled_accuracy(m.transduction_, y, labeled),
                "F": None if grid_steps is None else m.decision_function(G).reshape(xx.shape),
            }
        )
    return {
        "X": X,
        "y": y,
        "labeled": labeled,
        "grid": (xx, yy, G),
        "runs": runs,
        "gamma_A": gamma_A,
        "kernel_width": kernel_width,
    }


def clustering_moons_experiment(
    gamma_As=CLUSTER_GAMMA_A,
    gamma_I=1.0,
    kernel_width=CLUSTER_WIDTH,
    n_neighbors=CLUSTER_NEIGHBORS,
    grid_steps=150,
    seed=0,
):
    """Regularized spectral clustering of two moons, per ``gamma_A``.

    ``runs``: dicts ``gamma_A, model, ari`` (adjusted Rand index against the moons),
    ``F`` (the eigenfunction f on the grid; its zero level set is the cluster boundary).
    """
    X, y = two_moons(seed=seed)
    xx, yy, G = make_grid(X, grid_steps) if grid_steps is not None else (None, None, None)
    runs = []
    for gA in gamma_As:
        m = RegularizedSpectralClustering(
            n_clusters=2,
            random_state=0,
            gamma_A=gA,
            gamma_I=gamma_I,
            kernel_width=kernel_width,
            graph=KNNGraph(n_neighbors, weights="binary"),
        ).fit(X)
        runs.append(
            {
                "gamma_A": gA,
                "model": m,
                "ari": float(adjusted_rand_score(y, m.labels_)),
                "F": None if grid_steps is None else m.decision_function(G).reshape(xx.shape),
            }
        )
    return {
        "X": X,
        "y": y,
        "grid": (xx, yy, G),
        "runs": runs,
        "gamma_I": gamma_I,
        "kernel_width": kernel_width,
        "n_neighbors": n_neighbors,
    }


def deformed_kernel_experiment(
    kernel_width=CIRCLES_WIDTH,
    gamma_A=CIRCLES_GAMMA_A,
    gamma_I=CIRCLES_GAMMA_I,
    grid_steps=150,
    seed=0,
):
    """Gaussian vs deformed kernel (eq. (11.15)) on two circles, one label per circle.

    Returns ``X, y, labeled, grid`` and, on the grid, ``K_grid`` / ``Kt_grid`` (columns:
    ``K(., x_l)`` / ``K~(., x_l)`` for the two labeled points), ``F_base`` (RLS on the
    labeled points with ``K``), ``F_deformed`` (RLS with ``K~`` = LapRLS), ``F_lapsvm``;
    accuracies on the unlabeled points ``acc_base``, ``acc_deformed``, ``acc_laprls``,
    ``acc_lapsvm``, and ``laprls_gap`` = max |RLS-with-K~ - LapRLS| on the data.
    """
    X, y = two_circles(seed=seed)
    labeled = np.array(
        [nearest_of_class(X, y, 0, (0.0, 1.0)), nearest_of_class(X, y, 1, (0.0, 0.5))]
    )
    yp = partial_labels(y, labeled)
    t = np.where(y[labeled] == 1, 1.0, -1.0)  # +1 = class 1, as LapRLS
    l = labeled.size

    laprls = LapRLS(gamma_A=gamma_A, gamma_I=gamma_I, kernel_width=kernel_width).fit(X, yp)
    lapsvm = LapSVM(gamma_A=gamma_A, gamma_I=gamma_I, kernel_width=kernel_width).fit(X, yp)
    M = intrinsic_matrix(laprls.graph_, laprls.laplacian, laprls.laplacian_degree)
    K = rbf(squared_distances(X), kernel_width)
    K_L = K[labeled]

    def deformed(A_rows):
        """K~(A, labeled points) with A given by its base-kernel rows and K(A, labeled)."""
        K_a, K_ab = A_rows
        return deformed_kernel(K, M, gamma_A, gamma_I, K_a=K_a, K_b=K_L, K_ab=K_ab)

    Kt_LL = deformed((K_L, K_L[:, labeled]))
    a_base = np.linalg.solve(K_L[:, labeled] + gamma_A * l * np.eye(l), t)
    a_def = np.linalg.solve(Kt_LL + gamma_A * l * np.eye(l), t)

    Kt_X = deformed((K, K[:, labeled]))
    f_data = Kt_X @ a_def
    out = {
        "X": X,
        "y": y,
        "labeled": labeled,
        "acc_base": unlabeled_accuracy((K[:, labeled] @ a_base > 0).astype(int), y, labeled),
        "acc_deformed": unlabeled_accuracy((f_data > 0).astype(int), y, labeled),
        "acc_laprls": unlabeled_accuracy(laprls.transduction_, y, labeled),
        "acc_lapsvm": unlabeled_accuracy(lapsvm.transduction_, y, labeled),
        "laprls_gap": float(np.max(np.abs(f_data - laprls.decision_function(X)))),
    }
    if grid_steps is not None:
        xx, yy, G = make_grid(X, grid_steps)
        K_G = rbf(squared_distances(G, X), kernel_width)
        K_GL = rbf(squared_distances(G, X[labeled]), kernel_width)
        Kt_G = deformed((K_G, K_GL))
        out.update(
            grid=(xx, yy, G),
            K_grid=K_GL,
            Kt_grid=Kt_G,
            F_base=(K_GL @ a_base).reshape(xx.shape),
            F_deformed=(Kt_G @ a_def).reshape(xx.shape),
            F_lapsvm=lapsvm.decision_function(G).reshape(xx.shape),
        )
    return out


# ----------------------------------------------------------------------------- plotting

COLORS = np.array(["tab:red", "tab:blue"])


def _save(fig, path):
    """Atomic PNG write: a temporary file in the same directory, then os.replace."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.stem + ".", suffix=".tmp.png", dir=path.parent)
    os.close(fd)
    try:
        fig.savefig(tmp, format="png", dpi=110, bbox_inches="tight")
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _points(ax, X, y, labeled=None):
    ax.scatter(X[:, 0], X[:, 1], s=8, c="0.55", zorder=2)
    if labeled is not None:
        for i in labeled:
            ax.scatter(
                X[i, 0],
                X[i, 1],
                s=140,
                c=COLORS[y[i]],
                marker="P" if y[i] else "o",
                linewidths=3,
                edgecolors="k",
                zorder=4,
            )
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])


def plot_lapsvm_moons(res, path):
    import matplotlib.pyplot as plt

    xx, yy, _ = res["grid"]
    runs = res["runs"]
    fig, axes = plt.subplots(1, len(runs), figsize=(4.2 * len(runs), 3.4))
    for ax, r in zip(np.atleast_1d(axes), runs):
        F = r["F"]
        ax.contourf(xx, yy, F > 0, levels=[-0.5, 0.5, 1.5], colors=["#fbdada", "#d9e6fb"])
        ax.contour(xx, yy, F, levels=[0.0], colors="k", linewidths=2)
        _points(ax, res["X"], res["y"], res["labeled"])
        ax.set_title(
            f"LapSVM  $\\gamma_A$={res['gamma_A']:g}, $\\gamma_I$={r['gamma_I']:g}\n"
            f"unlabeled accuracy {100 * r['accuracy']:.1f}%",
            fontsize=10,
        )
    fig.suptitle(
        "Fig. 11.4: two moons, Laplacian SVM with increasing intrinsic "
        "regularization (one label per class)",
        fontsize=11,
    )
    _save(fig, path)
    plt.close(fig)


def plot_clustering_moons(res, path):
    import matplotlib.pyplot as plt

    xx, yy, _ = res["grid"]
    runs = res["runs"]
    fig, axes = plt.subplots(1, len(runs), figsize=(4.2 * len(runs), 3.4))
    X = res["X"]
    for ax, r in zip(np.atleast_1d(axes), runs):
        F = r["F"]
        ax.contourf(xx, yy, F > 0, levels=[-0.5, 0.5, 1.5], colors=["#fbdada", "#d9e6fb"])
        ax.contour(xx, yy, F, levels=[0.0], colors="k", linewidths=2)
        ax.scatter(X[:, 0], X[:, 1], s=10, c=COLORS[r["model"].labels_], zorder=2)
        ax.set_aspect("equal")
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_title(
            f"$\\gamma_A$={r['gamma_A']:g}, $\\gamma_I$={res['gamma_I']:g}: ARI {r['ari']:.3f}",
            fontsize=10,
        )
    fig.suptitle(
        "Fig. 11.6: two moons, regularized spectral clustering "
        f"(σ={res['kernel_width']:g}, k={res['n_neighbors']}); black: f = 0",
        fontsize=11,
    )
    _save(fig, path)
    plt.close(fig)


def plot_deformed_kernel(res, path):
    import matplotlib.pyplot as plt

    xx, yy, _ = res["grid"]
    X, y, lab = res["X"], res["y"], res["labeled"]
    fig, axes = plt.subplots(2, 3, figsize=(12, 8))
    rows = [
        ("Gaussian K", res["K_grid"], res["F_base"], res["acc_base"]),
        ("deformed K~", res["Kt_grid"], res["F_deformed"], res["acc_deformed"]),
    ]
    for row, (name, KG, F, acc) in zip(axes, rows):
        for j in range(2):
            ax = row[j]
            Z = KG[:, j].reshape(xx.shape)
            ax.contourf(xx, yy, Z, levels=20, cmap="viridis")
            ax.contour(xx, yy, Z, levels=10, colors="w", linewidths=0.5)
            _points(ax, X, y, lab[j : j + 1])
            ax.set_title(f"level sets of {name}(x{j + 1}, ·)", fontsize=10)
        ax = row[2]
        ax.contourf(xx, yy, F > 0, levels=[-0.5, 0.5, 1.5], colors=["#fbdada", "#d9e6fb"])
        ax.contour(xx, yy, F, levels=[0.0], colors="k", linewidths=2)
        if name.startswith("deformed"):
            ax.contour(
                xx,
                yy,
                res["F_lapsvm"],
                levels=[0.0],
                colors="tab:green",
                linewidths=1.5,
                linestyles="--",
            )
            title = (
                f"RLS with K~ (= LapRLS): {100 * acc:.1f}%\n"
                f"LapSVM (dashed green): {100 * res['acc_lapsvm']:.1f}%"
            )
        else:
            title = f"RLS with K on 2 labels: {100 * acc:.1f}%"
        _points(ax, X, y, lab)
        ax.set_title(title, fontsize=10)
    fig.suptitle(
        "Fig. 11.8: warping an RKHS — two circles, one labeled point per circle "
        "(accuracy on the unlabeled points)",
        fontsize=11,
    )
    _save(fig, path)
    plt.close(fig)


# ----------------------------------------------------------------------------- main


def main(out=OUT):
    import matplotlib

    matplotlib.use("Agg")
    out = Path(out)

    t = time.time()
    res = lapsvm_moons_experiment()
    plot_lapsvm_moons(res, out / "fig11_4_lapsvm_moons.png")
    print(
        f"Fig. 11.4  LapSVM on two moons, 1 label/class, gamma_A={res['gamma_A']:g}, "
        f"sigma={res['kernel_width']:g} ({time.time() - t:.1f} s)"
    )
    for r in res["runs"]:
        print(f"  gamma_I={r['gamma_I']:g}: unlabeled accuracy {100 * r['accuracy']:.1f}%")

    t = time.time()
    res = clustering_moons_experiment()
    plot_clustering_moons(res, out / "fig11_6_regularized_clustering.png")
    print(
        f"Fig. 11.6  regularized spectral clustering on two moons, gamma_I={res['gamma_I']:g}, "
        f"sigma={res['kernel_width']:g}, k={res['n_neighbors']} ({time.time() - t:.1f} s)"
    )
    for r in res["runs"]:
        print(f"  gamma_A={r['gamma_A']:g}: ARI {r['ari']:.3f}")

    t = time.time()
    res = deformed_kernel_experiment()
    plot_deformed_kernel(res, out / "fig11_8_deformed_kernel.png")
    print(
        f"Fig. 11.8  two circles, 1 label/circle, sigma={CIRCLES_WIDTH:g}, "
        f"gamma_A={CIRCLES_GAMMA_A:g}, gamma_I={CIRCLES_GAMMA_I:g} ({time.time() - t:.1f} s)"
    )
    print(f"  RLS with Gaussian K: {100 * res['acc_base']:.1f}%")
    print(
        f"  RLS with deformed K~: {100 * res['acc_deformed']:.1f}% "
        f"(LapRLS {100 * res['acc_laprls']:.1f}%, max |difference| {res['laprls_gap']:.1e})"
    )
    print(f"  LapSVM: {100 * res['acc_lapsvm']:.1f}%")


if __name__ == "__main__":
    sys.exit(main())
